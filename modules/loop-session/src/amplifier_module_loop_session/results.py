"""Small pure helpers of the turn loop: turn outcomes, tool results as text, event data."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from amplifier_hooks_util.deep import cut_depth
from amplifier_hooks_util.tool_events import tool_call_fields

__all__ = [
    "TurnOutcome",
    "TurnStatus",
    "as_result_dict",
    "hook_source",
    "render_tool_result",
    "tool_event_data",
    "tool_message",
    "whole_number",
]

_DEPTH = 100
_DEEP = f"... (nested deeper than {_DEPTH} levels: cut)"
TurnStatus = Literal["completed", "denied", "cancelled", "error", "incomplete"]


@dataclass(slots=True)
class TurnOutcome:
    """How a turn ended and what the model said."""

    status: TurnStatus
    response: str = ""
    iterations: int = 0
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    reason: str | None = None
    error: dict[str, Any] | None = None


def hook_source(result: Any) -> str | None:
    """The hook a deny or ``ask_user`` came from: the result's ``source`` (our kernel's registry
    sets it), else its ``user_message_source``, where a hook module names itself on a kernel
    whose results have no ``source`` (amplifier-core 2.0.2; hooks-declarative does); ``None``
    when neither says."""
    for key in ("source", "user_message_source"):
        value = getattr(result, key, None)
        if isinstance(value, str) and value:
            return value
    return None


def render_tool_result(result: dict[str, Any]) -> str:
    """The text the model sees for a tool result dict ``{success, output, error}``."""
    output = result.get("output")
    if isinstance(output, str):
        text = output
    else:
        try:
            text = json.dumps(output, default=str)
        except RecursionError:  # nested too deep to encode: cut, and say so
            text = json.dumps(cut_depth(output, _DEPTH, _DEEP), default=str)
    if result.get("success", True):
        return "" if output is None else text
    error = result.get("error") or {}
    message = error.get("message", "tool failed") if isinstance(error, dict) else str(error)
    return f"Error: {message}" + ("" if output is None else f"\n{text}")


def as_result_dict(result: Any) -> dict[str, Any]:
    """A tool's answer (a ToolResult of either kernel, a dict, anything) as a result dict."""
    if isinstance(result, dict) and "success" in result:
        return {**result, "success": bool(result["success"])}
    success = getattr(result, "success", None)
    if isinstance(success, bool) and hasattr(result, "output"):
        return {
            "success": success,
            "output": getattr(result, "output", None),
            "error": getattr(result, "error", None),
        }
    return {"success": True, "output": result, "error": None}


def whole_number(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def tool_event_data(
    name: str, tool_input: dict[str, Any], call_id: str, group: str
) -> dict[str, Any]:
    """The data every tool event carries, legacy copies (``tool``, ``input``) included."""
    return {**tool_call_fields(name, tool_input, call_id), "parallel_group_id": group}


def tool_message(call_id: str, name: str, content: str, *, error: bool) -> dict[str, Any]:
    """The ``tool`` message that answers call ``call_id`` in the conversation."""
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "name": name,
        "content": content,
        "is_error": error,
    }
