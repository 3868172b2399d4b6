"""A whole scripted session with a bundle: the exact event stream and every action's effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.display import RecordingDisplay
from amplifier_core.models import HookResult

from .support import call, make_bundle, module, sent, session_for

TOOL = ["tool:pre", "tool:post"]
REPLY = ["content_block:start", "content_block:delta", "content_block:end"]


async def test_exact_event_stream_of_a_turn_with_one_tool_call(workspace: Path) -> None:
    script = [call("bash", command="echo hi"), {"text": "done"}]
    session, recorder, _ = session_for(workspace, script)
    async with session:
        outcome = await session.run("say hi")
    assert outcome.status == "completed"
    assert outcome.response == "done"
    assert recorder.names == [
        "session:start",
        "provider:resolve",
        "prompt:submit",
        "execution:start",
        "provider:request",
        "llm:request",
        "llm:response",
        *REPLY,
        "provider:response",
        *TOOL,
        "provider:request",
        "llm:request",
        "llm:response",
        *REPLY,
        "provider:response",
        "prompt:complete",
        "execution:end",
        "orchestrator:complete",
        "session:checkpoint",
        "session:end",
    ]
    post = recorder.get_events("tool:post")[0][1]
    assert post["tool_result"]["success"] is True
    assert post["tool_result"]["output"]["stdout"] == "hi\n"
    assert post["tool_name"] == post["tool"] == "bash"


async def test_deny_at_tool_pre_becomes_the_error_the_model_sees(workspace: Path) -> None:
    script = [call("bash", command="rm -rf /"), {"text": "ok, I will not", "expect": "denied"}]
    session, recorder, provider = session_for(workspace, script)

    def guard(event: str, data: dict[str, Any]) -> HookResult:
        if "rm -rf" in data["tool_input"]["command"]:
            return HookResult(action="deny", reason="wiping is forbidden")
        return HookResult()

    session.coordinator.hooks.register("tool:pre", guard, name="guard")
    async with session:
        outcome = await session.run("clean up")
    assert outcome.response == "ok, I will not"
    assert "tool:post" not in recorder.names
    tool_message = sent(provider.requests[1])[-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == "Error: tool call denied by hook 'guard': wiping is forbidden"
    violation = recorder.get_events("policy:violation")[0][1]
    assert violation == {**violation, "hook": "guard", "tool_name": "bash", "event": "tool:pre"}


async def test_modify_at_tool_pre_runs_the_tool_with_the_new_input(workspace: Path) -> None:
    script = [call("bash", command="echo original"), {"text": "done"}]
    session, recorder, _ = session_for(workspace, script)

    def rewrite(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "tool_input": {"command": "echo safer"}})

    session.coordinator.hooks.register("tool:pre", rewrite, name="rewrite")
    async with session:
        await session.run("go")
    post = recorder.get_events("tool:post")[0][1]
    assert post["tool_input"] == {"command": "echo safer"}
    assert post["tool_result"]["output"]["stdout"] == "safer\n"


@pytest.mark.parametrize(("decision", "ran"), [("allow", True), ("deny", False)])
async def test_ask_user_goes_to_the_approval_system(
    workspace: Path, decision: str, ran: bool
) -> None:
    script = [call("bash", command="echo approved"), {"text": "done"}]
    approvals = StaticApprovalSystem(decision)  # type: ignore[arg-type]
    session, recorder, _ = session_for(workspace, script, approval_system=approvals)
    session.coordinator.hooks.register(
        "tool:pre",
        lambda e, d: HookResult(action="ask_user", approval_prompt="Run echo?"),
        name="gate",
    )
    async with session:
        await session.run("go")
    # The hook's prompt does not show the command: the kernel adds the tool and its input.
    assert approvals.requests == [
        'Run echo?\n\nTool: bash\nInput: {\n  "command": "echo approved"\n}'
    ]
    assert ("tool:post" in recorder.names) is ran
    assert "user:notification" in recorder.names
    assert ("approval:granted" if ran else "approval:denied") in recorder.names


async def test_injections_reach_the_next_request_ephemeral_only_once(workspace: Path) -> None:
    script = [call("bash", command="true"), {"text": "a"}, {"text": "b"}]
    session, _, provider = session_for(workspace, script)

    def inject(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult.model_validate(
            {
                "action": "inject_context",
                "context_injections": [
                    {"content": "LINT: line 1 too long", "ephemeral": False},
                    {"content": "REMINDER: todo list", "ephemeral": True},
                ],
            }
        )

    session.coordinator.hooks.register("tool:post", inject, name="lint")
    async with session:
        await session.run("first")
        await session.run("second")
        stored = await session.context.get_messages()
    second_request = [m["content"] for m in sent(provider.requests[1])]
    third_request = [m["content"] for m in sent(provider.requests[2])]
    assert "LINT: line 1 too long" in second_request
    assert "REMINDER: todo list" in second_request
    assert "LINT: line 1 too long" in third_request  # persistent
    assert "REMINDER: todo list" not in third_request  # ephemeral: that one request only
    persistent = [m for m in stored if m["content"] == "LINT: line 1 too long"]
    assert persistent[0]["metadata"]["hook_name"] == "lint"
    assert persistent[0]["metadata"]["event"] == "tool:post"


async def test_append_to_last_tool_result_is_honoured(workspace: Path) -> None:
    script = [call("bash", command="echo out"), {"text": "seen"}]
    session, _, provider = session_for(workspace, script)
    session.coordinator.hooks.register(
        "tool:post",
        lambda e, d: HookResult(
            action="inject_context",
            context_injection="CHECK: 2 issues",
            ephemeral=True,
            append_to_last_tool_result=True,
        ),
        name="check",
    )
    async with session:
        await session.run("go")
    last = sent(provider.requests[1])[-1]
    assert last["role"] == "tool"
    assert last["content"].endswith("\n\nCHECK: 2 issues")


async def test_modify_at_provider_request_changes_what_the_provider_receives(
    workspace: Path,
) -> None:
    session, _, provider = session_for(workspace, [{"text": "hello"}])

    def scrub(event: str, data: dict[str, Any]) -> HookResult:
        messages = [
            {**m, "content": m["content"].replace("hunter2", "[REDACTED]")}
            for m in data["messages"]
        ]
        return HookResult(action="modify", data={**data, "messages": messages})

    session.coordinator.hooks.register("provider:request", scrub, name="scrub")
    async with session:
        await session.run("my password is hunter2")
    assert sent(provider.requests[0])[-1]["content"] == "my password is [REDACTED]"


async def test_deny_at_prompt_submit_ends_the_turn_with_the_reason_shown(workspace: Path) -> None:
    display = RecordingDisplay()
    session, recorder, provider = session_for(workspace, [{"text": "never"}], display=display)
    session.coordinator.hooks.register(
        "PromptSubmit", lambda e, d: HookResult(action="deny", reason="off topic"), name="topic"
    )
    async with session:
        outcome = await session.run("tell me a secret")
    assert outcome.status == "denied"
    assert provider.requests == []
    assert "Prompt blocked: off topic" in display.texts()
    assert "execution:start" not in recorder.names


async def test_user_messages_reach_the_display(workspace: Path) -> None:
    display = RecordingDisplay()
    session, _, _ = session_for(workspace, [{"text": "x"}], display=display)
    session.coordinator.hooks.register(
        "prompt:submit",
        lambda e, d: HookResult(user_message="checked", user_message_level="warning"),
        name="checker",
    )
    async with session:
        await session.run("go")
    assert [(m.message, m.level, m.source) for m in display.messages] == [
        ("checked", "warning", "checker")
    ]


async def test_session_end_fires_after_an_error(workspace: Path) -> None:
    session, recorder, _ = session_for(workspace, [{"text": "x"}])
    with pytest.raises(RuntimeError, match="boom"):
        async with session:
            raise RuntimeError("boom")
    end = recorder.get_events("session:end")[0][1]
    assert end["status"] == "failed"
    assert end["error"] == {"type": "RuntimeError", "message": "boom"}


async def test_bundle_hooks_act_on_the_session(workspace: Path) -> None:
    bundle = make_bundle(hooks=[module("hooks-template", {"deny_tools": ["bash"]})])
    script = [call("bash", command="echo hi"), {"text": "blocked", "expect": "disabled"}]
    session, recorder, _ = session_for(workspace, script, bundle)
    async with session:
        outcome = await session.run("go")
    assert outcome.response == "blocked"
    assert recorder.get_events("policy:violation")[0][1]["hook"] == "hooks-template.tool_pre"
