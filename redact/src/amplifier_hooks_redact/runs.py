"""Where a pattern without a literal trigger can start, found without the regex engine.

A pattern such as ``-(?<=[a-z0-9]-)[A-Za-z0-9]{32,256}+`` has no literal trigger of two
characters or more, so it would be searched through the whole text: the regex engine starts
an attempt at every ``-`` of a long log (dates, UUIDs, options). Yet every match of it starts
with a run of fixed character classes: a ``-`` and then 32 letters or digits. :func:`run_shape`
reads that run off the parsed pattern (and, for a pattern that opens with a negative
look-behind of one character, the characters that may stand before it); :class:`RunFinder`
maps each byte of an ASCII text to its class with one ``bytes.translate`` (one for the runs of
several patterns) and finds each run as a plain byte string with ``bytes.find``, both in C.
The pattern is then tried with ``match`` only where the run occurs, which finds exactly what
``search`` finds: the run is a necessary condition of a match (a look-ahead's run is part of
it and ends it; other look-arounds than the leading look-behind are left out, which only
widens the candidates), and trying every candidate in order is what ``search`` does.

A run shape is read only where its classes can be told apart by one byte each (each class of
the run is one class, the others are equal to it or share no character with it) and it is at
least :data:`MIN_RUN` characters long; otherwise the pattern is searched as before. Shapes
whose classes overlap those of another group's are looked for in that group's translation
when each of their classes lies within one of its classes or apart from all of them (``_``
and 32 letters or digits, in the translation of a run of 24 letters, digits, ``+`` and ``/``):
the coarser run is a necessary condition still, so the candidates only widen, and one
translation of the text is saved.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .lazy import PatternLike
from .re_internals import CONSTANTS as _sre  # None on another Python:
from .re_internals import PARSER as _sre_parse  # no leading runs: plain search

__all__ = ["MIN_RUN", "RunFinder", "RunShape", "run_shape"]

MIN_RUN: Final = 8
"""Shorter runs select too little to pay for the translation of the text."""
_MAX_STEPS: Final = 64


_ASCII: Final = tuple(chr(code) for code in range(128))
_CATEGORIES: Final = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
_OTHER: Final = 255
"""The byte every character outside the runs' classes (and any non-ASCII byte) becomes."""


@dataclass(frozen=True, slots=True)
class RunShape:
    """A run every match of a pattern starts with: the character class of each of its
    characters, and the class of the characters allowed before a match (``before``, or
    ``None``: any; a match may also start at position 0, with nothing before it). No two of
    these classes share a character unless they are equal."""

    before: frozenset[str] | None
    run: tuple[frozenset[str], ...]

    def classes(self) -> frozenset[frozenset[str]]:
        """The distinct classes of the shape."""
        return frozenset(self.run) | ({self.before} if self.before is not None else set())


Steps = list[frozenset[str]]


def run_shape(pattern: PatternLike) -> RunShape | None:
    """The run every match of ``pattern`` starts with, or ``None`` when none of at least
    :data:`MIN_RUN` characters can be read off it (see the module's description)."""
    return _run_shape(pattern.pattern, pattern.flags)


@functools.lru_cache(maxsize=256)
def _run_shape(source: str, flags: int) -> RunShape | None:
    if _sre_parse is None or flags & (re.IGNORECASE | re.LOCALE):
        return None
    try:
        parsed = list(_sre_parse.parse(source, flags))
    except Exception:  # an unusual pattern: plain search is always correct
        return None
    before: frozenset[str] | None = None
    if parsed and parsed[0][0] is _sre.ASSERT_NOT:
        direction, body = parsed[0][1]
        single = _single_set(list(body), flags)
        if direction == -1 and single is not None:
            before = frozenset(_ASCII) - single
    steps: Steps = []
    _walk(parsed, flags, steps)
    return _shape(before, steps)


def _walk(items: Sequence[Any], flags: int, steps: Steps) -> bool:
    """Append the classes of the fixed run ``items`` start with to ``steps``; whether all of
    ``items`` was such a run (so what follows them extends it)."""
    for op, value in items:
        if len(steps) >= _MAX_STEPS:
            return False
        if op is _sre.ASSERT and value[0] == 1:
            # A look-ahead's run is read at this position too; what follows the look-ahead
            # starts here again, so the run ends with it.
            _walk(list(value[1]), flags, steps)
            return False
        if op in (_sre.ASSERT, _sre.ASSERT_NOT, _sre.AT):
            continue  # reads no character: leaving it out only widens the candidates
        if op is _sre.SUBPATTERN:
            _group, add_flags, del_flags, body = value
            if add_flags or del_flags or not _walk(list(body), flags, steps):
                return False
            continue
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
            least, most, body = value
            single = _single_set(list(body), flags)
            if single is None:
                return False
            steps.extend([single] * min(least, _MAX_STEPS - len(steps)))
            if most != least:
                return False
            continue
        single = _single_set([(op, value)], flags)
        if single is None:
            return False
        steps.append(single)
    return True


