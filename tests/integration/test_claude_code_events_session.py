"""Claude Code hook events in whole sessions: hooks-declarative mounted from a bundle, the
scripted model, real hook processes and real tools.

A Stop hook that blocks sends the agent back to work; a PermissionRequest hook decides an
approval without asking the human; a SessionStart hook's ``CLAUDE_ENV_FILE`` reaches later
bash commands; hook-shell's ``contextInjection`` reaches the model; ``parallel: false`` runs
a group's hooks in order."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.testing import EventRecorder
from amplifier_module_provider_scripted import ScriptedProvider

from . import support
from .support import DECLARATIVE_SCRIPTS as SCRIPTS
from .support import call, make_bundle, module, sent, tool_results

STOP_REASON = "Tests are failing: run pytest and fix them"


pytestmark = pytest.mark.usefixtures("python3_on_path")


def hook(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **extra}


def prints(payload: dict[str, Any]) -> str:
    """A hook command that reads its input and prints ``payload``."""
    return shlex.join(["python3", str(SCRIPTS / "cc_json.py"), json.dumps(payload)])


def session_for(
    workspace: Path, claude_code: dict[str, Any], script: list[Any], **kwargs: Any
) -> tuple[Any, ScriptedProvider, EventRecorder]:
    hooks_file = workspace.parent / "hooks.json"  # a hooks file with a Claude Code block
    hooks_file.write_text(json.dumps({"claude_code": claude_code}, indent=2))
    bundle = make_bundle(hooks=[module("hooks-declarative", {"files": [str(hooks_file)]})])
    session, recorder, provider = support.session_for(
        workspace, script, bundle, strict=True, **kwargs
    )
    return session, provider, recorder


async def test_a_stop_hook_that_blocks_once_sends_the_agent_back_to_work(
    workspace: Path,
) -> None:
    guard = shlex.join(["python3", str(SCRIPTS / "cc_stop_guard.py")])
    script = [
        {"text": "All done."},
        {"text": "Fixed the failing tests.", "expect": STOP_REASON},
    ]
    session, provider, recorder = session_for(
        workspace, {"Stop": [{"hooks": [hook(guard)]}]}, script
    )
    async with session:
        outcome = await session.run("make the tests pass")
    assert outcome.status == "completed"
    assert outcome.response == "Fixed the failing tests."
    assert len(provider.requests) == 2
    # the reason reached the model as its next instruction, after its first answer
    second = sent(provider.requests[1])
    assert [m["role"] for m in second[-2:]] == ["assistant", "user"]
    assert second[-1]["content"] == STOP_REASON
    # the blocked prompt:complete ended at the hook's deny (recorded as denied); the one that
    # passed says that a stop hook had already sent the agent back (the script lets it stop)
    completes = [
        (data, decision)
        for (name, data), decision in zip(recorder.events, recorder.decisions, strict=True)
        if name == "prompt:complete"
    ]
    assert [decision for _, decision in completes] == ["deny", "continue"]
    complete = completes[1][0]
    assert complete["stop_hook_active"] is True
    assert complete["response"] == "Fixed the failing tests."
    assert recorder.names.count("execution:end") == 1  # still one turn


async def test_without_a_blocking_stop_hook_the_turn_ends_as_before(workspace: Path) -> None:
    allow = hook("cat > /dev/null; exit 0")
    session, provider, recorder = session_for(
        workspace, {"Stop": [{"hooks": [allow]}]}, [{"text": "All done."}]
    )
    async with session:
        outcome = await session.run("anything to do?")
    assert outcome.response == "All done."
    assert len(provider.requests) == 1
    [(_, complete)] = recorder.get_events("prompt:complete")
    assert "stop_hook_active" not in complete


ASK_FOR_PUSH = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}


@pytest.mark.parametrize("behavior", ["allow", "deny"])
async def test_a_permission_request_hook_decides_without_asking_the_human(
    workspace: Path, behavior: str
) -> None:
    decision: dict[str, Any] = {"behavior": behavior}
    if behavior == "deny":
        decision["message"] = "no pushes from agents"
    else:
        decision["updatedInput"] = {"command": "echo pushed > pushed.txt"}
    permission = {
        "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}
    }
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [hook(prints(ASK_FOR_PUSH))]}],
        "PermissionRequest": [{"matcher": "Bash", "hooks": [hook(prints(permission))]}],
    }
    script = [call("bash", command="git push origin main"), {"text": "ok"}]
    # the human would answer the opposite: the hook's decision is the one that counts
    approvals = StaticApprovalSystem("deny" if behavior == "allow" else "allow")
    session, provider, recorder = session_for(workspace, hooks, script, approval_system=approvals)
    async with session:
        outcome = await session.run("push it")
    assert outcome.response == "ok"
    assert approvals.requests == []  # nobody was asked
    [result] = tool_results(provider)
    if behavior == "allow":
        [(_, granted)] = recorder.get_events("approval:granted")
        assert granted["why"] == "hook"
        # the hook's updatedInput is what ran
        assert (workspace / "pushed.txt").read_text() == "pushed\n"
        assert "tool:post" in recorder.names
    else:
        [(_, denied)] = recorder.get_events("approval:denied")
        assert denied["why"] == "hook"
        assert "no pushes from agents" in result
        assert "tool:post" not in recorder.names
        assert not (workspace / "pushed.txt").exists()


async def test_a_session_start_hook_sets_variables_for_later_bash_commands(
    workspace: Path,
) -> None:
    write_env = (
        'cat > /dev/null; echo \'export GREETING="hello from SessionStart"\' >> "$CLAUDE_ENV_FILE"'
    )
    script = [
        call("bash", command='echo "$GREETING"'),
        {"text": "It says hello.", "expect": "hello from SessionStart"},
    ]
    session, provider, _ = session_for(
        workspace, {"SessionStart": [{"hooks": [hook(write_env)]}]}, script
    )
    async with session:
        outcome = await session.run("what is the greeting?")
    assert outcome.response == "It says hello."
    [result] = tool_results(provider)
    assert "hello from SessionStart" in result


async def test_context_injection_reaches_the_model(workspace: Path) -> None:
    lint = prints({"contextInjection": "lint: notes.txt has trailing spaces"})
    script = [
        call("bash", command="echo 'hi  ' > notes.txt"),
        {"text": "Noted."},
    ]
    session, provider, _ = session_for(
        workspace, {"PostToolUse": [{"matcher": "Bash", "hooks": [hook(lint)]}]}, script
    )
    async with session:
        outcome = await session.run("write the notes")
    assert outcome.response == "Noted."
    [injected] = [m for m in sent(provider.requests[1]) if m["role"] == "system"]
    assert injected["content"] == "lint: notes.txt has trailing spaces"
    assert injected["metadata"]["event"] == "tool:post"


async def test_parallel_false_runs_the_groups_hooks_one_after_the_other(
    workspace: Path,
) -> None:
    log = workspace.parent / "order.log"
    slow = hook(f"cat > /dev/null; sleep 0.4; echo first >> {shlex.quote(str(log))}")
    fast = hook(f"cat > /dev/null; echo second >> {shlex.quote(str(log))}")
    hooks = {"PostToolUse": [{"matcher": "Bash", "parallel": False, "hooks": [slow, fast]}]}
    script = [call("bash", command="true"), {"text": "done"}]
    session, _, _ = session_for(workspace, hooks, script)
    async with session:
        await session.run("run it")
    assert log.read_text().split() == ["first", "second"]
