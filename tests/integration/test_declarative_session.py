"""hooks-declarative in real sessions, mounted from a bundle: the model sees a matcher's block,
project and user files add up, and the proposal's YAML example runs end to end as the user's
``~/.amplifier/hooks.yaml`` with real scripts."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.testing import EventRecorder
from amplifier_module_hooks_declarative.trust import trust_project
from amplifier_module_provider_scripted import ScriptedProvider

from . import support
from .support import DECLARATIVE_FIXTURES as FIXTURES
from .support import call, make_bundle, module
from .support import tool_results as tool_messages

RM_MESSAGE = "Destructive rm commands require confirmation"


def declarative(config: dict[str, Any] | None = None) -> Any:
    """A bundle of the runtime and hooks-declarative with ``config``."""
    return make_bundle(hooks=[module("hooks-declarative", config)])


def session_for(
    workspace: Path, bundle: Any, script: list[Any], **kwargs: Any
) -> tuple[AgentSession, ScriptedProvider, EventRecorder]:
    session, recorder, provider = support.session_for(
        workspace, script, bundle, strict=True, **kwargs
    )
    return session, provider, recorder


@pytest.fixture
def home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """conftest's home (no test reads the machine's ~/.amplifier), and ``python`` on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    (path / "build").mkdir(parents=True)
    (path / "build" / "artifact.bin").write_bytes(b"keep me")
    return path


INLINE_BUNDLE = declarative(
    {
        "include_user": False,
        "include_project": False,
        "hooks": {
            "PreToolUse": [
                {
                    "type": "matcher",
                    "match": {"tool": "Bash", "args": {"command": "rm *"}},
                    "action": "block",
                    "message": "Destructive rm commands require confirmation",
                }
            ]
        },
    }
)


async def test_a_matcher_blocks_rm_in_bash_and_the_model_sees_why(
    workspace: Path, home: Path
) -> None:
    script = [
        call("bash", command="rm -rf build"),
        {"text": "Understood, I will not delete it.", "expect": RM_MESSAGE},
        call("bash", command="echo still here"),
        {"text": "done", "expect": "still here"},
    ]
    session, provider, recorder = session_for(workspace, INLINE_BUNDLE, script)
    async with session:
        first = await session.run("clean the build directory")
        second = await session.run("say something")
    assert first.response == "Understood, I will not delete it."
    assert second.response == "done"
    assert (workspace / "build" / "artifact.bin").read_bytes() == b"keep me"
    denied, allowed = tool_messages(provider)
    assert denied == (
        "Error: tool call denied by hook 'config:hooks.PreToolUse[0]': "
        "Destructive rm commands require confirmation"
    )
    assert "still here" in allowed
    (violation,) = [data for _, data in recorder.get_events("policy:violation")]
    assert violation["hook"] == "config:hooks.PreToolUse[0]"
    assert violation["reason"] == RM_MESSAGE
    assert violation["tool_name"] == "bash"
    assert session.coordinator.hooks.list_handlers("tool:pre") == {
        "tool:pre": ["event-recorder"]
    }  # unregistered at close


