"""Validates a provider module: it mounts objects with ``name``, ``get_info``, an async
``list_models`` and ``complete``, and ``parse_tool_calls`` at ``providers``."""

from __future__ import annotations

from typing import Any

from ._module import MountPointValidator
from .base import ValidationResult

__all__ = ["ProviderValidator"]


class ProviderValidator(MountPointValidator):
    module_type = "provider"
    kind = "Provider"
    point = "providers"
    required = ("name", "get_info", "list_models", "complete", "parse_tool_calls")

    def _members(self, result: ValidationResult, value: Any) -> None:
        self.text_member(result, value, "name", "provider_name")
        self.async_method(result, value, "complete", "provider_complete")
        self.async_method(result, value, "list_models", "provider_list_models")
        parse = getattr(value, "parse_tool_calls", None)
        self.check(
            result,
            "provider_parse_tool_calls",
            callable(parse),
            "Provider has parse_tool_calls()"
            if callable(parse)
            else "Provider missing parse_tool_calls() method",
        )
