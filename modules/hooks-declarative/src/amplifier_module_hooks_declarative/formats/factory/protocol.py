"""The Factory Droid hook protocol, so that Droid hook scripts run unchanged.

Droid's hooks are Claude Code's: the same events, stdin fields, exit codes and JSON answers
(:mod:`..shared.claude_protocol`, which this protocol builds on), with Droid's own tool names
and variable:

* **Tools**: ``bash`` is ``Execute``, ``write_file`` is ``Create``, ``edit_file`` is ``Edit``,
  ``read_file`` is ``Read``, with Claude Code's ``tool_input`` keys (``command``;
  ``file_path``, ``content``, ``old_string``, ``new_string``); other tools keep their names.
  A matcher sees each under Droid's name and the Claude Code name its older docs used
  (``Execute`` and ``Bash``, ``Create`` and ``Write``).
* **Environment**: ``FACTORY_PROJECT_DIR``, the project directory; no ``CLAUDE_*`` variable.

Every difference from Claude Code is listed in ``docs/hook-formats.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...protocols import CommandProtocol
from ...types import Decision, HookContext
from ..shared.claude_protocol import claude_blocked, claude_decision, claude_input

__all__ = [
    "FACTORY_MATCH_NAMES",
    "FACTORY_TOOLS",
    "PROTOCOL",
    "factory_decision",
    "factory_environment",
    "factory_input",
]

#: Our tool name -> Droid's.
FACTORY_TOOLS: Final[Mapping[str, str]] = {
    "bash": "Execute",
    "write_file": "Create",
    "edit_file": "Edit",
    "read_file": "Read",
}

#: Our tool name -> every name a Droid matcher sees it under (its own first).
FACTORY_MATCH_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "bash": ("Execute", "Bash"),
    "write_file": ("Create", "Write"),
    "edit_file": ("Edit", "MultiEdit"),
    "read_file": ("Read",),
}


def factory_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Claude Code's stdin object with Droid's tool name."""
    payload = claude_input(ctx, project_dir)
    if "tool_name" in payload and ctx.tool is not None:
        payload["tool_name"] = FACTORY_TOOLS.get(ctx.tool, ctx.tool)
    return payload


def factory_environment(ctx: HookContext, project_dir: str) -> dict[str, str]:
    """``FACTORY_PROJECT_DIR``: the project directory."""
    return {"FACTORY_PROJECT_DIR": project_dir}


def factory_decision(
    ctx: HookContext, stdout: str, *, label: str, project_dir: str, truncated: bool = False
) -> Decision | str:
    """The decision in a Droid hook's stdout (exit code 0), read as Claude Code's."""
    return claude_decision(ctx, stdout, label=label, project_dir=project_dir, truncated=truncated)


PROTOCOL: Final = CommandProtocol(
    name="factory",
    stdin=factory_input,
    blocked=lambda ctx, stderr, label: claude_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: factory_decision(
        ctx, stdout, label=label, project_dir=project_dir, truncated=truncated
    ),
    environment=factory_environment,
)
"""The ``factory`` protocol of command hooks."""
