"""What a tool call is about: its command (scanned for shell operators) and the file it touches.

The ``tool:pre`` data carries ``tool_name`` and ``tool_input`` (older kernels: ``tool`` and
``input``). The command is ``tool_input["command"]``; the file is ``file_path`` (the write and
edit tools), else ``path`` or ``notebook_path``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .patterns import Target, resolve_target
from .shell import ShellScan, scan_command

__all__ = ["COMMAND_KEYS", "PATH_KEYS", "Subject", "input_of", "subject_of", "tool_of"]

COMMAND_KEYS: Final = ("command",)
PATH_KEYS: Final = ("file_path", "path", "notebook_path")


@dataclass(frozen=True, slots=True)
class Subject:
    """One tool call as the rules see it."""

    tool: str
    tool_input: Mapping[str, Any]
    command: str | None
    scan: ShellScan | None
    target: Target | None


def tool_of(data: Mapping[str, Any]) -> str:
    """The tool name of an event's data (``tool_name``, else the older ``tool``)."""
    tool = data.get("tool_name") or data.get("tool")
    return tool if isinstance(tool, str) else ""


def input_of(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The tool input of an event's data (``tool_input``, else ``input``); ``{}`` if absent."""
    value = data.get("tool_input")
    if not isinstance(value, Mapping):
        value = data.get("input")
    return value if isinstance(value, Mapping) else {}


def subject_of(data: Mapping[str, Any], workspace: str) -> Subject:
    """The :class:`Subject` of a ``tool:pre`` event's data."""
    tool_input = input_of(data)
    command = next((v for k in COMMAND_KEYS if isinstance(v := tool_input.get(k), str)), None)
    path = next((v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str) and v), None)
    return Subject(
        tool=tool_of(data),
        tool_input=tool_input,
        command=command,
        scan=None if command is None else scan_command(command),
        target=None if path is None else resolve_target(path, workspace),
    )
