"""Which messages a compaction keeps: the oldest exchanges go, whole, until the rest fits.

An exchange starts at a user's prompt, together with the hook injections and ``@file``
contents (``metadata.source`` ``"hook"`` or ``"mention"``) that came in just before it;
user-role messages a hook injected later in a turn do not start one. A cut is made only at
the start of an exchange and never between a tool call and its result, and the latest
exchange is never dropped. System messages survive every compaction, except hook injections,
which belong to their exchange. One system note (``metadata.source`` ``"compaction"``),
replaced at each compaction, says how many messages were removed in all.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .estimate import message_chars, tokens_for_chars

__all__ = [
    "NOTE_SOURCE",
    "STRATEGY",
    "CompactionPlan",
    "exchange_cuts",
    "note_message",
    "plan_compaction",
]

STRATEGY: Final = "drop-oldest-exchanges"
NOTE_SOURCE: Final = "compaction"
_ATTACHED: Final = frozenset({"hook", "mention"})  # sources that belong to the next prompt
_NOTE_COUNT: Final = re.compile(r"\[(\d+) ")

Message = dict[str, Any]


@dataclass(frozen=True)
class CompactionPlan:
    """The conversation after a compaction and what it dropped."""

    kept: list[Message]
    """The messages that stay, in order, with the note when one is written."""

    removed: list[Message]
    """The messages this compaction drops (an earlier note is replaced, not counted)."""

    removed_total: int
    """Messages removed by this and every earlier compaction (what the note says)."""

    removed_by_role: dict[str, int] = field(default_factory=dict)
    """How many of ``removed`` have each role."""

    last_cut: bool = False
    """The cut was at the latest exchange: nothing more can go until a new prompt."""


def _source(message: Mapping[str, Any]) -> object:
    metadata = message.get("metadata")
    return metadata.get("source") if isinstance(metadata, Mapping) else None


def _is_note(message: Mapping[str, Any]) -> bool:
    return message.get("role") == "system" and _source(message) == NOTE_SOURCE


def _survives(message: Mapping[str, Any]) -> bool:
    """System messages stay through every compaction; hook injections go with their exchange."""
    return message.get("role") == "system" and _source(message) != "hook"


def _removed_by(note: Mapping[str, Any]) -> int:
    """How many messages an earlier note says were removed."""
    metadata = note.get("metadata")
    removed = metadata.get("removed") if isinstance(metadata, Mapping) else None
    if isinstance(removed, int) and not isinstance(removed, bool):
        return removed
    found = _NOTE_COUNT.match(str(note.get("content", "")))
    return int(found.group(1)) if found else 0


def note_message(removed_total: int) -> Message:
    """The system note of a compaction that has removed ``removed_total`` messages in all."""
    return {
        "role": "system",
        "content": f"[{removed_total} earlier messages were removed to fit the context budget]",
        "metadata": {"source": NOTE_SOURCE, "strategy": STRATEGY, "removed": removed_total},
    }


def _exchange_starts(messages: Sequence[Mapping[str, Any]]) -> list[int]:
    """Where each exchange starts (see the module docstring), in order."""
    starts: list[int] = []
    for index, message in enumerate(messages):
        if message.get("role") != "user" or _source(message) in _ATTACHED:
            continue
        start = index
        while start > 0 and _source(messages[start - 1]) in _ATTACHED:
            start -= 1
        if not starts or starts[-1] < start:
            starts.append(start)
    return starts


def _earliest_calls(messages: Sequence[Mapping[str, Any]]) -> list[int]:
    """``earliest[i]``: the position of the earliest tool call answered at ``i`` or later."""
    called_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        calls = message.get("tool_calls")
        if calls and isinstance(calls, list):
            for call in calls:
                if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                    called_at.setdefault(call["id"], index)
    earliest = [len(messages)] * (len(messages) + 1)
    for index in range(len(messages) - 1, -1, -1):
        low = earliest[index + 1]
        message = messages[index]
        call_id = message.get("tool_call_id")
        if message.get("role") == "tool" and isinstance(call_id, str):
            low = min(low, called_at.get(call_id, low))
        earliest[index] = low
    return earliest


def exchange_cuts(messages: Sequence[Mapping[str, Any]]) -> list[int]:
    """Positions where a cut may be made: an exchange starts there, something before it can
    be dropped, and no tool call before it has its result after it."""
    earliest = _earliest_calls(messages)
    droppable = 0
    starts = set(_exchange_starts(messages))
    cuts: list[int] = []
    for index, message in enumerate(messages):
        if index in starts and droppable and earliest[index] >= index:
            cuts.append(index)
        if not _survives(message):
            droppable += 1
    return cuts


def plan_compaction(
    messages: Sequence[Message], target_tokens: int, *, note: bool = True
) -> CompactionPlan | None:
    """The oldest cut whose result fits ``target_tokens``, else the latest cut (everything
    before the latest exchange goes); None when no cut exists (nothing can be dropped)."""
    earlier = 0
    rest: list[Message] = []
    for message in messages:
        if _is_note(message):
            earlier = _removed_by(message)
        else:
            rest.append(message)
    cuts = exchange_cuts(rest)
    if not cuts:
        return None
    sizes = [message_chars(m) for m in rest]
    after = [0] * (len(rest) + 1)  # characters from position i to the end
    for index in range(len(rest) - 1, -1, -1):
        after[index] = after[index + 1] + sizes[index]
    surviving_before = [0] * (len(rest) + 1)  # characters of survivors before position i
    dropped_before = [0] * (len(rest) + 1)  # messages dropped by a cut at position i
    for index, message in enumerate(rest):
        survives = _survives(message)
        surviving_before[index + 1] = surviving_before[index] + (sizes[index] if survives else 0)
        dropped_before[index + 1] = dropped_before[index] + (0 if survives else 1)
    cut = cuts[-1]
    for candidate in cuts:
        chars = surviving_before[candidate] + after[candidate]
        if note:
            chars += message_chars(note_message(earlier + dropped_before[candidate]))
        if tokens_for_chars(chars) <= target_tokens:
            cut = candidate
            break
    head = [m for m in rest[:cut] if _survives(m)]
    removed = [m for m in rest[:cut] if not _survives(m)]
    total = earlier + len(removed)
    kept = [*head, note_message(total), *rest[cut:]] if note else [*head, *rest[cut:]]
    by_role = Counter(str(m.get("role")) for m in removed)
    return CompactionPlan(kept, removed, total, dict(sorted(by_role.items())), cut == cuts[-1])
