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

__all__ = [
    "declared_events",
    "flatten_names",
    "is_pattern",
    "known_events",
    "supports_wildcards",
]


# Used only when amplifier_core.events cannot be imported: the ecosystem's lifecycle events.
_LIFECYCLE_EVENTS: Final[tuple[str, ...]] = (
    "session:start",
    "session:end",
    "session:fork",
    "session:resume",
    "prompt:submit",
    "prompt:complete",
    "plan:start",
    "plan:end",
    "provider:request",
    "provider:response",
    "provider:retry",
    "provider:error",
    "provider:throttle",
    "provider:tool_sequence_repaired",
    "provider:resolve",
    "llm:request",
    "llm:response",
    "content_block:start",
    "content_block:delta",
    "content_block:end",
    "thinking:delta",
    "thinking:final",
    "tool:pre",
    "tool:post",
    "tool:error",
    "context:pre_compact",
    "context:post_compact",
    "context:compaction",
    "context:include",
    "orchestrator:complete",
    "execution:start",
    "execution:end",
    "user:notification",
    "artifact:write",
    "artifact:read",
    "policy:violation",
    "approval:required",
    "approval:granted",
    "approval:denied",
    "cancel:requested",
    "cancel:completed",
    "module:on_session_ready_failed",
    "module:load_failed",
)

_PROBE_EVENT: Final = "hooks-logging:wildcard-probe"
_PROBE_NAME: Final = "hooks-logging:probe"
_PATTERN_CHARS: Final = frozenset("*?[")


def is_pattern(name: str) -> bool:
    """True when ``name`` holds fnmatch wildcards."""
    return not _PATTERN_CHARS.isdisjoint(name)


def known_events() -> tuple[str, ...]:
    """The kernel's ``ALL_EVENTS`` (or the ecosystem's lifecycle names without one)."""
    try:
        from amplifier_core.events import ALL_EVENTS
    except Exception:
        return _LIFECYCLE_EVENTS
    try:
        return tuple(str(name) for name in ALL_EVENTS)
    except Exception:
        return _LIFECYCLE_EVENTS


def _probe(event: str, data: dict[str, Any]) -> None:
    return None


def supports_wildcards(hooks: Any) -> bool:
    """True when ``hooks.register("*", ...)`` reaches every event (checked by trying)."""
    handlers_for = getattr(hooks, "handlers_for", None)
    if not callable(handlers_for):
        return False
    try:
        undo = hooks.register("*", _probe, priority=0, name=_PROBE_NAME)
    except Exception:
        return False
    try:
        chain = handlers_for(_PROBE_EVENT)
        return any(getattr(info, "handler", None) is _probe for info in chain)
    except Exception:
        return False
    finally:
        if callable(undo):
            undo()
        else:
            hooks.unregister(_PROBE_NAME)


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
