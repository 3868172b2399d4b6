"""Token estimates of conversation messages: characters / 4 over content and tool calls.

A message's size is counted once, when it enters the context; the context keeps the running
sum, so knowing the size of the whole conversation costs nothing per request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["message_chars", "tokens_for_chars", "total_chars"]


def message_chars(message: Mapping[str, Any]) -> int:
    """Characters of ``message``'s content (text, or blocks as JSON) and its tool calls."""
    content = message.get("content")
    if isinstance(content, str):
        chars = len(content)
    elif content is None:
        chars = 0
    else:
        chars = len(json.dumps(content, default=str))
    calls = message.get("tool_calls")
    if calls:
        chars += len(json.dumps(calls, default=str))
    return chars


def tokens_for_chars(chars: int) -> int:
    """The token estimate of ``chars`` characters (rounded up)."""
    return (chars + 3) // 4


def total_chars(messages: Iterable[Mapping[str, Any]]) -> int:
    """The summed :func:`message_chars` of ``messages``."""
    return sum(message_chars(m) for m in messages)
