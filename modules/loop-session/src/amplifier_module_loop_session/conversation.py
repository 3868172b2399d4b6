"""What keeps a provider round from re-reading the whole conversation.

A conversation only grows during a turn, and its messages are the same dict objects from one
round to the next (the context manager hands out new lists of the same dicts). So:

- :class:`MessageCache` keeps each message's validated ``Message`` by identity, with a deep
  copy of the dict as it was then, and reuses it while the dict still equals that copy (the
  interpreter compares them in C, unchanged strings by identity); a round validates only what
  is new, what a hook replaced, and what was changed in place. Each model is validated from a
  private copy of its dict of its own (validation keeps extra fields' lists and dicts as the
  very objects it is given), so it shares nothing a handler can reach: the leading models so
  made are the ones the loop vouches for to a provider guard
  (:mod:`amplifier_hooks_util.owned_models`, :attr:`MessageCache.private`);
- :class:`DumpCache` keeps each validated message's JSON dump (what ``llm:request`` carries),
  made once per model and reused while it still equals a copy of itself (a handler may edit
  event data in place), so the dump of a request costs what is new in it, and its messages
  are the same dicts from one request to the next for every hook that remembers them;
- :class:`CheckedPrefix` remembers how far the conversation was already checked for tool calls
  without a result, so a round checks only the messages added since (a conversation that was
  replaced, by compaction or ``set_messages``, is checked again from the start).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import is_
from typing import Any, Final

__all__ = ["CheckedPrefix", "DumpCache", "MessageCache", "plain_copy"]

_SHARED: Final = frozenset({str, int, float, bool, type(None), bytes})
_NOT_PLAIN: Final = object()


def _copy(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind in _SHARED:
        return value
    if depth > 64:
        return _NOT_PLAIN
    if kind is dict:
        copied = {}
        for key, item in value.items():
            inner = _copy(item, depth + 1)
            if inner is _NOT_PLAIN or type(key) not in _SHARED:
                return _NOT_PLAIN
            copied[key] = inner
        return copied
    if kind is list or kind is tuple:
        items = [_copy(item, depth + 1) for item in value]
        if any(item is _NOT_PLAIN for item in items):
            return _NOT_PLAIN
        return items if kind is list else tuple(items)
    return _NOT_PLAIN


def plain_copy(value: Any) -> Any:
    """A deep copy of plain data (new dicts, lists and tuples; the same strings and numbers),
    or ``None`` when ``value`` holds anything else: then it is never taken as unchanged."""
    copied = _copy(value, 0)
    return None if copied is _NOT_PLAIN else copied


class MessageCache:
    """Validated messages by the identity of their dict (see the module docstring).

    The part of the conversation that is the same as last round (the same dicts in the same
    places, found in C, and every one of them equal to its copy, compared in one call; the
    last message may differ, when an injection was appended to it for one request) is taken as
    a whole; only the messages after it are looked up one by one (and validated when new or
    changed).
    """

    def __init__(self, validate: Callable[[dict[str, Any]], Any]) -> None:
        self._validate = validate
        self._known: dict[int, tuple[dict[str, Any], Any, Any]] = {}
        self._conversation: list[dict[str, Any]] = []
        self._validated: list[Any] = []
        self._copies: list[Any] = []
        self.private = 0
        """How many leading models of the last :meth:`messages` were validated from a private
        copy of their dict (a dict that is not plain data is validated as it is, and ends the
        run): models that share no object with the dicts, reused only while each dict equals
        its copy."""

    def messages(self, conversation: Sequence[dict[str, Any]]) -> list[Any]:
        """``validate(m)`` for each message, reused for a dict already seen unchanged."""
        start = _same_prefix(conversation, self._conversation)
        if start and _prefix(conversation, start) != _prefix(self._copies, start):
            start = 0  # something was changed in place: every message is looked up again
        old = self._known
        known = old if start else {}  # a conversation read again from the start forgets the rest
        validated = self._validated[:start]
        copies = self._copies[:start]
        private = min(start, self.private)
        for message in conversation[start:]:
            hit = old.get(id(message))
            if hit is not None and hit[0] is message and hit[1] is not None and message == hit[1]:
                copy, model = hit[1], hit[2]
            else:
                copy = plain_copy(message)
                model = self._validate(message if copy is None else plain_copy(copy))
            known[id(message)] = (message, copy, model)
            if private == len(validated) and copy is not None:
                private += 1
            validated.append(model)
            copies.append(copy)
        self.private = private
        self._known = known
        self._validated = validated
        self._copies = copies
        self._conversation = list(conversation)
        return list(validated)


class CheckedPrefix:
    """How much of a conversation was already checked: its first and last message and length."""

    def __init__(self) -> None:
        self._first: object = None
        self._last: object = None
        self._length = 0

    def start(self, conversation: Sequence[dict[str, Any]]) -> int:
        """Where checking goes on: after the checked prefix, when it is still there, else 0."""
        length = self._length
        if (
            length
            and len(conversation) >= length
            and conversation[0] is self._first
            and conversation[length - 1] is self._last
        ):
            return length
        return 0

    def checked(self, conversation: Sequence[dict[str, Any]]) -> None:
        """Remember ``conversation`` as checked in full."""
        self._length = len(conversation)
        self._first = conversation[0] if conversation else None
        self._last = conversation[-1] if conversation else None


def _prefix(items: Sequence[Any], length: int) -> list[Any]:
    """The first ``length`` items as a list: ``items`` itself when it is a list that long."""
    if type(items) is list and len(items) == length:
        return items
    return list(items[:length])


def _same_prefix(items: Sequence[Any], before: Sequence[Any]) -> int:
    """How many leading items of ``items`` are the very objects of ``before`` (found in C)."""
    length = min(len(items), len(before))
    if not length:
        return 0
    if all(map(is_, items, before)):  # the usual: stops at the shorter, builds no list
        return length
    same = list(map(is_, items[:length], before[:length]))
    return same.index(False) if False in same else length


class DumpCache:
    """Each message model's dump, reused while the dump equals a copy of itself."""

    def __init__(self, dump: Callable[[Any], dict[str, Any]]) -> None:
        self._dump = dump
        self._models: list[Any] = []
        self._dumps: list[dict[str, Any]] = []
        self._copies: list[Any] = []

    def dumps(self, models: Sequence[Any]) -> list[dict[str, Any]]:
        """``dump(m)`` for each model: the dumps of the leading models that are the ones met
        last time reused (checked with one comparison of the dumps and their copies), the
        others dumped."""
        known = _same_prefix(models, self._models)
        if known and _prefix(self._dumps, known) == _prefix(self._copies, known):
            dumps, copies = self._dumps[:known], self._copies[:known]
        else:
            known, dumps, copies = 0, [], []
        for model in models[known:]:
            dump = self._dump(model)
            dumps.append(dump)
            copies.append(plain_copy(dump))
        self._models = list(models)
        self._dumps = dumps
        self._copies = copies
        return list(dumps)
