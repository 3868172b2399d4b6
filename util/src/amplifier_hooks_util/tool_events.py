"""What every tool event (``tool:pre``, ``tool:post``, ``tool:error``) says of its call, as the
orchestrators of the ecosystem emit it: the tool's name, input and call id under their names
and their legacy copies (``tool``, ``input``), which hooks written for older kernels read."""

from __future__ import annotations

from typing import Any

__all__ = ["tool_call_fields"]


def tool_call_fields(name: str, tool_input: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The fields of a tool event that name the call, legacy copies included, in the order
    the orchestrators write them."""
    return {
        "tool_name": name,
        "tool": name,
        "tool_input": tool_input,
        "input": tool_input,
        "tool_call_id": call_id,
    }
