"""Trimming event data for logs: shorten long strings, hide values under secret keys.

Both return a copy with the structure kept: dicts and lists are walked, every other value
(tuples included) is returned as it is.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["SENSITIVE_KEYS", "redact_secrets", "truncate_values"]

SENSITIVE_KEYS: Final[frozenset[str]] = frozenset(
    {
        "api_key",
        "apikey",
        "api-key",
        "secret",
        "password",
        "token",
        "credential",
        "credentials",
        "private_key",
        "privatekey",
        "auth",
        "authorization",
    }
)
"""Key names (compared in lower case, whole) whose values :func:`redact_secrets` hides."""

_REDACTED: Final = "[REDACTED]"


def truncate_values(obj: Any, max_length: int = 180) -> Any:
    """``obj`` with every string longer than ``max_length`` cut to it, saying how much went:
    ``'xxxxxxxxxx... (truncated 190 chars)'``."""
    if isinstance(obj, dict):
        return {key: truncate_values(value, max_length) for key, value in obj.items()}
    if isinstance(obj, list):
        return [truncate_values(item, max_length) for item in obj]
    if isinstance(obj, str) and len(obj) > max_length:
        return f"{obj[:max_length]}... (truncated {len(obj) - max_length} chars)"
    return obj


def redact_secrets(obj: Any, sensitive_keys: frozenset[str] = SENSITIVE_KEYS) -> Any:
    """``obj`` with the value of every key in ``sensitive_keys`` replaced by ``[REDACTED]``."""
    if isinstance(obj, dict):
        return {
            key: _REDACTED
            if isinstance(key, str) and key.lower() in sensitive_keys
            else redact_secrets(value, sensitive_keys)
            for key, value in obj.items()
        }
    if isinstance(obj, list):
        return [redact_secrets(item, sensitive_keys) for item in obj]
    return obj
