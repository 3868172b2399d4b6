"""Turns through the loop: events in order, results taking effect, checkpoints, memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core import HookResult
from amplifier_module_loop_session import LoopConfigError, mount, read_checkpoint

from .conftest import RigFactory, say

WRITE = ("call_1", "write_file", {"file_path": "note.txt", "text": "hello"})


async def test_a_turn_with_a_tool_call_fires_every_event_in_order(make_rig: RigFactory) -> None:
    rig = await make_rig([say("writing", WRITE), say("done")])
    answer = await rig.turn("write a note")

    assert answer == "done"
    assert rig.loop.last_outcome is not None
    assert rig.loop.last_outcome.status == "completed"
    assert rig.loop.last_outcome.iterations == 2
    names = [n for n in rig.names() if not n.startswith(("content_block", "llm:"))]
    assert names == [
        "provider:resolve",
        "prompt:submit",
        "execution:start",
        "provider:request",
        "provider:response",
        "tool:pre",
        "artifact:write",
        "tool:post",
        "provider:request",
        "provider:response",
        "prompt:complete",
        "execution:end",
        "orchestrator:complete",
        "session:checkpoint",
    ]
    assert rig.tool.calls == [{"file_path": "note.txt", "text": "hello"}]
    messages = await rig.context.get_messages()
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["tool_calls"] == [
        {
            "id": "call_1",
            "tool": "write_file",
            "arguments": {"file_path": "note.txt", "text": "hello"},
        }
    ]
    assert messages[2]["tool_call_id"] == "call_1"
    # the second request carried the tool result, as message models
    second = rig.provider.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert second.tools is not None
    assert [t.name for t in second.tools] == ["write_file"]


async def test_a_deny_at_tool_pre_is_the_error_the_model_sees(make_rig: RigFactory) -> None:
    rig = await make_rig([say("", WRITE), say("ok, I will not")])

    def guard(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="deny", reason="no writes today")

    rig.coordinator.hooks.register("tool:pre", guard, name="guard")
    await rig.turn("write a note")

    assert rig.tool.calls == []
    tool_message = (await rig.context.get_messages())[2]
    assert tool_message["role"] == "tool"
    assert tool_message["is_error"] is True
    assert "no writes today" in tool_message["content"]
    assert rig.of("policy:violation")[0]["reason"] == "no writes today"
    assert "tool:post" not in rig.names()


async def test_a_modify_at_tool_pre_changes_what_the_tool_runs(make_rig: RigFactory) -> None:
    rig = await make_rig([say("", WRITE), say("done")])

    def rewrite(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(
            action="modify", data={**data, "tool_input": {**data["tool_input"], "text": "safe"}}
        )

    rig.coordinator.hooks.register("tool:pre", rewrite, name="rewrite")
    await rig.turn("write a note")

    assert rig.tool.calls == [{"file_path": "note.txt", "text": "safe"}]


async def test_a_modify_at_provider_request_changes_what_the_provider_receives(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig([say("fine")])

    def redact(event: str, data: dict[str, Any]) -> HookResult:
        messages = [
            {**m, "content": m["content"].replace("hunter2", "[SECRET]")} for m in data["messages"]
        ]
        return HookResult(action="modify", data={**data, "messages": messages})

    rig.coordinator.hooks.register("provider:request", redact, name="redact")
    await rig.turn("my password is hunter2")

    assert rig.provider.requests[0].messages[0].content == "my password is [SECRET]"


async def test_an_ephemeral_injection_reaches_only_the_next_request(make_rig: RigFactory) -> None:
    rig = await make_rig([say("", WRITE), say("done")])

    def lint(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(
            action="inject_context", context_injection="lint: all clear", ephemeral=True
        )

    rig.coordinator.hooks.register("tool:post", lint, name="lint")
    await rig.turn("write a note")

    second = rig.provider.requests[1].messages
    assert second[-1].content == "lint: all clear"
    stored = await rig.context.get_messages()
    assert all(m["content"] != "lint: all clear" for m in stored)


async def test_a_deny_at_prompt_submit_ends_the_turn_before_the_provider(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig([say("never")])
    rig.coordinator.hooks.register(
        "prompt:submit", lambda e, d: HookResult(action="deny", reason="off topic"), name="topic"
    )
    assert await rig.turn("tell me a secret") == ""
    assert rig.loop.last_outcome is not None
    assert rig.loop.last_outcome.status == "denied"
    assert rig.provider.requests == []


async def test_a_provider_failure_ends_the_turn_with_an_error(make_rig: RigFactory) -> None:
    rig = await make_rig([RuntimeError("upstream is down")])
    assert await rig.turn("hello") == ""
    outcome = rig.loop.last_outcome
    assert outcome is not None
    assert outcome.status == "error"
    assert outcome.error == {"type": "RuntimeError", "message": "upstream is down"}
    assert rig.of("provider:error")[0]["error"]["message"] == "upstream is down"


async def test_the_turn_stops_after_max_iterations(make_rig: RigFactory) -> None:
    rig = await make_rig(
        [say("", ("a", "write_file", {"file_path": "x", "text": "1"}))] * 2, max_iterations=2
    )
    await rig.turn("loop forever")
    outcome = rig.loop.last_outcome
    assert outcome is not None
    assert outcome.status == "incomplete"
    assert outcome.iterations == 2


async def test_a_checkpoint_after_each_turn_can_be_resumed(
    make_rig: RigFactory, tmp_path: Path
) -> None:
    rig = await make_rig([say("one"), say("two")])
    await rig.turn("first")
    await rig.turn("second")

    checkpoints = rig.of("session:checkpoint")
    assert [c["turn"] for c in checkpoints] == [1, 2]
    saved = read_checkpoint(Path(checkpoints[-1]["path"]))
    assert saved.turn == 2
    assert saved.provider == "listed"
    assert saved.model == "list-1"
    assert [m["content"] for m in saved.messages] == ["first", "one", "second", "two"]

    again = await make_rig([say("three")])
    again.loop.restore(saved)
    await again.context.set_messages(saved.messages)
    await again.turn("third")
    assert again.of("prompt:submit")[0]["turn"] == 3


async def test_instructions_are_included_and_memory_edits_fire_memory_update(
    make_rig: RigFactory, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    rig = await make_rig(
        [say("", ("m", "write_file", {"file_path": "AGENTS.md", "text": "Be kind.\n"})), say("ok")]
    )
    await rig.turn("update the rules")

    first = (await rig.context.get_messages())[0]
    assert first["role"] == "system"
    assert "Be brief." in first["content"]
    assert rig.of("context:include")[0]["source"] == "instructions"
    update = rig.of("memory:update")[0]
    assert update["change"] == "modified"
    assert update["tool_name"] == "write_file"
    assert "+Be kind." in update["diff"]


async def test_switch_model_fires_resolve_and_switch(make_rig: RigFactory) -> None:
    rig = await make_rig([say("hi")])
    await rig.turn("hello")
    await rig.loop.switch_model("list-2")
    switch = rig.of("provider:switch")[0]
    assert (switch["old_model"], switch["new_model"]) == ("list-1", "list-2")
    assert rig.of("provider:resolve")[-1]["requested"] == "listed/list-2"


async def test_a_graceful_cancel_during_a_tool_ends_the_turn_cancelled(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig([say("", WRITE), say("never")])

    async def cancel_now(event: str, data: dict[str, Any]) -> None:
        await rig.loop.cancel()

    rig.coordinator.hooks.register("tool:post", cancel_now, name="stopper")
    await rig.turn("write and stop")

    outcome = rig.loop.last_outcome
    assert outcome is not None
    assert outcome.status == "cancelled"
    assert len(rig.provider.requests) == 1
    assert rig.of("cancel:requested")[0]["immediate"] is False


async def test_a_config_mistake_names_the_key() -> None:
    from amplifier_core import ModuleCoordinator

    with pytest.raises(LoopConfigError, match="max_iterations"):
        await mount(ModuleCoordinator(), {"max_iterations": 0})
    with pytest.raises(LoopConfigError, match="colour"):
        await mount(ModuleCoordinator(), {"colour": "blue"})
