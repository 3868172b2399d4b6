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

from amplifier_hooks_util.kernel import Kernel

from .config import MODULE_ID

__all__ = ["find_redactor"]

logger = logging.getLogger("amplifier_module_hooks_otel")

REDACTION_MODULE = "hooks-redaction"


def _mounted(kernel: Kernel) -> Any:
    """The redactor of the hooks-redaction handler registered on the kernel's registry, if
    any (a kernel that cannot list handlers' objects, 2.0.2: none)."""
    if not kernel.rich:
        return None
    try:
        for event, names in kernel.handler_names().items():
            if REDACTION_MODULE not in names:
                continue
            for info in kernel.handlers_for(event):
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


def find_redactor(kernel: Kernel) -> Callable[[str], str]:
    """A ``str -> str`` redaction of attribute values: the mounted hooks-redaction's, else
    the default rules'."""
    redactor = _mounted(kernel) or _default()

    def redact(text: str) -> str:
        try:
            clean, _counts = redactor.redact(text)
        except Exception:  # fail closed: a value that cannot be scanned is not exported
            return "[REDACTION FAILED]"
        return clean if isinstance(clean, str) else text

    return redact
