"""Literal triggers: the strings one of which every match of a pattern starts with.

A pattern such as ``(?:gh[pousr]_)(?<!...)[A-Za-z0-9]{36,}`` can only match where ``ghp_``,
``gho_``, ``ghu_``, ``ghs_`` or ``ghr_`` occurs. :func:`literal_triggers` reads those strings off
the compiled pattern; :class:`TriggerIndex` finds where the triggers of many patterns occur in
a text in one pass (an Aho-Corasick automaton, ``ahocorasick_rs``), so each pattern is tried
only at its own candidate positions instead of scanning the whole text once per pattern.

Trying a pattern with ``match`` at each of its candidate positions, in order, finds exactly
what ``search`` finds: a match can start nowhere else.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from typing import Any, Final

import ahocorasick_rs

__all__ = ["MIN_TRIGGER", "TriggerIndex", "literal_triggers"]

MIN_TRIGGER: Final = 2
"""Shorter triggers (one character, such as ``.`` or ``@``) select too little to pay off: such
a pattern is scanned with ``search`` as it is."""

_MAX_TRIGGERS: Final = 64

_sre: Any
_sre_parse: Any
try:  # the regex parser the re module compiles with (CPython 3.11+)
    _sre = importlib.import_module("re._constants")
    _sre_parse = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - another implementation: no triggers, plain search
    _sre = _sre_parse = None


def literal_triggers(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The literal strings every match of ``pattern`` starts with, or ``None`` when that cannot
    be read off it (a leading class or repeat, flags, a trigger shorter than
    :data:`MIN_TRIGGER` characters, too many alternatives)."""
    if _sre_parse is None or pattern.flags & (re.IGNORECASE | re.VERBOSE | re.LOCALE):
        return None
    try:
        parsed = _sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # an unusual pattern: plain search is always correct
        return None
    found, _ = _prefixes(list(parsed), ("",))
    if not found or min(len(text) for text in found) < MIN_TRIGGER:
        return None
    return tuple(sorted(set(found)))


def _prefixes(items: Sequence[Any], start: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """Every literal prefix of the sequence ``items`` after ``start``, and whether the whole
    sequence was literal (so what follows it may extend the prefixes further)."""
    current = start
    for op, value in items:
        if op is _sre.LITERAL:
            current = tuple(text + chr(value) for text in current)
            continue
        if op is _sre.SUBPATTERN:
            _group, add_flags, del_flags, body = value
            if add_flags or del_flags:
                return current, False
            current, complete = _prefixes(list(body), current)
        elif op is _sre.BRANCH:
            _, alternatives = value
            extended: list[str] = []
            complete = True
            for alternative in alternatives:
                found, whole = _prefixes(list(alternative), current)
                extended.extend(found)
                complete = complete and whole
            current = tuple(dict.fromkeys(extended))
        else:
            return current, False
        if len(current) > _MAX_TRIGGERS:
            return (), False
        if not complete:
            return current, False
    return current, True


class TriggerIndex:
    """Where the triggers of several patterns occur in one text, found in one pass.

    :param triggers: per pattern, its triggers (``None``: the pattern has none and is not
        indexed).
    """

    __slots__ = ("_bytes", "_owners", "_text", "indexed")

    def __init__(self, triggers: Sequence[tuple[str, ...] | None]) -> None:
        strings: dict[str, list[int]] = {}
        for index, found in enumerate(triggers):
            for text in found or ():
                strings.setdefault(text, []).append(index)
        self.indexed = frozenset(i for i, found in enumerate(triggers) if found)
        words = list(strings)
        self._owners = tuple(tuple(strings[w]) for w in words)
        self._text = ahocorasick_rs.AhoCorasick(words) if words else None
        ascii_words = [w.encode("ascii") for w in words] if all(w.isascii() for w in words) else []
        self._bytes = ahocorasick_rs.BytesAhoCorasick(ascii_words) if ascii_words else None

    def positions(self, text: str) -> dict[int, list[int]]:
        """Per indexed pattern whose triggers occur in ``text``, the sorted start positions."""
        if self._text is None:
            return {}
        if self._bytes is not None and text.isascii():  # byte offsets are character offsets
            hits = self._bytes.find_matches_as_indexes(text.encode("ascii"), overlapping=True)
        else:
            hits = self._text.find_matches_as_indexes(text, overlapping=True)
        found: dict[int, list[int]] = {}
        owners = self._owners
        for word, start, _end in hits:
            for index in owners[word]:
                found.setdefault(index, []).append(start)
        for starts in found.values():
            if len(starts) > 1:
                starts.sort()
        return found
