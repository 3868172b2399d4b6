"""Key paths that name parts of event data to leave alone (the allowlist's ``paths``).

Syntax: dict keys joined by dots, list positions in brackets, and two wildcards::

    session_id                  a top-level key
    tool_result.output          a nested key
    messages[0].content         the first list item's key (``messages.0.content`` works too)
    messages[*].metadata        any list item ([*] matches list positions only)
    tool_input.*.sha            any one key or position (*)
    **.checksum                 any depth, including none (**)

A matched path exempts its whole subtree. Matching runs alongside the data walk as a small
set of (path, position) states, so a walk below the depth of every path costs nothing extra.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = ["PathMatcher", "parse_path"]

# Segment kinds: a literal key, a list position, any one key or position, any position, any depth.
KEY: Final = 0
INDEX: Final = 1
ANY: Final = 2
ANY_INDEX: Final = 3
DEEP: Final = 4

Segment = tuple[int, str | int]
State = tuple[int, int]

_PART: Final = re.compile(r"(?P<name>[^\[\]]*)(?P<indexes>(?:\[(?:[0-9]+|\*)\])*)")
_INDEX: Final = re.compile(r"\[([0-9]+|\*)\]")


def parse_path(path: str) -> tuple[Segment, ...]:
    """Parse ``path`` into segments; raises ValueError naming what is wrong with it."""
    if not path or path != path.strip():
        raise ValueError(f"key path {path!r} must be non-empty, without surrounding spaces")
    segments: list[Segment] = []
    for part in path.split("."):
        match = _PART.fullmatch(part)
        if match is None or not part:
            raise ValueError(
                f"key path {path!r}: part {part!r} is not a key, key[index], [index], * or **"
            )
        name, indexes = match.group("name"), match.group("indexes")
        if name == "**":
            if indexes:
                raise ValueError(f"key path {path!r}: '**' cannot take an [index]")
            segments.append((DEEP, ""))
        elif name == "*":
            segments.append((ANY, ""))
        elif "*" in name:
            raise ValueError(f"key path {path!r}: '*' must be a whole part, not inside {name!r}")
        elif name:
            segments.append((KEY, name))
        for index in _INDEX.findall(indexes):
            segments.append((ANY_INDEX, "") if index == "*" else (INDEX, int(index)))
    if all(kind == DEEP for kind, _ in segments):
        raise ValueError(f"key path {path!r} would match the whole event data")
    return tuple(segments)


def _matches(segment: Segment, key: object, is_index: bool) -> bool:
    kind, value = segment
    if kind == KEY:  # a key also names a list position: messages.0 == messages[0]
        return str(key) == value
    if kind == INDEX:
        return is_index and key == value
    if kind == ANY:
        return True
    return kind == ANY_INDEX and is_index


_MEMO_ENTRIES: Final = 4096


class PathMatcher:
    """Tracks which allowlisted key paths a walk into nested data is still on."""

    __slots__ = ("_memo", "_paths", "initial", "sources")

    def __init__(self, paths: Iterable[str]) -> None:
        self.sources = tuple(dict.fromkeys(paths))
        self._paths = tuple(parse_path(path) for path in self.sources)
        self.initial: tuple[State, ...] = self._close((i, 0) for i in range(len(self._paths)))
        self._memo: dict[tuple[tuple[State, ...], str, bool], tuple[State, ...] | None] = {}

    def _close(self, states: Iterable[State]) -> tuple[State, ...]:
        """Add, for each state before a ``**``, the state after it (``**`` may match nothing)."""
        closed: dict[State, None] = {}
        for path_index, position in states:
            path = self._paths[path_index]
            while True:
                closed[(path_index, position)] = None
                if position < len(path) and path[position][0] == DEEP:
                    position += 1
                    continue
                break
        return tuple(closed)

    def step(
        self, states: tuple[State, ...], key: object, is_index: bool
    ) -> tuple[State, ...] | None:
        """States after descending into ``key``; ``None`` when a path ends here (exempt).

        Event data repeats its shape, so answers for string keys are remembered (a bounded
        table: a walk costs a lookup per key, not a match against every path)."""
        if key.__class__ is not str:
            return self._step(states, key, is_index)
        memo_key = (states, key, is_index)
        memo = self._memo
        if memo_key in memo:
            return memo[memo_key]
        found = self._step(states, key, is_index)
        if len(memo) >= _MEMO_ENTRIES:
            memo.clear()
        memo[memo_key] = found
        return found

    def _step(
        self, states: tuple[State, ...], key: object, is_index: bool
    ) -> tuple[State, ...] | None:
        moved: list[State] = []
        paths = self._paths
        for path_index, position in states:
            path = paths[path_index]
            if position >= len(path):
                continue
            segment = path[position]
            if segment[0] == DEEP:  # ** takes this key; the closed state after it tries too
                moved.append((path_index, position))
            elif _matches(segment, key, is_index):
                moved.append((path_index, position + 1))
        if not moved:
            return ()
        closed = self._close(moved)
        for path_index, position in closed:
            if position == len(paths[path_index]):
                return None
        return closed
