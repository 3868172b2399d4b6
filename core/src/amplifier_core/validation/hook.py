"""Validates a hook module: ``mount()`` registers async ``(event, data)`` handlers on
``coordinator.hooks`` (or returns a handler instance)."""

from __future__ import annotations

import inspect
from typing import Any

from ._module import ModuleValidator, is_async, plain_callable
from .base import ValidationResult

__all__ = ["HookValidator"]


def _handlers(registry: Any) -> list[Any] | None:
    """The handler callables registered on ``registry``, or ``None`` when it cannot say."""
    infos = getattr(registry, "_all_infos", None)
    if callable(infos):
        return [info.handler for info in infos()]
    listing = getattr(registry, "list_handlers", None)
    if callable(listing):
        return [name for names in listing().values() for name in names] or []
    return None


class HookValidator(ModuleValidator):
    module_type = "hook"

    def _mounted(self, result: ValidationResult, coordinator: Any, returned: Any) -> None:
        registry = coordinator.mount_points.get("hooks")
        handlers = _handlers(registry) if registry is not None else None
        if handlers:
            message = "Hooks registered via coordinator.hooks.register()"
            self.check(result, "protocol_compliance", True, message)
            return
        if returned is not None and callable(returned) and not plain_callable(returned):
            message = "mount() returned a valid HookHandler instance"
            self.check(result, "protocol_compliance", True, message)
            self._hook_call(result, returned)
        elif registry is not None:
            # As amplifier-core 2.0.2 has it, a hook module may register its handlers later
            # (on_session_ready, or on a condition): nothing registered yet is not a failure.
            message = "No handler registered on coordinator.hooks at mount (may be later)"
            self.note(result, "protocol_compliance", message, "warning")
        else:
            message = "No hook was mounted and mount() did not return a HookHandler instance"
            self.check(result, "protocol_compliance", False, message)

    def _hook_call(self, result: ValidationResult, hook: Any) -> None:
        if not is_async(hook):
            self.check(result, "hook_call", False, "HookHandler.__call__() should be async")
            return
        try:
            parameters = [p for p in inspect.signature(hook).parameters if p != "self"]
        except (TypeError, ValueError):
            return
        if len(parameters) >= 2:
            message = "HookHandler.__call__() has correct async signature (event, data)"
            self.check(result, "hook_call", True, message)
        else:
            message = (
                "HookHandler.__call__() should accept (event, data), "
                f"found {len(parameters)} params"
            )
            self.check(result, "hook_call", False, message)
