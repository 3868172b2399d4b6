"""The leading items of a list decided before, recognised in one comparison.

Every model request carries the whole conversation: the items of the list are those of the
last request, in the same places, and a few more at the end (the last one may differ: an
injection made for one request only). A check that must look at every item (does it hold a
secret, a secret key, something that is not JSON?) need only look at the new ones, provided
the others still hold exactly what they held when they were decided.

:class:`CleanRun` keeps a deep copy of the items of the list it was last told were decided
(new ``dict``, ``list`` and ``tuple`` objects, the very same strings and numbers). Given the
next list, :meth:`CleanRun.start` answers how many of its leading items equal those copies, in
place: a comparison of two lists the interpreter makes in C, the unchanged strings compared by
identity. An item edited in place since, replaced, or moved is unequal, and the run ends
before it; so whatever the answer skips holds the very text and shape of something decided.
An item that is not plain data (an object, a subclass, nesting deeper than 64 levels) ends the
run too, and so does a lone string or number (a check may read two neighbouring strings
together, as an option and its value). Equality does not see a value replaced by an equal one
of another type (``1`` by ``True``, a string by an equal ``str`` subclass): checks that decide
by text and shape are not affected.

A ``read`` function may stand for each item in the comparison (a model's class, fields and
extra fields, say), and a ``copy`` function for :func:`plain_copy` (one that copies models
too, whose equality compares their fields), as long as an item that equals its copy holds the
very text and shape it held when copied.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import eq
from typing import Any, Final

__all__ = ["MAX_DEPTH", "CleanRun", "CleanRuns", "Mark", "plain_copy"]

MAX_DEPTH: Final = 64
"""Items nested deeper than this are not copied: the run ends before them."""

_SHARED: Final = frozenset({str, int, float, bool, type(None), bytes})
_CONTAINERS: Final = frozenset({dict, list, tuple})


class _NotPlain(Exception):
    """Raised inside :func:`plain_copy` for a value it does not copy."""


# amplifier_hooks_redact.memo.snapshot but for a class one level down; held equal by
# tests/copies/test_held_copies.py.
def _copy(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind in _SHARED:
        return value
    if depth >= MAX_DEPTH:
        raise _NotPlain
    if kind is dict:
        copied: dict[Any, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            copied[key] = _copy(item, depth + 1)
        return copied
    if kind is list:
        return [_copy(item, depth + 1) for item in value]
    if kind is tuple:
        return tuple(_copy(item, depth + 1) for item in value)
    if isinstance(value, type) and depth == 1:  # a class read from a model (its identity)
        return value
    raise _NotPlain


def plain_copy(value: Any) -> Any | None:
    """A deep copy of plain ``value`` (new containers, the same strings and numbers), or
    ``None`` when it holds anything else or nests too deep. A class is kept as itself directly
    inside a tuple (what ``attrgetter("__class__", ...)`` reads)."""
    try:
        return _copy(value, 0)
    except (_NotPlain, RecursionError):
        return None


class CleanRun:
    """Copies of the items of the list last decided (see the module docstring).

    One run belongs to one check of one kind of list (the messages of one event, say); it
    holds no reference to the items themselves. :meth:`start` and :meth:`decided` may run on
    different threads: each replaces the copies in one assignment.
    """

    __slots__ = ("_copies", "_copy", "_read")

    def __init__(
        self,
        read: Callable[[Any], Any] | None = None,
        copy: Callable[[Any], Any | None] = plain_copy,
    ) -> None:
        self._read = read
        self._copy = copy
        self._copies: list[Any] = []

    def __len__(self) -> int:
        return len(self._copies)

    def start(self, items: Sequence[Any]) -> int:
        """How many leading items of ``items`` equal, in place, the items last decided."""
        copies = self._copies
        length = min(len(items), len(copies))
        if not length:
            return 0
        try:
            read = self._read
            if read is not None:
                current = list(map(read, items[:length]))
            elif type(items) is list:  # the list itself when it is no longer: no copy made
                current = items if len(items) == length else items[:length]
            else:
                current = list(items[:length])
            if len(copies) > length:
                copies = copies[:length]
            last = length - 1  # the last item is often for one request only: compared first
            if current[last] == copies[last]:
                if current == copies:  # the last item again, then every other one
                    return length
            elif current[:last] == copies[:last]:
                return last
            same = list(map(eq, current, copies))
        except Exception:  # an item that cannot be compared: nothing is skipped
            return 0
        return same.index(False) if False in same else length

    def copies(self, items: Sequence[Any], start: int) -> list[Any]:
        """Copies of ``items[start:]`` as they are now, up to the first one that is not plain
        data: what :meth:`extend` takes once they are decided."""
        read, copy = self._read, self._copy
        tail: list[Any] = []
        for item in items[start:]:
            try:
                copied = copy(read(item) if read is not None else item)
            except Exception:  # what cannot be copied ends the run
                break
            if type(copied) not in _CONTAINERS:  # not plain, or a lone string or number
                break
            tail.append(copied)
        return tail

    def extend(self, start: int, tail: list[Any]) -> None:
        """The items copied in ``tail`` (:meth:`copies`) were decided, after the first
        ``start`` items :meth:`start` answered for: remember them. Every copy the run holds is
        one of an item decided, so a run changed meanwhile (on another thread) stays sound."""
        self._copies = [*self._copies[:start], *tail]

    def decided(self, items: Sequence[Any], start: int) -> None:
        """``items`` were all decided, their first ``start`` by :meth:`start`: remember them."""
        self.extend(start, self.copies(items, start))

    def forget(self) -> None:
        """Forget every copy: the next list is looked at in full."""
        self._copies = []


Mark = tuple[CleanRun, list[Any], int]
"""A list of event data, its run, and how many of its leading items the run answered for."""

_MAX_RUNS: Final = 256


class CleanRuns:
    """A :class:`CleanRun` for each place of event data a list is met: a key of the data, or
    a key of a dict under one of them (``messages``, ``request.messages``).

    :meth:`view` gives the data with the leading items of those lists that the runs answer
    for left out (new dicts and lists where something is left out, the data itself when
    nothing is); a check of the view is a check of what is new in the data. Once the data is
    decided, the caller hands the marks to :meth:`decided`, or :meth:`forget` when it was not
    decided clean.
    """

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: dict[tuple[str, ...], CleanRun] = {}

    def _run(self, place: tuple[str, ...]) -> CleanRun:
        run = self._runs.get(place)
        if run is None:
            if len(self._runs) >= _MAX_RUNS:
                self._runs.clear()
            run = self._runs[place] = CleanRun()
        return run

    def _tail(self, place: tuple[str, ...], items: list[Any], marks: list[Mark]) -> list[Any]:
        run = self._run(place)
        start = run.start(items)
        marks.append((run, items, start))
        return items[start:] if start else items

    def view(self, data: Any) -> tuple[Any, list[Mark]]:
        """``data`` without the leading items of its lists decided before, and the marks."""
        marks: list[Mark] = []
        if type(data) is not dict:
            return data, marks
        view = data
        for key, value in data.items():
            if type(key) is not str:
                continue
            kind = type(value)
            new = value
            if kind is list and value:
                new = self._tail((key,), value, marks)
            elif kind is dict:
                for inner, items in value.items():
                    if type(items) is list and items and type(inner) is str:
                        tail = self._tail((key, inner), items, marks)
                        if tail is not items:
                            if new is value:
                                new = dict(value)
                            new[inner] = tail
            if new is not value:
                if view is data:
                    view = dict(data)
                view[key] = new
        return view, marks

    @staticmethod
    def decided(marks: list[Mark]) -> None:
        """The data the marks were taken from was decided clean, as it is now."""
        for run, items, start in marks:
            run.decided(items, start)

    @staticmethod
    def copies(marks: list[Mark]) -> list[tuple[CleanRun, int, list[Any]]]:
        """Copies of what is new in each list, taken now, for :meth:`extend` once decided
        (on another thread, say)."""
        return [(run, start, run.copies(items, start)) for run, items, start in marks]

    @staticmethod
    def extend(copies: list[tuple[CleanRun, int, list[Any]]]) -> None:
        """The data :meth:`copies` were taken of was decided clean as it was then."""
        for run, start, tail in copies:
            run.extend(start, tail)

    @staticmethod
    def forget(marks: list[Mark]) -> None:
        """The data the marks were taken from was not decided clean: look at it all again."""
        for run, _, _ in marks:
            run.forget()
