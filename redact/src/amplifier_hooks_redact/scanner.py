"""Find and replace secrets in one string.

:class:`TextRedactor` groups the enabled rules into scanning passes (rules that share a
pattern, such as ``phone`` and ``payment_card``, share one pass) and computes ``text.lower()``
once for the passes that need it. Most patterns start with literal text (``ghp_``, ``AKIA``,
``password``): their literal triggers (:mod:`.triggers`) are found for all of them in a few passes
over the text, and each such pattern is tried only where one of its triggers occurs. The few
patterns that start with a character class or a single character (phone and card digits,
``@`` of an e-mail address) are searched in the whole text, or, in long ASCII text, tried
only where the run of character classes their matches start with occurs (:mod:`.runs`).
Matches from all passes are
merged: where two overlap, the one that starts first wins, and at the same start the rule
listed first wins. The result is built with one join.

:meth:`TextRedactor.all_clean` decides for many strings at once (the strings of one event):
the ASCII ones are joined, their triggers found in one pass over the joined text and the
patterns without triggers searched once in it (:mod:`.joined` says which may be); a string in
which no trigger occurs and no such pattern matches has nothing to redact, exactly as its own
scan would find, and every other string is scanned on its own."""

from __future__ import annotations

import bisect
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import add, is_, itemgetter
from typing import Final

import ahocorasick_rs

from .clock import check_deadline
from .joined import SEPARATOR, joinable
from .lazy import PatternLike
from .reading import mark_positions, reading_view
from .rule_type import TOKEN_RULES, Rule, Selector
from .runs import RunFinder, RunShape, run_shape
from .triggers import JointIndex, TriggerIndex, triggers_of

__all__ = ["TextRedactor"]

_MAX_PASSES: Final = 4
_CONTEXT_REACH: Final = 16  # characters a pattern or validator looks at around a match
_CACHE_TEXT_LIMIT: Final = 65_536
_CACHE_CHARS: Final = 4_000_000
_CACHE_ENTRIES: Final = 16_384
_CHECK_EVERY: Final = 256  # attempts of a pattern between two looks at the deadline
_SMALL_BATCH: Final = 16  # fewer strings are decided with plain loops, more with built-ins
_RUNS_FROM: Final = 16_384
"""ASCII text from which patterns without triggers are tried only where their leading run
occurs (:mod:`.runs`); shorter text is searched, or tried at its Hyperscan shapes' starts."""


@dataclass(frozen=True, slots=True)
class _Pass:
    """Patterns scanned once, whose matches each member rule may claim."""

    patterns: tuple[PatternLike, ...]
    ignorecase: tuple[PatternLike, ...]
    lowered: bool
    members: tuple[tuple[int, Selector], ...]
    keys: tuple[int, ...]
    """Each pattern's number in its haystack's :class:`TriggerIndex`."""
    starts: tuple[tuple[str, int], ...]
    """Where the pattern (a pass of one) can start, for Hyperscan (``Rule.starts``)."""


_Members = tuple[tuple[int, Selector], ...]


