"""The session's conversation store: messages with provenance, compacted past a token budget.

Compaction keeps the leading system messages (instructions), drops the oldest exchanges whole
and stops once the estimate is under ``target_ratio`` of the budget; the latest exchange is
never dropped. An exchange starts at a user's prompt, together with the hook injections and
``@file`` contents that came in just before it; user-role messages a hook injected later in a
turn do not start one. No exchange starts where it would separate a tool call from its result.
One system note (replaced, not repeated, at each compaction) says how many messages were
removed in all. It fires ``context:pre_compact``, ``context:post_compact`` and
``context:compaction``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from . import events as ev
from .context import InMemoryContext
from .hooks import HookRegistry

__all__ = ["SessionContext", "estimate_tokens"]

STRATEGY: Final = "drop-oldest-exchanges"
_ATTACHED: Final = frozenset({"hook", "mention"})  # sources that belong to the next prompt
_NOTE_COUNT: Final = re.compile(r"\[(\d+) ")


def _chars(message: dict[str, Any]) -> int:
    content = message.get("content")
    chars = len(content) if isinstance(content, str) else len(json.dumps(content, default=str))
    calls = message.get("tool_calls")
    if calls:
        chars += len(json.dumps(calls, default=str))
    return chars


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens as characters / 4 over content and tool calls (the kernel's one estimate)."""
    return (sum(_chars(m) for m in messages) + 3) // 4


def _source(message: dict[str, Any]) -> object:
    metadata = message.get("metadata")
    return metadata.get("source") if isinstance(metadata, dict) else None


def _removed_by(note: dict[str, Any]) -> int:
    """How many messages an earlier compaction note says were removed."""
    metadata = note.get("metadata")
    removed = metadata.get("removed") if isinstance(metadata, dict) else None
    if isinstance(removed, int):
        return removed
    found = _NOTE_COUNT.match(str(note.get("content", "")))
    return int(found.group(1)) if found else 0


def _exchange_starts(body: list[dict[str, Any]]) -> list[int]:
    """Where the exchanges of ``body`` after the first one start (see the module docstring)."""
    called_at: dict[str, int] = {}
    for index, message in enumerate(body):
        calls = message.get("tool_calls")
        if calls and isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    called_at[call["id"]] = index
    # earliest[i]: the earliest call answered by a tool result at position i or later
    earliest = [len(body)] * (len(body) + 1)
    for index in range(len(body) - 1, -1, -1):
        low = earliest[index + 1]
        message = body[index]
        call_id = message.get("tool_call_id")
        if message.get("role") == "tool" and isinstance(call_id, str):
            low = min(low, called_at.get(call_id, low))
        earliest[index] = low
    starts: list[int] = []
    for index, message in enumerate(body):
        if message.get("role") != "user" or _source(message) in _ATTACHED:
            continue
        start = index
        while start > 0 and _source(body[start - 1]) in _ATTACHED:
            start -= 1
        if start > 0 and earliest[start] >= start and (not starts or starts[-1] < start):
            starts.append(start)
    return starts


class SessionContext(InMemoryContext):
    """An :class:`InMemoryContext` that compacts itself when it grows past ``max_tokens``."""

    def __init__(
        self,
        hooks: HookRegistry,
        *,
        max_tokens: int | None = 100_000,
        target_ratio: float = 0.5,
    ) -> None:
        super().__init__()
        if max_tokens is not None and max_tokens <= 0:
            raise ValueError(f"session.context_max_tokens: must be > 0 or null, got {max_tokens}")
        if not 0 < target_ratio < 1:
            raise ValueError(f"session.context_target_ratio: must be in (0, 1), got {target_ratio}")
        self.hooks = hooks
        self.max_tokens = max_tokens
        self.target_ratio = target_ratio
        self.compactions = 0

    async def compact_if_needed(self) -> bool:
        """Compact when over budget; True when it did."""
        messages = self.messages
        tokens = estimate_tokens(messages)
        if self.max_tokens is None or tokens <= self.max_tokens:
            return False
        compacted = self._compacted(messages, int(self.max_tokens * self.target_ratio))
        if compacted is None:  # only the latest exchange is left: nothing can go
            return False
        kept, removed = compacted
        await self.hooks.emit(
            ev.CONTEXT_PRE_COMPACT,
            {"message_count": len(messages), "tokens": tokens, "budget": self.max_tokens},
        )
        await self.set_messages(kept)
        after = estimate_tokens(kept)
        self.compactions += 1
        await self.hooks.emit(
            ev.CONTEXT_POST_COMPACT,
            {"message_count": len(kept), "tokens": after, "messages_removed": removed},
        )
        await self.hooks.emit(
            ev.CONTEXT_COMPACTION,
            {
                "strategy": STRATEGY,
                "messages_before": len(messages),
                "messages_after": len(kept),
                "tokens_before": tokens,
                "tokens_after": after,
            },
        )
        return True

    @staticmethod
    def _compacted(
        messages: list[dict[str, Any]], target: int
    ) -> tuple[list[dict[str, Any]], int] | None:
        """The messages that stay (with the note) and how many were removed; None: none can."""
        head = 0
        while head < len(messages) and messages[head].get("role") == "system":
            head += 1
        body = messages[head:]
        kept_head = messages[:head]
        earlier = 0
        for index in range(head - 1, -1, -1):  # the note of an earlier compaction, if any
            if _source(messages[index]) == "compaction":
                earlier = _removed_by(messages[index])
                kept_head = messages[:index]
                body = messages[index + 1 :]
                break
        starts = _exchange_starts(body)
        if not starts:
            return None
        sizes = [_chars(m) for m in body]
        remaining = [0] * (len(body) + 1)  # characters from position i to the end
        for index in range(len(body) - 1, -1, -1):
            remaining[index] = remaining[index + 1] + sizes[index]
        fixed = sum(_chars(m) for m in kept_head)
        cut = starts[-1]  # never drop the latest exchange
        for start in starts:
            if (fixed + remaining[start] + 3) // 4 <= target:
                cut = start
                break
        total = earlier + cut
        note = {
            "role": "system",
            "content": f"[{total} earlier messages were removed to fit the context budget]",
            "metadata": {"source": "compaction", "strategy": STRATEGY, "removed": total},
        }
        return [*kept_head, note, *body[cut:]], cut

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]:
        """Every message, compacting first when over budget."""
        await self.compact_if_needed()
        return self.messages
