"""The event recorder records every event emitted, a denied one included, and what became of
it: the same decision ``emit`` returned, for any chain of handlers around the recorder."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.testing import EventRecorder

ACTIONS = st.sampled_from(["continue", "deny", "ask_user", "modify", "none"])
HANDLERS = st.lists(st.tuples(ACTIONS, st.integers(-5, 5)), max_size=5)


def _handler(action: str, index: int) -> Any:
    async def handler(event: str, data: dict[str, Any]) -> HookResult | None:
        if action == "none":
            return None
        if action == "deny":
            return HookResult(action="deny", reason=f"r{index}")
        if action == "ask_user":
            return HookResult(action="ask_user", approval_prompt="ok?")
        if action == "modify":
            return HookResult(action="modify", data={**data, "seen": index})
        return HookResult()

    return handler


@given(handlers=HANDLERS, recorder_priority=st.integers(-6, 6), emits=st.integers(1, 3))
def test_each_emit_is_recorded_once_with_the_decision_emit_returned(
    handlers: list[tuple[str, int]], recorder_priority: int, emits: int
) -> None:
    async def scenario() -> tuple[list[str], EventRecorder]:
        registry = HookRegistry()
        for index, (action, priority) in enumerate(handlers):
            registry.register(
                "tool:pre", _handler(action, index), priority=priority, name=f"h{index}"
            )
        recorder = EventRecorder()
        recorder.attach(registry, "tool:*", priority=recorder_priority)
        returned = []
        for number in range(emits):
            result = await registry.emit("tool:pre", {"n": number})
            returned.append(result.action if result.action in ("deny", "ask_user") else "continue")
            await registry.emit("session:start", {"n": number})  # not the recorder's pattern
        return returned, recorder

    returned, recorder = asyncio.run(scenario())
    assert recorder.names == ["tool:pre"] * emits
    assert [data["n"] for _, data in recorder.events] == list(range(emits))
    assert recorder.decisions == returned
    denied = [index for index, action in enumerate(returned) if action == "deny"]
    assert [data["n"] for _, data, _h, _r in recorder.denied] == denied
    for _event, _data, handler, reason in recorder.denied:
        assert reason == f"r{handler[1:]}"