@dataclass(frozen=True, slots=True)
class _Plan:
    """The patterns that scan one haystack (the text, or its lower-cased copy), split by how:
    ``scanned`` have no literal trigger and are searched through the whole haystack;
    ``indexed`` (by their number in the haystack's :class:`TriggerIndex`) are tried only where
    their triggers occur, so a string holding none of them costs one index lookup, not a loop
    over every pattern. ``ignorecase`` (lower-cased passes only): every pattern's
    case-insensitive twin, for a text whose lower-cased copy is not the same length."""

    scanned: tuple[tuple[PatternLike, _Members], ...]
    scanned_keys: tuple[int, ...]
    """Each ``scanned`` pattern's number in the haystack's :class:`TriggerIndex`: where it is
    :attr:`TriggerIndex.shaped` and Hyperscan ran, it is tried only at its possible starts."""
    indexed: dict[int, tuple[PatternLike, _Members]]
    ignorecase: tuple[tuple[PatternLike, _Members], ...]
    patterns: int
    joinable: tuple[bool, ...]
    """Per ``scanned`` pattern: whether one search of joined strings answers for each."""
    runs: list[RunFinder]
    """The finder of the leading runs of the ``scanned`` patterns that have one
    (:func:`.run_shape`), made when a long text first needs it (:meth:`run_finder`)."""

    @classmethod
    def of(cls, passes: Sequence[_Pass], index: TriggerIndex, *, lowered: bool) -> _Plan:
        scanned: list[tuple[PatternLike, _Members]] = []
        scanned_keys: list[int] = []
        indexed: dict[int, tuple[PatternLike, _Members]] = {}
        ignorecase: list[tuple[PatternLike, _Members]] = []
        for scan in passes:
            if scan.lowered != lowered:
                continue
            for key, pattern in zip(scan.keys, scan.patterns, strict=True):
                if key in index.indexed:
                    indexed[key] = (pattern, scan.members)
                else:
                    scanned.append((pattern, scan.members))
                    scanned_keys.append(key)
            if lowered:  # only lower-cased passes have case-insensitive twins
                ignorecase += [(folded, scan.members) for folded in scan.ignorecase]
        count = len(scanned) + len(indexed)
        joins = tuple(joinable(pattern) for pattern, _ in scanned)
        return cls(
            tuple(scanned), tuple(scanned_keys), indexed, tuple(ignorecase), count, joins, []
        )

    def run_finder(self) -> RunFinder:
        """The finder of the ``scanned`` patterns' leading runs (made once, on first need;
        two threads may both make one, and either serves)."""
        if not self.runs:
            shapes: dict[int, RunShape] = {}
            for (pattern, _), key in zip(self.scanned, self.scanned_keys, strict=True):
                shape = run_shape(pattern)
                if shape is not None:
                    shapes[key] = shape
            self.runs.append(RunFinder(shapes))
        return self.runs[0]

    def with_runs(self) -> frozenset[int]:
        """The numbers of the ``scanned`` patterns that have a leading run."""
        return self.run_finder().keys

    def suspects(
        self,
        haystack: str,
        starts: list[int],
        parts: Sequence[str],
        index: TriggerIndex,
        located: dict[int, list[int]] | None = None,
    ) -> set[int]:
        """The numbers of the joined ``parts`` (``haystack``, each part at its ``starts``)
        in which a trigger of an indexed pattern starts or a scanned pattern matches
        (``located``: what ``index`` finds in ``haystack``, when already known)."""
        found: set[int] = set()
        last = len(starts) - 1
        if located is None:
            located = index.positions(haystack) if self.indexed or index.shaped else {}
        if self.indexed:
            indexed = self.indexed
            for key, positions in located.items():
                if key in indexed:
                    found.update(bisect.bisect_right(starts, at) - 1 for at in positions)
        for (pattern, _), key, join in zip(
            self.scanned, self.scanned_keys, self.joinable, strict=True
        ):
            if not join:
                found.update(n for n, part in enumerate(parts) if pattern.search(part))
                continue
            candidates = located.get(key) if key in index.shaped else None
            if candidates is not None:  # tried only where it can start
                for at in candidates:
                    number = bisect.bisect_right(starts, at) - 1
                    if number not in found and pattern.match(haystack, at) is not None:
                        found.add(number)
                continue
            match = pattern.search(haystack)
            while match is not None:
                number = bisect.bisect_right(starts, match.start()) - 1
                found.add(number)
                if number >= last:
                    break
                match = pattern.search(haystack, starts[number + 1])
        return found

    def run(
        self,
        haystack: str,
        text: str,
        index: TriggerIndex,
        hits: list[tuple[int, int, int]],
        rejected: list[tuple[int, int]],
        located: dict[int, list[int]] | None = None,
        data: bytes | None = None,
    ) -> None:
        """Offer every match in ``haystack`` to the rules (``data``: the haystack as ASCII
        bytes, when the patterns with a leading run are to be tried only where it occurs)."""
        if located is None:
            located = index.positions(haystack) if self.indexed or index.shaped else {}
        shaped = index.shaped
        runs = self.run_finder().starts(data) if data is not None else {}
        for (pattern, members), key in zip(self.scanned, self.scanned_keys, strict=True):
            candidates = located.get(key) if key in shaped else None
            if candidates is None:
                candidates = runs.get(key)
                if candidates is None:
                    _scan(pattern, haystack, text, members, hits, rejected)
                    continue
            if candidates:
                _try(pattern, candidates, haystack, text, members, hits, rejected)
        if not self.indexed:
            return
        indexed = self.indexed
        for key, starts in located.items():
            entry = indexed.get(key)
            if entry is not None and starts:
                _try(entry[0], starts, haystack, text, entry[1], hits, rejected)


