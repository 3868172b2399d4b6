"""What keeps a provider round from re-reading the whole conversation.

A conversation only grows during a turn, and its messages are the same dict objects from one
round to the next (the context manager hands out new lists of the same dicts). So:

- :class:`MessageCache` keeps each message's validated ``Message`` by identity and reuses it
  while the dict and its ``content`` are the same objects; a round validates only what is new
  (or what a hook replaced);
- :class:`CheckedPrefix` remembers how far the conversation was already checked for tool calls
  without a result, so a round checks only the messages added since (a conversation that was
  replaced, by compaction or ``set_messages``, is checked again from the start).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["CheckedPrefix", "MessageCache"]


class MessageCache:
    """Validated messages by the identity of their dict (see the module docstring).

    The part of the conversation that is the same as last round (the same first message, the
    same message at the old length, whose content is the same object) is taken as a whole;
    only the messages after it are looked up one by one (and validated when new).
    """

    def __init__(self, validate: Callable[[dict[str, Any]], Any]) -> None:
        self._validate = validate
        self._known: dict[int, tuple[dict[str, Any], Any, Any]] = {}
        self._prefix = CheckedPrefix()
        self._validated: list[Any] = []
        self._last_content: Any = None

    def messages(self, conversation: Sequence[dict[str, Any]]) -> list[Any]:
        """``validate(m)`` for each message, reused for a dict already seen unchanged."""
        start = self._prefix.start(conversation)
        if start and conversation[start - 1].get("content") is not self._last_content:
            start = 0
        old = self._known
        known = old if start else {}  # a conversation read again from the start forgets the rest
        validated = self._validated[:start]
        for message in conversation[start:]:
            content = message.get("content")
            hit = old.get(id(message))
            if hit is not None and hit[0] is message and hit[1] is content:
                model = hit[2]
            else:
                model = self._validate(message)
            known[id(message)] = (message, content, model)
            validated.append(model)
        self._known = known
        self._validated = validated
        self._prefix.checked(conversation)
        self._last_content = conversation[-1].get("content") if conversation else None
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
