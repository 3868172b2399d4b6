"""``amplifier-hooks hooks list`` marks the hooks of a module in observe mode."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli import invoke


def _bundle(tmp_path: Path, *, observe: bool) -> Path:
    config = {
        "include_user": False,
        "include_project": False,
        "hooks": {
            "PreToolUse": [
                {"type": "matcher", "match": {"tool": "Bash"}, "action": "block", "message": "no"}
            ]
        },
    }
    entry = {"module": "hooks-declarative", "config": config, "observe": observe}
    path = tmp_path / "bundle.yaml"
    path.write_text(json.dumps({"bundle": {"name": "listing"}, "hooks": [entry]}), "utf-8")
    return path


def test_hooks_of_an_observed_module_are_marked(tmp_path: Path) -> None:
    observed = _bundle(tmp_path, observe=True)

    result = invoke(
        "hooks", "list", "--json", "--bundle", str(observed), "--project", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    [survey] = json.loads(result.output)
    assert survey["observe"] is True
    assert [(h["event"], h["observed"]) for h in survey["hooks"]] == [("tool:pre", True)]

    table = invoke("hooks", "list", "--bundle", str(observed), "--project", str(tmp_path))
    assert table.exit_code == 0, table.output
    assert "observe mode" in table.output
    assert "observed" in table.output


def test_hooks_of_an_enforced_module_are_not_marked(tmp_path: Path) -> None:
    enforced = _bundle(tmp_path, observe=False)

    result = invoke(
        "hooks", "list", "--json", "--bundle", str(enforced), "--project", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    [survey] = json.loads(result.output)
    assert survey["observe"] is False
    assert [h["observed"] for h in survey["hooks"]] == [False]
    table = invoke("hooks", "list", "--bundle", str(enforced), "--project", str(tmp_path))
    assert "observe mode" not in table.output


def test_hooks_of_an_observed_source_are_marked(tmp_path: Path) -> None:
    path = _bundle(tmp_path, observe=False)
    bundle = json.loads(path.read_text("utf-8"))
    bundle["hooks"][0]["config"]["observe_sources"] = ["config"]
    path.write_text(json.dumps(bundle), "utf-8")

    where = ("--bundle", str(path), "--project", str(tmp_path))
    result = invoke("hooks", "list", "--json", *where)
    assert result.exit_code == 0, result.output
    [survey] = json.loads(result.output)
    assert survey["observe"] is False
    assert [(h["source"], h["observed"]) for h in survey["hooks"]] == [("config", True)]
    table = invoke("hooks", "list", *where)
    assert "observe mode" in table.output


def test_every_hook_of_a_bundle_is_listed_python_modules_included(tmp_path: Path) -> None:
    """docs/rollout.md's bundle: a Python module observed beside declarative hooks."""
    path = _bundle(tmp_path, observe=False)
    bundle = json.loads(path.read_text("utf-8"))
    rule = {"name": "no-rm", "action": "deny", "tools": ["bash"], "command": ["rm -rf *"]}
    approval = {
        "module": "hooks-approval",
        "source": "amplifier_module_hooks_approval:mount",
        "observe": True,
        "config": {"rules": [rule]},
    }
    logging_entry = {"module": "hooks-logging", "config": {"path": str(tmp_path / "l.jsonl")}}
    bundle["hooks"] = [logging_entry, approval, *bundle["hooks"]]
    path.write_text(json.dumps(bundle), "utf-8")

    where = ("--bundle", str(path), "--project", str(tmp_path))
    result = invoke("hooks", "list", "--json", *where)
    assert result.exit_code == 0, result.output
    recorder, module, declarative = json.loads(result.output)
    assert (recorder["module_id"], recorder["hooks"]) == ("hooks-logging", [])
    assert not (tmp_path / "l.jsonl").exists()  # a listing mounts no recorder
    assert module["module_id"] == "hooks-approval"
    assert module["observe"] is True
    assert ("hooks-approval", "tool:pre", True) in [
        (h["handler"], h["event"], h["observed"]) for h in module["hooks"]
    ]
    assert [(h["source"], h["observed"]) for h in declarative["hooks"]] == [("config", False)]
    table = invoke("hooks", "list", *where)
    assert table.exit_code == 0, table.output
    assert "module hooks-approval (observed)" in table.output
