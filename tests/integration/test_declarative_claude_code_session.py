"""A Claude Code validator script, unchanged, guarding a full session: the bundle mounts
hooks-declarative through its installed entry point, the scripted model asks for ``rm -rf``,
the script exits 2, the command never runs and the model reads the script's message."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.bundle import parse_bundle
from amplifier_core.display import RecordingDisplay
from amplifier_core.providers import ScriptedProvider
from amplifier_core.session import AmplifierSession
from amplifier_core.testing import EventRecorder

SCRIPTS = Path(__file__).parent / "scripts"
VALIDATOR_MESSAGE = "• rm -rf is destructive; delete specific files instead"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user hooks file of the machine's, and `python3` is the test interpreter."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("AMPLIFIER_HOME", raising=False)
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    (path / "victim").mkdir(parents=True)
    (path / "victim" / "data.txt").write_text("keep me")
    return path


def call(name: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "input": tool_input}]}


def bundle(hooks: dict[str, Any] | None = None) -> str:
    config: dict[str, Any] = {} if hooks is None else {"hooks": hooks}
    return json.dumps({"hooks": [{"module": "hooks-declarative", "config": config}]})


def session_for(
    workspace: Path, bundle_text: str, script: list[Any]
) -> tuple[AmplifierSession, ScriptedProvider, EventRecorder]:
    provider = ScriptedProvider(script)
    session = AmplifierSession(
        parse_bundle(bundle_text, "bundle.yaml"),
        workspace=workspace,
        provider=provider,
        display_system=RecordingDisplay(),
        strict=True,
    )
    recorder = EventRecorder()
    recorder.attach(session.coordinator.hooks)
    return session, provider, recorder


def tool_results(provider: ScriptedProvider) -> list[str]:
    """What the model saw as each tool call's result, in order."""
    seen: list[str] = []
    for request in provider.requests:
        for message in request.messages:
            if message.get("role") == "tool" and message["content"] not in seen:
                seen.append(message["content"])
    return seen


VALIDATOR_HOOKS = {
    "PreToolUse": [
        {
            "type": "command",
            "command": f"python3 {shlex.quote(str(SCRIPTS / 'cc_bash_validator.py'))}",
            "protocol": "claude-code",
        }
    ]
}


async def test_the_validator_blocks_rm_rf_in_a_session(workspace: Path) -> None:
    script = [
        call("bash", command="rm -rf victim"),
        {"text": "Understood, I will not delete it.", "expect": VALIDATOR_MESSAGE},
    ]
    session, provider, recorder = session_for(workspace, bundle(VALIDATOR_HOOKS), script)
    async with session:
        outcome = await session.run("clean up the workspace")
    assert outcome.status == "completed"
    assert outcome.response == "Understood, I will not delete it."
    assert (workspace / "victim" / "data.txt").read_text() == "keep me"
    assert "tool:post" not in recorder.names
    # The model reads the script's own stderr, attributed to the hook that blocked.
    [result] = tool_results(provider)
    assert result.startswith("Error: tool call denied by hook '")
    assert "PreToolUse[0]" in result
    assert result.endswith(f": {VALIDATOR_MESSAGE}")
    [(_, violation)] = recorder.get_events("policy:violation")
    assert violation["tool_name"] == "bash"
    assert violation["event"] == "tool:pre"


async def test_the_validator_lets_a_safe_command_run(workspace: Path) -> None:
    script = [call("bash", command="ls victim"), {"text": "It holds data.txt."}]
    session, _, recorder = session_for(workspace, bundle(VALIDATOR_HOOKS), script)
    async with session:
        outcome = await session.run("what is in victim?")
    assert outcome.response == "It holds data.txt."
    [(_, post)] = recorder.get_events("tool:post")
    assert post["tool_result"]["output"]["stdout"] == "data.txt\n"
    assert "policy:violation" not in recorder.names


async def test_the_projects_claude_settings_run_unchanged(workspace: Path) -> None:
    hooks_dir = workspace / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    shutil.copy(SCRIPTS / "cc_block_rm.sh", hooks_dir / "block-rm.sh")
    (hooks_dir / "block-rm.sh").chmod(0o755)
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh',
                            "timeout": 30,
                        }
                    ],
                }
            ]
        }
    }
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    script = [
        call("bash", command="rm -rf victim"),
        {"text": "Blocked, leaving it.", "expect": "rm -rf is not allowed"},
    ]
    session, _, recorder = session_for(workspace, bundle(), script)
    async with session:
        outcome = await session.run("clean up")
    assert outcome.response == "Blocked, leaving it."
    assert (workspace / "victim" / "data.txt").exists()
    assert "tool:post" not in recorder.names
