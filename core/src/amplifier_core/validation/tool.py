"""Validates a tool module: it mounts objects with ``name``, ``description`` and an async
``execute`` at ``tools``; an ``input_schema`` that is not a dict is a warning."""

from __future__ import annotations

from typing import Any

from ._module import MountPointValidator
from .base import ValidationCheck, ValidationResult

__all__ = ["ToolValidator"]


class ToolValidator(MountPointValidator):
    module_type = "tool"
    kind = "Tool"
    point = "tools"
    required = ("name", "description", "execute")

    def _members(self, result: ValidationResult, value: Any) -> None:
        self.text_member(result, value, "name", "tool_name")
        self.text_member(result, value, "description", "tool_description")
        self._input_schema(result, value)
        self.async_method(result, value, "execute", "tool_execute")

    @staticmethod
    def _input_schema(result: ValidationResult, value: Any) -> None:
        """``input_schema`` is optional (``{}`` when absent); a dict is reported at info level,
        anything else as a warning that does not fail the tool."""
        schema = getattr(value, "input_schema", {})
        if isinstance(schema, dict):
            message = f"Tool.input_schema returns dict with {len(schema)} properties"
            result.add(ValidationCheck("tool_input_schema", True, message, "info"))
        else:
            message = f"Tool.input_schema should return a dict, got {type(schema).__name__}"
            result.add(ValidationCheck("tool_input_schema", False, message, "warning"))
