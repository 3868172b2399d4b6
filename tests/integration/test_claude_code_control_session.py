"""Claude Code hooks that steer a session: a ``PreCompact`` hook blocks compaction, a
``SubagentStart`` hook's ``additionalContext`` reaches the child session's model, a
``PermissionRequest`` hook's ``interrupt: true`` ends the turn. Whole sessions: hooks-declarative
mounted from a bundle, real hook processes, real tools, the scripted model."""

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
from .support import make_bundle, module, sent, tool_results

pytestmark = pytest.mark.usefixtures("python3_on_path")


def hook(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command}


def prints(payload: dict[str, Any]) -> dict[str, Any]:
    return hook(shlex.join(["python3", str(SCRIPTS / "cc_json.py"), json.dumps(payload)]))


def session_for(
    workspace: Path,
    claude_code: dict[str, Any],
    script: list[Any],
    settings: dict[str, Any] | None = None,
    **kwargs: Any,
) -> tuple[Any, ScriptedProvider, EventRecorder]:
    hooks_file = workspace.parent / "hooks.json"
    hooks_file.write_text(json.dumps({"claude_code": claude_code}, indent=2))
    bundle = make_bundle(
        session=settings,
        hooks=[module("hooks-declarative", {"files": [str(hooks_file)]})],
    )
    session, recorder, provider = support.session_for(
        workspace, script, bundle, strict=True, **kwargs
    )
    return session, provider, recorder


def contents(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if isinstance(m.get("content"), str)]


# -- PreCompact ------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["exit2", "json"])
async def test_a_pre_compact_hook_blocks_compaction(workspace: Path, answer: str) -> None:
    log = workspace.parent / "pre_compact.jsonl"
    if answer == "exit2":
        command = f"cat >> {shlex.quote(str(log))}; echo 'a migration is half done' >&2; exit 2"
        guard = hook(command)
    else:
        guard = prints({"decision": "block", "reason": "a migration is half done"})
    hooks = {"PreCompact": [{"matcher": "auto", "hooks": [guard]}]}
    session, provider, recorder = session_for(
        workspace, hooks, ["x" * 1200, "ok"], settings={"context_max_tokens": 250}
    )
    async with session:
        await session.run("first")
        await session.run("second")
    # the conversation was over budget, the hook said no (its deny ends the event's handlers
    # before this recorder's), and nothing was dropped
    assert session.context.compactions_blocked >= 1
    assert session.context.compactions == 0
    assert not recorder.get_events("context:compaction")
    last = contents(sent(provider.requests[-1]))
    assert "first" in last
    assert "x" * 1200 in last
    if answer == "exit2":
        [stdin] = support.records(log)
        assert stdin["hook_event_name"] == "PreCompact"
        assert stdin["trigger"] == "auto"


async def test_a_pre_compact_hook_that_lets_it_happen_changes_nothing(workspace: Path) -> None:
    hooks = {"PreCompact": [{"hooks": [hook("cat > /dev/null; exit 0")]}]}
    session, provider, recorder = session_for(
        workspace, hooks, ["x" * 1200, "ok"], settings={"context_max_tokens": 250}
    )
    async with session:
        await session.run("first")
        await session.run("second")
    assert recorder.get_events("context:compaction")
    assert "first" not in contents(sent(provider.requests[-1]))


# -- SubagentStart ---------------------------------------------------------------------------


async def test_subagent_start_context_reaches_the_child_sessions_model(workspace: Path) -> None:
    brief = {
        "hookSpecificOutput": {
            "hookEventName": "SubagentStart",
            "additionalContext": "You are the reviewer: read, never write.",
        }
    }
    hooks = {"SubagentStart": [{"hooks": [prints(brief)]}]}
    session, provider, _ = session_for(workspace, hooks, ["parent answer"])
    child_provider = ScriptedProvider(["child answer"])
    async with session:
        await session.run("plan the work")
        child = await session.fork(provider=child_provider)
        outcome = await child.run("review it")
        await child.close()
    assert outcome.response == "child answer"
    child_sent = contents(sent(child_provider.requests[0]))
    assert any("You are the reviewer: read, never write." in c for c in child_sent)
    # the parent's conversation came along, and the context is given once, before the prompt
    assert "plan the work" in child_sent
    assert sum("You are the reviewer" in c for c in child_sent) == 1
    assert child_sent[-1] == "review it"
    # the parent never saw it
    parent_sent = [c for r in provider.requests for c in contents(sent(r))]
    assert not any("You are the reviewer" in c for c in parent_sent)


# -- PermissionRequest interrupt -------------------------------------------------------------

ASK = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}


@pytest.mark.parametrize("interrupt", [True, False])
async def test_permission_request_interrupt_ends_the_turn(workspace: Path, interrupt: bool) -> None:
    decision = {"behavior": "deny", "message": "no pushes from agents", "interrupt": interrupt}
    permission = {
        "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}
    }
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [prints(ASK)]}],
        "PermissionRequest": [{"matcher": "Bash", "hooks": [prints(permission)]}],
    }
    script = [
        {
            "tool_calls": [
                {"name": "bash", "input": {"command": "git push origin main"}},
                {"name": "bash", "input": {"command": "echo second > second.txt"}},
            ]
        },
        {"text": "I will not push."},
    ]
    approvals = StaticApprovalSystem("allow")  # the human would allow: the hook decides
    session, provider, recorder = session_for(workspace, hooks, script, approval_system=approvals)
    async with session:
        outcome = await session.run("push it")
        if interrupt:
            assert outcome.status == "cancelled"
            assert len(provider.requests) == 1  # the model was not asked again
            assert recorder.get_events("cancel:requested")
            assert not (workspace / "second.txt").exists()  # the rest of the batch did not run
        else:
            assert outcome.status == "completed"
            assert outcome.response == "I will not push."
            assert "no pushes from agents" in tool_results(provider)[0]
        results = [m for m in await session.context.get_messages() if m["role"] == "tool"]
    assert approvals.requests == []
    assert "no pushes from agents" in results[0]["content"]
    assert not (workspace / "second.txt").exists()
