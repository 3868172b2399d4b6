"""Redact every string inside nested event data, copying only what changes.

:class:`Redactor` walks dicts, lists and tuples (and their subclasses) to any depth. Strings
and dict keys are redacted alike (a token used as a key is a token), and a string under a key
that names a credential is read as that key's assignment (:mod:`.keyed`); ``bytes`` and
``bytearray`` values are decoded as UTF-8 with ``surrogateescape`` (so every byte survives the
round trip), scanned, and encoded back the same way; other leaves (numbers, objects) are left
alone. A string that cannot be scanned at all is replaced whole by
``[REDACTED:unscannable:<why>]``, one whose scan passed the deadline of the redaction
(:mod:`.clock`) by ``[REDACTED:timeout]``: redaction fails closed, never open. A container is copied
only when something inside it changed, so data with nothing to redact comes back as the very
same object, and the caller's data is never mutated. Allowlisted key paths are skipped with
their whole subtree. A container that contains itself is walked once.

Most event data holds nothing to redact, so its strings (keys and values, allowlisted ones
too) are first gathered and decided together (:meth:`TextRedactor.all_clean`); when none
holds anything, the data is returned as it is without a walk. Otherwise, or for data with
``bytes`` or ``str`` subclasses in it, the walk decides string by string.

Given a :class:`~.memo.CleanMemo`, the items of lists (the messages of a conversation) found
clean are remembered, and an item met again unchanged is skipped, by the gathering and by the
walk alike: data that carries a growing conversation costs what is new in it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable
from typing import Any, Final

from .clock import TIMEOUT_MARK, RedactionTimeout
from .keyed import pair_name, probe, probe_option, value_of, value_of_option
from .memo import CleanMemo
from .paths import PathMatcher, State
from .scanner import TextRedactor

__all__ = ["TIMED_OUT", "UNSCANNABLE", "Redactor", "plain_strings"]

UNSCANNABLE = "unscannable"
"""The count name for values replaced whole because they could not be scanned."""
TIMED_OUT = "timeout"
"""The count name for values replaced whole because their scan passed its deadline."""


def _unscannable(error: BaseException) -> str:
    return f"[REDACTED:{UNSCANNABLE}:{type(error).__name__}]"


class Redactor:
    """Redacts strings found anywhere in nested data with one :class:`TextRedactor`."""

    __slots__ = ("_paths", "text")

    def __init__(self, text: TextRedactor, allow_paths: Iterable[str] = ()) -> None:
        self.text = text
        paths = tuple(allow_paths)
        self._paths = PathMatcher(paths) if paths else None

    def copy(self) -> Redactor:
        """The same compiled engine and allowlisted paths with a memo of its own
        (:meth:`TextRedactor.copy`)."""
        twin = object.__new__(Redactor)
        twin.text = self.text.copy()
        twin._paths = self._paths
        return twin

    def redact_text(self, value: str) -> tuple[str, dict[str, int]]:
        """``value`` with secrets replaced, and counts per rule (empty when nothing matched).

        If the scan itself fails, the whole value is replaced by a marker naming why."""
        counts: dict[str, int] = {}
        return self._string(value, counts), counts

    def _string(self, value: str, counts: dict[str, int]) -> str:
        try:
            found = self.text.redact(value)
        except RedactionTimeout:  # fail closed: what was not scanned in time does not go on
            counts[TIMED_OUT] = counts.get(TIMED_OUT, 0) + 1
            return TIMEOUT_MARK
        except Exception as err:  # fail closed: what cannot be scanned does not go on
            counts[UNSCANNABLE] = counts.get(UNSCANNABLE, 0) + 1
            return _unscannable(err)
        if found is None:
            return value
        text, found_counts = found
        for name, count in found_counts.items():
            counts[name] = counts.get(name, 0) + count
        return text

    def _bytes(self, value: bytes | bytearray, counts: dict[str, int]) -> bytes | bytearray:
        decoded = bytes(value).decode("utf-8", "surrogateescape")
        text = self._string(decoded, counts)
        if text is decoded:
            return value
        encoded = text.encode("utf-8", "surrogateescape")
        return bytearray(encoded) if isinstance(value, bytearray) else encoded

    def is_clean(self, data: Any, memo: CleanMemo | None = None) -> bool:
        """True when ``data`` holds nothing to redact anywhere (allowlisted paths included),
        decided from its strings together, without a walk; False when it may hold something
        (then :meth:`redact` decides). With ``memo``, list items remembered clean and
        unchanged are skipped, and the list items found clean are remembered (see
        :mod:`.memo`)."""
        if isinstance(data, str):
            return False
        fresh: list[Any] | None = [] if memo is not None else None
        strings = _strings(data, memo, fresh)
        if strings is None:
            return False
        try:
            if not self.text.all_clean(strings):
                return False
        except Exception:  # the walk decides, and fails closed string by string
            return False
        if fresh:
            assert memo is not None
            for item in fresh:
                memo.remember(item)
        return True

    def redact(self, data: Any, memo: CleanMemo | None = None) -> tuple[Any, dict[str, int]]:
        """A redacted copy of ``data`` (or ``data`` itself if unchanged) and counts per rule.

        With ``memo``, list items remembered clean and unchanged are skipped, and the list
        items found clean are remembered (see :mod:`.memo`)."""
        if self.is_clean(data, memo):
            return data, {}
        counts: dict[str, int] = {}
        states = self._paths.initial if self._paths is not None else ()
        result = self._walk(data, counts, states, set(), memo)
        return result, counts

    def _walk(
        self,
        value: Any,
        counts: dict[str, int],
        states: tuple[State, ...],
        active: set[int],
        memo: CleanMemo | None = None,
    ) -> Any:
        if isinstance(value, str):
            return self._string(value, counts)
        if isinstance(value, bytes | bytearray):
            return self._bytes(value, counts)
        if isinstance(value, dict):
            return self._walk_dict(value, counts, states, active, memo)
        if isinstance(value, list | tuple):
            return self._walk_sequence(value, counts, states, active, memo)
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
        memo: CleanMemo | None = None,
    ) -> dict[Any, Any]:
        marker = id(value)
        if marker in active:
            return value
        active.add(marker)
        changed: dict[Any, Any] | None = None
        renamed: dict[Any, Any] | None = None
        pair = pair_name(value)  # {"name": "API_TOKEN", "value": ...}
        try:
            for key, item in value.items():
                child = self._child_states(states, key, False)
                if child is None:
                    continue
                if isinstance(key, str | bytes):
                    new_key = self._walk(key, counts, (), active)
                    if new_key is not key:
                        if renamed is None:
                            renamed = {}
                        renamed[key] = new_key
                new = self._walk(item, counts, child, active, memo)
                if new is item and type(item) is str and type(key) is str:
                    new = self._keyed(pair[1] if pair and key == pair[0] else key, item, counts)
                if new is not item:
                    if changed is None:
                        changed = {}
                    changed[key] = new
        finally:
            active.discard(marker)
        if renamed is not None:
            return _renamed(value, renamed, changed or {})
        if changed is None:
            return value
        if type(value) is dict:
            return {**value, **changed}
        result = copy.copy(value)
        for key, new in changed.items():
            result[key] = new
        return result

    def _keyed(self, key: str, value: str, counts: dict[str, int]) -> str:
        """``value`` redacted as the assignment ``key: value`` (:mod:`.keyed`), or itself."""
        text = probe(key, value)
        if text is None:
            return value
        redacted = self._string(text, counts)
        return value if redacted is text else value_of(key, redacted)

    def _argument(self, option: str, value: str, counts: dict[str, int]) -> str:
        """``value`` redacted as the value of the option before it (:mod:`.keyed`), or itself."""
        text = probe_option(option, value)
        if text is None:
            return value
        redacted = self._string(text, counts)
        return value if redacted is text else value_of_option(option, redacted)

    def _walk_sequence(
        self,
        value: list[Any] | tuple[Any, ...],
        counts: dict[str, int],
        states: tuple[State, ...],
        active: set[int],
        memo: CleanMemo | None = None,
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
                if memo is not None and memo.known(item):
                    continue  # remembered clean (every string of it), unchanged: as it is
                new = self._walk(item, counts, child, active, memo)
                if new is item and type(item) is str and index and type(value[index - 1]) is str:
                    new = self._argument(value[index - 1], item, counts)  # ["--token", "..."]
                if new is not item:
                    if items is None:
                        items = list(value)
                    items[index] = new
        finally:
            active.discard(marker)
        if items is None:
            return value
        return _rebuild(value, items)


_LEAVES: Final = frozenset({int, float, bool, type(None)})


def _entry(mapping: dict[Any, Any]) -> str | None:
    """A ``{"name": "API_TOKEN", "value": ...}`` entry as the assignment the walk reads it as."""
    if (
        ("value" in mapping or "Value" in mapping or "ParameterValue" in mapping)
        and (pair := pair_name(mapping)) is not None
        and type(mapping[pair[0]]) is str
    ):
        return probe(pair[1], mapping[pair[0]])
    return None


def _arguments(sequence: list[Any] | tuple[Any, ...]) -> list[str]:
    """Each ``["--token", "..."]`` option and value of ``sequence``, as the walk reads them."""
    return [
        text
        for option, item in itertools.pairwise(sequence)
        if type(option) is str
        and option[:1] == "-"
        and type(item) is str
        and (text := probe_option(option, item)) is not None
    ]


def _strings(
    data: Any, memo: CleanMemo | None = None, fresh: list[Any] | None = None
) -> list[str] | None:
    """Every string inside ``data`` (dict keys too), or ``None`` when it holds a value the
    walk treats in its own way (``bytes``, a ``str`` subclass) and must see itself.

    With ``memo``, a list item it remembers clean and unchanged is skipped, and the dict and
    list items gathered are added to ``fresh`` (to be remembered once found clean)."""
    found: list[str] = []
    append = found.append
    stack = [data]
    push = stack.append
    seen: set[int] = set()
    leaves = _LEAVES
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            append(value)
        elif kind in leaves:
            continue
        elif isinstance(value, dict):
            if id(value) in seen:
                continue
            seen.add(id(value))
            # Strings and numbers, the most of any event, are taken here, not pushed.
            if (text := _entry(value)) is not None:
                append(text)  # the name/value entry, as the assignment the walk reads
            for key, item in value.items():
                if type(key) is str:
                    append(key)
                elif isinstance(key, str | bytes):
                    return None
                kind = type(item)
                if kind is str:
                    append(item)
                    if type(key) is str and (text := probe(key, item)) is not None:
                        append(text)  # the pair, as the assignment the walk reads
                elif kind not in leaves:
                    push(item)
        elif isinstance(value, list | tuple):
            if id(value) in seen:
                continue
            seen.add(id(value))
            if memo is None or fresh is None:
                stack.extend(value)
            else:
                for item in value:
                    kind = type(item)
                    if kind is dict or kind is list:
                        if memo.known(item):
                            continue
                        fresh.append(item)
                    push(item)
            found.extend(_arguments(value))
        elif isinstance(value, str | bytes | bytearray):
            return None
    return found


_PLAIN_LEAVES: Final = frozenset({int, float, bool, type(None)})


def plain_strings(
    data: Any,
    keys: list[str] | None = None,
    *,
    memo: CleanMemo | None = None,
    fresh: list[Any] | None = None,
) -> list[str] | None:
    """What :meth:`Redactor.redact` decides ``data`` by (every string, dict keys too, and
    each credential pair as :mod:`.keyed` writes it), or ``None`` unless ``data`` is plain
    JSON data: built of ``dict`` (with ``str`` keys), ``list``, ``tuple``, ``str``, ``int``,
    finite ``float``, ``bool`` and ``None`` only, no subclasses. Such data reads back from its JSON
    text as the same data, so it can be decided and, if need be, redacted later from that
    text (hooks-logging does so on its writer thread). The dict keys are added to ``keys``
    too, when given.

    Given a ``memo``, the containers among the items of a list that it knows clean (and that
    still hold what they held) are not looked into: neither their strings nor their keys are
    in the answer. The other containers among the items of lists are added to ``fresh``,
    when given: those a caller may remember once it has decided them clean."""
    if keys is None:
        keys = []
    known = memo.known if memo is not None else None
    add_fresh = fresh.append if fresh is not None else None
    add_key = keys.append
    found: list[str] = []
    append = found.append
    stack = [data]
    push = stack.append
    seen: set[int] = set()
    leaves = _PLAIN_LEAVES
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            append(value)
        elif kind in leaves:
            if kind is float and value - value != 0:  # NaN or an infinity: not JSON
                return None
        elif kind is dict:
            if id(value) in seen:
                continue
            seen.add(id(value))
            if (text := _entry(value)) is not None:
                append(text)  # the name/value entry, as the assignment the walk reads
            for key, item in value.items():
                if type(key) is not str:
                    return None
                append(key)
                add_key(key)
                kind = type(item)
                if kind is str:
                    append(item)
                    if (text := probe(key, item)) is not None:
                        append(text)  # the pair, as the assignment the walk reads
                elif kind is float:
                    if item - item != 0:
                        return None
                elif kind not in leaves:
                    push(item)
        elif kind is list or kind is tuple:
            if id(value) in seen:
                continue
            seen.add(id(value))
            _push_items(value, stack, known, add_fresh)
            found.extend(_arguments(value))
        else:
            return None
    return found


def _push_items(
    items: list[Any] | tuple[Any, ...],
    stack: list[Any],
    known: Callable[[Any], bool] | None,
    add_fresh: Callable[[Any], None] | None,
) -> None:
    """Put a list's items on ``stack``, but the containers ``known`` to be clean; the other
    containers go to ``add_fresh`` too."""
    if known is None:
        stack.extend(items)
        return
    push = stack.append
    for item in items:
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            if known(item):
                continue
            if add_fresh is not None:
                add_fresh(item)
        push(item)


def _renamed(
    original: dict[Any, Any], renamed: dict[Any, Any], changed: dict[Any, Any]
) -> dict[Any, Any]:
    """A dict of the original's type with redacted keys (in their order) and changed values.
    Two keys redacted to the same marker keep both values: the later one gets a number."""
    items: dict[Any, Any] = {}
    for key, item in original.items():
        new_key = renamed.get(key, key)
        if new_key in items and key in renamed:
            number = 2
            while f"{new_key}#{number}" in items:
                number += 1
            new_key = f"{new_key}#{number}"
        items[new_key] = changed.get(key, item)
    if type(original) is dict:
        return items
    result = copy.copy(original)
    result.clear()
    result.update(items)
    return result


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