def _build_passes(rules: Sequence[Rule]) -> tuple[_Pass, ...]:
    grouped: dict[int, list[int]] = {}
    for index, rule in enumerate(rules):
        grouped.setdefault(id(rule.patterns), []).append(index)
    passes = []
    numbered = {False: 0, True: 0}
    for indexes in grouped.values():
        first = rules[indexes[0]]
        start = numbered[first.lowered]
        numbered[first.lowered] = start + len(first.patterns)
        passes.append(
            _Pass(
                patterns=first.patterns,
                ignorecase=first.ignorecase,
                lowered=first.lowered,
                members=tuple((i, rules[i].select) for i in indexes),
                keys=tuple(range(start, start + len(first.patterns))),
                starts=first.starts if len(first.patterns) == 1 else (),
            )
        )
    # Passes that read the original text first, then the lower-cased ones (one lower() call).
    return tuple(sorted(passes, key=lambda p: p.lowered))


def _trigger_index(passes: Sequence[_Pass], lowered: bool) -> TriggerIndex:
    """The triggers of the patterns that scan the original text (or the lower-cased one)."""
    patterns: list[PatternLike] = []
    starts: list[tuple[tuple[str, int], ...]] = []
    for scan in passes:
        if scan.lowered == lowered:
            patterns.extend(scan.patterns)
            starts.extend(scan.starts if len(scan.patterns) == 1 else () for _ in scan.patterns)
    return TriggerIndex(triggers_of(patterns), starts)


