"""The session's conversation store: messages with provenance, compacted past a token budget.

Compaction keeps the leading system messages (instructions), drops the oldest exchanges whole
(a user message and everything up to the next user message, so a tool call is never separated
from its result), adds one system note saying how many messages were removed, and stops once
the estimate is under ``target_ratio`` of the budget. It fires ``context:pre_compact``,
``context:post_compact`` and ``context:compaction``.
"""

from __future__ import annotations

import json
from typing import Any, Final

from . import events as ev
from .context import InMemoryContext
from .hooks import HookRegistry

__all__ = ["SessionContext", "estimate_tokens"]

STRATEGY: Final = "drop-oldest-exchanges"


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens as characters / 4 over content and tool calls (the kernel's one estimate)."""
    chars = 0
    for message in messages:
        content = message.get("content")
        chars += len(content) if isinstance(content, str) else len(json.dumps(content, default=str))
        calls = message.get("tool_calls")
        if calls:
            chars += len(json.dumps(calls, default=str))
    return (chars + 3) // 4


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
        kept = self._compacted(messages, int(self.max_tokens * self.target_ratio))
        if kept is None:  # only the latest exchange is left: nothing can go
            return False
        await self.hooks.emit(
            ev.CONTEXT_PRE_COMPACT,
            {"message_count": len(messages), "tokens": tokens, "budget": self.max_tokens},
        )
        await self.set_messages(kept)
        after = estimate_tokens(kept)
        removed = len(messages) - len(kept) + 1  # the note replaces what it describes
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
    def _compacted(messages: list[dict[str, Any]], target: int) -> list[dict[str, Any]] | None:
        head = 0
        while head < len(messages) and messages[head].get("role") == "system":
            head += 1
        body = messages[head:]
        starts = [i for i, m in enumerate(body) if m.get("role") == "user" and i > 0]
        if not starts:
            return None
        cut = starts[-1]  # never drop the latest exchange
        for start in starts:
            if estimate_tokens(messages[:head] + body[start:]) <= target:
                cut = start
                break
        note = {
            "role": "system",
            "content": f"[{cut} earlier messages were removed to fit the context budget]",
            "metadata": {"source": "compaction", "strategy": STRATEGY},
        }
        return [*messages[:head], note, *body[cut:]]

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]:
        """Every message, compacting first when over budget."""
        await self.compact_if_needed()
        return self.messages
