"""A Claude Code validator script, unchanged, guarding a full session: the bundle mounts
hooks-declarative, the scripted model asks for ``rm -rf``, the script exits 2, the command
never runs and the model reads the script's message."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.session import AgentSession

from amplifier_core.testing import EventRecorder
from amplifier_module_hooks_declarative.trust import trust_project
from amplifier_module_provider_scripted import ScriptedProvider

from . import support
from .support import DECLARATIVE_SCRIPTS as SCRIPTS
from .support import call, make_bundle, module, tool_results

VALIDATOR_MESSAGE = "• rm -rf is destructive; delete specific files instead"


pytestmark = pytest.mark.usefixtures("python3_on_path", "victim_file")


def bundle(hooks: dict[str, Any] | None = None) -> Any:
    config: dict[str, Any] = {} if hooks is None else {"hooks": hooks}
    return make_bundle(hooks=[module("hooks-declarative", config)])


def session_for(
    workspace: Path, bundle: Any, script: list[Any]
) -> tuple[AgentSession, ScriptedProvider, EventRecorder]:
    session, recorder, provider = support.session_for(workspace, script, bundle, strict=True)
    return session, provider, recorder


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
    trust_project(workspace)
    session, _, recorder = session_for(workspace, bundle(), script)
    async with session:
        outcome = await session.run("clean up")
    assert outcome.response == "Blocked, leaving it."
    assert (workspace / "victim" / "data.txt").exists()
    assert "tool:post" not in recorder.names
