"""Literal triggers: the strings one of which every match of a pattern starts with.

A pattern such as ``(?:gh[pousr]_)(?<!...)[A-Za-z0-9]{36,}`` can only match where ``ghp_``,
``gho_``, ``ghu_``, ``ghs_`` or ``ghr_`` occurs. :func:`literal_triggers` reads those strings off
the compiled pattern; :class:`TriggerIndex` finds where the triggers of many patterns occur in
a text in one pass (a Hyperscan literal database, for ASCII text where the ``hyperscan``
package is installed) or a few (Aho-Corasick automata, ``ahocorasick_rs``), so each pattern is
tried only at its own candidate positions instead of scanning the whole text once per pattern.

Trying a pattern with ``match`` at each of its candidate positions, in order, finds exactly
what ``search`` finds: a match can start nowhere else.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import re
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import ahocorasick_rs

from .diskcache import cached_database, read_cached, write_cached
from .lazy import PatternLike
from .re_internals import CONSTANTS as _sre  # None on another Python:
from .re_internals import PARSER as _sre_parse  # no triggers: plain search

_hyperscan: Any
try:  # one pass over ASCII text for every trigger at once, where the platform has it
    _hyperscan = importlib.import_module("hyperscan")
except ImportError:  # pragma: no cover - the Aho-Corasick automata below do the same
    _hyperscan = None

__all__ = ["MIN_TRIGGER", "JointIndex", "TriggerIndex", "literal_triggers", "triggers_of"]

MIN_TRIGGER: Final = 2
"""Shorter triggers (one character, such as ``.`` or ``@``) select too little to pay off: such
a pattern is scanned with ``search`` as it is."""

_MAX_TRIGGERS: Final = 64


@functools.lru_cache(maxsize=1024)  # the built-in patterns, read once per process
def literal_triggers(pattern: PatternLike) -> tuple[str, ...] | None:
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


Triggers = tuple[str, ...] | None


def triggers_of(patterns: Sequence[PatternLike]) -> list[Triggers]:
    """:func:`literal_triggers` of each pattern, read from the disk cache (:mod:`.diskcache`)
    when a previous process worked them out for the same patterns, with the same code of this
    module and the same Python (whose regex parser reads the patterns); worked out and stored
    otherwise."""
    key = _triggers_key(patterns)
    if key is not None:
        stored = read_cached("triggers", key, ".json")
        if stored is not None:
            found = _decode_triggers(stored, len(patterns))
            if found is not None:
                return found
    found = [literal_triggers(pattern) for pattern in patterns]
    if key is not None:
        write_cached("triggers", key, ".json", json.dumps(found).encode())
    return found


@functools.cache
def _code_digest() -> str | None:
    """SHA-256 of this module's source: triggers worked out by other code are not reused."""
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:  # no source file to tell the code by: nothing is reused
        return None


