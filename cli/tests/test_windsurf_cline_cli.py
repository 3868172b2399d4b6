"""Windsurf and Cline hooks through the commands a user runs: ``hooks list`` names each hook,
its file and its event (and the project's as skipped until it is trusted), ``validate --mount``
locates a broken ``hooks.json`` by file, line and key path, and ``replay`` decides a recorded
session again with the user's Windsurf and Cline hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_testsupport.claude_transcript import bash_use, tool_result, transcript_entry

from amplifier_module_hooks_declarative.trust import trust_project

from .test_cli import invoke, no_traceback, write

SCRIPT = Path(sys.executable).with_name("amplifier-hooks")
DENY_RM = "cat > /dev/null; echo 'no recursive deletes' >&2; exit 2"
WINDSURF_DENY_RM = "case \"$(cat)\" in *'rm -rf'*) echo 'no recursive deletes' >&2; exit 2;; esac"
CLINE_CANCEL = """#!/bin/sh
input=$(cat)
case "$input" in
  *'rm -rf'*) echo '{"cancel": true, "errorMessage": "cline says no"}' ;;
  *) echo '{"cancel": false}' ;;
esac
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.setenv("AMPLIFIER_WINDSURF_SYSTEM_HOOKS", str(tmp_path / "system-hooks.json"))
    monkeypatch.delenv("AMPLIFIER_TRUST_PROJECT", raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = (tmp_path / "project").resolve()
    (path / ".windsurf").mkdir(parents=True)
    hooks = {
        "hooks": {
            "pre_run_command": [{"command": DENY_RM, "show_output": True}],
            "post_write_code": [{"command": "true"}],
        }
    }
    (path / ".windsurf" / "hooks.json").write_text(json.dumps(hooks, indent=2))
    cline = path / ".clinerules" / "hooks" / "PreToolUse"
    cline.parent.mkdir(parents=True)
    cline.write_text(CLINE_CANCEL)
    cline.chmod(0o755)
    return path


def listed(*args: str) -> dict[str, Any]:
    result = invoke("hooks", "list", "--json", *args)
    assert result.exit_code == 0, result.output
    [survey] = json.loads(result.output)
    found: dict[str, Any] = survey
    return found


def test_hooks_list_names_each_windsurf_and_cline_hook(home: Path, project: Path) -> None:
    untrusted = listed("--project", str(project))
    assert untrusted["hooks"] == []
    skipped = " ".join(f"{s['what']} {s['reason']}" for s in untrusted["skipped"])
    assert ".windsurf/hooks.json" in skipped
    assert ".clinerules/hooks/PreToolUse" in skipped
    trust_project(project)
    survey = listed("--project", str(project))
    rows = [(h["source"], h["name"], h["event"], h["type"]) for h in survey["hooks"]]
    assert rows == [
        (".windsurf/hooks.json", "pre_run_command", "tool:pre", "command"),
        (".windsurf/hooks.json", "post_write_code", "tool:post", "command"),
        (".clinerules/hooks/PreToolUse", "PreToolUse", "tool:pre", "command"),
    ]


def test_validate_mount_locates_a_broken_windsurf_file(
    tmp_path: Path, home: Path, project: Path
) -> None:
    (project / ".windsurf" / "hooks.json").write_text(
        '{\n  "hooks": {\n    "pre_run_command": [\n      {"command": ["rm"]}\n    ]\n  }\n}\n'
    )
    trust_project(project)
    bundle = write(tmp_path / "bundle.yaml", "hooks:\n  - module: hooks-declarative\n")
    result = invoke("validate", "--mount", str(bundle), cwd=project)
    assert result.exit_code == 1, result.output
    assert ".windsurf/hooks.json:4: hooks.pre_run_command[0].command: expected a string" in (
        result.output
    )
    no_traceback(result.output)


def _transcript(path: Path) -> Path:
    entry = partial(transcript_entry, session_id="5a0c6c9e-cc11-4b5e-9a55-0d1f3e2a7b10")
    lines = [
        entry("user", "Clean out the build directory", 1),
        entry("assistant", [bash_use("toolu_1", "rm -rf build")], 2),
        entry("user", [tool_result("toolu_1", "")], 3),
        entry("assistant", [bash_use("toolu_2", "git status")], 4),
        entry("user", [tool_result("toolu_2", "clean")], 5),
    ]
    log = path / "5a0c6c9e-cc11-4b5e-9a55-0d1f3e2a7b10.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


@pytest.mark.parametrize("tool", ["windsurf", "cline"])
def test_replay_decides_a_session_again_with_the_users_hooks(
    tmp_path: Path, home: Path, tool: str
) -> None:
    if tool == "windsurf":
        hooks = {"hooks": {"pre_run_command": [{"command": WINDSURF_DENY_RM}]}}
        write(home / ".codeium" / "windsurf" / "hooks.json", json.dumps(hooks))
        reason = "no recursive deletes"
    else:
        hook = home / "Documents" / "Cline" / "Hooks" / "PreToolUse"
        write(hook, CLINE_CANCEL)
        hook.chmod(0o755)
        reason = "cline says no"
    config = {"include_project": False, tool: True}
    bundle = write(
        tmp_path / "bundle.json",
        json.dumps(
            {"bundle": {"name": tool}, "hooks": [{"module": "hooks-declarative", "config": config}]}
        ),
    )
    done = subprocess.run(
        [str(SCRIPT), "replay", str(_transcript(tmp_path)), "--bundle", str(bundle), "--json"],
        env={**os.environ, "COLUMNS": "220"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    calls = [e for e in report["events"] if e["event"] == "tool:pre"]
    outcomes = [e["bundles"][tool]["outcome"] for e in calls]
    assert outcomes == ["deny", "allow"]
    assert reason in json.dumps(calls[0])
