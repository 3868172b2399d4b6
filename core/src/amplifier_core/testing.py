"""Test helpers for hook module authors: a coordinator, an event recorder, a mock tool.

Test a module in a few lines, with the real registry and coordinator underneath::

    from amplifier_core.testing import create_test_coordinator

    async def test_my_hook():
        coordinator = create_test_coordinator()
        cleanup = await my_module.mount(coordinator, {"strict": True})
        result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {}})
        assert result.action == "deny"

The coordinator's approval system allows by default and keeps every prompt
(``coordinator.approval_system.requests``); its display keeps every user message
(``coordinator.display_system.messages``). Nothing here reads the machine's installed entry
points. With the pytest plugin (installed with the kernel) the same objects are fixtures:
``coordinator``, ``hook_registry`` and ``event_recorder``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from .approval import PolicyDecision, StaticApprovalSystem
from .coordinator import ModuleCoordinator
from .display import RecordingDisplay
from .hooks import HookRegistry, Unregister
from .models import HookResult, ToolResult
from .observers import HandlerRun

__all__ = [
    "EventRecorder",
    "MockContextManager",
    "MockCoordinator",
    "MockTool",
    "ScriptedOrchestrator",
    "create_test_coordinator",
    "wait_for",
]


class EventRecorder:
    """Records events: as a stand-in for a registry (``emit``) or attached to a real one.

    ``attach(registry)`` subscribes to every event (``*``) at the latest priority, so the data
    recorded is what the last handler left after every modification. An event a hook denied
    is recorded too, with the data the denying handler was given: the deny ends the chain
    before the recorder's handler, so the registry's handler-run observer reports it.

    ``events`` holds ``(event, data)`` pairs in the order emitted; ``decisions`` holds, for
    each, what became of it: ``"continue"``, ``"ask_user"`` (a hook asked for an approval) or
    ``"deny"``; ``denied`` lists the denied ones with the handler and its reason.
    """

    _NAME = "event-recorder"

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.decisions: list[str] = []
        self._denials: dict[int, tuple[str, str | None]] = {}  # index -> (handler, reason)
        # (task, event) -> [position of the last handler run seen, asked, record index]: the
        # emit running in that task; a run at or before the last position starts the next one
        self._emits: dict[tuple[int, str], list[Any]] = {}

    async def emit(self, event: str, data: dict[str, Any]) -> HookResult:
        """Record ``event`` and continue (the ``HookRegistry.emit`` signature)."""
        self._add(event, data, "continue")
        return HookResult()

    record = emit

    def _add(self, event: str, data: dict[str, Any], decision: str) -> int:
        self.events.append((event, dict(data)))
        self.decisions.append(decision)
        return len(self.events) - 1

    def _emit_at(self, event: str, position: int) -> list[Any]:
        """The state of the emit of ``event`` that a handler at ``position`` runs in."""
        key = (id(asyncio.current_task()), event)
        state = self._emits.get(key)
        if state is None or position <= state[0]:
            state = self._emits[key] = [position, False, None]
        state[0] = position
        return state

    def attach(
        self, registry: HookRegistry, pattern: str = "*", priority: int = 1_000_000
    ) -> Unregister:
        """Record every event ``registry`` emits that matches ``pattern``, denied ones
        included (see the class docstring)."""
        name = self._NAME

        def position(event: str, handler: str) -> int:
            for index, info in enumerate(registry.handlers_for(event)):
                if info.name == handler:
                    return index
            return -1

        def recorder(event: str, data: dict[str, Any]) -> None:
            state = self._emit_at(event, position(event, name))
            state[2] = self._add(event, data, "ask_user" if state[1] else "continue")

        def observer(run: HandlerRun) -> None:
            if run.handler == name or run.action not in ("deny", "ask_user"):
                return
            at = position(run.event, run.handler)
            if position(run.event, name) < 0:  # not an event the recorder listens to
                return
            state = self._emit_at(run.event, at)
            index = state[2]
            if run.action == "ask_user":
                if index is not None and self.decisions[index] == "continue":
                    self.decisions[index] = "ask_user"  # asked after the recorder ran
                state[1] = True
                return
            if index is None:  # the deny ended the chain before the recorder's handler
                index = self._add(run.event, run.data, "deny")
            self.decisions[index] = "deny"
            self._denials[index] = (run.handler, run.reason)
            self._emits.pop((id(asyncio.current_task()), run.event), None)

        unregister = registry.register(pattern, recorder, priority=priority, name=name)
        remove = registry.add_observer(observer)

        def detach() -> None:
            unregister()
            remove()

        return detach

    def clear(self) -> None:
        self.events.clear()
        self.decisions.clear()
        self._denials.clear()
        self._emits.clear()

    def get_events(self, event_type: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Recorded ``(event, data)`` pairs, optionally only those of one event."""
        if event_type is None:
            return list(self.events)
        return [pair for pair in self.events if pair[0] == event_type]

    @property
    def names(self) -> list[str]:
        """The recorded event names, in order."""
        return [name for name, _ in self.events]

    @property
    def denied(self) -> list[tuple[str, dict[str, Any], str, str | None]]:
        """``(event, data, handler, reason)`` for each recorded event a hook denied."""
        return [
            (*self.events[index], *self._denials.get(index, ("", None)))
            for index, decision in enumerate(self.decisions)
            if decision == "deny"
        ]


