"""Validates an orchestrator module: it mounts an object with an async ``execute`` at
``orchestrator``."""

from __future__ import annotations

import inspect
from typing import Any

from ._module import MountPointValidator
from .base import ValidationResult

__all__ = ["OrchestratorValidator"]

_EXPECTED = ("prompt", "context", "providers", "tools", "hooks")


class OrchestratorValidator(MountPointValidator):
    module_type = "orchestrator"
    kind = "Orchestrator"
    point = "orchestrator"
    required = ("execute",)

    def _members(self, result: ValidationResult, value: Any) -> None:
        self.async_method(result, value, "execute", "orchestrator_execute")
        try:
            names = list(inspect.signature(value.execute).parameters)
        except (AttributeError, TypeError, ValueError):
            return
        missing = [name for name in _EXPECTED if name not in names]
        if missing and not any(
            p.kind is inspect.Parameter.VAR_KEYWORD
            for p in inspect.signature(value.execute).parameters.values()
        ):
            self.note(
                result,
                "orchestrator_execute_params",
                f"Orchestrator.execute() does not take {', '.join(missing)}",
                "warning",
            )
