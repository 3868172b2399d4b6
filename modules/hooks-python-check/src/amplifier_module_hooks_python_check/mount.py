"""The entry point: ``mount(coordinator, config)`` registers the handler and returns a cleanup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .config import MODULE_ID, parse_config
from .hook import PythonCheckHook

__all__ = ["mount"]


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the ``tool:post`` handler on ``coordinator.hooks``.

    Raises ValueError (``hooks-python-check: config: ...``) for a bad config. Starts mypy's
    daemon for the session's working directory in the background (``mypy_daemon``), so the
    first check finds it warm; mount does not wait for it. The returned function unregisters
    exactly the handler this call registered and stops the mypy daemons it started.
    """
    hook = PythonCheckHook(parse_config(config), coordinator)
    registry = coordinator.hooks
    unregister = registry.register(
        "tool:post", hook.handle, priority=hook.config.priority, name=MODULE_ID
    )
    hook.warm()

    def cleanup() -> None:
        if callable(unregister):
            unregister()
        else:  # a registry whose register() returns nothing: remove by name
            registry.unregister(MODULE_ID)
        hook.close()

    return cleanup
