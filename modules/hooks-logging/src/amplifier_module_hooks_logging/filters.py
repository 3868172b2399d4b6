"""Which events are written, and at which level.

An event is written when its name matches an ``include`` pattern, matches no ``exclude``
pattern, and its level is at or above the configured ``level``. Patterns are fnmatch
patterns matched case-sensitively (``tool:*``, ``*:error``, ``content_block:delta``).

The level of an event comes from its name:

* ``debug`` for debug events: names containing ``:debug`` (``llm:request:debug``), the raw
  provider dumps in :data:`DEBUG_EVENTS` (``llm:request:raw``) and names matching
  ``debug_events``. They are written only when ``level`` is ``debug``.
* ``error`` for names ending in ``:error`` or ``failed`` (``tool:error``,
  ``module:load_failed``).
* ``warning`` for :data:`WARNING_EVENTS`.
* ``info`` for everything else.

Decisions are cached per event name, so the cost on the emit path is one dict lookup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Final

from .config import LEVELS, Level, LoggingConfig

__all__ = ["DEBUG_EVENTS", "WARNING_EVENTS", "EventFilter", "event_level"]

#: Debug events providers emit when asked to; not part of ``ALL_EVENTS``.
DEBUG_EVENTS: Final[tuple[str, ...]] = (
    "llm:request:debug",
    "llm:response:debug",
    "llm:request:raw",
    "llm:response:raw",
)

#: Events recorded at level ``warning``.
WARNING_EVENTS: Final = frozenset(
    {"provider:retry", "provider:throttle", "policy:violation", "approval:denied"}
)

_RANK: Final = {name: rank for rank, name in enumerate(LEVELS)}
_CACHE_LIMIT: Final = 4096


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def event_level(name: str, debug_patterns: Sequence[str] = ()) -> Level:
    """The record level of event ``name`` (see the module docstring)."""
    if ":debug" in name or name in DEBUG_EVENTS or _matches(name, debug_patterns):
        return "debug"
    if name.endswith((":error", "failed")):
        return "error"
    if name in WARNING_EVENTS:
        return "warning"
    return "info"


class EventFilter:
    """Maps an event name to the level it is written at, or ``None`` when it is not written."""

    __slots__ = ("_cache", "_debug", "_exclude", "_include", "_threshold")

    def __init__(
        self,
        include: Iterable[str] = ("*",),
        exclude: Iterable[str] = (),
        debug_events: Iterable[str] = (),
        level: Level = "info",
    ) -> None:
        self._include = tuple(include)
        self._exclude = tuple(exclude)
        self._debug = tuple(debug_events)
        self._threshold = _RANK[level]
        self._cache: dict[str, Level | None] = {}

    @property
    def decisions(self) -> dict[str, Level | None]:
        """The live cache of decisions (name -> level or None); read-only for callers."""
        return self._cache

    @classmethod
    def from_config(cls, config: LoggingConfig) -> EventFilter:
        return cls(config.include, config.exclude, config.debug_events, config.level)

    def level_for(self, name: str) -> Level | None:
        """The level ``name`` is written at, or ``None``; cached."""
        try:
            return self._cache[name]
        except KeyError:
            pass
        decision = self._decide(name)
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[name] = decision
        return decision

    def _decide(self, name: str) -> Level | None:
        if not _matches(name, self._include) or _matches(name, self._exclude):
            return None
        level = event_level(name, self._debug)
        return level if _RANK[level] >= self._threshold else None

    def wanted(self, names: Iterable[str]) -> list[str]:
        """The names among ``names`` that are written, in order, without duplicates."""
        return [name for name in dict.fromkeys(names) if self.level_for(name) is not None]
