"""Validates a context manager module: it mounts an object with async ``add_message``,
``get_messages_for_request``, ``get_messages``, ``set_messages`` and ``clear`` at
``context``."""

from __future__ import annotations

from typing import Any

from ._module import MountPointValidator
from .base import ValidationResult

__all__ = ["ContextValidator"]


class ContextValidator(MountPointValidator):
    module_type = "context"
    kind = "ContextManager"
    point = "context"
    required = ("add_message", "get_messages_for_request", "get_messages", "set_messages", "clear")

    def _members(self, result: ValidationResult, value: Any) -> None:
        for method in self.required:
            self.async_method(result, value, method, f"context_{method}")