class MockTool:
    """A tool that returns ``output`` (or fails with ``error``) and counts its calls."""

    def __init__(self, name: str = "mock_tool", output: Any = "Success", error: str | None = None):
        self.name = name
        self.description = f"Mock tool: {name}"
        self.input_schema: dict[str, Any] = {"type": "object", "properties": {}}
        self.output = output
        self.error = error
        self.calls: list[dict[str, Any]] = []

    @property
    def call_count(self) -> int:
        return len(self.calls)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.calls.append(dict(input))
        if self.error is not None:
            return ToolResult(success=False, error={"message": self.error})
        return ToolResult(success=True, output=self.output)


class MockContextManager:
    """An in-memory context manager whose methods are ``AsyncMock`` objects over ``messages``,
    so a test can both use it and assert on its calls (``add_message.assert_awaited()``)."""

    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        from unittest.mock import AsyncMock

        self.messages: list[dict[str, Any]] = messages if messages is not None else []
        self.add_message = AsyncMock(side_effect=self._add_message)
        self.get_messages = AsyncMock(side_effect=self._get_messages)
        self.get_messages_for_request = AsyncMock(side_effect=self._for_request)
        self.set_messages = AsyncMock(side_effect=self._set_messages)
        self.clear = AsyncMock(side_effect=self._clear)

    async def _add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def _get_messages(self) -> list[dict[str, Any]]:
        return self.messages

    async def _for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]:
        return list(self.messages)

    async def _set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages[:] = messages

    async def _clear(self) -> None:
        self.messages.clear()


class ScriptedOrchestrator:
    """Answers each ``execute`` with the next of ``responses`` (then ``"DONE"``), adding the
    exchange to the context and emitting ``session:start`` and ``session:end`` around it."""

    def __init__(self, responses: list[str]) -> None:
        self.responses = responses
        self.call_count = 0

    async def execute(
        self, prompt: str, context: Any, providers: Any, tools: Any, hooks: Any
    ) -> str:
        index = self.call_count
        self.call_count += 1
        response = self.responses[index] if index < len(self.responses) else "DONE"
        await hooks.emit("session:start", {"prompt": prompt})
        await context.add_message({"role": "user", "content": prompt})
        await context.add_message({"role": "assistant", "content": response})
        await hooks.emit("session:end", {"response": response})
        return response


class MockCoordinator(ModuleCoordinator):
    """A real :class:`ModuleCoordinator` with a recording approval system and display.

    ``approval`` is the approval policy: ``"allow"`` (default), ``"deny"`` or ``"always"``.
    ``mount_history`` and ``unmount_history`` keep every mount and unmount.
    """

    def __init__(
        self,
        *,
        approval: PolicyDecision = "allow",
        config: dict[str, Any] | None = None,
        session_id: str = "test-session",
    ) -> None:
        self.approvals = StaticApprovalSystem(approval)
        self.display = RecordingDisplay()
        super().__init__(
            approval_system=self.approvals,
            display_system=self.display,
            config=config if config is not None else {},
            session_id=session_id,
        )
        self.mount_history: list[dict[str, Any]] = []
        self.unmount_history: list[dict[str, Any]] = []

    async def mount(self, mount_point: str, module: Any, name: str | None = None) -> None:
        self.mount_history.append({"mount_point": mount_point, "module": module, "name": name})
        await super().mount(mount_point, module, name)

    async def unmount(self, mount_point: str, name: str | None = None) -> None:
        self.unmount_history.append({"mount_point": mount_point, "name": name})
        await super().unmount(mount_point, name)


def create_test_coordinator(
    *,
    approval: PolicyDecision = "allow",
    config: dict[str, Any] | None = None,
    session_id: str = "test-session",
) -> MockCoordinator:
    """A test coordinator with two tools mounted: ``echo`` (succeeds) and ``fail`` (fails)."""
    coordinator = MockCoordinator(approval=approval, config=config, session_id=session_id)
    tools = coordinator.mount_points["tools"]
    tools["echo"] = MockTool("echo", "Echo response")
    tools["fail"] = MockTool("fail", None, error="mock failure")
    return coordinator


async def wait_for(condition: Callable[[], bool], timeout: float = 1.0) -> bool:  # noqa: ASYNC109
    """Poll ``condition`` until it is true (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.005)
    return condition()
