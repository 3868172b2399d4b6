"""Redact every string inside nested event data, copying only what changes.

:class:`Redactor` walks dicts, lists and tuples (and their subclasses) to any depth. Strings are
redacted; keys are never changed; other leaves (numbers, bytes, objects) are left alone. A
container is copied only when something inside it changed, so data with nothing to redact
comes back as the very same object, and the caller's data is never mutated. Allowlisted key
paths are skipped with their whole subtree. A container that contains itself is walked once.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from .paths import PathMatcher, State
from .scanner import TextRedactor

__all__ = ["Redactor"]


class Redactor:
    """Redacts strings found anywhere in nested data with one :class:`TextRedactor`."""

    __slots__ = ("_paths", "text")

    def __init__(self, text: TextRedactor, allow_paths: Iterable[str] = ()) -> None:
        self.text = text
        paths = tuple(allow_paths)
        self._paths = PathMatcher(paths) if paths else None

    def redact_text(self, value: str) -> tuple[str, dict[str, int]]:
        """``value`` with secrets replaced, and counts per rule (empty when nothing matched)."""
        found = self.text.redact(value)
        return (value, {}) if found is None else found

    def redact(self, data: Any) -> tuple[Any, dict[str, int]]:
        """A redacted copy of ``data`` (or ``data`` itself if unchanged) and counts per rule."""
        counts: dict[str, int] = {}
        states = self._paths.initial if self._paths is not None else ()
        result = self._walk(data, counts, states, set())
        return result, counts

    def _walk(
        self, value: Any, counts: dict[str, int], states: tuple[State, ...], active: set[int]
    ) -> Any:
        if isinstance(value, str):
            found = self.text.redact(value)
            if found is None:
                return value
            text, found_counts = found
            for name, count in found_counts.items():
                counts[name] = counts.get(name, 0) + count
            return text
        if isinstance(value, dict):
            return self._walk_dict(value, counts, states, active)
        if isinstance(value, list | tuple):
            return self._walk_sequence(value, counts, states, active)
        return value

    def _child_states(
        self, states: tuple[State, ...], key: object, is_index: bool
    ) -> tuple[State, ...] | None:
        if not states:
            return states
        assert self._paths is not None
        return self._paths.step(states, key, is_index)

    def _walk_dict(
        self,
        value: dict[Any, Any],
        counts: dict[str, int],
        states: tuple[State, ...],
        active: set[int],
    ) -> dict[Any, Any]:
        marker = id(value)
        if marker in active:
            return value
        active.add(marker)
        changed: dict[Any, Any] | None = None
        try:
            for key, item in value.items():
                child = self._child_states(states, key, False)
                if child is None:
                    continue
                new = self._walk(item, counts, child, active)
                if new is not item:
                    if changed is None:
                        changed = {}
                    changed[key] = new
        finally:
            active.discard(marker)
        if changed is None:
            return value
        if type(value) is dict:
            return {**value, **changed}
        result = copy.copy(value)
        for key, new in changed.items():
            result[key] = new
        return result

    def _walk_sequence(
        self,
        value: list[Any] | tuple[Any, ...],
        counts: dict[str, int],
        states: tuple[State, ...],
        active: set[int],
    ) -> list[Any] | tuple[Any, ...]:
        marker = id(value)
        if marker in active:
            return value
        active.add(marker)
        items: list[Any] | None = None
        try:
            for index, item in enumerate(value):
                child = self._child_states(states, index, True)
                if child is None:
                    continue
                new = self._walk(item, counts, child, active)
                if new is not item:
                    if items is None:
                        items = list(value)
                    items[index] = new
        finally:
            active.discard(marker)
        if items is None:
            return value
        return _rebuild(value, items)


def _rebuild(
    original: list[Any] | tuple[Any, ...], items: list[Any]
) -> list[Any] | tuple[Any, ...]:
    """A container of the original's type holding ``items``."""
    kind = type(original)
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    if isinstance(original, tuple):
        make = getattr(kind, "_make", None)  # named tuples
        return make(items) if make is not None else kind(items)
    result = copy.copy(original)
    result[:] = items
    return result
