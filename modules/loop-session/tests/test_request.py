"""Preparing a model request: the conversation repaired, injections added, ``provider:request``
hooks denying, changing or answering the call. Through real sessions (scripted provider)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core import HookResult

from .scripted import RecordingTool, call, deny, scripted_session


async def test_a_deny_at_provider_request_ends_the_turn_before_the_provider(
    tmp_path: Path,
) -> None:
    session = await scripted_session(tmp_path, ["never said"])
    session.hook("provider:request", lambda e, d: deny("budget spent"), name="budget")

    assert await session.turn("hello") == ""

    assert session.outcome.status == "denied"
    assert session.outcome.reason == "budget spent"
    assert session.provider.requests == []
    assert "llm:request" not in session.names()
    assert session.of("policy:violation")[0]["event"] == "provider:request"
    # a model call a hook denied stops the turn as a cancel does
    assert session.of("execution:end")[0]["status"] == "cancelled"
    assert session.of("orchestrator:complete")[0]["status"] == "cancelled"


async def test_a_synthetic_response_answers_in_the_providers_place(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["never said"])

    def answer(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "response": {"content": "from the hook"}})

    session.hook("provider:request", answer, name="cache")
    assert await session.turn("hello") == "from the hook"

    assert session.provider.requests == []
    assert session.provider.remaining == 1
    assert "llm:request" not in session.names()
    assert "llm:response" not in session.names()
    assert session.of("provider:response")[0]["response"]["content"] == "from the hook"
    assert session.outcome.status == "completed"


async def test_model_tools_and_options_a_hook_changes_reach_the_provider(
    tmp_path: Path,
) -> None:
    tools = [RecordingTool("alpha"), RecordingTool("beta")]
    session = await scripted_session(tmp_path, ["fine"], tools)

    def change(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(
            action="modify",
            data={
                **data,
                "model": "bigger-1",
                "tools": ["beta", "nonexistent"],
                "tool_choice": "none",
                "temperature": 0.25,
            },
        )

    session.hook("provider:request", change, name="chooser")
    await session.turn("hello")

    request = session.provider.requests[0]
    assert request.model == "bigger-1"
    assert [t.name for t in request.tools or []] == ["beta"]
    assert request.tool_choice == "none"
    assert request.temperature == 0.25
    sent = session.of("llm:request")[0]
    assert sent["model"] == "bigger-1"
    assert sent["tools"] == 1


async def test_offering_no_tools_sends_none(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["fine"], [RecordingTool("alpha")])
    session.hook(
        "provider:request", lambda e, d: HookResult(action="modify", data={**d, "tools": []})
    )
    await session.turn("hello")
    assert session.provider.requests[0].tools is None


async def test_a_wrong_type_from_a_hook_is_ignored_and_the_request_still_goes(
    tmp_path: Path,
) -> None:
    session = await scripted_session(tmp_path, ["fine"])

    def broken(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(
            action="modify",
            data={**data, "messages": "not a list", "model": 7, "temperature": "hot"},
        )

    session.hook("provider:request", broken, name="broken")
    assert await session.turn("hello") == "fine"

    request = session.provider.requests[0]
    assert [m.content for m in request.messages] == ["hello"]
    assert request.model == "scripted"
    assert request.temperature is None
    warnings = [n["message"] for n in session.of("user:notification")]
    assert any("not a list of messages" in w for w in warnings)


async def test_a_persistent_injection_at_provider_request_reaches_that_request(
    tmp_path: Path,
) -> None:
    session = await scripted_session(tmp_path, ["fine", "again"])

    def remind(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="inject_context", context_injection="remember the style guide")

    session.hook("provider:request", remind, name="reminder")
    await session.turn("hello")

    first = [m.content for m in session.provider.requests[0].messages]
    assert first[0] == "hello"
    assert any("remember the style guide" in str(c) for c in first[1:])
    stored = [m["content"] for m in await session.context.get_messages()]
    assert any("remember the style guide" in str(c) for c in stored)


async def test_an_ephemeral_injection_made_at_provider_request_reaches_only_it(
    tmp_path: Path,
) -> None:
    session = await scripted_session(
        tmp_path,
        [{"text": "", "tool_calls": [call("alpha", "c1")]}, "done"],
        [RecordingTool("alpha")],
    )
    fired: list[int] = []

    def aside(event: str, data: dict[str, Any]) -> HookResult | None:
        fired.append(data["iteration"])
        if data["iteration"] != 1:
            return None
        return HookResult(
            action="inject_context", context_injection="just this once", ephemeral=True
        )

    session.hook("provider:request", aside, name="aside")
    await session.turn("hello")

    first, second = (r.messages for r in session.provider.requests)
    assert first[-1].content == "just this once"
    assert all(m.content != "just this once" for m in second)
    assert all(m["content"] != "just this once" for m in await session.context.get_messages())
    assert fired == [1, 2]


async def test_the_request_event_says_what_is_asked(tmp_path: Path) -> None:
    session = await scripted_session(tmp_path, ["fine"], [RecordingTool("alpha")])
    await session.turn("hello")

    asked = session.of("provider:request")[0]
    assert asked["provider"] == "scripted"
    assert asked["model"] == "scripted"
    assert asked["turn"] == 1
    assert asked["iteration"] == 1
    assert asked["tools"] == ["alpha"]
    assert [m["content"] for m in asked["messages"]] == ["hello"]
    sent = session.of("llm:request")[0]
    assert sent["request_id"].startswith("req_")
    assert sent["messages"] == 1
    assert sent["endpoint"] == "scripted:"
    assert sent["request"]["messages"] == [{"role": "user", "content": "hello"}]
    assert session.loop.current_request_id == sent["request_id"]


# -- the repair of interrupted tool calls ----------------------------------------------------

HISTORY = st.lists(
    st.lists(st.booleans(), min_size=1, max_size=3),  # per assistant message: answered calls
    min_size=1,
    max_size=4,
)


def _interrupted(history: list[list[bool]]) -> list[dict[str, Any]]:
    """A conversation whose assistant messages made calls, answered as ``history`` says."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    for a, answers in enumerate(history):
        ids = [f"old_{a}_{c}" for c in range(len(answers))]
        messages.append(
            {
                "role": "assistant",
                "content": f"step {a}",
                "tool_calls": [{"id": i, "tool": "alpha", "arguments": {}} for i in ids],
            }
        )
        for call_id, answered in zip(ids, answers, strict=True):
            if answered:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call_id,
                        "name": "alpha",
                        "content": "ok",
                    }
                )
        messages.append({"role": "user", "content": f"and then {a}"})
    return messages


