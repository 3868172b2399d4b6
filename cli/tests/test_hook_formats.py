"""``hooks list``, ``validate --mount`` and ``replay`` on a project that brings Codex, Factory
Droid and GitHub Copilot hook files: each hook listed from its file with its matcher as
written, a broken file named with its line and key path, a guard replayed over a recorded
session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import yaml
from amplifier_hooks_testsupport.claude_transcript import bash_use, tool_result, transcript_entry

from amplifier_module_hooks_declarative.trust import trust_project

from .test_cli import invoke

SCRIPT = Path(sys.executable).with_name("amplifier-hooks")

GUARD = "grep -q 'rm -rf' && { echo 'no recursive deletes' >&2; exit 2; }; exit 0"


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = (tmp_path / "project").resolve()
    _write(
        path / ".codex" / "hooks.json",
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD}]}
                ]
            }
        },
    )
    _write(
        path / ".factory" / "hooks.json",
        {
            "PostToolUse": [
                {"matcher": "Create|Edit", "hooks": [{"type": "command", "command": "true"}]}
            ]
        },
    )
    _write(
        path / ".github" / "hooks" / "audit.json",
        {"version": 1, "hooks": {"sessionEnd": [{"type": "command", "bash": "true"}]}},
    )
    return path


def test_hooks_list_names_each_format_file(project: Path) -> None:
    trust_project(project)
    result = invoke("hooks", "list", "--json", "--project", str(project))
    assert result.exit_code == 0, result.output
    [survey] = json.loads(result.output)
    rows = [(h["source"], h["name"], h["event"], h["matcher"]) for h in survey["hooks"]]
    assert rows == [
        (".codex/hooks.json", "PreToolUse", "tool:pre", "Bash"),
        (".factory/hooks.json", "PostToolUse", "tool:post", "Create|Edit"),
        (".github/hooks/audit.json", "sessionEnd", "session:end", None),
    ]


def test_hooks_list_of_an_untrusted_project_skips_the_files(project: Path) -> None:
    result = invoke("hooks", "list", "--json", "--project", str(project))
    assert result.exit_code == 0, result.output
    [survey] = json.loads(result.output)
    assert survey["hooks"] == []
    skipped = {item["what"] for item in survey["skipped"]}
    assert {".codex/hooks.json", ".factory/hooks.json", ".github/hooks/audit.json"} <= skipped


def test_validate_mount_names_a_broken_codex_file(tmp_path: Path, project: Path) -> None:
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": "x"}]}]}
    _write(project / ".codex" / "hooks.json", {"hooks": hooks})
    trust_project(project)
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        "hooks:\n  - module: hooks-declarative\n    config:\n"
        f"      include_user: false\n      project_dir: {project}\n"
    )
    result = invoke("validate", str(bundle), "--mount", cwd=project)
    assert result.exit_code == 1, result.output
    text = " ".join(result.stderr.split())
    assert ".codex/hooks.json:9: hooks.PreToolUse[0].hooks[0].timeout" in text, text


def test_replay_runs_the_codex_guard_over_a_recorded_session(tmp_path: Path, project: Path) -> None:
    """A bundle names the project's ``.codex/hooks.json`` in ``files`` (replay mounts in a
    scratch directory): it is read as Codex's, and its guard decides the recorded call."""
    bundle = tmp_path / "codex.yaml"
    bundle.write_text(
        yaml.safe_dump(
            {
                "bundle": {"name": "codex-guard"},
                "hooks": [
                    {
                        "module": "hooks-declarative",
                        "config": {
                            "include_user": False,
                            "files": [str(project / ".codex" / "hooks.json")],
                        },
                    }
                ],
            }
        )
    )

    entry = partial(
        transcript_entry, session_id="5a0c6c9e-cc11-4b5e-9a55-0d1f3e2a7b10", cwd=str(project)
    )
    log = tmp_path / "5a0c6c9e-cc11-4b5e-9a55-0d1f3e2a7b10.jsonl"
    log.write_text(
        "\n".join(
            [
                entry("user", "clean up", 1),
                entry("assistant", [bash_use("toolu_1", "rm -rf build")], 2),
                entry("user", [tool_result("toolu_1", "")], 3),
            ]
        )
        + "\n"
    )
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run(
        [str(SCRIPT), "replay", str(log), "--bundle", str(bundle), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    pre = [e for e in report["events"] if e["event"] == "tool:pre"]
    assert [e["bundles"]["codex-guard"]["outcome"] for e in pre] == ["deny"]
    assert report["mount_failures"] == []
