"""The Cursor hook protocol, so that hook scripts written for Cursor's ``hooks.json`` run
unchanged.

A ``protocol: cursor`` command hook gets Cursor's stdin object and its stdout is read the way
Cursor reads it (cursor.com/docs/agent/hooks). This module only translates;
:mod:`...runners.command` runs the process, :mod:`.reader` reads ``hooks.json``. The
field-by-field comparison is in ``docs/hook-formats.md``.

**Events**: the Cursor event a hook was declared under travels as the step's alias with its
first letter capitalised (``BeforeShellExecution``); ``hook_event_name`` is Cursor's name.

========================  =====================  ===================  ======================
Cursor event              canonical event        for tools            extra stdin fields
========================  =====================  ===================  ======================
``beforeShellExecution``  ``tool:pre``           ``bash``             command, cwd
``afterShellExecution``   ``tool:post``          ``bash``             command, output, duration
``beforeMCPExecution``    ``tool:pre``           ``mcp__*``           tool_name, tool_input
``afterMCPExecution``     ``tool:post``          ``mcp__*``           ... result_json, duration
``beforeReadFile``        ``tool:pre``           ``read_file``        file_path, content
``afterFileEdit``         ``tool:post``          write/edit_file      file_path, edits
``preToolUse``            ``tool:pre``           every tool           tool_name, tool_input
``postToolUse``           ``tool:post``          every tool           ... tool_output
``postToolUseFailure``    ``tool:error``         every tool           ... error_message
``beforeSubmitPrompt``    ``prompt:submit``                           prompt, attachments
``stop``                  ``prompt:complete``                         status, loop_count
``afterAgentResponse``    ``prompt:complete``                         text
``sessionStart``          ``session:start/resume``                    session_id
``sessionEnd``            ``session:end``                             session_id, reason
``preCompact``            ``context:pre_compact``                     trigger, context_tokens...
========================  =====================  ===================  ======================

Every object has Cursor's common fields: ``conversation_id`` (the session id),
``generation_id`` (session id and turn), ``hook_event_name``, ``workspace_roots`` (the project
directory), ``cursor_version`` (the module's ``cursor_version`` key, default
:data:`~...tool_identity.DEFAULT_CURSOR_VERSION`), ``model`` (the event's model, else
``default``), ``user_email`` (``null``: no Cursor account here) and ``transcript_path`` (the
event's, else ``null``, as Cursor sends with transcripts off).

**Environment** (Cursor's, and no other tool's: :mod:`...tool_identity`): ``CURSOR_PROJECT_DIR``,
``CURSOR_VERSION``, ``CURSOR_TRANSCRIPT_PATH`` when there is a transcript, and
``CLAUDE_PROJECT_DIR``, which Cursor sets as an alias "for Claude compatibility".
``preToolUse`` tool names are Cursor's: ``bash`` = ``Shell``, ``read_file`` = ``Read``,
``write_file`` / ``edit_file`` = ``Write``, ``grep`` = ``Grep``, ``task`` = ``Task``; MCP
tools (our ``mcp__<server>__<tool>``) are ``MCP:<tool>``; others keep their name.

**Exit codes**: 0 reads stdout; 2 blocks the action as ``permission: deny`` does (stderr is
the reason), on ``before*`` and ``preToolUse`` events, and is shown as a warning elsewhere.
Any other exit code is a hook failure (``on_failure``: ``warn``, or ``block`` for a hook with
``failClosed: true``), as in Cursor, which lets the action proceed.

**stdout on exit 0**: a JSON object: ``permission`` ``allow`` | ``deny`` | ``ask`` with
``user_message`` (shown to the user; the approval prompt for ``ask``) and ``agent_message``
(the reason the agent reads), ``updated_input`` on ``preToolUse``; ``continue: false`` on
``beforeSubmitPrompt`` (with ``user_message``); ``followup_message`` on ``stop`` (the agent
goes on working with it as its next instruction: a ``keep_working`` block);
``additional_context`` on ``sessionStart`` and
``postToolUse``. Other fields are ignored; text that is not a JSON object is a hook failure,
except on the events whose output Cursor does not read (:data:`SILENT_EVENTS`: ``after*``
events, ``postToolUseFailure``, ``sessionEnd``), where any stdout is a silent success, as in
Cursor.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ...answers import (
    BadAnswer,
    DuplicateKeyError,
    answer_field,
    default_reason,
    loads_unique,
    refusal,
)
from ...protocols import CommandProtocol
from ...tool_identity import DEFAULT_CURSOR_VERSION
from ...types import Action, Decision, HookContext

__all__ = [
    "CURSOR_EVENTS",
    "CURSOR_TOOLS",
    "MCP_PREFIX",
    "PROTOCOL",
    "SILENT_EVENTS",
    "configure",
    "cursor_blocked",
    "cursor_decision",
    "cursor_environment",
    "cursor_event",
    "cursor_input",
]

logger = logging.getLogger(__name__)

MCP_PREFIX: Final = "mcp__"
"""Our MCP tools are named ``mcp__<server>__<tool>`` (Claude Code's naming)."""

#: Cursor event -> (canonical events, the tool matcher its hooks get, or ``None``); an event
#: mapped to no canonical event has no counterpart here.
CURSOR_EVENTS: Final[Mapping[str, tuple[tuple[str, ...], str | None]]] = {
    "beforeShellExecution": (("tool:pre",), "bash"),
    "afterShellExecution": (("tool:post",), "bash"),
    "beforeMCPExecution": (("tool:pre",), "^mcp__"),
    "afterMCPExecution": (("tool:post",), "^mcp__"),
    "beforeReadFile": (("tool:pre",), "read_file"),
    "afterFileEdit": (("tool:post",), "write_file|edit_file"),
    "preToolUse": (("tool:pre",), None),
    "postToolUse": (("tool:post",), None),
    "postToolUseFailure": (("tool:error",), None),
    "beforeSubmitPrompt": (("prompt:submit",), None),
    "stop": (("prompt:complete",), None),
    "afterAgentResponse": (("prompt:complete",), None),
    "sessionStart": (("session:start", "session:resume"), None),
    "sessionEnd": (("session:end",), None),
    "preCompact": (("context:pre_compact",), None),
    "afterAgentThought": ((), None),
    "subagentStart": ((), None),
    "subagentStop": ((), None),
    "beforeTabFileRead": ((), None),
    "afterTabFileEdit": ((), None),
}

#: Our tool name -> the name Cursor's ``preToolUse`` hooks see.
CURSOR_TOOLS: Final[Mapping[str, str]] = {
    "bash": "Shell",
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Write",
    "grep": "Grep",
    "task": "Task",
}

_PERMISSION_EVENTS: Final = frozenset(
    {"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "preToolUse"}
)
_BLOCKS: Final = _PERMISSION_EVENTS | {"beforeSubmitPrompt"}
_PERMISSIONS: Final = frozenset({"allow", "deny", "ask"})

SILENT_EVENTS: Final = frozenset(
    {
        "afterShellExecution",
        "afterMCPExecution",
        "afterFileEdit",
        "afterAgentResponse",
        "afterAgentThought",
        "afterTabFileEdit",
        "postToolUseFailure",
        "sessionEnd",
    }
)
"""Events whose hook output Cursor does not read (fire-and-forget): whatever such a hook
prints on exit 0 is a success."""
_READ_CAP: Final = 1_000_000


def cursor_event(ctx: HookContext) -> str:
    """The Cursor ``hook_event_name`` for ``ctx`` (from its step's alias)."""
    if ctx.alias in CURSOR_EVENTS:
        return ctx.alias
    for name, (events, _) in CURSOR_EVENTS.items():
        if ctx.event in events:
            return name
    return ctx.alias or ctx.event


def cursor_tool(tool: str) -> str:
    """Our tool's name as ``preToolUse`` hooks see it."""
    if tool.startswith(MCP_PREFIX):
        return "MCP:" + tool.rsplit("__", 1)[-1]
    return CURSOR_TOOLS.get(tool, tool)


def _absolute(path: object, project_dir: str) -> str:
    text = str(path or "")
    return (
        text
        if not text or os.path.isabs(text)
        else os.path.normpath(os.path.join(project_dir, text))
    )


def _output(result: object) -> str:
    output = result.get("output") if isinstance(result, Mapping) else result
    if isinstance(output, Mapping) and "stdout" in output:
        return str(output.get("stdout") or "") + str(output.get("stderr") or "")
    return output if isinstance(output, str) else json.dumps(output, default=str)


def _file_content(path: str) -> str:
    """The first :data:`_READ_CAP` bytes of a regular file; ``""`` for anything else (a FIFO or
    a device would block the session before the hook's timeout starts)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(descriptor, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return ""
            return handle.read(_READ_CAP).decode("utf-8", "replace")
        except OSError:
            return ""


def _transcript(data: Mapping[str, Any]) -> str | None:
    path = data.get("transcript_path")
    return path if isinstance(path, str) and path else None


def _compaction(data: Mapping[str, Any]) -> dict[str, Any]:
    """``preCompact``'s fields from ``context:pre_compact``'s ``message_count``, ``tokens`` and
    ``budget``; every message may be compacted."""
    count, tokens, budget = (data.get(k) for k in ("message_count", "tokens", "budget"))
    count = count if isinstance(count, int) else 0
    tokens = tokens if isinstance(tokens, int) else 0
    budget = budget if isinstance(budget, int) and budget > 0 else 0
    return {
        "trigger": "auto",
        "context_usage_percent": round(100 * tokens / budget) if budget else 0,
        "context_tokens": tokens,
        "context_window_size": budget,
        "message_count": count,
        "messages_to_compact": count,
        "is_first_compaction": bool(data.get("is_first_compaction", False)),
    }


def cursor_input(
    ctx: HookContext, project_dir: str, *, version: str = DEFAULT_CURSOR_VERSION
) -> dict[str, Any]:
    """Cursor's stdin object for ``ctx`` (fields in the module docstring); ``version`` is the
    ``cursor_version`` it reports."""
    name = cursor_event(ctx)
    data = ctx.data
    turn = data.get("turn")
    model = data.get("model")
    payload: dict[str, Any] = {
        "conversation_id": ctx.session_id,
        "generation_id": f"{ctx.session_id}:{turn}" if turn is not None else ctx.session_id,
        "model": model if isinstance(model, str) and model else "default",
        "hook_event_name": name,
        "cursor_version": version,
        "workspace_roots": [project_dir],
        "user_email": None,
        "transcript_path": _transcript(data),
    }
    args = ctx.args
    if name in ("beforeShellExecution", "afterShellExecution"):
        payload["command"] = args.get("command", "")
        payload["cwd"] = project_dir
        if name == "afterShellExecution":
            payload["output"] = _output(data.get("tool_result"))
            payload["duration"] = 0
    elif name in ("beforeMCPExecution", "afterMCPExecution"):
        tool = ctx.tool or ""
        payload["tool_name"] = tool.rsplit("__", 1)[-1]
        payload["server"] = tool[len(MCP_PREFIX) :].split("__", 1)[0]
        payload["tool_input"] = json.dumps(args, default=str)
        if name == "afterMCPExecution":
            payload["result_json"] = json.dumps(data.get("tool_result"), default=str)
            payload["duration"] = 0
    elif name == "beforeReadFile":
        path = _absolute(args.get("file_path") or args.get("path"), project_dir)
        payload["file_path"] = path
        payload["content"] = _file_content(path)
        payload["attachments"] = []
    elif name == "afterFileEdit":
        payload["file_path"] = _absolute(args.get("file_path") or args.get("path"), project_dir)
        if ctx.tool == "write_file":
            edits = [{"old_string": "", "new_string": args.get("content", "")}]
        else:
            edits = [
                {"old_string": args.get("old_string", ""), "new_string": args.get("new_string", "")}
            ]
        payload["edits"] = edits
    elif name in ("preToolUse", "postToolUse", "postToolUseFailure"):
        payload["tool_name"] = cursor_tool(ctx.tool or "")
        payload["tool_input"] = dict(args)
        payload["tool_use_id"] = data.get("tool_call_id")
        payload["cwd"] = project_dir
        if name == "postToolUse":
            payload["tool_output"] = _output(data.get("tool_result"))
            payload["duration"] = 0
        elif name == "postToolUseFailure":
            error = data.get("error")
            payload["error_message"] = (
                error.get("message", "") if isinstance(error, Mapping) else str(error)
            )
            payload["failure_type"] = "error"
            payload["duration"] = 0
            payload["is_interrupt"] = False
    elif name == "beforeSubmitPrompt":
        payload["prompt"] = data.get("prompt", "")
        payload["attachments"] = []
    elif name == "stop":
        payload["status"] = "completed"
        payload["loop_count"] = 0
    elif name == "afterAgentResponse":
        payload["text"] = data.get("response", "")
    elif name in ("sessionStart", "sessionEnd"):
        payload["session_id"] = ctx.session_id
        payload["is_background_agent"] = False
        payload["composer_mode"] = "agent"
        if name == "sessionEnd":
            status = data.get("status")
            payload["reason"] = {"failed": "error", "cancelled": "aborted"}.get(
                str(status), "completed"
            )
            payload["duration_ms"] = round(float(data.get("duration") or 0) * 1000)
    elif name == "preCompact":
        payload.update(_compaction(data))
    else:
        payload["data"] = data
    return payload


def cursor_environment(
    ctx: HookContext, project_dir: str, *, version: str = DEFAULT_CURSOR_VERSION
) -> dict[str, str]:
    """What Cursor sets for its hooks: ``CURSOR_PROJECT_DIR``, ``CURSOR_VERSION``,
    ``CURSOR_TRANSCRIPT_PATH`` when the event has a transcript, and ``CLAUDE_PROJECT_DIR``
    (Cursor's alias for Claude Code compatibility)."""
    env = {
        "CURSOR_PROJECT_DIR": project_dir,
        "CURSOR_VERSION": version,
        "CLAUDE_PROJECT_DIR": project_dir,
    }
    transcript = _transcript(ctx.data)
    if transcript is not None:
        env["CURSOR_TRANSCRIPT_PATH"] = transcript
    return env


def cursor_blocked(ctx: HookContext, reason: str, *, label: str) -> Decision:
    """Exit code 2: ``permission: deny`` where the event can be blocked, else a warning."""
    text = reason.strip()
    if cursor_event(ctx) in _BLOCKS:
        return refusal(text, label)
    if not text:
        return Decision(source=label)
    return Decision(message=text, level="warning", source=label)


def cursor_decision(ctx: HookContext, stdout: str, *, label: str) -> Decision | str:
    """The decision in a Cursor hook's stdout (exit code 0), or what is wrong with it."""
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    name = cursor_event(ctx)
    try:
        answer = loads_unique(text)
    except DuplicateKeyError as err:
        return f"stdout JSON is ambiguous ({err}): {text[:200]!r}"
    except ValueError as err:
        answer = err
    if not isinstance(answer, dict) and name in SILENT_EVENTS:
        logger.debug("hook %s: %s output is not read (as in Cursor): %r", label, name, text[:200])
        return Decision(source=label)
    if isinstance(answer, ValueError):
        return f"stdout is not JSON ({answer}): {text[:200]!r}"
    if not isinstance(answer, dict):
        return f"stdout is a JSON {type(answer).__name__}, expected an object"
    try:
        user = answer_field(answer, "user_message", str, "a string", "")
        agent = answer_field(answer, "agent_message", str, "a string", "")
        permission = answer_field(answer, "permission", str, "a string", "")
        context = answer_field(answer, "additional_context", str, "a string", "")
        followup = answer_field(answer, "followup_message", str, "a string", "")
        go_on = answer_field(answer, "continue", bool, "true or false", "")
    except BadAnswer as err:
        return f"stdout JSON: {err}"
    if permission is not None and permission not in _PERMISSIONS:
        return f"stdout JSON: permission is {permission!r}, expected allow, deny or ask"
    if name not in ("sessionStart", "postToolUse"):
        context = None
    if name == "stop" and followup:  # Cursor submits it as the next user message
        return Decision(
            action="block", message=followup, context=followup, source=label, keep_working=True
        )
    if name in _PERMISSION_EVENTS and permission == "deny":
        return Decision(
            action="block",
            message=agent or user or default_reason(label),
            level="warning",
            source=label,
        )
    if name == "beforeSubmitPrompt" and go_on is False:
        return Decision(
            action="block",
            message=user or default_reason(label),
            level="warning",
            source=label,
        )
    updated = answer.get("updated_input")
    modified = updated if name == "preToolUse" and isinstance(updated, dict) and updated else None
    if name in _PERMISSION_EVENTS and permission == "ask":
        return Decision(
            action="ask",
            message=user or agent or f"Allow {cursor_tool(ctx.tool or '')}? (hook {label})",
            modified_args=modified,
            source=label,
        )
    if name in _PERMISSION_EVENTS and agent:
        context = agent
    action: Action = "modify" if modified else "allow" if permission == "allow" else "continue"
    return Decision(
        action=action,
        message=user if name in _BLOCKS or name == "sessionStart" else None,
        modified_args=modified,
        context=context,
        source=label,
    )


def user_hooks_dir() -> Path:
    """Where Cursor runs the commands of ``~/.cursor/hooks.json``: ``~/.cursor``."""
    return Path.home() / ".cursor"


def configure(options: Mapping[str, Any]) -> CommandProtocol:
    """The ``cursor`` protocol reporting ``options["cursor_version"]`` (default
    :data:`~...tool_identity.DEFAULT_CURSOR_VERSION`) as Cursor's version."""
    version = options.get("cursor_version") or DEFAULT_CURSOR_VERSION
    if version == DEFAULT_CURSOR_VERSION:
        return PROTOCOL
    return dataclasses.replace(
        PROTOCOL,
        stdin=functools.partial(cursor_input, version=str(version)),
        environment=functools.partial(cursor_environment, version=str(version)),
    )


PROTOCOL: Final = CommandProtocol(
    name="cursor",
    stdin=cursor_input,
    blocked=lambda ctx, stderr, label: cursor_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: cursor_decision(
        ctx, stdout, label=label
    ),
    environment=cursor_environment,
    configure=configure,
)
"""The ``cursor`` protocol of command hooks."""
