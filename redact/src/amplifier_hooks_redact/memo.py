"""Containers already found clean, so that data carried again is not walked again.

A conversation is carried whole by every ``provider:request``: the same message dicts, event
after event, each a little longer than the last. :class:`CleanMemo` remembers the containers
(the items of lists: the messages) that the walker found to hold nothing to redact, each with
a deep copy of what it held then. The next time the very same container is met, it is skipped
when it still equals that copy; anything changed in place since (a value replaced, a block
appended, a nested argument edited) makes it unequal, and it is walked and scanned again.

Why equality is enough: what the walker finds in a container depends only on the text of its
strings and keys and on its shape (a ``bytes`` value never equals a ``str``, a tuple never a
list), and equal plain data has the same text and shape. The copy shares the original's
strings and numbers (they cannot change) and copies every ``dict``, ``list`` and ``tuple``, so
the comparison is done by the interpreter in C, the unchanged strings compared by identity:
far less than walking and looking up every string again. What the memo cannot copy (objects
other than plain data, subclasses, nesting deeper than :data:`MAX_DEPTH`) is not remembered,
and is walked every time.

A memo belongs to one caller (one hook of one session), never to a shared engine; it holds at
most :data:`MAX_ENTRIES` containers and forgets them all when full.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "CleanMemo", "snapshot"]

MAX_DEPTH: Final = 64
"""Containers nested deeper than this are not remembered (walked every time)."""
MAX_ENTRIES: Final = 65_536
"""Containers a memo remembers before it forgets them all and starts again."""

_SHARED: Final = frozenset({str, int, float, bool, type(None), bytes})
"""Leaves that cannot change: the copy holds the very same objects."""


class _NotPlain(Exception):
    """Raised inside :func:`snapshot` for a value it does not copy."""


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
    raise _NotPlain


def snapshot(value: Any) -> Any | None:
    """A deep copy of plain ``value`` (new ``dict``, ``list`` and ``tuple`` objects, the same
    strings and numbers), or ``None`` when it holds anything else or nests too deep."""
    try:
        return _copy(value, 0)
    except (_NotPlain, RecursionError):
        return None


class CleanMemo:
    """Containers found clean, by identity, each with a :func:`snapshot` of its contents."""

    __slots__ = ("_once", "_seen")

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, Any]] = {}
        self._once: dict[int, Any] = {}  # met once: copied only when met again

    def __len__(self) -> int:
        return len(self._seen)

    def known(self, value: Any) -> bool:
        """Whether ``value`` is a container remembered clean that still holds what it held."""
        hit = self._seen.get(id(value))
        if hit is None or hit[0] is not value:
            return False
        try:
            return bool(value == hit[1])
        except Exception:  # an object inside that cannot be compared: walk it
            return False

    def remember(self, value: Any) -> None:
        """Remember ``value`` (a container the walker just found clean), if it is plain. A
        container is copied the second time it is found clean, not the first: data built
        anew for each event (a request's dump) is never carried again, and is not copied."""
        ident = id(value)
        once = self._once
        if once.get(ident) is not value:
            if len(once) >= MAX_ENTRIES:
                once.clear()
            once[ident] = value
            return
        once.pop(ident, None)  # another thread may have cleared it
        copied = snapshot(value)
        if copied is None:
            return
        seen = self._seen
        if len(seen) >= MAX_ENTRIES:
            seen.clear()
        seen[id(value)] = (value, copied)

    def keep(self, value: Any, copied: Any) -> None:
        """Remember ``value`` as clean with ``copied``, a :func:`snapshot` of it taken when it
        was decided clean (on another thread, say: what it holds now may differ, and is then
        looked at again)."""
        seen = self._seen
        if len(seen) >= MAX_ENTRIES:
            seen.clear()
        seen[id(value)] = (value, copied)

    def forget(self) -> None:
        """Forget every container."""
        self._seen.clear()
        self._once.clear()
