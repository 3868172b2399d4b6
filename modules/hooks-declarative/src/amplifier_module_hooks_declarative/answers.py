"""Reading a hook's JSON answer: the pieces every hook format's parser shares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["BadAnswer", "answer_field", "default_reason", "join_lines"]


class BadAnswer(ValueError):
    """A field of a hook's JSON answer has the wrong type or value."""


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


def join_lines(*parts: str | None) -> str | None:
    """The non-empty ``parts``, one per line; ``None`` when there are none."""
    kept = [part for part in parts if part]
    return "\n".join(kept) if kept else None


def default_reason(label: str) -> str:
    """The reason given for a block whose hook gave none."""
    return f"blocked by hook {label}"
