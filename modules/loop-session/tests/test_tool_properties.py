"""Generative tests of the tool calls, through real sessions with the scripted provider: any
mix of allowed, denied, failing and unknown tools over any number of rounds."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core import HookResult

from .scripted import RecordingTool, call, scripted_session

MOUNTED = ("alpha", "beta", "broken")
NAMES = st.sampled_from([*MOUNTED, "missing"])
CALL = st.tuples(NAMES, st.booleans())  # (tool, denied by the guard)
ROUNDS = st.lists(st.lists(CALL, min_size=1, max_size=4), min_size=1, max_size=3)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _script(rounds: list[list[tuple[str, bool]]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """The script of ``rounds`` (then a final answer), and each call as (id, name, denied)."""
    entries: list[dict[str, Any]] = []
    calls: list[tuple[str, str, bool]] = []
    for r, round_calls in enumerate(rounds):
        tool_calls = []
        for c, (name, denied) in enumerate(round_calls):
            call_id = f"call_{r}_{c}"
            calls.append((call_id, name, denied))
            tool_calls.append(call(name, call_id, n=c, deny=denied))
        entries.append({"text": f"round {r}", "tool_calls": tool_calls})
    entries.append({"text": "all done"})
    return entries, calls


async def _run(workspace: Path, rounds: list[list[tuple[str, bool]]]) -> dict[str, Any]:
    script, calls = _script(rounds)
    log: list[str] = []
    tools = [RecordingTool(n, fails=n == "broken", log=log) for n in MOUNTED]
    session = await scripted_session(workspace, script, tools, max_iterations=len(rounds) + 1)

    gated: list[str] = []

    def guard(event: str, data: dict[str, Any]) -> HookResult | None:
        gated.append(data["tool_call_id"])
        if data["tool_input"].get("deny"):
            return HookResult(action="deny", reason="the guard says no")
        return None

    session.hook("tool:pre", guard, name="guard")
    answer = await session.turn("go")
    return {
        "answer": answer,
        "calls": calls,
        "gated": gated,
        "tools": {t.name: t for t in tools},
        "log": log,
        "session": session,
        "messages": await session.context.get_messages(),
    }


def run(rounds: list[list[tuple[str, bool]]]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as where:
        return asyncio.run(_run(Path(where), rounds))


@SETTINGS
@given(ROUNDS)
def test_every_tool_call_gets_exactly_one_result_message_in_order(
    rounds: list[list[tuple[str, bool]]],
) -> None:
    done = run(rounds)
    messages = done["messages"]
    assert done["answer"] == "all done"
    assert done["session"].outcome.status == "completed"
    # after each assistant message with calls come exactly their results, in the same order
    expected: list[str] = []
    seen: list[str] = []
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            follow = messages[index + 1 : index + 1 + len(ids)]
            assert [m["role"] for m in follow] == ["tool"] * len(ids)
            assert [m["tool_call_id"] for m in follow] == ids
            expected.extend(ids)
        if message["role"] == "tool":
            seen.append(message["tool_call_id"])
    assert seen == expected == [c[0] for c in done["calls"]]
    # the provider saw each result once too
    last = done["session"].provider.requests[-1].messages
    assert [m.tool_call_id for m in last if m.role == "tool"] == expected


@SETTINGS
@given(ROUNDS)
def test_a_denied_tool_never_executes_and_an_allowed_one_runs_once_in_order(
    rounds: list[list[tuple[str, bool]]],
) -> None:
    done = run(rounds)
    allowed = [(i, n) for i, n, denied in done["calls"] if not denied]
    for tool in done["tools"].values():
        assert all(not ran["deny"] for ran in tool.ran)
    assert done["log"] == [n for _, n in allowed if n in MOUNTED]
    by_id = {m["tool_call_id"]: m for m in done["messages"] if m["role"] == "tool"}
    for call_id, name, denied in done["calls"]:
        message = by_id[call_id]
        if denied:
            assert message["is_error"] is True
            assert message["content"].startswith("Error: tool call denied")
        elif name == "missing":
            assert message["content"] == f"Error: LookupError: no tool named {name!r} is mounted"
        elif name == "broken":
            assert message["content"] == "Error: RuntimeError: broken broke"
        else:
            assert message["is_error"] is False


@SETTINGS
@given(ROUNDS)
def test_each_call_fires_one_pre_and_one_post_or_error_and_denies_are_violations(
    rounds: list[list[tuple[str, bool]]],
) -> None:
    done = run(rounds)
    session = done["session"]
    calls = done["calls"]
    ran = [c for c in calls if not c[2]]
    assert done["gated"] == [c[0] for c in calls]  # every call asks the gate, in order
    # a deny stops the handlers after it (the recorder runs last)
    assert [d["tool_call_id"] for d in session.of("tool:pre")] == [c[0] for c in ran]
    finished = [
        d["tool_call_id"] for name, d in session.events if name in ("tool:post", "tool:error")
    ]
    assert finished == [c[0] for c in ran]
    errors = {d["tool_call_id"] for d in session.of("tool:error")}
    assert errors == {c[0] for c in ran if c[1] in ("broken", "missing")}
    violations = session.of("policy:violation")
    assert [v["tool_name"] for v in violations] == [c[1] for c in calls if c[2]]
    # a call's events share its round's parallel group; rounds have groups of their own
    groups: dict[str, str] = {}
    for name, data in session.events:
        if name in ("tool:pre", "tool:post", "tool:error"):
            assert (
                groups.setdefault(data["tool_call_id"], data["parallel_group_id"])
                == (data["parallel_group_id"])
            )
    for r, round_calls in enumerate(rounds):
        ids = [f"call_{r}_{c}" for c in range(len(round_calls))]
        assert len({groups[i] for i in ids if i in groups}) <= 1
    assert session.loop.running_tools == []