def _triggers_key(patterns: Sequence[PatternLike]) -> str | None:
    code = _code_digest()
    if code is None:
        return None
    described = {
        "code": code,
        "python": sys.version,
        "patterns": [[pattern.pattern, pattern.flags] for pattern in patterns],
    }
    encoded = json.dumps(described, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()


def _decode_triggers(stored: bytes, count: int) -> list[Triggers] | None:
    """The stored triggers, if they are a list of ``count`` entries, each ``None`` or a list
    of strings; ``None`` otherwise."""
    try:
        decoded = json.loads(stored)
    except ValueError:
        return None
    if not isinstance(decoded, list) or len(decoded) != count:
        return None
    found: list[Triggers] = []
    for entry in decoded:
        if entry is None:
            found.append(None)
        elif isinstance(entry, list) and entry and all(isinstance(t, str) for t in entry):
            found.append(tuple(entry))
        else:
            return None
    return found


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


def _shortest(triggers: Sequence[str]) -> tuple[str, ...]:
    """``triggers`` without those that start with another of them: where ``https`` occurs,
    ``http`` occurs at the same place, so the longer one would only report that place twice
    (and the pattern would be tried there twice)."""
    return tuple(
        word
        for word in triggers
        if not any(other != word and word.startswith(other) for other in triggers)
    )


class TriggerIndex:
    """Where the triggers of several patterns occur in one text.

    :param triggers: per pattern, its triggers (``None``: the pattern has none and is not
        indexed).

    The triggers are split by length into groups of at most :data:`_GROUP_SIZE`: the
    automaton's prefilter then skips text without any of a group's first bytes quickly.
    """

    __slots__ = (
        "_groups",
        "_hs",
        "_hs_expressions",
        "_hs_lock",
        "_hs_owners",
        "_hs_shapes",
        "_hs_widths",
        "_local",
        "_owners",
        "_words",
        "indexed",
        "shaped",
    )

    def __init__(
        self,
        triggers: Sequence[tuple[str, ...] | None],
        starts: Sequence[tuple[tuple[str, int], ...]] = (),
    ) -> None:
        owners: dict[str, list[int]] = {}
        for index, found in enumerate(triggers):
            for text in _shortest(found or ()):
                owners.setdefault(text, []).append(index)
        self.indexed = frozenset(i for i, found in enumerate(triggers) if found)
        words = sorted(owners, key=lambda word: (len(word), word))
        self._words = tuple(words)
        self._owners = owners
        # The automata are built when first needed: where Hyperscan runs, only for text
        # that is not ASCII.
        self._groups: tuple[_Group, ...] | None = None
        # Patterns without triggers whose possible starts Hyperscan can find (Rule.starts).
        shapes = [
            (expression, width, index)
            for index, found in enumerate(starts)
            if index not in self.indexed
            for expression, width in found
        ]
        self._hs: Any = None
        self._hs_owners = tuple(tuple(owners[word]) for word in words) + tuple(
            (index,) for _, _, index in shapes
        )
        self._hs_widths = tuple(len(word) for word in words) + tuple(w for _, w, _ in shapes)
        # Per expression, the pattern whose shape it is (None for a trigger).
        self._hs_shapes: tuple[int | None, ...] = (None,) * len(words) + tuple(
            index for _, _, index in shapes
        )
        self._local = threading.local()
        self._hs_lock = threading.Lock()
        self.shaped: frozenset[int] = frozenset()
        self._hs_expressions: tuple[bytes, ...] = ()
        if _hyperscan is not None and all(word.isascii() for word in words) and (words or shapes):
            expressions = [re.escape(word).encode("ascii") for word in words]
            expressions += [expression.encode("ascii") for expression, _, _ in shapes]
            self._hs_expressions = tuple(expressions)
            # Compiled when first scanned with: where a JointIndex covers this index (the
            # scanner's case), it scans instead and this database is never needed.
            self._hs = _PENDING
            self.shaped = frozenset(index for _, _, index in shapes)

    def positions(self, text: str) -> dict[int, list[int]]:
        """Per indexed pattern whose triggers occur in ``text``, the sorted start positions.

        Per shaped pattern (:attr:`shaped`), its possible starts (maybe none) when Hyperscan
        scanned the text; absent when it did not (then the pattern must be searched).
        """
        if not self._words and not self.shaped:
            return {}
        data = text.encode("ascii") if text.isascii() else None  # byte = character offsets
        found: dict[int, list[int]] = {}
        if data is not None and self._hs is not None:
            self._scan_hyperscan(data, found)
            return self._finish(found, scanned=True)
        groups = self._groups
        if groups is None:
            groups = self._automata()
        for group in groups:
            group.collect(text, data, found)
        return self._finish(found, scanned=False)

    def _automata(self) -> tuple[_Group, ...]:
        """The Aho-Corasick automata of the triggers, built once (by the first thread that
        needs them; the others wait for them)."""
        with self._hs_lock:
            if self._groups is None:
                words = self._words
                self._groups = tuple(
                    _Group(words[start : start + _GROUP_SIZE], self._owners)
                    for start in range(0, len(words), _GROUP_SIZE)
                )
            return self._groups

    def _finish(
        self,
        found: dict[int, list[int]],
        *,
        scanned: bool,
        without: frozenset[int] = frozenset(),
    ) -> dict[int, list[int]]:
        """Sort the positions; give each shaped pattern its list when Hyperscan ``scanned``
        (each but those ``without``, whose shapes were not scanned for)."""
        shaped = self.shaped - without if scanned else frozenset()
        for index in shaped:
            starts = found.get(index)
            # Position 0 has no character before it for an expression to read.
            found[index] = sorted({0, *starts}) if starts else [0]
        for index, starts in found.items():
            if len(starts) > 1 and index not in shaped:
                starts.sort()
        return found

    def _scan_hyperscan(self, data: bytes, found: dict[int, list[int]]) -> None:
        """Every occurrence of every trigger (overlapping ones too) in one pass."""
        database = self._hs
        if database is _PENDING:
            database = self._database()
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:  # a scratch space per thread: a scan may not share one
            scratch = self._local.scratch = _hyperscan.Scratch(database)
        ends: defaultdict[int, list[int]] = defaultdict(list)
        database.scan(data, match_event_handler=_collector(ends), scratch=scratch)
        _spread(ends, self._hs_owners, self._hs_widths, found)

    def _database(self) -> Any:
        """The Hyperscan database of this index's expressions, compiled once (as
        :meth:`_automata` are built)."""
        with self._hs_lock:
            if self._hs is _PENDING:
                self._hs = _hyperscan_database(
                    self._hs_expressions, [0] * len(self._hs_expressions)
                )
            return self._hs


class JointIndex:
    """The triggers of the patterns that read the text and of those that read its lower-cased
    copy, found in one Hyperscan pass over ASCII text: the second index's expressions match
    case-insensitively (ASCII), which finds in the text exactly where its lower-case triggers
    occur in ``text.lower()`` (the same offsets, for ASCII text), and, for an expression that
    is not all lower case, only more candidates.

    A pass may leave out the shapes of some patterns (``without``: the scanner finds where
    those can start by their leading run, :mod:`.runs`): a database of the other expressions
    is compiled for it when first needed, with the same ids."""

    __slots__ = (
        "_boundary",
        "_expressions",
        "_flags",
        "_hs",
        "_local",
        "_lock",
        "_lowered",
        "_owners",
        "_partial",
        "_shapes",
        "_text",
        "_widths",
    )

    def __init__(self, text: TriggerIndex, lowered: TriggerIndex) -> None:
        self._text = text
        self._lowered = lowered
        self._boundary = len(text._hs_expressions)
        self._owners = text._hs_owners + lowered._hs_owners
        self._widths = text._hs_widths + lowered._hs_widths
        self._shapes = (text._hs_shapes, lowered._hs_shapes)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._partial: dict[tuple[frozenset[int], frozenset[int]], Any] = {}
        self._hs: Any = None
        self._expressions: tuple[bytes, ...] = ()
        self._flags: tuple[int, ...] = ()
        if text._hs is not None and lowered._hs is not None:
            self._expressions = text._hs_expressions + lowered._hs_expressions
            self._flags = (0,) * self._boundary + (_hyperscan.HS_FLAG_CASELESS,) * (
                len(self._expressions) - self._boundary
            )
            self._hs = _hyperscan_database(self._expressions, self._flags)

    def positions(
        self,
        text: str,
        without: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset()),
        data: bytes | None = None,
    ) -> tuple[dict[int, list[int]], dict[int, list[int]]] | None:
        """What each index's :meth:`TriggerIndex.positions` answers for ``text`` and for
        ``text.lower()``, or ``None`` when one pass cannot tell (non-ASCII text, no
        Hyperscan). The shapes of the patterns in ``without`` (of the text's index, of the
        lower-cased one) are not scanned for: those patterns are absent from the answer.
        ``data``: the text's ASCII bytes, when the caller has them already."""
        if self._hs is None or (data is None and not text.isascii()):
            return None
        database = self._database(without)
        scratches = getattr(self._local, "scratches", None)
        if scratches is None:
            scratches = self._local.scratches = {}
        scratch = scratches.get(id(database))
        if scratch is None:  # a scratch space per thread and database: a scan may not share one
            scratch = scratches[id(database)] = _hyperscan.Scratch(database)
        ends: defaultdict[int, list[int]] = defaultdict(list)
        if data is None:
            data = text.encode("ascii")
        database.scan(data, match_event_handler=_collector(ends), scratch=scratch)
        first: dict[int, list[int]] = {}
        second: dict[int, list[int]] = {}
        boundary = self._boundary
        owners = self._owners
        widths = self._widths
        _spread({w: e for w, e in ends.items() if w < boundary}, owners, widths, first)
        _spread({w: e for w, e in ends.items() if w >= boundary}, owners, widths, second)
        return (
            self._text._finish(first, scanned=True, without=without[0]),
            self._lowered._finish(second, scanned=True, without=without[1]),
        )

    def _database(self, without: tuple[frozenset[int], frozenset[int]]) -> Any:
        """The database without the shapes of the patterns ``without`` names (compiled once
        per such pair, by the first thread that needs it)."""
        if not without[0] and not without[1]:
            return self._hs
        database = self._partial.get(without)
        if database is not None:
            return database
        with self._lock:
            database = self._partial.get(without)
            if database is None:
                text_shapes, lowered_shapes = self._shapes
                kept = [
                    number
                    for number, owner in enumerate(text_shapes)
                    if owner is None or owner not in without[0]
                ]
                kept += [
                    self._boundary + number
                    for number, owner in enumerate(lowered_shapes)
                    if owner is None or owner not in without[1]
                ]
                database = _hyperscan_database(
                    [self._expressions[number] for number in kept],
                    [self._flags[number] for number in kept],
                    kept,
                )
                self._partial[without] = database
            return database


