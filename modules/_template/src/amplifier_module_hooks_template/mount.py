"""The entry point: ``mount(coordinator, config)`` registers the handlers and returns a cleanup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .config import parse_config
from .hooks import TemplateHooks

__all__ = ["mount"]


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the handlers on ``coordinator.hooks``; the returned function unregisters them."""
    hooks = TemplateHooks(parse_config(config))
    priority = hooks.config.priority
    unregisters = [
        coordinator.hooks.register(
            "tool:pre", hooks.on_tool_pre, priority=priority, name="hooks-template.tool_pre"
        ),
        coordinator.hooks.register(
            "tool:post", hooks.on_tool_post, priority=priority, name="hooks-template.tool_post"
        ),
    ]

    def cleanup() -> None:
        for unregister in unregisters:
            unregister()

    return cleanup
