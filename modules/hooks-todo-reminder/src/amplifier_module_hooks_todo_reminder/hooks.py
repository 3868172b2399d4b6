"""The handlers: one counts tool calls since the todo tool last ran, one injects the reminder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from amplifier_core.models import HookResult

from .config import TodoReminderConfig
from .render import render_reminder

__all__ = ["TodoReminderHook"]

_CONTINUE = HookResult()


def _offered_tools(data: Mapping[str, Any]) -> set[str] | None:
    """The tool names the request offers the model, when the event data says (else ``None``)."""
    tools = data.get("tools")
    if not isinstance(tools, list | tuple):
        return None
    names: set[str] = set()
    for tool in tools:
        name = tool.get("name") if isinstance(tool, Mapping) else tool
        if isinstance(name, str):
            names.add(name)
    return names


class TodoReminderHook:
    """The reminder for one session: reads ``coordinator.todo_state`` each time it injects.

    :attr:`calls_without_todo` counts ``tool:post`` events of tools other than the todo tool
    and goes back to 0 when the todo tool runs.
    """

    def __init__(self, coordinator: Any, config: TodoReminderConfig) -> None:
        self.coordinator = coordinator
        self.config = config
        self.calls_without_todo = 0

    async def on_tool_post(self, event: str, data: dict[str, Any]) -> HookResult:
        """Count a tool call (``tool_name``, or the older ``tool``); reset on the todo tool."""
        name = data.get("tool_name") or data.get("tool")
        if name == self.config.todo_tool:
            self.calls_without_todo = 0
        elif name:
            self.calls_without_todo += 1
        return _CONTINUE

    def nudge_calls(self, data: Mapping[str, Any]) -> int | None:
        """The count to nudge with, or ``None`` when no nudge is due.

        A nudge is due once ``nudge_after`` (> 0) tool calls have gone by without the todo
        tool, unless the event data lists the offered tools and the todo tool is not among them.
        """
        threshold = self.config.nudge_after
        if threshold == 0 or self.calls_without_todo < threshold:
            return None
        offered = _offered_tools(data)
        if offered is not None and self.config.todo_tool not in offered:
            return None
        return self.calls_without_todo

    async def on_event(self, event: str, data: dict[str, Any]) -> HookResult:
        """An ephemeral ``inject_context`` with the reminder; ``continue`` when there is none."""
        state = getattr(self.coordinator, "todo_state", None)
        text = render_reminder(state, self.config, self.nudge_calls(data))
        if text is None:
            return _CONTINUE
        return HookResult(
            action="inject_context",
            context_injection=text,
            context_injection_role=self.config.inject_role,
            ephemeral=True,
            append_to_last_tool_result=self.config.append_to_last_tool_result,
            suppress_output=True,
        )