def _collector(ends: defaultdict[int, list[int]]) -> Callable[[int, int, int, int, object], None]:
    """A Hyperscan match handler that notes where each expression matched, and nothing else:
    the work per match is what a scan of many matches costs."""

    def report(word: int, _start: int, end: int, _flags: int, _context: object) -> None:
        ends[word].append(end)

    return report


def _spread(
    ends: dict[int, list[int]],
    owners: Sequence[tuple[int, ...]],
    widths: Sequence[int],
    found: dict[int, list[int]],
) -> None:
    """Add the start of each match noted in ``ends`` to the lists of the expression's owners
    (one list per expression and width: the starts are not sorted here)."""
    for word, noted in ends.items():
        width = widths[word]
        starts = [end - width for end in noted]
        for owner in owners[word]:
            known = found.get(owner)
            if known is None:
                found[owner] = starts if len(owners[word]) == 1 else list(starts)
            else:
                known.extend(starts)


def _hyperscan_database(
    expressions: Sequence[bytes], flags: Sequence[int], ids: Sequence[int] | None = None
) -> Any:
    """A block-mode Hyperscan database of ``expressions`` (ids = their indexes, unless
    given)."""
    ids = list(range(len(expressions))) if ids is None else list(ids)

    def compile_database() -> Any:
        database = _hyperscan.Database(mode=_hyperscan.HS_MODE_BLOCK)
        database.compile(
            expressions=list(expressions),
            ids=ids,
            elements=len(expressions),
            flags=list(flags),
        )
        return database

    # Loaded from the disk cache when a previous process compiled the same expressions.
    return cached_database(expressions, flags, ids, _hyperscan.HS_MODE_BLOCK, compile_database)


