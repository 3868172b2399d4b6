"""Claude Code's ``InstructionsLoaded``: a memory file (``AGENTS.md``, ``CLAUDE.md`` ...) was
read into the conversation.

Its moment here is ``context:include`` with ``source: "instructions"``, which loop-session
fires for each memory file it adds before the session's first request (``@file`` mentions
fire ``context:include`` too, with ``source: "mention"``: not this event). Claude Code's stdin
fields: ``file_path``; ``memory_type`` (``Project`` for a file inside the project directory,
``Local`` for a ``CLAUDE.local.md`` there, ``User`` elsewhere); ``load_reason``
(``session_start``, the only reason this runtime has, unless the event data names one). A
matcher is matched against ``load_reason``, as in Claude Code. Claude Code gives the event no
decision control; here too an answer only adds context or a message.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "INSTRUCTIONS_EVENT",
    "instructions_fields",
    "is_instructions",
    "load_reason",
]

INSTRUCTIONS_EVENT: Final = "context:include"
_SOURCE: Final = "instructions"


def is_instructions(data: Mapping[str, Any]) -> bool:
    """Whether a ``context:include`` event is about a memory file."""
    return data.get("source") == _SOURCE


def load_reason(data: Mapping[str, Any]) -> str:
    """Claude Code's ``load_reason``: the data's own, else ``session_start``."""
    reason = data.get("load_reason")
    return reason if isinstance(reason, str) and reason else "session_start"


def _memory_type(path: str, project_dir: str) -> str:
    inside = os.path.commonpath([os.path.abspath(path), os.path.abspath(project_dir)])
    if inside != os.path.abspath(project_dir):
        return "User"
    return "Local" if os.path.basename(path) == "CLAUDE.local.md" else "Project"


def instructions_fields(data: Mapping[str, Any], project_dir: str) -> dict[str, Any]:
    """The stdin fields Claude Code gives ``InstructionsLoaded`` hooks."""
    path = data.get("path")
    file_path = path if isinstance(path, str) else ""
    return {
        "file_path": file_path,
        "memory_type": _memory_type(file_path, project_dir) if file_path else "Project",
        "load_reason": load_reason(data),
    }
