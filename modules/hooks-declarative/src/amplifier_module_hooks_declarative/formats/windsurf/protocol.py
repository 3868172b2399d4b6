"""The Windsurf (Cascade) hook protocol, so that hook scripts written for Windsurf's
``hooks.json`` run unchanged.

A ``protocol: windsurf`` command hook gets Cascade's stdin object, and its exit code is read
the way Cascade reads it (docs.windsurf.com/windsurf/cascade/hooks). This module only
translates; :mod:`...runners.command` runs the process, :mod:`.reader` reads ``hooks.json``.
The field-by-field comparison is in ``docs/hook-formats.md``, section Windsurf.

**Events**: the Cascade event a hook was declared under travels as the step's alias
(``agent_action_name`` is that name).

=========================================  ===================  =================  ==========
Cascade event                              canonical event      for tools          blocks
=========================================  ===================  =================  ==========
``pre_read_code``                          ``tool:pre``         ``read_file``      exit 2
``post_read_code``                         ``tool:post``        ``read_file``
``pre_write_code``                         ``tool:pre``         write/edit_file    exit 2
``post_write_code``                        ``tool:post``        write/edit_file
``pre_run_command``                        ``tool:pre``         ``bash``           exit 2
``post_run_command``                       ``tool:post``        ``bash``
``pre_mcp_tool_use``                       ``tool:pre``         ``mcp__*``         exit 2
``post_mcp_tool_use``                      ``tool:post``        ``mcp__*``
``pre_user_prompt``                        ``prompt:submit``                       exit 2
``post_cascade_response``                  ``prompt:complete``
``post_cascade_response_with_transcript``  ``prompt:complete``
``post_setup_worktree``                    none (no worktrees are set up here)
=========================================  ===================  =================  ==========

Every object: ``agent_action_name``, ``trajectory_id`` (the session id), ``execution_id``
(the tool call's id, else the session id and turn), ``timestamp`` (ISO 8601), ``model_name``
when the event names a model, and ``tool_info``, the event's own fields (the table in
``docs/hook-formats.md``).

**Environment**: Cascade documents no variable for its hooks, and none is set here beside
``AMPLIFIER_*`` (no other tool's, :mod:`...tool_identity`). Commands run in the workspace
root (the project directory), from whichever file they come.

**Exit codes**: 2 on a ``pre_*`` event blocks the action, stderr (stripped) being what the
agent is told; 2 on a ``post_*`` event blocks nothing (post-hooks never block): its stderr is
shown as a warning. Any other exit code is a hook error: the action proceeds
(``on_failure: warn``). **stdout** decides nothing: Cascade shows it in its panel with
``show_output``; here it is logged at debug level.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from typing import Any, Final

from ...answers import refusal
from ...protocols import CommandProtocol
from ...types import Decision, HookContext

__all__ = [
    "BLOCKING_EVENTS",
    "MCP_PREFIX",
    "PROTOCOL",
    "WINDSURF_EVENTS",
    "windsurf_blocked",
    "windsurf_decision",
    "windsurf_event",
    "windsurf_input",
]

logger = logging.getLogger(__name__)

MCP_PREFIX: Final = "mcp__"
"""Our MCP tools are named ``mcp__<server>__<tool>``."""

WINDSURF_EVENTS: Final[Mapping[str, tuple[tuple[str, ...], str | None]]] = {
    "pre_read_code": (("tool:pre",), "read_file"),
    "post_read_code": (("tool:post",), "read_file"),
    "pre_write_code": (("tool:pre",), "write_file|edit_file"),
    "post_write_code": (("tool:post",), "write_file|edit_file"),
    "pre_run_command": (("tool:pre",), "bash"),
    "post_run_command": (("tool:post",), "bash"),
    "pre_mcp_tool_use": (("tool:pre",), "^mcp__"),
    "post_mcp_tool_use": (("tool:post",), "^mcp__"),
    "pre_user_prompt": (("prompt:submit",), None),
    "post_cascade_response": (("prompt:complete",), None),
    "post_cascade_response_with_transcript": (("prompt:complete",), None),
    "post_setup_worktree": ((), None),
}
"""Cascade event -> (canonical events, the tool matcher its hooks get, or ``None``); an event
mapped to no canonical event has no counterpart here."""

BLOCKING_EVENTS: Final = frozenset(name for name in WINDSURF_EVENTS if name.startswith("pre_"))
"""The pre-hooks: exit code 2 blocks their action."""


def windsurf_event(ctx: HookContext) -> str:
    """The Cascade ``agent_action_name`` for ``ctx`` (from its step's alias)."""
    if ctx.alias in WINDSURF_EVENTS:
        return ctx.alias
    for name, (events, matcher) in WINDSURF_EVENTS.items():
        if ctx.event in events and matcher is None:
            return name
    return ctx.alias or ctx.event


def _absolute(path: object, project_dir: str) -> str:
    text = str(path or "")
    if not text or os.path.isabs(text):
        return text
    return os.path.normpath(os.path.join(project_dir, text))


def _result_text(result: object) -> str:
    output = result.get("output") if isinstance(result, Mapping) else result
    if isinstance(output, Mapping) and "stdout" in output:
        return str(output.get("stdout") or "") + str(output.get("stderr") or "")
    if isinstance(output, str):
        return output
    return json.dumps(output, default=str)


def _edits(ctx: HookContext) -> list[dict[str, str]]:
    args = ctx.args
    if ctx.tool == "write_file":
        return [{"old_string": "", "new_string": str(args.get("content", ""))}]
    return [
        {
            "old_string": str(args.get("old_string", "")),
            "new_string": str(args.get("new_string", "")),
        }
    ]


def _tool_info(name: str, ctx: HookContext, project_dir: str) -> dict[str, Any]:
    args, data = ctx.args, ctx.data
    path = _absolute(args.get("file_path") or args.get("path"), project_dir)
    if name in ("pre_read_code", "post_read_code"):
        return {"file_path": path}
    if name in ("pre_write_code", "post_write_code"):
        return {"file_path": path, "edits": _edits(ctx)}
    if name in ("pre_run_command", "post_run_command"):
        info: dict[str, Any] = {"command_line": args.get("command", ""), "cwd": project_dir}
        if name == "post_run_command":
            info["output"] = _result_text(data.get("tool_result"))
        return info
    if name in ("pre_mcp_tool_use", "post_mcp_tool_use"):
        tool = ctx.tool or ""
        server, _, rest = tool[len(MCP_PREFIX) :].partition("__")
        info = {
            "mcp_server_name": server,
            "mcp_tool_name": rest or tool,
            "mcp_tool_arguments": dict(args),
        }
        if name == "post_mcp_tool_use":
            info["mcp_result"] = _result_text(data.get("tool_result"))
        return info
    if name == "pre_user_prompt":
        return {"user_prompt": data.get("prompt", "")}
    if name == "post_cascade_response":
        return {"response": data.get("response", "")}
    if name == "post_cascade_response_with_transcript":
        transcript = data.get("transcript_path")
        return {"transcript_path": transcript if isinstance(transcript, str) else ""}
    return {}


def windsurf_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Cascade's stdin object for ``ctx`` (fields in the module docstring)."""
    name = windsurf_event(ctx)
    data = ctx.data
    call = data.get("tool_call_id")
    turn = data.get("turn")
    execution = call if isinstance(call, str) and call else f"{ctx.session_id}:{turn or 0}"
    payload: dict[str, Any] = {
        "agent_action_name": name,
        "trajectory_id": ctx.session_id,
        "execution_id": execution,
        "timestamp": ctx.timestamp,
    }
    model = data.get("model")
    if isinstance(model, str) and model:
        payload["model_name"] = model
    payload["tool_info"] = _tool_info(name, ctx, project_dir)
    return payload


def windsurf_blocked(ctx: HookContext, stderr: str, *, label: str) -> Decision:
    """Exit code 2: a block on a pre-hook's event, a warning on a post-hook's."""
    text = stderr.strip()
    if windsurf_event(ctx) in BLOCKING_EVENTS:
        return refusal(text, label)
    logger.info("hook %s exited with code 2 on %s: post-hooks never block", label, ctx.alias)
    if not text:
        return Decision(source=label)
    return Decision(message=text, level="warning", source=label)


def windsurf_decision(ctx: HookContext, stdout: str, *, label: str) -> Decision:
    """Exit code 0: the action proceeds; stdout is Cascade's panel text, logged here."""
    if stdout.strip():
        logger.debug("hook %s: output (Cascade shows it, decides nothing): %r", label, stdout)
    return Decision(source=label)


PROTOCOL: Final = CommandProtocol(
    name="windsurf",
    stdin=windsurf_input,
    blocked=lambda ctx, stderr, label: windsurf_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: windsurf_decision(
        ctx, stdout, label=label
    ),
)
"""The ``windsurf`` protocol of command hooks (the module docstring)."""
