"""Sending a model request and reviewing its answer: ``llm:*``, the content-block events,
``provider:response`` hooks discarding or rewriting the answer, provider failures. Through real
sessions (scripted provider)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core import HookResult
from amplifier_core.message_models import ChatResponse, TextBlock

from .scripted import RecordingTool, call, deny, scripted_session

BLOCK_EVENTS = (
    "content_block:start",
    "content_block:delta",
    "content_block:end",
    "thinking:delta",
    "thinking:final",
)


async def test_an_answer_fires_its_blocks_thinking_text_then_tool_uses(tmp_path: Path) -> None:
    script = [
        {
            "thinking": "let me see",
            "text": "looking",
            "tool_calls": [call("alpha", "c1", path="a.txt")],
            "usage": {"input_tokens": 10, "output_tokens": 4},
        },
        "done",
    ]
    session = await scripted_session(tmp_path, script, [RecordingTool("alpha")])
    await session.turn("look")

    first = [(n, d) for n, d in session.events if n in BLOCK_EVENTS][:9]
    assert [n for n, _ in first] == [
        "content_block:start",
        "thinking:delta",
        "thinking:final",
        "content_block:end",
        "content_block:start",
        "content_block:delta",
        "content_block:end",
        "content_block:start",
        "content_block:delta",
    ]
    starts = session.of("content_block:start")[:3]
    assert [s["block_type"] for s in starts] == ["thinking", "text", "tool_use"]
    assert all(s["total_blocks"] == 3 for s in starts)
    ends = session.of("content_block:end")[:3]
    assert [e["block_index"] for e in ends] == [0, 1, 2]
    assert "usage" not in ends[0]
    assert "usage" not in ends[1]
    assert ends[2]["usage"] == {"input_tokens": 10, "output_tokens": 4}
    assert ends[2]["block"] == {
        "type": "tool_use",
        "id": "c1",
        "name": "alpha",
        "input": {"path": "a.txt"},
    }
    deltas = session.of("content_block:delta")[:2]
    assert deltas[0]["delta"] == "looking"
    assert deltas[1]["delta"] == '{"path": "a.txt"}'
    assert session.of("thinking:final")[0]["text"] == "let me see"


async def test_the_response_events_report_the_answer(tmp_path: Path) -> None:
    script = [
        {
            "text": "working",
            "tool_calls": [call("alpha", "c1", n=1)],
            "usage": {"input_tokens": 7, "output_tokens": 3},
        },
        {"text": "done", "usage": {"input_tokens": 9, "output_tokens": 1}},
    ]
    session = await scripted_session(tmp_path, script, [RecordingTool("alpha")])
    await session.turn("work")

    first, second = session.of("provider:response")
    assert first["response"] == {
        "content": "working",
        "tool_calls": [{"id": "c1", "name": "alpha", "arguments": {"n": 1}}],
        "stop_reason": "tool_use",
    }
    assert first["tool_calls"] is True
    assert first["iteration"] == 1
    assert second["iteration"] == 2
    assert second["tool_calls"] is False
    assert first["usage"] == {"input_tokens": 7, "output_tokens": 3}
    received = session.of("llm:response")
    assert [r["request_id"] for r in received] == [
        s["request_id"] for s in session.of("llm:request")
    ]
    assert received[0]["status_code"] == 200
    assert received[0]["response"]["content"][0]["text"] == "working"
    assert session.outcome.usage == {"input_tokens": 16, "output_tokens": 4}
    done = session.of("orchestrator:complete")[0]
    assert done["tokens"] == 20
    assert done["iterations"] == 2


async def test_a_deny_at_provider_response_discards_the_answer_and_its_tools(
    tmp_path: Path,
) -> None:
    tool = RecordingTool("alpha")
    session = await scripted_session(
        tmp_path, [{"text": "rm everything", "tool_calls": [call("alpha", "c1")]}], [tool]
    )
    session.hook("provider:response", lambda e, d: deny("unsafe plan"), name="reviewer")

    assert await session.turn("clean up") == ""

    assert tool.ran == []
    assert session.outcome.status == "denied"
    assert session.outcome.reason == "unsafe plan"
    assert [m["role"] for m in await session.context.get_messages()] == ["user"]
    violation = session.of("policy:violation")[0]
    assert violation["event"] == "provider:response"
    assert violation["reason"] == "unsafe plan"


async def test_a_modify_at_provider_response_replaces_the_text_and_keeps_the_calls(
    tmp_path: Path,
) -> None:
    tool = RecordingTool("alpha")
    script = [{"text": "my secret is 42", "tool_calls": [call("alpha", "c1")]}, "done"]
    session = await scripted_session(tmp_path, script, [tool])

    def scrub(event: str, data: dict[str, Any]) -> HookResult | None:
        response = data["response"]
        if "secret" not in response["content"]:
            return None
        return HookResult(
            action="modify",
            data={**data, "response": {**response, "content": "my secret is [hidden]"}},
        )

    session.hook("provider:response", scrub, name="scrub")
    assert await session.turn("tell me") == "done"

    assert len(tool.ran) == 1
    assistant = (await session.context.get_messages())[1]
    assert assistant["content"] == "my secret is [hidden]"
    assert assistant["tool_calls"] == [{"id": "c1", "tool": "alpha", "arguments": {}}]


async def test_a_provider_failure_names_the_provider_and_its_status(tmp_path: Path) -> None:
    session = await scripted_session(
        tmp_path, [{"error": {"message": "overloaded", "status": 529, "retryable": True}}]
    )
    assert await session.turn("hello") == ""

    assert session.outcome.status == "error"
    failed = session.of("provider:error")[0]
    assert failed["provider"] == "scripted"
    assert failed["status_code"] == 529
    assert "overloaded" in failed["error"]["message"]
    assert failed["request_id"] == session.of("llm:request")[0]["request_id"]
    notes = [n["message"] for n in session.of("user:notification")]
    assert any(n.startswith("scripted provider failed") for n in notes)
    assert session.of("execution:end")[0]["status"] == "error"
    assert "llm:response" not in session.names()


async def test_a_failure_after_a_tool_round_leaves_no_answer(tmp_path: Path) -> None:
    script = [
        {"text": "first step", "tool_calls": [call("alpha", "c1")]},
        {"error": {"message": "gone"}},
    ]
    session = await scripted_session(tmp_path, script, [RecordingTool("alpha")])
    assert await session.turn("go") == ""
    assert session.outcome.status == "error"
    assert session.outcome.iterations == 2


class _Odd:
    """A provider whose answers are not ``ChatResponse`` objects."""

    name = "odd"
    model = "odd-1"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    async def complete(self, request: Any, **kwargs: Any) -> Any:
        return self.answer


async def _odd_turn(tmp_path: Path, answer: Any) -> Any:
    session = await scripted_session(tmp_path, [])
    provider = _Odd(answer)
    text = await session.loop.execute(
        "hi", session.context, {"odd": provider}, {}, None, coordinator=session.coordinator
    )
    return text, session


async def test_an_answer_in_the_shape_of_a_response_is_read_as_one(tmp_path: Path) -> None:
    answer = ChatResponse(content=[TextBlock(text="as a dict")]).model_dump()
    text, session = await _odd_turn(tmp_path, answer)
    assert text == "as a dict"
    assert session.outcome.status == "completed"


async def test_an_answer_that_is_no_response_is_a_provider_error(tmp_path: Path) -> None:
    text, session = await _odd_turn(tmp_path, 42)
    assert text == ""
    error = session.of("provider:error")[0]["error"]
    assert error["type"] == "TypeError"
    assert "provider 'odd' returned int, not a ChatResponse" in error["message"]


# -- usage and iterations over any script ----------------------------------------------------

USAGE = st.tuples(st.integers(0, 10_000), st.integers(0, 10_000))


async def _usage_turn(workspace: Path, usages: list[tuple[int, int]]) -> Any:
    script = [
        {
            "text": f"step {i}",
            "tool_calls": [call("alpha", f"c{i}")] if i < len(usages) - 1 else [],
            "usage": {"input_tokens": a, "output_tokens": b},
        }
        for i, (a, b) in enumerate(usages)
    ]
    session = await scripted_session(
        workspace, script, [RecordingTool("alpha")], max_iterations=len(usages)
    )
    await session.turn("go")
    return session


@settings(max_examples=25, deadline=None)
@given(st.lists(USAGE, min_size=1, max_size=5))
def test_usage_adds_up_over_the_rounds_and_each_round_is_reported_once(
    usages: list[tuple[int, int]],
) -> None:
    with tempfile.TemporaryDirectory() as where:
        session = asyncio.run(_usage_turn(Path(where), usages))
    outcome = session.outcome
    assert outcome.status == "completed"
    assert outcome.iterations == len(usages)
    assert outcome.usage == {
        "input_tokens": sum(a for a, _ in usages),
        "output_tokens": sum(b for _, b in usages),
    }
    assert [r["usage"] for r in session.of("provider:response")] == [
        {"input_tokens": a, "output_tokens": b} for a, b in usages
    ]
    assert len(session.of("llm:request")) == len(session.of("llm:response")) == len(usages)
    assert [r["iteration"] for r in session.of("provider:request")] == list(
        range(1, len(usages) + 1)
    )
    assert outcome.response == f"step {len(usages) - 1}"
