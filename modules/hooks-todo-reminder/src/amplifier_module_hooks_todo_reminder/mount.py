"""The entry point: ``mount(coordinator, config)`` registers the handlers and returns a cleanup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from amplifier_core import events

from .config import MODULE_ID, parse_config
from .hooks import TodoReminderHook

__all__ = ["REMINDER_HANDLER", "TRACKER_HANDLER", "mount"]

REMINDER_HANDLER: Final = MODULE_ID
TRACKER_HANDLER: Final = f"{MODULE_ID}.tracker"


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the reminder on ``config.event`` and, when nudging is on, the tool counter on
    ``tool:post``; the returned function unregisters both."""
    settings = parse_config(config)
    hook = TodoReminderHook(coordinator, settings)
    registry = coordinator.hooks
    unregisters: list[Callable[[], Any]] = []
    if settings.nudge_after > 0:
        # Registered first, so that on a tie (event: tool:post) the count is current.
        unregisters.append(
            registry.register(
                events.TOOL_POST,
                hook.on_tool_post,
                priority=settings.priority,
                name=TRACKER_HANDLER,
            )
        )
    unregisters.append(
        registry.register(
            settings.event, hook.on_event, priority=settings.priority, name=REMINDER_HANDLER
        )
    )

    def cleanup() -> None:
        for unregister in reversed(unregisters):
            unregister()

    return cleanup
