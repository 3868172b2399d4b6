"""What a tool call is about: its command (scanned for shell operators) and the file it touches.

The ``tool:pre`` data carries ``tool_name`` and ``tool_input`` (older kernels: ``tool`` and
``input``). The command is ``tool_input["command"]``: a string, or a list of strings (an argv,
as some runtimes' shell tools take it), judged as the shell-quoted command line it amounts to
(``["bash", "-lc", "ls; rm x"]`` is ``bash -lc 'ls; rm x'``). The file is ``file_path`` (the
write and edit tools), else ``path`` or ``notebook_path``.

Tool names are compared case-insensitively (Unicode case folding, surrounding blanks ignored)
and through the names other runtimes give the same tools (:data:`TOOL_ALIASES`: Claude Code's
``Bash``, Gemini CLI's ``run_shell_command``, Cline's ``execute_command``, Cursor's
``run_terminal_cmd``, Codex's ``shell`` and ``exec`` ...), so a shell tool mounted under another
name is still the shell to every rule. The mapping lives here only: rules, the ``tools``
setting and the hook all compare names through :func:`canonical_tool`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .invocation import Invocation, invocations
from .patterns import Target, resolve_target
from .shell import ShellScan, scan_command

__all__ = [
    "COMMAND_KEYS",
    "PATH_KEYS",
    "TOOL_ALIASES",
    "Subject",
    "canonical_tool",
    "command_of",
    "input_of",
    "subject_of",
    "tool_of",
]

COMMAND_KEYS: Final = ("command",)
PATH_KEYS: Final = ("file_path", "path", "notebook_path")

TOOL_ALIASES: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "shell",
            "sh",
            "run_shell_command",
            "execute_command",
            "execute_bash",
            "run_command",
            "shell_command",
            "terminal",
            "run_terminal_cmd",
            "run_in_terminal",
            "local_shell",
            "exec",
        ),
        "bash",
    ),
    **dict.fromkeys(("write", "create_file", "write_to_file", "writefile"), "write_file"),
    **dict.fromkeys(
        ("edit", "multiedit", "multi_edit", "replace", "replace_in_file", "str_replace_editor"),
        "edit_file",
    ),
    **dict.fromkeys(("read", "view", "view_file"), "read_file"),
}
"""Other runtimes' names for the shell and file tools (lower case) -> the name rules use."""


def canonical_tool(name: str) -> str:
    """``name`` as rules compare it: lower case, an alias replaced (``Bash`` -> ``bash``,
    ``run_shell_command`` -> ``bash``, ``Write`` -> ``write_file``)."""
    folded = name.strip().casefold()
    return TOOL_ALIASES.get(folded, folded)


@dataclass(frozen=True, slots=True)
class Subject:
    """One tool call as the rules see it."""

    tool: str
    tool_input: Mapping[str, Any]
    command: str | None
    scan: ShellScan | None
    target: Target | None
    workspace: str = ""
    runs: tuple[Invocation, ...] = ()


def tool_of(data: Mapping[str, Any]) -> str:
    """The tool name of an event's data (``tool_name``, else the older ``tool``), as rules
    compare it (:func:`canonical_tool`)."""
    tool = data.get("tool_name") or data.get("tool")
    return canonical_tool(tool) if isinstance(tool, str) else ""


def input_of(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The tool input of an event's data (``tool_input``, else ``input``); ``{}`` if absent."""
    value = data.get("tool_input")
    if not isinstance(value, Mapping):
        value = data.get("input")
    return value if isinstance(value, Mapping) else {}


def command_of(tool_input: Mapping[str, Any]) -> str | None:
    """The command of a tool input: a string as given, a list of strings shell-quoted and
    joined (what running that argv amounts to); ``None`` for anything else."""
    for key in COMMAND_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, Sequence) and value and all(isinstance(item, str) for item in value):
            return shlex.join(value)
    return None


def subject_of(data: Mapping[str, Any], workspace: str) -> Subject:
    """The :class:`Subject` of a ``tool:pre`` event's data."""
    tool_input = input_of(data)
    command = command_of(tool_input)
    path = next((v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str) and v), None)
    return Subject(
        tool=tool_of(data),
        tool_input=tool_input,
        command=command,
        scan=None if command is None else scan_command(command),
        target=None if path is None else resolve_target(path, workspace),
        workspace=workspace,
        runs=() if command is None else invocations(command),
    )
