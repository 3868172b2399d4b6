"""Claude Code session transcripts, as the JSON-lines files ``amplifier-hooks replay`` reads:
one entry a line, each naming the one before it."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["bash_use", "tool_result", "transcript_entry"]


def transcript_entry(
    kind: str, content: Any, number: int, *, session_id: str, cwd: str = "/home/dev/project"
) -> str:
    """Entry ``number`` (``u<number>``, after ``u<number - 1>``; the first has no parent) of a
    ``kind`` message (``user`` or ``assistant``) holding ``content``, one second after the
    one before it, as a transcript line."""
    return json.dumps(
        {
            "type": kind,
            "uuid": f"u{number}",
            "parentUuid": f"u{number - 1}" if number else None,
            "sessionId": session_id,
            "timestamp": f"2026-01-31T12:00:0{number}.000Z",
            "cwd": cwd,
            "message": {"role": kind, "content": content},
        }
    )


def bash_use(call: str, command: str) -> dict[str, Any]:
    """An assistant's ``tool_use`` block: ``Bash`` running ``command``, with the id ``call``."""
    return {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}


def tool_result(call: str, text: str, *, is_error: bool = False) -> dict[str, Any]:
    """A user's ``tool_result`` block answering the tool use ``call`` with ``text``."""
    return {"type": "tool_result", "tool_use_id": call, "content": text, "is_error": is_error}
