"""Reading a hook's answer: the pieces every hook format's parser shares.

Claude Code's JSON answer has top-level fields that Gemini CLI's copies (:func:`common_fields`),
and exit code 2 means the same three things in every format where it refuses:
:func:`refusal` where the event can be blocked, :func:`keep_working` where the agent's stop is
refused, and :func:`with_system_message` for a JSON refusal that also says something.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .types import Decision

_EXCERPT_LINES: Final = 5
_EXCERPT_CHARS: Final = 300

__all__ = [
    "BadAnswer",
    "CommonFields",
    "DuplicateKeyError",
    "answer_field",
    "common_fields",
    "default_reason",
    "excerpt",
    "join_lines",
    "keep_working",
    "loads_unique",
    "refusal",
    "with_system_message",
]


class BadAnswer(ValueError):
    """A field of a hook's JSON answer has the wrong type or value."""


class DuplicateKeyError(ValueError):
    """A JSON object of a hook's answer names one key twice: which value counts is ambiguous."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKeyError(
                f"the key {key!r} appears more than once in one object; a verdict with a "
                "repeated key is ambiguous"
            )
        found[key] = value
    return found


def loads_unique(text: str) -> Any:
    """``json.loads(text)``, refusing any object, at any depth, that repeats a key
    (``{"safe": false, "safe": true}``) and nesting too deep to read.

    :raises DuplicateKeyError: a key repeated (a ``ValueError``).
    :raises ValueError: not JSON, or nested deeper than Python's parser can follow.
    """
    try:
        return json.loads(text, object_pairs_hook=_unique)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None


def answer_field(answer: Mapping[str, Any], key: str, kind: type, expected: str, where: str) -> Any:
    """``answer[key]`` (``None`` when absent), which must be a ``kind``; ``where`` prefixes the
    key in the error (``hookSpecificOutput.``).

    :raises BadAnswer: the value has another type (the message names the key and what was
        expected).
    """
    value = answer.get(key)
    if value is not None and not isinstance(value, kind):
        raise BadAnswer(f"{where}{key} is {type(value).__name__} {value!r}, expected {expected}")
    return value


@dataclass(frozen=True, slots=True)
class CommonFields:
    """The top-level fields of a Claude Code (or Gemini CLI) JSON answer, type-checked."""

    go_on: bool | None
    """``continue``."""
    stop_reason: str | None
    system_message: str | None
    decision: str | None
    reason: str | None


def common_fields(answer: Mapping[str, Any]) -> CommonFields:
    """``continue``, ``stopReason``, ``suppressOutput`` (checked, nothing more: a hook's stdout
    is never shown here), ``systemMessage``, ``decision`` and ``reason``, in that order.

    :raises BadAnswer: the first of them with the wrong type.
    """
    go_on = answer_field(answer, "continue", bool, "true or false", "")
    stop_reason = answer_field(answer, "stopReason", str, "a string", "")
    answer_field(answer, "suppressOutput", bool, "true or false", "")
    system_message = answer_field(answer, "systemMessage", str, "a string", "")
    decision = answer_field(answer, "decision", str, "a string", "")
    reason = answer_field(answer, "reason", str, "a string", "")
    return CommonFields(go_on, stop_reason, system_message, decision, reason)


def join_lines(*parts: str | None) -> str | None:
    """The non-empty ``parts``, one per line; ``None`` when there are none."""
    kept = [part for part in parts if part]
    return "\n".join(kept) if kept else None


def default_reason(label: str) -> str:
    """The reason given for a block whose hook gave none."""
    return f"blocked by hook {label}"


def refusal(text: str, label: str) -> Decision:
    """A block with ``text`` as the reason (exit code 2 with an empty stderr: says so)."""
    return Decision(
        action="block",
        message=text or f"{default_reason(label)} (exit code 2, stderr was empty)",
        level="warning",
        source=label,
    )


def keep_working(text: str, label: str) -> Decision:
    """A refused stop: the agent goes on working with ``text`` as its next instruction."""
    return Decision(
        action="block",
        message=text,
        level="warning",
        context=text,
        source=label,
        keep_working=True,
    )


def with_system_message(
    blocked: Decision, system_message: str | None, context: str | None, label: str
) -> Decision:
    """``blocked`` (a JSON ``decision`` that refuses) with the answer's ``systemMessage`` shown
    beside its reason and its context added."""
    return Decision(
        action=blocked.action,
        message=join_lines(blocked.message, system_message),
        level="warning" if system_message else blocked.level,
        context=join_lines(blocked.context, context),
        source=label,
        keep_working=blocked.keep_working,
    )


def excerpt(text: str, *, lines: int = _EXCERPT_LINES) -> str:
    """The first ``lines`` non-empty lines of ``text``, each cut at a readable width."""
    kept = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    shown = [
        line if len(line) <= _EXCERPT_CHARS else line[:_EXCERPT_CHARS] + "..."
        for line in kept[:lines]
    ]
    more = len(kept) - len(shown)
    return " | ".join(shown) + (f" (+{more} more lines)" if more > 0 else "")