async def test_project_and_user_files_add_up_in_a_session(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    project_file = workspace / ".amplifier" / "hooks.yaml"
    project_file.parent.mkdir()
    project_file.write_text(
        "hooks:\n"
        "  PreToolUse:\n"
        "    - type: matcher\n"
        "      match:\n"
        '        tool: "Write"\n'
        "        args:\n"
        '          path: "**/.env*"\n'
        '      action: "block"\n'
        '      message: "Cannot modify environment files"\n'
    )
    user_dir = tmp_path / "user"
    user_dir.mkdir()
    (user_dir / "hooks.yaml").write_text(
        "hooks:\n"
        "  tool:pre:\n"
        "    - type: matcher\n"
        "      match: {tool: Bash, args: {command: 'git push*'}}\n"
        "      action: ask\n"
        "      message: Push to the remote?\n"
    )
    bundle = declarative({"user_dir": str(user_dir)})
    script = [
        call("write_file", file_path="config/.env.local", content="TOKEN=1"),
        call("write_file", file_path="notes.txt", content="hello"),
        call("bash", command="git push origin main"),
        {"text": "done", "expect": "Push to the remote?"},
    ]
    approvals = StaticApprovalSystem("deny")
    trust_project(workspace)
    session, provider, _ = session_for(workspace, bundle, script, approval_system=approvals)
    async with session:
        await session.run("go")
    env_denied, written, push_denied = tool_messages(provider)
    assert env_denied == (
        "Error: tool call denied by hook '.amplifier/hooks.yaml:hooks.PreToolUse[0]': "
        "Cannot modify environment files"
    )
    assert not (workspace / "config" / ".env.local").exists()
    assert (workspace / "notes.txt").read_text() == "hello"
    assert "Error" not in written
    assert len(approvals.requests) == 1  # the fixed message, then the command it is about
    assert approvals.requests[0].startswith("Push to the remote?\n\nTool: bash\nInput: {")
    assert '"command": "git push' in approvals.requests[0]
    assert "Push to the remote?" in push_denied


async def test_the_issue_example_runs_as_the_users_hooks_file(workspace: Path, home: Path) -> None:
    amp = home / ".amplifier"
    scripts = amp / "hooks"
    scripts.mkdir(parents=True)
    (amp / "hooks.yaml").write_text((FIXTURES / "issue-example.yaml").read_text())
    (scripts / "pre_tool.py").write_text(
        "import json, os, sys\n"
        "event = json.load(sys.stdin)\n"
        "with open(os.path.expanduser('~/.amplifier/pre_tool.jsonl'), 'a') as f:\n"
        "    f.write(json.dumps(event) + '\\n')\n"
        "print(json.dumps({'action': 'allow', 'modified_args': None, 'message': None}))\n"
    )
    log_tool = scripts / "log_tool.sh"
    log_tool.write_text(
        '#!/bin/sh\ncat >> "$HOME/.amplifier/tool.log"\necho >> "$HOME/.amplifier/tool.log"\n'
    )
    log_tool.chmod(0o755)
    (scripts / "cleanup.py").write_text(
        "import json, os, sys\n"
        "event = json.load(sys.stdin)\n"
        "with open(os.path.expanduser('~/.amplifier/cleanup.json'), 'w') as f:\n"
        "    json.dump(event, f)\n"
    )
    script = [
        call("bash", command="rm -rf build"),
        call("bash", command="echo hello"),
        {"text": "finished", "expect": "hello"},
    ]
    bundle = declarative()  # no config: the user's file is read
    session, provider, _ = session_for(workspace, bundle, script)
    async with session:
        outcome = await session.run("tidy up and greet")
    assert outcome.response == "finished"

    denied, greeted = tool_messages(provider)
    assert denied == (
        "Error: tool call denied by hook '~/.amplifier/hooks.yaml:hooks.PreToolUse[1]': "
        f"{RM_MESSAGE}"
    )
    assert "hello" in greeted
    assert (workspace / "build" / "artifact.bin").exists()

    assert (amp / "session.log").read_text() == "Session started\n"
    pre = [json.loads(line) for line in (amp / "pre_tool.jsonl").read_text().splitlines()]
    assert [(e["event"], e["tool"], e["args"]) for e in pre] == [
        ("PreToolUse", "bash", {"command": "rm -rf build"}),
        ("PreToolUse", "bash", {"command": "echo hello"}),
    ]
    assert all(e["session_id"] == session.session_id for e in pre)
    (logged,) = [json.loads(line) for line in (amp / "tool.log").read_text().splitlines() if line]
    assert (logged["event"], logged["tool"]) == ("PostToolUse", "bash")
    cleanup = json.loads((amp / "cleanup.json").read_text())
    assert cleanup["event"] == "SessionStop"
    assert cleanup["data"]["status"] == "completed"


@pytest.mark.parametrize("claude_code", [True, False])
async def test_claude_code_settings_run_unchanged_unless_turned_off(
    workspace: Path, home: Path, claude_code: bool
) -> None:
    hooks_dir = workspace / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "no_curl.py").write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "if data['hook_event_name'] == 'PreToolUse' and data['tool_name'] == 'Bash' \\\n"
        "        and 'curl' in data['tool_input']['command']:\n"
        "    print('Network access is not allowed in this project', file=sys.stderr)\n"
        "    sys.exit(2)\n"
    )
    settings = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": 'python "$CLAUDE_PROJECT_DIR"/.claude/hooks/no_curl.py',
                            "timeout": 30,
                        }
                    ],
                }
            ]
        },
    }
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    bundle = declarative({"include_user": False, "claude_code": claude_code})
    script = [call("bash", command="echo curl example.com"), {"text": "ok"}]
    trust_project(workspace)
    session, provider, _ = session_for(workspace, bundle, script)
    async with session:
        await session.run("fetch it")
    (seen,) = tool_messages(provider)
    if claude_code:
        assert seen.startswith(
            "Error: tool call denied by hook '.claude/settings.json:hooks.PreToolUse[0].hooks[0]'"
        )
        assert "Network access is not allowed in this project" in seen
    else:
        assert "curl example.com" in seen