def _single_set(items: Sequence[Any], flags: int) -> frozenset[str] | None:
    """The ASCII characters the one-character item ``items`` matches, or ``None``."""
    if len(items) != 1:
        return None
    op, value = items[0]
    if op is _sre.LITERAL:
        return frozenset({chr(value)}) if value < 128 else frozenset()
    if op is _sre.NOT_LITERAL:
        return frozenset(_ASCII) - {chr(value)}
    if op is _sre.ANY:
        return frozenset(_ASCII) if flags & re.DOTALL else frozenset(_ASCII) - {"\n"}
    if op is not _sre.IN:
        return None
    chars: set[str] = set()
    negate = False
    for kind, argument in value:
        if kind is _sre.NEGATE:
            negate = True
        elif kind is _sre.LITERAL:
            chars.add(chr(argument))
        elif kind is _sre.RANGE:
            low, high = argument
            chars.update(char for char in _ASCII if low <= ord(char) <= high)
        elif kind is _sre.CATEGORY and str(argument) in _CATEGORIES:
            category = re.compile(_CATEGORIES[str(argument)])
            chars.update(char for char in _ASCII if category.match(char))
        else:
            return None
    found = frozenset(char for char in chars if char in _ASCII)
    return frozenset(_ASCII) - found if negate else found


def _shape(before: frozenset[str] | None, steps: Steps) -> RunShape | None:
    """The shape of ``steps`` (their leading part whose classes are equal or apart), or
    ``None`` when shorter than :data:`MIN_RUN`."""
    classes: list[frozenset[str]] = []
    kept = 0
    for step in steps:
        if not step:
            return None  # a character no ASCII text holds: nothing to find, keep the search
        if step not in classes:
            if any(step & known for known in classes):
                break
            classes.append(step)
        kept += 1
    if kept < MIN_RUN:
        return None
    if before is not None and (not before or any(before & known for known in classes)):
        before = None  # told apart by no byte: the run alone is a necessary condition
    return RunShape(before, tuple(steps[:kept]))


class RunFinder:
    """Finds where the run of each of several shapes occurs in an ASCII text (by key).

    Shapes whose classes are, across all of them, equal or apart share one translation of
    the text (each class one byte); the others get one of their own, unless each of their
    classes lies within one class of another translation or apart from all of its classes
    (then they are looked for there, coarser). Each run is then a string of bytes found with
    ``bytes.find``, once for the shapes that come to the same bytes."""

    __slots__ = ("_groups", "keys")

    def __init__(self, shapes: Mapping[int, RunShape]) -> None:
        grouped: list[tuple[list[frozenset[str]], dict[int, RunShape]]] = []
        for key, shape in shapes.items():
            mine = shape.classes()
            for classes, members in grouped:
                if all(c in classes or not any(c & k for k in classes) for c in mine):
                    classes.extend(c for c in mine if c not in classes)
                    members[key] = shape
                    break
            else:
                grouped.append((list(mine), {key: shape}))
        # A group whose classes each lie within one class of another group's, or apart from
        # all of them, is looked for in that group's translation: the coarser run is still
        # a necessary condition, and one translation of the text is saved.
        kept: list[tuple[list[frozenset[str]], dict[int, RunShape]]] = []
        for number, (classes, members) in enumerate(grouped):
            host = next(
                (
                    other
                    for other in [*kept, *grouped[number + 1 :]]
                    if all(_coarse(other[0], known) is not None for known in classes)
                ),
                None,
            )
            if host is None:
                kept.append((classes, members))
            else:
                host[1].update(members)
        self._groups = tuple(_group(classes, members) for classes, members in kept)
        self.keys = frozenset(shapes)

    def starts(self, data: bytes) -> dict[int, list[int]]:
        """Per key, every position of ``data`` (ASCII) where a match of the shape's pattern
        can start, in order."""
        found: dict[int, list[int]] = {}
        for table, needles in self._groups:
            translated = data.translate(table)
            walked: dict[tuple[bytes, int], list[int]] = {}
            for key, needle in needles.items():
                known = walked.get(needle)
                if known is None:
                    known = walked[needle] = _occurrences(translated, *needle)
                    found[key] = known
                else:  # the same coarse run: one walk for both, a list of its own each
                    found[key] = list(known)
        return found


_Needles = dict[int, tuple[bytes, int]]


def _group(
    classes: Sequence[frozenset[str]], shapes: Mapping[int, RunShape]
) -> tuple[bytes, _Needles]:
    """The translation table of ``classes`` (class ``n`` becomes byte ``n``, every other
    character :data:`_OTHER`) and each shape's needle and offset in it."""
    table = bytearray([_OTHER]) * 256
    for number, known in enumerate(classes):
        for char in known:
            table[ord(char)] = number
    needles: _Needles = {}
    for key, shape in shapes.items():
        run = bytes(_byte(classes, step) for step in shape.run)
        if shape.before is None:
            needles[key] = (run, 0)
        else:
            needles[key] = (bytes([_byte(classes, shape.before)]) + run, 1)
    return bytes(table), needles


def _coarse(classes: Sequence[frozenset[str]], known: frozenset[str]) -> int | None:
    """The byte ``known`` is translated to with ``classes``: that of the class holding it,
    :data:`_OTHER` when it shares no character with any, ``None`` when neither."""
    for number, wider in enumerate(classes):
        if known <= wider:
            return number
    if not any(known & wider for wider in classes):
        return _OTHER
    return None


def _byte(classes: Sequence[frozenset[str]], known: frozenset[str]) -> int:
    found = _coarse(classes, known)
    if found is None:  # pragma: no cover - the groups are made so that it never is
        raise ValueError(f"the class {sorted(known)} is split by the group's classes")
    return found


def _occurrences(translated: bytes, needle: bytes, offset: int) -> list[int]:
    """Where a match can start: each occurrence of ``needle`` plus ``offset``, and position
    0 when the run (the needle less its leading class) starts the text."""
    found: list[int] = []
    if offset and translated.startswith(needle[1:]):
        found.append(0)  # nothing before position 0 for the look-behind to read
    at = translated.find(needle)
    while at >= 0:
        found.append(at + offset)
        at = translated.find(needle, at + 1)
    return found