_PENDING: Final[Any] = object()
"""A :class:`TriggerIndex` whose Hyperscan database is compiled when first needed."""
_GROUP_SIZE: Final = 20
_Reports = tuple[tuple[int, int], ...]
_Spills = tuple[tuple[int, str, tuple[int, ...]], ...]


class _Group:
    """One leftmost-longest automaton over some of the triggers, with what each match implies.

    A leftmost-longest search reports no overlapping matches, but every occurrence of a
    trigger starts where a match starts, or inside one. Inside a match of ``word`` at ``p`` it
    either lies wholly within ``word`` (known when the automaton is built: ``reports``), or it
    starts within ``word`` and runs past its end, which is possible only for a trigger that
    begins with one of ``word``'s suffixes (``spills``, checked in the text only when the
    character after the match can continue one: ``follow``). So every occurrence is found,
    and each once.
    """

    __slots__ = ("_bytes", "_follow", "_reports", "_sole", "_spills", "_text")

    def __init__(self, words: Sequence[str], owners: dict[str, list[int]]) -> None:
        longest = ahocorasick_rs.MatchKind.LeftmostLongest
        self._text = ahocorasick_rs.AhoCorasick(list(words), matchkind=longest)
        self._bytes = (
            ahocorasick_rs.BytesAhoCorasick([w.encode("ascii") for w in words], matchkind=longest)
            if all(word.isascii() for word in words)
            else None
        )
        reports: list[_Reports] = []
        spills: list[_Spills] = []
        for word in words:
            inside: list[tuple[int, int]] = []
            past: list[tuple[int, str, tuple[int, ...]]] = []
            for other in words:
                offset = word.find(other)
                while offset >= 0:
                    inside.extend((offset, owner) for owner in owners[other])
                    offset = word.find(other, offset + 1)
                past.extend(
                    (offset, other, tuple(owners[other]))
                    for offset in range(1, len(word))
                    if len(other) > len(word) - offset and other.startswith(word[offset:])
                )
            reports.append(tuple(sorted(inside)))
            spills.append(tuple(past))
        self._reports = tuple(reports)
        self._spills = tuple(spills)
        self._sole = tuple(
            inside[0][1] if len(inside) == 1 and not past else None
            for inside, past in zip(reports, spills, strict=True)
        )
        self._follow = tuple(
            frozenset(other[len(word) - offset] for offset, other, _ in past)
            for word, past in zip(words, spills, strict=True)
        )

    def collect(self, text: str, data: bytes | None, found: dict[int, list[int]]) -> None:
        """Add the start of every occurrence of this group's triggers to ``found``."""
        if data is not None and self._bytes is not None:
            hits = self._bytes.find_matches_as_indexes(data)
        else:
            hits = self._text.find_matches_as_indexes(text)
        sole = self._sole
        for word, start, end in hits:
            owner = sole[word]
            if owner is not None:  # the common case: one owner, nothing inside, no spill
                found.setdefault(owner, []).append(start)
                continue
            for offset, owner in self._reports[word]:
                found.setdefault(owner, []).append(start + offset)
            if text[end : end + 1] not in self._follow[word]:
                continue
            for offset, other, others in self._spills[word]:
                if text.startswith(other, start + offset):
                    for owner in others:
                        found.setdefault(owner, []).append(start + offset)
