"""Generative tests of what hooks add to and change in a conversation, through real sessions
with the scripted provider: ephemeral injections reach exactly the next request, persistent
ones stay, ``tool:post`` rewrites reach the model and not the event."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core import HookResult

from .scripted import RecordingTool, call, scripted_session

# per call: None (no injection), or (ephemeral, append to the last tool result)
INJECTION = st.one_of(st.none(), st.tuples(st.booleans(), st.booleans()))
ROUNDS = st.lists(st.lists(INJECTION, min_size=1, max_size=3), min_size=1, max_size=3)


def _text(content: Any) -> str:
    return content if isinstance(content, str) else str(content)


async def _inject(
    workspace: Path, rounds: list[list[tuple[bool, bool] | None]]
) -> tuple[Any, dict[str, tuple[int, bool, bool]]]:
    script: list[Any] = []
    plan: dict[str, tuple[int, bool, bool]] = {}  # note -> (round, ephemeral, append)
    by_call: dict[str, tuple[bool, bool]] = {}
    for r, injections in enumerate(rounds):
        calls = []
        for c, injection in enumerate(injections):
            call_id = f"call_{r}_{c}"
            calls.append(call("alpha", call_id))
            if injection is not None:
                by_call[call_id] = injection
                plan[f"note for {call_id}"] = (r, *injection)
        script.append({"text": f"round {r}", "tool_calls": calls})
    script.append("done")
    session = await scripted_session(
        workspace, script, [RecordingTool("alpha")], max_iterations=len(rounds) + 1
    )

    def note(event: str, data: dict[str, Any]) -> HookResult | None:
        injection = by_call.get(data["tool_call_id"])
        if injection is None:
            return None
        ephemeral, append = injection
        return HookResult(
            action="inject_context",
            context_injection=f"note for {data['tool_call_id']}",
            ephemeral=ephemeral,
            append_to_last_tool_result=append,
        )

    session.hook("tool:post", note, name="noter")
    await session.turn("go")
    return session, plan


@settings(max_examples=30, deadline=None)
@given(ROUNDS)
def test_an_ephemeral_injection_reaches_exactly_the_next_request_and_a_persistent_one_stays(
    rounds: list[list[tuple[bool, bool] | None]],
) -> None:
    with tempfile.TemporaryDirectory() as where:
        session, plan = asyncio.run(_inject(Path(where), rounds))
        stored = asyncio.run(session.context.get_messages())
    requests = [[_text(m.content) for m in r.messages] for r in session.provider.requests]
    assert len(requests) == len(rounds) + 1
    for text, (r, ephemeral, _append) in plan.items():
        carrying = [i for i, messages in enumerate(requests) if any(text in m for m in messages)]
        if ephemeral:
            assert carrying == [r + 1], text
            assert all(text not in _text(m["content"]) for m in stored)
        else:
            assert carrying == list(range(r + 1, len(requests))), text
            assert sum(text in _text(m["content"]) for m in stored) == 1
    # the results stay contiguous after each assistant message whatever was injected
    for index, message in enumerate(stored):
        calls = message.get("tool_calls") if message["role"] == "assistant" else None
        if calls:
            follow = stored[index + 1 : index + 1 + len(calls)]
            assert [m.get("tool_call_id") for m in follow] == [c["id"] for c in calls]


async def _rewrite(workspace: Path, rewrites: list[str | None]) -> tuple[Any, list[Any]]:
    calls = [call("alpha", f"c{i}", i=i) for i in range(len(rewrites))]
    session = await scripted_session(
        workspace, [{"tool_calls": calls}, "done"], [RecordingTool("alpha")]
    )

    seen: list[Any] = []

    def rewrite(event: str, data: dict[str, Any]) -> HookResult | None:
        seen.append(data["tool_result"]["output"])
        new = rewrites[data["tool_input"]["i"]]
        if new is None:
            return None
        result = {**data["tool_result"], "output": new}
        return HookResult(action="modify", data={**data, "tool_result": result})

    session.hook("tool:post", rewrite, name="rewriter")
    await session.turn("go")
    return session, seen


@settings(max_examples=30, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(min_size=1, max_size=20)), min_size=1, max_size=4))
def test_the_model_sees_each_tool_post_rewrite_and_the_event_keeps_the_tools_own(
    rewrites: list[str | None],
) -> None:
    with tempfile.TemporaryDirectory() as where:
        session, seen = asyncio.run(_rewrite(Path(where), rewrites))
        stored = asyncio.run(session.context.get_messages())
    results = [m for m in stored if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == [f"c{i}" for i in range(len(rewrites))]
    for i, (new, message, fired) in enumerate(zip(rewrites, results, seen, strict=True)):
        own = f"alpha ran with {[('i', i)]}"
        assert fired == own  # tool:post carries the tool's own result
        assert message["content"] == (own if new is None else new)
    sent = [m for m in session.provider.requests[1].messages if m.role == "tool"]
    assert [m.content for m in sent] == [m["content"] for m in results]