async def _repair(workspace: Path, history: list[list[bool]]) -> dict[str, Any]:
    session = await scripted_session(workspace, ["fine", "still fine"], [RecordingTool("alpha")])
    await session.context.set_messages(_interrupted(history))
    await session.turn("go on")
    await session.turn("and again")
    return {"session": session, "messages": await session.context.get_messages()}


@settings(max_examples=30, deadline=None)
@given(HISTORY)
def test_every_request_answers_every_tool_call_once_and_repairs_are_reported_once(
    history: list[list[bool]],
) -> None:
    with tempfile.TemporaryDirectory() as where:
        done = asyncio.run(_repair(Path(where), history))
    session = done["session"]
    open_calls = [
        f"old_{a}_{c}"
        for a, answers in enumerate(history)
        for c, answered in enumerate(answers)
        if not answered
    ]
    for request in session.provider.requests:
        messages = request.messages
        for index, message in enumerate(messages):
            calls = getattr(message, "tool_calls", None)
            if message.role != "assistant" or not calls:
                continue
            ids = [c["id"] for c in calls]
            results = [m.tool_call_id for m in messages[index + 1 :] if m.role == "tool"]
            for call_id in ids:
                assert results.count(call_id) >= 1
        answered = [m.tool_call_id for m in messages if m.role == "tool"]
        assert len(answered) == len(set(answered))
    repaired = session.of("provider:tool_sequence_repaired")
    if open_calls:
        assert len(repaired) == 1
        assert [r["tool_call_id"] for r in repaired[0]["repairs"]] == open_calls
        assert repaired[0]["repaired_count"] == len(open_calls)
    else:
        assert repaired == []
    # the repair is in the conversation itself, each right after its assistant message
    stored = done["messages"]
    for call_id in open_calls:
        (result,) = [m for m in stored if m.get("tool_call_id") == call_id]
        assert result["is_error"] is True
        assert "interrupted" in result["content"]
