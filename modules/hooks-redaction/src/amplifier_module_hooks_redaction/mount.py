"""The entry point: ``mount(coordinator, config)`` registers the handler and returns a cleanup."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from amplifier_hooks_redact import MODULE_ID, parse_config

from .hook import SHOWN_CAPABILITY, RedactionHook

__all__ = ["mount"]


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Register the redaction handler for each configured event on ``coordinator.hooks``,
    and guard the mounted context and providers (``guard_context``, ``guard_providers``).

    Offers ``redaction.redact_text`` (text in, redacted text out) as a coordinator capability,
    for the application to pass what it shows a person through.

    Raises ValueError (``hooks-redaction: config: ...``) for a bad config. The returned
    function unregisters exactly the handlers this call registered.
    """
    hook = RedactionHook(parse_config(config), coordinator)
    offer = getattr(coordinator, "register_capability", None)
    if callable(offer):  # what the application shows a person is redacted alike
        offer(SHOWN_CAPABILITY, hook.redact_shown)
    registry = coordinator.hooks
    priority = hook.config.priority
    unregisters = [
        registry.register(event, hook.handle, priority=priority, name=MODULE_ID)
        for event in dict.fromkeys(hook.config.events)
    ]

    def cleanup() -> None:
        hook.release()
        if callable(offer):
            offer(SHOWN_CAPABILITY, None)
        for unregister in unregisters:
            if callable(unregister):
                unregister()
            else:  # a registry whose register() returns nothing: remove by name
                registry.unregister(MODULE_ID)

    return cleanup
