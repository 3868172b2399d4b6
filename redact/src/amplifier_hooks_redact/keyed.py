"""A string under a secret-sounding key, or after a secret-sounding option, is read as that
key's assignment or that option's value.

In text, ``password: Hunter2`` is found by ``credential_assignment``; in nested data the key and
its value are two strings, and neither alone says "secret". For a ``str`` value under a ``str``
key that names a credential (:data:`~.rules.ASSIGNMENT_KEY`), :func:`probe` writes the pair as
the assignment ``key: "value"`` (JSON-quoted), so the same rule, with the same checks for
placeholders and near misses, decides; :func:`value_of` reads the redacted value back.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Final

from .lazy import lazy_compile
from .rules import ASSIGNMENT_KEY

__all__ = ["pair_name", "probe", "probe_option", "value_of", "value_of_option"]

_KEY: Final = lazy_compile(ASSIGNMENT_KEY)
_LONGEST_KEY: Final = 128
"""Longer keys are not names but text (and are scanned as strings anyway)."""


@lru_cache(maxsize=4096)
def _names_credential(key: str) -> bool:
    """Whether ``key`` names a credential (keys repeat from event to event: asked once)."""
    return len(key) <= _LONGEST_KEY and _KEY.search(key.lower()) is not None


def probe(key: str, value: str) -> str | None:
    """``key: "value"`` when ``key`` names a credential, else ``None``."""
    if not _names_credential(key):
        return None
    return f"{key}: {json.dumps(value, ensure_ascii=False)}"


def value_of(key: str, redacted: str) -> str:
    """The value part of a redacted :func:`probe` text, unquoted when it still is JSON."""
    return _value_after(f"{key}: ", redacted)


_OPTION: Final = lazy_compile(r"--?[A-Za-z][A-Za-z0-9_.-]{0,62}")


def probe_option(option: str, value: str) -> str | None:
    """``--option "value"`` when ``option`` is a command-line option naming a credential and
    ``value`` the next item of the same argument list (``["--token", "..."]``), else
    ``None``. The command-line rules decide, with their checks for paths and references."""
    if _OPTION.fullmatch(option) is None or not _names_credential(option):
        return None
    return f"{option} {json.dumps(value, ensure_ascii=False)}"


def value_of_option(option: str, redacted: str) -> str:
    """The value part of a redacted :func:`probe_option` text, unquoted when still JSON."""
    return _value_after(f"{option} ", redacted)


def _value_after(head: str, redacted: str) -> str:
    """What follows ``head`` in ``redacted`` (all of it when ``head`` no longer leads),
    unquoted when it is still a JSON string."""
    rest = redacted[len(head) :] if redacted.startswith(head) else redacted
    try:
        value = json.loads(rest)
    except ValueError:
        return rest
    return value if isinstance(value, str) else rest


_VALUE_FIELDS: Final = frozenset({"value", "parametervalue"})
_NAME_FIELDS: Final = frozenset({"name", "key", "parameterkey", "parametername"})
_MOST_FIELDS: Final = 8


def pair_name(mapping: dict[object, object]) -> tuple[str, str] | None:
    """``(value field, name)`` when ``mapping`` is a name/value entry whose name names a
    credential (``{"name": "API_TOKEN", "value": ...}``, ``{"Key": "DbPassword", "Value":
    ...}``): its value is then read as that name's assignment."""
    if not ("value" in mapping or "Value" in mapping or "ParameterValue" in mapping):
        return None  # most mappings: three lookups
    if len(mapping) > _MOST_FIELDS:
        return None
    field = name = None
    for key, item in mapping.items():
        if type(key) is not str:
            continue
        lowered = key.lower()
        if lowered in _VALUE_FIELDS:
            field = key
        elif lowered in _NAME_FIELDS and type(item) is str and _names_credential(item):
            name = item
    return (field, name) if field is not None and name is not None else None
