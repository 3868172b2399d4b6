"""Checks of tool and hook result dicts against the allowed fields and values of the wire
schema: each returns a list of error strings, empty when the dict is valid."""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "VALID_APPROVAL_DEFAULTS",
    "VALID_CONTEXT_INJECTION_ROLES",
    "VALID_HOOK_ACTIONS",
    "VALID_USER_MESSAGE_LEVELS",
    "validate_hook_result",
    "validate_tool_result",
]

VALID_HOOK_ACTIONS: Final = frozenset({"continue", "deny", "modify", "inject_context", "ask_user"})
VALID_CONTEXT_INJECTION_ROLES: Final = frozenset({"system", "user", "assistant"})
VALID_APPROVAL_DEFAULTS: Final = frozenset({"allow", "deny"})
VALID_USER_MESSAGE_LEVELS: Final = frozenset({"info", "warning", "error"})


def validate_tool_result(data: dict[str, Any]) -> list[str]:
    """``success`` must be present and a bool."""
    if "success" not in data:
        return ["Missing required field: 'success'"]
    if not isinstance(data["success"], bool):
        return [f"Field 'success' must be bool, got {type(data['success']).__name__}"]
    return []


def validate_hook_result(data: dict[str, Any]) -> list[str]:
    """``action`` (default ``continue``) and the optional enumerated fields hold allowed values."""
    errors: list[str] = []
    for key, allowed, default in (
        ("action", VALID_HOOK_ACTIONS, "continue"),
        ("context_injection_role", VALID_CONTEXT_INJECTION_ROLES, None),
        ("user_message_level", VALID_USER_MESSAGE_LEVELS, None),
        ("approval_default", VALID_APPROVAL_DEFAULTS, None),
    ):
        value = data.get(key, default)
        if value is not None and value not in allowed:
            errors.append(f"Invalid {key} '{value}': must be one of {sorted(allowed)}")
    return errors
