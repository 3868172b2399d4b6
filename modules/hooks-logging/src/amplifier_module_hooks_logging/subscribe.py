"""How the logger subscribes: one wildcard where the kernel has them, else every known name.

A registry supports wildcard subscriptions when it can say which handlers an event reaches
(``handlers_for``) and a handler registered under ``"*"`` is among them for an arbitrary
name. That is checked by trying it, not by reading a version string. amplifier-hooks'
registry passes; amplifier-core 2.0.2's registers ``"*"`` as a plain name and fails.

Without wildcards the logger subscribes, by exact name, to the kernel's ``ALL_EVENTS``, the
well-known debug events (:data:`.filters.DEBUG_EVENTS`), the configured ``extra_events`` and
(``auto_discover``) the names that modules declare in the ``observability.events``
capability. Events outside that set are not seen on such a kernel.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from amplifier_hooks_util.kernel import wildcards_reach

__all__ = [
    "declared_events",
    "flatten_names",
    "is_pattern",
    "known_events",
    "supports_wildcards",
]


_PROBE_NAME: Final = "hooks-logging:probe"
_PATTERN_CHARS: Final = frozenset("*?[")


def is_pattern(name: str) -> bool:
    """True when ``name`` holds fnmatch wildcards."""
    return not _PATTERN_CHARS.isdisjoint(name)


def known_events() -> tuple[str, ...]:
    """The kernel's ``ALL_EVENTS`` (this kernel's and amplifier-core 2.0.2's both have it)."""
    from amplifier_core.events import ALL_EVENTS

    return tuple(str(name) for name in ALL_EVENTS)


def supports_wildcards(hooks: Any) -> bool:
    """True when ``hooks.register("*", ...)`` reaches every event (checked by trying)."""
    return wildcards_reach(hooks, name=_PROBE_NAME)


def declared_events(coordinator: Any) -> list[str]:
    """Event names modules declared in the ``observability.events`` capability."""
    get_capability = getattr(coordinator, "get_capability", None)
    if not callable(get_capability):
        return []
    try:
        declared = get_capability("observability.events")
    except Exception:
        return []
    return flatten_names(declared)


def flatten_names(value: Any) -> list[str]:
    """Names from a string, or a (nested) list of strings; anything else is ignored."""
    if isinstance(value, str):
        return [value]
    names: list[str] = []
    if isinstance(value, Iterable) and not isinstance(value, bytes | dict):
        for item in value:
            names.extend(flatten_names(item))
    return names
