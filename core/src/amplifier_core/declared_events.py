"""Which events exist in a session, and which registrations are for none of them.

An event exists when the kernel's catalogue lists it (:data:`amplifier_core.events.ALL_EVENTS`,
its aliases) or when a mounted module declares it. A module that emits events of its own
declares them on the ``observability.events`` contribution channel, as Amplifier's modules do
(hooks-logging records every declared event)::

    coordinator.register_contributor("observability.events", "my-module", lambda: ["my:done"])

(the older ``register_capability("observability.events", [...])`` counts too). A handler
registered for an event that exists nowhere never runs: ``tool:pree`` is a typo of a guard.
:func:`unknown_registrations` finds them, with the file and line of the ``register`` call and
the closest existing names; the loader reports them once every module is mounted, and
``amplifier_core.validation``'s hook behaviour tests fail on them.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Final

from . import events as _events

if TYPE_CHECKING:
    from .hooks import HandlerInfo

__all__ = [
    "DECLARATION_CHANNEL",
    "UnknownRegistration",
    "declared_events",
    "known_events",
    "unknown_registrations",
]

DECLARATION_CHANNEL: Final = "observability.events"
"""The contribution channel (and capability) on which modules declare their own events."""


@dataclass(frozen=True, slots=True)
class UnknownRegistration:
    """A handler registered for an event that no catalogue lists and no module declares."""

    handler: str
    event: str
    origin: str | None
    """``file:line`` of the ``register`` call, when known."""
    suggestions: tuple[str, ...]
    module_id: str | None = None

    def message(self) -> str:
        who = f"module {self.module_id!r}: " if self.module_id else ""
        where = f" at {self.origin}" if self.origin else ""
        hint = f" (did you mean {', '.join(repr(s) for s in self.suggestions)}?)"
        return (
            f"{who}handler {self.handler!r} is registered for {self.event!r}{where}, an event "
            "no catalogue lists and no mounted module declares: it never runs"
            + (hint if self.suggestions else "")
            + f"; a module that emits events of its own declares them: coordinator."
            f"register_contributor({DECLARATION_CHANNEL!r}, {self.module_id or '<module id>'!r}, "
            f"lambda: [{self.event!r}])"
        )


def _flatten(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, bytes | dict):
        return [name for item in value for name in _flatten(item)]
    return []


async def declared_events(coordinator: Any) -> set[str]:
    """The event names modules declared on ``coordinator`` (contributions and capability),
    canonical."""
    names: list[str] = []
    collect = getattr(coordinator, "collect_contributions", None)
    if callable(collect):
        with contextlib.suppress(Exception):  # a broken contributor declares nothing
            names += _flatten(await collect(DECLARATION_CHANNEL))
    get = getattr(coordinator, "get_capability", None)
    if callable(get):
        with contextlib.suppress(Exception):
            names += _flatten(get(DECLARATION_CHANNEL))
    return {_events.canonical(name) for name in names}


def known_events(declared: Iterable[str] = ()) -> set[str]:
    """Every event name the catalogue lists, with ``declared`` ones."""
    from .catalogue import CATALOGUE

    return {*_events.ALL_EVENTS, *CATALOGUE, *declared}


def unknown_registrations(
    registrations: Iterable[HandlerInfo],
    declared: Iterable[str] = (),
    *,
    module_of: Callable[[HandlerInfo], str | None] | None = None,
) -> list[UnknownRegistration]:
    """The registrations among ``registrations`` whose event (or pattern) names no known
    event, in order (``module_of`` names the module that made each one)."""
    known = known_events(declared)
    found: list[UnknownRegistration] = []
    for info in registrations:
        event = info.event
        if event in known:
            continue
        if _events.is_pattern(event) and any(fnmatchcase(name, event) for name in known):
            continue
        close = difflib.get_close_matches(event, sorted(known), n=2, cutoff=0.6)
        origin = getattr(info, "origin", None)
        module_id = module_of(info) if module_of is not None else None
        found.append(UnknownRegistration(info.name, event, origin, tuple(close), module_id))
    return found
