"""Attribute values pass through hooks-redaction's rules before they are exported.

hooks-redaction registers no capability, so its redactor is reached through its public
API: the redactor of the handler it mounted on this session's registry (the same rules and
allowlist as the session uses), else, when the package is installed, one built from its
default config (``build_redactor(RedactionConfig())``), imported lazily. Without
hooks-redaction installed, values are exported as they are (said once in the log).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .config import MODULE_ID

__all__ = ["find_redactor"]

logger = logging.getLogger("amplifier_module_hooks_otel")

REDACTION_MODULE = "hooks-redaction"


def _identity(text: str) -> str:
    return text


def _mounted(registry: Any) -> Any:
    """The redactor of the hooks-redaction handler registered on ``registry``, if any."""
    handlers_for = getattr(registry, "handlers_for", None)
    list_handlers = getattr(registry, "list_handlers", None)
    if not callable(handlers_for) or not callable(list_handlers):
        return None
    try:
        for event, names in list_handlers().items():
            if REDACTION_MODULE not in names:
                continue
            for info in handlers_for(event):
                owner = getattr(getattr(info, "handler", None), "__self__", None)
                redactor = getattr(owner, "redactor", None)
                if info.name == REDACTION_MODULE and callable(getattr(redactor, "redact", None)):
                    return redactor
    except Exception as err:  # a registry of another shape: fall back to the defaults
        logger.debug("%s: no mounted redactor found: %s", MODULE_ID, err)
    return None


def _default() -> Any:
    try:
        from amplifier_module_hooks_redaction import RedactionConfig, build_redactor
    except ImportError:
        logger.warning(
            "%s: hooks-redaction is not installed: attribute values are exported unredacted "
            "(prompts and tool payloads only with capture_content: true)",
            MODULE_ID,
        )
        return None
    return build_redactor(RedactionConfig())


def find_redactor(registry: Any) -> Callable[[str], str]:
    """A ``str -> str`` redaction of attribute values (the identity when none is available)."""
    redactor = _mounted(registry) or _default()
    if redactor is None:
        return _identity

    def redact(text: str) -> str:
        try:
            clean, _counts = redactor.redact(text)
        except Exception:  # fail closed: a value that cannot be scanned is not exported
            return "[REDACTION FAILED]"
        return clean if isinstance(clean, str) else text

    return redact