class TextRedactor:
    """Replaces what ``rules`` find in a string with ``replacement`` (``{rule}`` = rule name).

    A match whose text equals one of ``allow_values`` or fully matches one of
    ``allow_patterns`` is kept as it is, and no other rule may redact over it.

    The compiled parts (passes, trigger indexes, Hyperscan databases) of equal inputs are made
    once and shared (the 16 most recently used inputs are kept); each redactor has its own memo.
    """

    __slots__ = (
        "_allow_patterns",
        "_allow_values",
        "_cache",
        "_cached_chars",
        "_echoed",
        "_joint",
        "_lowered_index",
        "_lowered_plan",
        "_names",
        "_passes",
        "_replacements",
        "_text_index",
        "_text_plan",
        "rules",
    )

    def __init__(
        self,
        rules: Sequence[Rule],
        *,
        replacement: str = "[REDACTED:{rule}]",
        allow_values: Iterable[str] = (),
        allow_patterns: Iterable[re.Pattern[str]] = (),
    ) -> None:
        self.rules = tuple(rules)
        self._allow_values = frozenset(allow_values)
        self._allow_patterns = tuple(allow_patterns)
        self._cache: dict[str, tuple[str, dict[str, int]] | None] = {}
        self._cached_chars = 0
        key = (self.rules, replacement, self._allow_values, self._allow_patterns)
        with _COMPILED_LOCK:  # equal rules and options: the same compiled parts, once
            known = _COMPILED_BY_INPUT.get(key)
            if known is not None:
                _COMPILED_BY_INPUT.move_to_end(key)
                for name in _COMPILED:
                    object.__setattr__(self, name, getattr(known, name))
                return
            self._compile(replacement)
            _COMPILED_BY_INPUT[key] = self.copy()  # the compiled parts, not this memo
            while len(_COMPILED_BY_INPUT) > _COMPILED_KEPT:
                _COMPILED_BY_INPUT.popitem(last=False)

    def _compile(self, replacement: str) -> None:
        self._names = tuple(rule.name for rule in self.rules)
        self._echoed = frozenset(
            index
            for index, rule in enumerate(self.rules)
            if rule.category != "pii" and rule.name not in _SELF_EVIDENT
        )
        self._replacements = tuple(replacement.format(rule=name) for name in self._names)
        self._passes = _build_passes(self.rules)
        self._text_index = _trigger_index(self._passes, lowered=False)
        self._lowered_index = _trigger_index(self._passes, lowered=True)
        self._text_plan = _Plan.of(self._passes, self._text_index, lowered=False)
        self._lowered_plan = _Plan.of(self._passes, self._lowered_index, lowered=True)
        # Both indexes in one Hyperscan pass over ASCII text.
        self._joint = JointIndex(self._text_index, self._lowered_index)

    def copy(self) -> TextRedactor:
        """A redactor with the very same compiled rules, indexes and Hyperscan databases
        (nothing is compiled again) and an empty memo of its own: what it answers is what
        this one answers, only nothing decided by this one is remembered by the copy."""
        twin = object.__new__(TextRedactor)
        for name in _COMPILED:
            object.__setattr__(twin, name, getattr(self, name))
        twin._cache = {}
        twin._cached_chars = 0
        return twin

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Non-overlapping ``(start, end, rule)`` spans to replace, in text order."""
        return [(s, e, self._names[i]) for s, e, i in self._spans(text)[0]]

    def redact(self, text: str) -> tuple[str, dict[str, int]] | None:
        """The redacted text and counts per rule, or ``None`` when nothing matched.

        Results are remembered per string (strings up to 64K characters, 4M characters in
        all), so the conversation history that every ``provider:request`` carries again is
        not scanned again.
        """
        cached = self._cache.get(text, _UNKNOWN)  # one lookup: another thread may clear it
        if cached is not _UNKNOWN:
            return None if cached is None else (cached[0], dict(cached[1]))  # type: ignore[index]
        check_deadline()
        result = self._redact(text)
        self._remember(text, result)
        return result

    def known(self, text: str) -> bool:
        """Whether a verdict on ``text`` is remembered (:meth:`redact` would not scan it)."""
        return text in self._cache

    def known_clean(self, text: str) -> bool:
        """Whether ``text`` is remembered as holding nothing to redact."""
        return self._cache.get(text, _UNKNOWN) is None

    def _remember(self, text: str, result: tuple[str, dict[str, int]] | None) -> None:
        size = len(text)
        if size <= _CACHE_TEXT_LIMIT:
            cache = self._cache
            if len(cache) >= _CACHE_ENTRIES or self._cached_chars + size > _CACHE_CHARS:
                cache.clear()
                self._cached_chars = 0
            cache[text] = None if result is None else (result[0], dict(result[1]))
            self._cached_chars += size

    def all_clean(self, texts: Iterable[str]) -> bool:
        """True when none of ``texts`` holds anything to redact (what :meth:`redact` would
        answer ``None`` for); every verdict is remembered as :meth:`redact` remembers it.

        The strings not decided before are decided together: the ASCII ones are joined, and
        the triggers of the indexed patterns, of the original case and of the lower-cased
        copy, are looked for in one pass over the joined text (where Hyperscan runs). A string
        in which none starts, and in which none of the patterns without triggers matches (the
        shaped ones tried at their possible starts), is clean: its own scan would try no
        pattern anywhere and find nothing. Every other string is scanned on its own.

        For the few strings of one event a plain loop costs less than :meth:`holding`'s
        built-ins set up.
        """
        cache = self._cache
        unknown = _UNKNOWN
        dirty = False
        batch: list[str] = []
        for text in dict.fromkeys(texts):
            cached = cache.get(text, unknown)
            if cached is not unknown:
                dirty = dirty or cached is not None
            elif text.isascii():
                batch.append(text)
            elif self.redact(text) is not None:
                dirty = True
        if len(batch) == 1:
            return self.redact(batch[0]) is None and not dirty
        if batch:
            for text in self._suspects(batch):
                if self.redact(text) is not None:
                    dirty = True
        return not dirty

    def holding(self, texts: Iterable[str]) -> set[str]:
        """The strings of ``texts`` that hold something to redact (those :meth:`redact` does
        not answer ``None`` for), decided together as :meth:`all_clean` says; the strings of
        many events can be decided in one call, each keeping its own verdict.

        It runs once for thousands of strings, most of them decided before (keys, tool names)
        or clean: the work per string is done by built-ins, and Python looks only at the
        strings remembered as dirty and at the few that are not ASCII."""
        unique = dict.fromkeys(texts)
        verdicts = list(map(self._cache.get, unique, repeat(_UNKNOWN)))
        # Remembered clean: None (false); remembered dirty: a tuple; not decided: _UNKNOWN.
        open_ = list(compress(unique, verdicts))
        fresh = list(compress(open_, map(is_, compress(verdicts, verdicts), repeat(_UNKNOWN))))
        dirty = set(open_).difference(fresh) if len(fresh) < len(open_) else set()
        if not all(map(str.isascii, fresh)):
            batch = [text for text in fresh if text.isascii()]
            dirty.update(t for t in fresh if not t.isascii() and self.redact(t) is not None)
        else:
            batch = fresh
        if len(batch) == 1:
            suspects = batch
        elif batch:
            suspects = self._suspects(batch)
        else:
            return dirty
        dirty.update(text for text in suspects if self.redact(text) is not None)
        return dirty

    def _suspects(self, batch: list[str]) -> list[str]:
        """The strings of ``batch`` (ASCII, not decided yet) that must be scanned on their
        own; the others are remembered as clean."""
        small = len(batch) < _SMALL_BATCH  # one event's strings: a plain loop costs less
        if small:
            starts: list[int] = []
            position = 0
            for text in batch:
                starts.append(position)
                position += len(text) + 1
        else:
            starts = list(accumulate(map(add, map(len, batch), repeat(1)), initial=0))
            starts.pop()  # where each string starts in the joined text
        joined = SEPARATOR.join(batch)
        located = self._joint.positions(joined)  # the batch is ASCII
        found = self._text_plan.suspects(
            joined, starts, batch, self._text_index, None if located is None else located[0]
        )
        lowered = self._lowered_plan
        if lowered.patterns:
            parts = [text.lower() for text in batch] if not all(lowered.joinable) else batch
            found |= lowered.suspects(
                joined.lower(),
                starts,
                parts,
                self._lowered_index,
                None if located is None else located[1],
            )
        for mark in mark_positions(joined):  # read as a reader sees it: on its own
            found.add(bisect.bisect_right(starts, mark) - 1)
        if small:
            suspects: list[str] = []
            for number, text in enumerate(batch):
                if number in found:
                    suspects.append(text)
                else:
                    self._remember(text, None)
            return suspects
        if not found:
            self._remember_clean(batch)
            return []
        self._remember_clean([text for n, text in enumerate(batch) if n not in found])
        return [batch[n] for n in sorted(found)]

    def _remember_clean(self, texts: list[str]) -> None:
        """Remember ``texts`` (distinct) as clean, as :meth:`_remember` would one by one."""
        if not texts:
            return
        if max(map(len, texts)) > _CACHE_TEXT_LIMIT:
            texts = [text for text in texts if len(text) <= _CACHE_TEXT_LIMIT]
        size = sum(map(len, texts))
        cache = self._cache
        if len(cache) + len(texts) > _CACHE_ENTRIES or self._cached_chars + size > _CACHE_CHARS:
            cache.clear()
            self._cached_chars = 0
            if len(texts) > _CACHE_ENTRIES or size > _CACHE_CHARS:
                return  # more than the cache holds: decided, not remembered
        cache.update(dict.fromkeys(texts))
        self._cached_chars += size

    def _redact(self, text: str) -> tuple[str, dict[str, int]] | None:
        # Lone surrogates (a broken emoji in a tool's JSON, bytes decoded with
        # surrogateescape) cannot be encoded for the trigger automata: the text is scanned
        # with U+FFFD for each (one character for one, so every span is the same) and the
        # replacements are made in both, so the original keeps its other characters.
        original: str | None = None
        if not text.isascii() and _SURROGATE.search(text) is not None:
            original = text
            text = _SURROGATE.sub("\ufffd", text)
        counts: dict[str, int] = {}
        found: dict[str, int] = {}  # each value replaced, and the rule that found it
        reading = reading_view(text)
        if reading is not None:  # what a reader sees through: escapes, invisible characters
            chosen = self._spans(reading.text)[0]
            _note_values(reading.text, chosen, found, self._echoed)
            seen = [(*reading.span(s, e), i) for s, e, i in chosen]
            if seen:
                text = self._replace(text, seen, counts)
                if original is not None:
                    original = self._replace(original, seen, {})
        for _ in range(_MAX_PASSES):
            spans, again = self._spans(text)
            if not spans:
                break
            _note_values(text, spans, found, self._echoed)
            text = self._replace(text, spans, counts)
            if original is not None:
                original = self._replace(original, spans, {})
            if not again:
                break
            # A match dropped for overlapping a kept one (``ghp_....a@example.com``), or one
            # rejected for its context next to a kept one: the replaced text may hold more.
        if found:  # the same value written again elsewhere: an echo, replaced too
            echoes = _echoes(text, found)
            if echoes:
                text = self._replace(text, echoes, counts)
                if original is not None:
                    original = self._replace(original, echoes, {})
        if not counts:
            return None
        return (original if original is not None else text), counts

    def _replace(self, text: str, spans: list[tuple[int, int, int]], counts: dict[str, int]) -> str:
        parts: list[str] = []
        keep = parts.append
        position = 0
        replacements = self._replacements
        for start, end, index in spans:
            keep(text[position:start])
            keep(replacements[index])
            position = end
        keep(text[position:])
        names = self._names
        # Counted per rule in the order each is first replaced, as one at a time would.
        for index, count in Counter(map(itemgetter(2), spans)).items():
            name = names[index]
            counts[name] = counts.get(name, 0) + count
        return "".join(parts)

    def _spans(self, text: str) -> tuple[list[tuple[int, int, int]], bool]:
        """The spans to replace, and whether the text must be scanned again once replaced.

        Again, when a dropped match reached past the kept ones, or a rejected match lies
        next to a kept one (its context changes when the kept one is replaced).
        """
        hits: list[tuple[int, int, int]] = []
        rejected: list[tuple[int, int]] = []
        plan = self._lowered_plan
        long = len(text) >= _RUNS_FROM and text.isascii()
        data = text.encode("ascii") if long else None
        if long:  # the patterns with a leading run: tried where it occurs, not at shapes
            without = (self._text_plan.with_runs(), plan.with_runs())
            located = self._joint.positions(text, without, data)
        else:
            located = self._joint.positions(text)  # None unless ASCII
        first = None if located is None else located[0]
        self._text_plan.run(text, text, self._text_index, hits, rejected, first, data)
        if plan.patterns:
            lowered = text.lower()
            if len(lowered) == len(text):
                second = None if located is None else located[1]
                folded = lowered.encode("ascii") if long and plan.with_runs() else None
                plan.run(lowered, text, self._lowered_index, hits, rejected, second, folded)
            else:  # lower() changed the length: scan the original case-insensitively
                for pattern, members in plan.ignorecase:
                    _scan(pattern, text, text, members, hits, rejected)
        if not hits:
            return [], False
        if len(hits) > 1:
            hits.sort()
        chosen, again = self._resolve(text, hits)
        if chosen and rejected and not again:
            again = _near(rejected, chosen)
        return chosen, again

    def _resolve(
        self, text: str, hits: list[tuple[int, int, int]]
    ) -> tuple[list[tuple[int, int, int]], bool]:
        chosen: list[tuple[int, int, int]] = []
        again = False
        covered = -1
        allow_values = self._allow_values
        allow_patterns = self._allow_patterns
        for start, index, end in hits:
            if start < covered:
                again = again or end > covered
                continue
            covered = end
            if allow_values or allow_patterns:
                value = text[start:end]
                if value in allow_values or any(p.fullmatch(value) for p in allow_patterns):
                    continue
            chosen.append((start, end, index))
        return chosen, again


_COMPILED_KEPT: Final = 16
_COMPILED_LOCK: Final = threading.Lock()
_COMPILED_BY_INPUT: OrderedDict[
    tuple[tuple[Rule, ...], str, frozenset[str], tuple[re.Pattern[str], ...]], TextRedactor
] = OrderedDict()
"""The compiled parts of the 16 most recently built :class:`TextRedactor` inputs. Rules are
equal only when their patterns, selectors and options are the very same objects (a custom
rule's selector is made anew each time), so equal inputs find equally."""
_COMPILED: Final = tuple(
    name for name in TextRedactor.__slots__ if name not in ("_cache", "_cached_chars")
)
"""What :meth:`TextRedactor.copy` shares: everything but the memo; none of it changes after
``__init__`` (the Hyperscan scratch spaces are per thread, inside the indexes)."""
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_UNKNOWN: Final = object()  # a string the cache holds no verdict for


_SELF_EVIDENT: Final = TOKEN_RULES | {
    *("shaped_token", "random_token", "telegram_bot_token", "mailchimp_api_key"),
    "slack_webhook",
}
"""Rules whose matches carry their own evidence: each occurrence is found on its own."""
_ECHO_LEAST: Final = 10
"""Shorter values are not looked for again; nor are values that read as words or names
(:func:`_generated`): a password ``password`` or a value ``base64PrivateKey`` is a word that
occurs elsewhere as itself."""
_ECHO_DIGITS: Final = 16
"""A value of digits alone is looked for again from this many: shorter ones are counts,
dates and ids."""
_ECHO_MOST: Final = 16
"""Distinct values looked for again per string, so that the search stays linear."""


def _note_values(
    text: str, spans: list[tuple[int, int, int]], found: dict[str, int], echoed: frozenset[int]
) -> None:
    """Remember the values ``spans`` replace in ``text`` (see :func:`_echoes`), of the rules
    in ``echoed``: a token with a shape of its own, an e-mail address or a phone number is
    found by its rule wherever it is written, a value told apart by its context is not."""
    for start, end, index in spans:
        if len(found) >= _ECHO_MOST:
            return
        if index not in echoed or end - start < _ECHO_LEAST:
            continue
        value = text[start:end]
        if len(value) >= _ECHO_LEAST and "REDACTED" not in value and _generated(value):
            found.setdefault(value, index)


_WORD_RUN: Final = re.compile("[a-z]{4,}")


def _generated(value: str) -> bool:
    """A value that reads as generated, not as a word or a name: no space, letters with
    three digits or more, or else digits or both cases and not mostly lower-case words
    (``base64PrivateKey`` and ``password`` are names and words), or 16 digits or more."""
    if any(char.isspace() for char in value):
        return False
    digits = sum(map(str.isdigit, value))
    if not any(char.isalpha() for char in value):
        return digits >= _ECHO_DIGITS and digits == len(value)  # a numeric key, not a count
    if digits >= 3:
        return True
    if not digits and (value.islower() or value.isupper()):
        return False
    return 2 * sum(len(run) for run in _WORD_RUN.findall(value)) <= len(value)


def _echoes(text: str, found: dict[str, int]) -> list[tuple[int, int, int]]:
    """Where a value replaced elsewhere in the text occurs again (``token = 'X' | 'X'``, a
    secret echoed by the command that printed it): a secret is one wherever it is written,
    though the context that told it apart is only at one place. At most
    :data:`_ECHO_MOST` values; in a long text one automaton of them (at most
    :data:`_ECHO_AUTOMATON_CHARS` characters) walks it once (the longest value where two
    start at one place), else a ``str.find`` walk per value, which costs less than building
    the automaton for a short text or long values: linear in the text either way. An ASCII
    text is walked as bytes (about a fifth of the time of a walk of the string, which
    translates every offset)."""
    if (
        len(text) >= _ECHO_AUTOMATON_FROM
        and len(found) > 1
        and sum(map(len, found)) <= _ECHO_AUTOMATON_CHARS
    ):
        values = list(found)
        longest = ahocorasick_rs.MatchKind.LeftmostLongest
        if text.isascii():  # bytes offsets are character offsets; no offset translation
            walker = ahocorasick_rs.BytesAhoCorasick(
                [value.encode("utf-8", "surrogatepass") for value in values], matchkind=longest
            )
            hits = walker.find_matches_as_indexes(text.encode("ascii"))
        else:
            hits = ahocorasick_rs.AhoCorasick(values, matchkind=longest).find_matches_as_indexes(
                text
            )
        return [(start, end, found[values[which]]) for which, start, end in hits]
    spans: list[tuple[int, int, int]] = []
    for value, index in found.items():
        at = text.find(value)
        while at >= 0:
            spans.append((at, at + len(value), index))
            at = text.find(value, at + len(value))
    if not spans:
        return spans
    spans.sort()
    kept: list[tuple[int, int, int]] = []
    covered = -1
    for span in spans:
        if span[0] >= covered:
            kept.append(span)
            covered = span[1]
    return kept


_ECHO_AUTOMATON_FROM: Final = 16_384
"""Text length from which :func:`_echoes` walks the text once with an automaton."""
_ECHO_AUTOMATON_CHARS: Final = 4_096
"""The most characters of values an automaton is built for (its cost grows with them; a few
tokens are a few hundred); longer values are looked for one by one."""


def _claim(
    match: re.Match[str],
    text: str,
    members: tuple[tuple[int, Selector], ...],
    hits: list[tuple[int, int, int]],
    rejected: list[tuple[int, int]],
) -> int:
    """Offer ``match`` to the pass's rules; where to look for the next match."""
    accepted = False
    for index, select in members:
        span = select(text, match)
        if span is not None and span[0] < span[1]:
            hits.append((span[0], index, span[1]))
            accepted = True
    # After a rejected match, look again inside it: "2027 4111 1111 1111 1111" is not a card
    # from its first group, but is one from the second.
    start, end = match.span()
    if not accepted:
        rejected.append((start, end))
    return end if accepted and end > start else start + 1


def _scan(
    pattern: PatternLike,
    haystack: str,
    text: str,
    members: tuple[tuple[int, Selector], ...],
    hits: list[tuple[int, int, int]],
    rejected: list[tuple[int, int]],
) -> None:
    """Every match of ``pattern`` in ``haystack``, offered to the pass's rules."""
    # search() returns None for a miss much faster than finditer() sets up.
    match = pattern.search(haystack)
    tried = 0
    size = len(haystack)
    while match is not None:
        tried += 1
        if not tried % _CHECK_EVERY:
            check_deadline()
        resume = _claim(match, text, members, hits, rejected)
        if resume > size:  # search() would look at the end again: an empty match there
            return
        match = pattern.search(haystack, resume)


def _try(
    pattern: PatternLike,
    starts: list[int],
    haystack: str,
    text: str,
    members: tuple[tuple[int, Selector], ...],
    hits: list[tuple[int, int, int]],
    rejected: list[tuple[int, int]],
) -> None:
    """:func:`_scan` for a pattern whose matches can only start at ``starts`` (sorted): the
    same matches, found by trying each candidate position in turn. What :func:`_claim` does
    is written out here (a call per candidate saved), for a pass of one rule (most passes)
    apart."""
    match_at = pattern.match
    resume = 0
    sole = members[0] if len(members) == 1 else None
    for low in range(0, len(starts), _CHECK_EVERY):
        if low:
            check_deadline()
        for start in starts[low : low + _CHECK_EVERY]:
            if start < resume:
                continue
            match = match_at(haystack, start)
            if match is None:
                continue
            end = match.end()
            if sole is None:  # as _claim: every rule of the pass is offered the match
                accepted = False
                for index, select in members:
                    span = select(text, match)
                    if span is not None and span[0] < span[1]:
                        hits.append((span[0], index, span[1]))
                        accepted = True
                if accepted:
                    resume = end if end > start else start + 1
                else:
                    rejected.append((start, end))
                    resume = start + 1
                continue
            span = sole[1](text, match)
            if span is not None and span[0] < span[1]:
                hits.append((span[0], sole[0], span[1]))
                resume = end if end > start else start + 1
            else:
                rejected.append((start, end))
                resume = start + 1


def _near(rejected: list[tuple[int, int]], chosen: list[tuple[int, int, int]]) -> bool:
    """Whether a rejected match ends within reach of a chosen span's context.

    One that lies wholly inside a chosen span is replaced with it and cannot match again.
    ``chosen`` is sorted and its spans do not overlap, so their ends increase too: one walk
    over both lists answers.
    """
    rejected.sort()
    first = 0
    count = len(chosen)
    for start, end in rejected:
        low = start - _CONTEXT_REACH
        while first < count and chosen[first][1] < low:
            first += 1
        high = end + _CONTEXT_REACH
        for kept in range(first, count):
            kept_start, kept_end, _ = chosen[kept]
            if kept_start > high:
                break
            if not (kept_start <= start and end <= kept_end):
                return True
    return False
