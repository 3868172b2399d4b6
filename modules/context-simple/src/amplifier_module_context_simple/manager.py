"""The context manager: the conversation in memory, with a running token estimate.

Every change (``add_message``, ``set_messages``, ``clear``) keeps the estimate of the whole
conversation up to date, so ``get_messages_for_request`` costs the same at any length while
the conversation fits its budget. Past ``compact_threshold`` of the budget it compacts (see
:mod:`.compaction`) and the conversation stays compacted: later requests, ``get_messages``
and checkpoints see the compacted conversation. A compaction fires ``context:pre_compact``,
``context:post_compact`` and ``context:compaction`` through the coordinator's hooks; a
``deny`` from ``context:pre_compact`` (Claude Code's ``PreCompact`` block) cancels that
compaction: the request goes out with the whole conversation and the next request asks again.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from .budget import BudgetSource, request_budget
from .compaction import STRATEGY, CompactionPlan, plan_compaction
from .config import MODULE_ID, ContextConfig
from .estimate import message_chars, tokens_for_chars, total_chars

__all__ = [
    "CONTEXT_COMPACTION",
    "CONTEXT_POST_COMPACT",
    "CONTEXT_PRE_COMPACT",
    "SimpleContextManager",
]

logger = logging.getLogger(__name__)

CONTEXT_PRE_COMPACT: Final = "context:pre_compact"
CONTEXT_POST_COMPACT: Final = "context:post_compact"
CONTEXT_COMPACTION: Final = "context:compaction"

Message = dict[str, Any]


def _checked(message: object, where: str) -> Message:
    if not isinstance(message, Mapping):
        raise TypeError(
            f"{MODULE_ID}: {where}: a message must be a dict, got {type(message).__name__}"
        )
    if not isinstance(message.get("role"), str):
        raise ValueError(
            f"{MODULE_ID}: {where}: a message needs a 'role' string, got {message!r:.200}"
        )
    return message if isinstance(message, dict) else dict(message)


class SimpleContextManager:
    """amplifier-core's ``ContextManager`` protocol over an in-memory list of message dicts."""

    def __init__(self, config: ContextConfig | None = None, hooks: Any = None) -> None:
        self.config = config or ContextConfig()
        self.hooks = hooks
        self.compactions = 0
        """How many compactions this context has made."""
        self.compactions_blocked = 0
        """How many compactions a ``context:pre_compact`` hook denied."""
        self._messages: list[Message] = []
        self._chars = 0
        self._generation = 0  # changes whenever the whole conversation is replaced
        self._no_cut = False  # no compaction can drop anything until a new user message

    @property
    def messages(self) -> list[Message]:
        """A copy of the conversation, for synchronous readers."""
        return list(self._messages)

    @property
    def estimated_tokens(self) -> int:
        """The token estimate of the whole conversation (characters / 4)."""
        return tokens_for_chars(self._chars)

    def __len__(self) -> int:
        return len(self._messages)

    def __bool__(self) -> bool:
        # a mounted manager is always "there", even with no messages: sessions test
        # ``if not coordinator.get("context")`` before the first turn
        return True

    async def add_message(self, message: dict[str, Any]) -> None:
        """Append ``message`` (a dict with a ``role``); it is never refused for its size."""
        checked = _checked(message, "add_message")
        self._messages.append(checked)
        self._chars += message_chars(checked)
        if checked["role"] == "user":
            self._no_cut = False

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]:
        """The conversation for the next request, compacted first when it exceeds
        ``compact_threshold`` of the budget (``token_budget``, else the provider's window,
        else ``max_tokens``). A new list; the message dicts are the stored ones."""
        budget, source = request_budget(token_budget, provider, self.config)
        if not self._no_cut and self.estimated_tokens > budget * self.config.compact_threshold:
            await self._compact(budget, source)
        return list(self._messages)

    async def get_messages(self) -> list[dict[str, Any]]:
        """The whole conversation as stored (compactions already made included)."""
        return list(self._messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the conversation (a resumed or forked session)."""
        checked = [_checked(m, f"set_messages(messages[{i}])") for i, m in enumerate(messages)]
        self._replace(checked)

    async def clear(self) -> None:
        """Remove every message."""
        self._replace([])

    def _replace(self, messages: list[Message]) -> None:
        self._messages = messages
        self._chars = total_chars(messages)
        self._generation += 1
        self._no_cut = False

    async def _compact(self, budget: int, source: BudgetSource) -> bool:
        """Compact to ``target_usage`` of ``budget``; True when something was dropped."""
        before: Sequence[Message] = list(self._messages)
        tokens_before = self.estimated_tokens
        generation = self._generation
        plan = plan_compaction(
            before, int(budget * self.config.target_usage), note=self.config.compaction_note
        )
        if plan is None:
            self._no_cut = True
            return False
        asked = await self._emit(
            CONTEXT_PRE_COMPACT,
            {
                "message_count": len(before),
                "tokens": tokens_before,
                "budget": budget,
                "budget_source": source,
                "target_tokens": int(budget * self.config.target_usage),
            },
        )
        if self._generation != generation:  # replaced while the hooks ran: nothing to do
            return False
        if getattr(asked, "action", None) == "deny":  # a PreCompact hook blocked it
            logger.warning(
                "%s: compaction of %d messages (~%d tokens, budget %d) blocked by hook %s: %s;"
                " the request goes out whole, and the next one asks again",
                MODULE_ID,
                len(before),
                tokens_before,
                budget,
                getattr(asked, "source", None)
                or getattr(asked, "user_message_source", None)  # amplifier-core 2.0.2
                or "hooks",
                getattr(asked, "reason", None) or "no reason given",
            )
            self.compactions_blocked += 1
            return False
        self._replace_compacted(plan, self._messages[len(before) :])
        tokens_after = self.estimated_tokens
        logger.info(
            "%s: compacted %d -> %d messages, ~%d -> ~%d tokens (budget %d from %s)",
            MODULE_ID,
            len(before),
            len(self._messages),
            tokens_before,
            tokens_after,
            budget,
            source,
        )
        await self._emit(
            CONTEXT_POST_COMPACT,
            {
                "message_count": len(self._messages),
                "tokens": tokens_after,
                "messages_removed": len(plan.removed),
                "removed_by_role": dict(plan.removed_by_role),
                "removed_total": plan.removed_total,
            },
        )
        await self._emit(
            CONTEXT_COMPACTION,
            {
                "strategy": STRATEGY,
                "messages_before": len(before),
                "messages_after": len(self._messages),
                "tokens_before": tokens_before,
                "tokens_after": tokens_after,
                "messages_removed": len(plan.removed),
                "removed_by_role": dict(plan.removed_by_role),
                "budget": budget,
            },
        )
        return True

    def _replace_compacted(self, plan: CompactionPlan, added: list[Message]) -> None:
        """Keep ``plan.kept`` plus what was added while the hooks of ``pre_compact`` ran."""
        self._messages = [*plan.kept, *added]
        self._chars = total_chars(self._messages)
        self.compactions += 1
        # after a cut at the latest exchange nothing is left to drop until a new prompt
        self._no_cut = plan.last_cut and not any(m.get("role") == "user" for m in added)

    async def _emit(self, event: str, data: dict[str, Any]) -> Any:
        """Fire ``event``, returning the hooks' result; a missing or failing hook registry
        never stops the request (the result is then ``None``)."""
        emit = getattr(self.hooks, "emit", None)
        if not callable(emit):
            return None
        try:
            return await emit(event, data)
        except Exception:
            logger.exception("%s: emitting %s failed", MODULE_ID, event)
            return None
