"""A small in-memory context store: the conversation as an ordered list of message dicts.

It implements the ecosystem's context-manager interface (``add_message``,
``get_messages``, ``get_messages_for_request``, ``set_messages``, ``clear``, all async). The
coordinator keeps hook injections here when no context manager is mounted at ``"context"``.
It never compacts: ``get_messages_for_request`` returns every message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["InMemoryContext"]


def _checked(message: object, where: str) -> dict[str, Any]:
    if not isinstance(message, dict):
        raise TypeError(f"{where}: a message must be a dict, got {type(message).__name__}")
    if "role" not in message:
        raise ValueError(f"{where}: message has no 'role' key: {message!r:.200}")
    return message


class InMemoryContext:
    """Messages kept in memory, in the order they were added."""

    def __init__(self, messages: Iterable[dict[str, Any]] = ()) -> None:
        self._messages: list[dict[str, Any]] = [
            _checked(m, f"InMemoryContext(messages[{i}])") for i, m in enumerate(messages)
        ]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """A copy of the messages, for synchronous callers."""
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    async def add_message(self, message: dict[str, Any]) -> None:
        """Append ``message`` (a dict with at least ``role``)."""
        self._messages.append(_checked(message, "InMemoryContext.add_message"))

    async def get_messages(self) -> list[dict[str, Any]]:
        """All messages."""
        return list(self._messages)

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]:
        """All messages (this store does not compact)."""
        return list(self._messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace every message (session resume)."""
        self._messages = [
            _checked(m, f"InMemoryContext.set_messages(messages[{i}])")
            for i, m in enumerate(messages)
        ]

    async def clear(self) -> None:
        """Remove every message."""
        self._messages.clear()
