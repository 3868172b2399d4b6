"""Observe mode: a guard mounted with ``observe: true`` records what it would decide, and
the session runs as if it were absent."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from amplifier_hooks_bundle import load_bundle
from amplifier_hooks_cli.session import AgentSession

from amplifier_core.approval import StaticApprovalSystem

_SCRIPT = """
turns:
  - text: Cleaning out the scratch directory.
    tool_calls:
      - name: bash
        input: {command: rm -rf scratch}
  - text: Done.
"""


def _bundle(tmp_path: Path, *, observe: bool) -> Path:
    (tmp_path / "script.yaml").write_text(_SCRIPT, encoding="utf-8")
    path = tmp_path / "bundle.yaml"
    path.write_text(
        textwrap.dedent(
            f"""
            bundle: {{name: observe-rm}}
            providers:
              - module: provider-scripted
                source: amplifier_module_provider_scripted:mount
                config: {{script: script.yaml}}
            tools:
              - module: tool-bash
                source: amplifier_module_tool_bash:mount
            hooks:
              - module: hooks-logging
                source: amplifier_module_hooks_logging:mount
                config: {{path: "{tmp_path}/log.jsonl"}}
              - module: hooks-approval
                source: amplifier_module_hooks_approval:mount
                observe: {str(observe).lower()}
                config:
                  rules:
                    - name: no-recursive-rm
                      action: deny
                      tools: [bash]
                      command: ["rm -rf *"]
                      reason: recursive deletes are not allowed
            """
        ),
        encoding="utf-8",
    )
    return path


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def _run(tmp_path: Path, *, observe: bool) -> tuple[Path, list[dict[str, Any]]]:
    workspace = tmp_path / "workspace"
    scratch = workspace / "scratch"
    (scratch / "deep").mkdir(parents=True)
    (scratch / "deep" / "file.txt").write_text("doomed\n", encoding="utf-8")
    bundle = load_bundle(_bundle(tmp_path, observe=observe))
    async with AgentSession(
        bundle, workspace=workspace, approval_system=StaticApprovalSystem("deny")
    ) as session:
        await session.run("clean out scratch")
    return scratch, _records(tmp_path / "log.jsonl")


async def test_observed_guard_lets_rm_run_and_logs_the_would_have_deny(tmp_path: Path) -> None:
    scratch, records = await _run(tmp_path, observe=True)

    assert not scratch.exists(), "the observed guard must not stop the command"
    events = [r["event"] for r in records]
    assert "policy:violation" not in events
    observed = [r for r in records if r["event"] == "hook:observed"]
    assert len(observed) == 1, observed
    data = observed[0]["data"]
    assert data["decision"] == "deny"
    assert data["module_id"] == "hooks-approval"
    assert data["hook"] == "hooks-approval"
    assert data["event"] == "tool:pre"
    assert data["tool_name"] == "bash"
    assert data["event_data"]["tool_input"]["command"] == "rm -rf scratch"
    assert "no-recursive-rm" in data["reason"]
    # recorded right after the tool:pre it was about, and before the tool ran
    pre = events.index("tool:pre")
    assert events.index("hook:observed") == pre + 1
    assert events.index("tool:post") > pre + 1


async def test_the_same_guard_enforced_blocks_the_rm(tmp_path: Path) -> None:
    scratch, records = await _run(tmp_path, observe=False)

    assert (scratch / "deep" / "file.txt").is_file()
    events = [r["event"] for r in records]
    assert "hook:observed" not in events
    assert "policy:violation" in events


def _entry(module: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """A bundle entry imported from its package, not through an installed entry point."""
    package = "amplifier_module_" + module.replace("-", "_")
    return {"module": module, "source": f"{package}:mount", "config": config or {}}


def _declarative_bundle(tmp_path: Path, observe_sources: list[str]) -> Path:
    (tmp_path / "script.yaml").write_text(_SCRIPT, encoding="utf-8")
    config = {
        "include_user": False,
        "include_project": False,
        "observe_sources": observe_sources,
        "hooks": {
            "PreToolUse": [
                {
                    "type": "matcher",
                    "match": {"tool": "Bash", "args": {"command": "rm *"}},
                    "action": "block",
                    "message": "Destructive rm commands need a human",
                }
            ]
        },
    }
    bundle = {
        "bundle": {"name": "observe-source"},
        "providers": [_entry("provider-scripted", {"script": "script.yaml"})],
        "tools": [_entry("tool-bash")],
        "hooks": [
            _entry("hooks-logging", {"path": str(tmp_path / "log.jsonl")}),
            _entry("hooks-declarative", config),
        ],
    }
    path = tmp_path / "bundle.yaml"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    return path


async def _run_bundle(tmp_path: Path, path: Path) -> tuple[Path, list[dict[str, Any]]]:
    workspace = tmp_path / "workspace"
    scratch = workspace / "scratch"
    scratch.mkdir(parents=True)
    (scratch / "file.txt").write_text("doomed\n", encoding="utf-8")
    async with AgentSession(
        load_bundle(path), workspace=workspace, approval_system=StaticApprovalSystem("deny")
    ) as session:
        await session.run("clean out scratch")
    return scratch, _records(tmp_path / "log.jsonl")


async def test_a_declarative_source_in_observe_mode_records_its_block(tmp_path: Path) -> None:
    scratch, records = await _run_bundle(tmp_path, _declarative_bundle(tmp_path, ["config"]))

    assert not scratch.exists()
    observed = [r["data"] for r in records if r["event"] == "hook:observed"]
    assert [(o["module_id"], o["decision"], o["event"], o["tool_name"]) for o in observed] == [
        ("hooks-declarative", "deny", "tool:pre", "bash")
    ]
    assert observed[0]["hook"].startswith("config:")
    assert observed[0]["reason"] == "Destructive rm commands need a human"
    assert "policy:violation" not in [r["event"] for r in records]


async def test_a_declarative_source_not_observed_still_blocks(tmp_path: Path) -> None:
    scratch, records = await _run_bundle(tmp_path, _declarative_bundle(tmp_path, ["other*"]))

    assert (scratch / "file.txt").is_file()
    events = [r["event"] for r in records]
    assert "hook:observed" not in events
    assert "policy:violation" in events


async def test_observe_then_replay_shows_what_enforcing_would_change(tmp_path: Path) -> None:
    """The rollout path: the session ran with the guard observed; replaying its log through
    the bundle that enforces the guard lists the rm it would have denied."""
    await _run(tmp_path, observe=True)
    log = tmp_path / "log.jsonl"
    enforcing = _bundle(tmp_path, observe=False)
    script = Path(sys.executable).with_name("amplifier-hooks")

    done = await asyncio.to_thread(
        subprocess.run,
        [str(script), "replay", str(log), "--bundle", str(enforcing), "--json", "--fail-on-diff"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    [difference] = report["differences"]
    assert (difference["event"], difference["tool_name"]) == ("tool:pre", "bash")
    assert (difference["expected"], difference["got"]) == ("allow", "deny")
    assert difference["got_by"] == "hooks-approval"
    [pre] = [e for e in report["events"] if e["line"] == difference["line"]]
    assert [o["decision"] for o in pre["recorded_observed"]] == ["deny"]
    recorded = [h for h in report["hooks"] if h["bundle"] == "recorded"]
    assert [(h["hook"], h["observed"], h["runs"]) for h in recorded] == [("hooks-approval", 1, 0)]
