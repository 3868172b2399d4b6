"""A context manager mounted on a coordinator of its own, the events it fires, and message
builders in Amplifier's dict shape."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from amplifier_core import ModuleCoordinator
from amplifier_module_context_simple import SimpleContextManager, mount

Message = dict[str, Any]


class Events:
    """Every ``context:*`` event fired on a coordinator, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def record(self, event: str, data: dict[str, Any]) -> None:
        self.seen.append((event, dict(data)))

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.seen]

    def data(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.seen if event == name]


class Rig:
    """A coordinator, the context ``mount()`` put at ``context`` and its events."""

    def __init__(self, coordinator: ModuleCoordinator, context: SimpleContextManager) -> None:
        self.coordinator = coordinator
        self.context = context
        self.events = Events()
        coordinator.hooks.register("context:*", self.events.record, name="test-events")


RigFactory = Callable[..., Awaitable[Rig]]


@pytest.fixture
def rig() -> RigFactory:
    """``await rig(**config)``: a fresh coordinator with context-simple mounted."""

    async def make(**config: Any) -> Rig:
        coordinator = ModuleCoordinator()
        await mount(coordinator, config)
        context = coordinator.get("context")
        assert isinstance(context, SimpleContextManager)
        return Rig(coordinator, context)

    return make


def system(text: str, **metadata: Any) -> Message:
    return _with_metadata({"role": "system", "content": text}, metadata)


def user(text: str, **metadata: Any) -> Message:
    return _with_metadata({"role": "user", "content": text}, metadata)


def assistant(text: str = "", *calls: tuple[str, str]) -> Message:
    """An assistant message; ``calls`` as (id, tool name)."""
    message: Message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    if calls:
        message["tool_calls"] = [{"id": i, "tool": t, "arguments": {}} for i, t in calls]
    return message


def tool(call_id: str, text: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def _with_metadata(message: Message, metadata: dict[str, Any]) -> Message:
    if metadata:
        message["metadata"] = metadata
    return message


def exchange(n: int, size: int = 400) -> list[Message]:
    """Prompt ``n``: a tool call, its result, and an answer (about ``size * 3`` characters)."""
    return [
        user(f"prompt {n} " + "u" * size),
        assistant(f"calling {n}", (f"call-{n}", "bash")),
        tool(f"call-{n}", f"result {n} " + "r" * size),
        assistant(f"answer {n} " + "a" * size),
    ]
