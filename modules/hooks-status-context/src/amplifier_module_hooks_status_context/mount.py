"""The entry point: ``mount(coordinator, config)`` registers the handlers and returns a cleanup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .config import parse_config
from .hook import HANDLER_NAME, StatusContextHook

__all__ = ["mount"]


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register on ``provider:request`` (and, when the snapshot is cached and tools refresh it,
    on ``tool:post`` and ``tool:error``); the returned function unregisters them."""
    settings = parse_config(config)
    hook = StatusContextHook(settings, coordinator)
    hooks = coordinator.hooks
    priority = settings.priority
    unregisters = [
        hooks.register(
            "provider:request", hook.on_provider_request, priority=priority, name=HANDLER_NAME
        )
    ]
    if settings.include_git and settings.cache and settings.refresh_after_tools:
        for event in ("tool:post", "tool:error"):
            unregisters.append(
                hooks.register(
                    event,
                    hook.on_tool_event,
                    priority=priority,
                    name=f"{HANDLER_NAME}.{event.replace(':', '_')}",
                )
            )

    def cleanup() -> None:
        while unregisters:
            unregister = unregisters.pop()
            if callable(unregister):
                unregister()

    return cleanup
