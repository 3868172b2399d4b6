"""Validates a tool module: it mounts objects with ``name``, ``description`` and an async
``execute`` at ``tools``."""

from __future__ import annotations

from typing import Any

from ._module import MountPointValidator
from .base import ValidationResult

__all__ = ["ToolValidator"]


class ToolValidator(MountPointValidator):
    module_type = "tool"
    kind = "Tool"
    point = "tools"
    required = ("name", "description", "execute")

    def _members(self, result: ValidationResult, value: Any) -> None:
        self.text_member(result, value, "name", "tool_name")
        self.text_member(result, value, "description", "tool_description")
        self.async_method(result, value, "execute", "tool_execute")
