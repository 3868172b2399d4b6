"""Attribute values pass through the redaction rules before they are exported.

The rules are the redaction engine's (``amplifier_hooks_redact``, a dependency). The
redactor is the one of the hooks-redaction handler mounted on this session's registry (the
same rules and allowlist as the session uses) when there is one, else one built from the
engine's default config (``shared_redactor(RedactionConfig())``, compiled once per process
and shared), imported lazily.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .config import MODULE_ID

__all__ = ["find_redactor"]

logger = logging.getLogger("amplifier_module_hooks_otel")

REDACTION_MODULE = "hooks-redaction"


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
    from amplifier_hooks_redact import RedactionConfig, shared_redactor

    return shared_redactor(RedactionConfig())  # compiled once per process


def find_redactor(registry: Any) -> Callable[[str], str]:
    """A ``str -> str`` redaction of attribute values."""
    redactor = _mounted(registry) or _default()

    def redact(text: str) -> str:
        try:
            clean, _counts = redactor.redact(text)
        except Exception:  # fail closed: a value that cannot be scanned is not exported
            return "[REDACTION FAILED]"
        return clean if isinstance(clean, str) else text

    return redact
