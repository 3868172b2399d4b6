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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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


Fields = dict[str, Any]


def _shell_fields(ctx: HookContext, name: str, project_dir: str) -> Fields:
    fields: Fields = {"command": ctx.args.get("command", ""), "cwd": project_dir}
    if name == "afterShellExecution":
        fields |= {"output": _output(ctx.data.get("tool_result")), "duration": 0}
    return fields


def _mcp_fields(ctx: HookContext, name: str, project_dir: str) -> Fields:
    tool = ctx.tool or ""
    fields: Fields = {
        "tool_name": tool.rsplit("__", 1)[-1],
        "server": tool[len(MCP_PREFIX) :].split("__", 1)[0],
        "tool_input": json.dumps(ctx.args, default=str),
    }
    if name == "afterMCPExecution":
        result = json.dumps(ctx.data.get("tool_result"), default=str)
        fields |= {"result_json": result, "duration": 0}
    return fields


def _read_file_fields(ctx: HookContext, name: str, project_dir: str) -> Fields:
    path = _absolute(ctx.args.get("file_path") or ctx.args.get("path"), project_dir)
    return {"file_path": path, "content": _file_content(path), "attachments": []}


def _edit_fields(ctx: HookContext, name: str, project_dir: str) -> Fields:
    args = ctx.args
    if ctx.tool == "write_file":
        edit = {"old_string": "", "new_string": args.get("content", "")}
    else:
        edit = {"old_string": args.get("old_string", ""), "new_string": args.get("new_string", "")}
    path = _absolute(args.get("file_path") or args.get("path"), project_dir)
    return {"file_path": path, "edits": [edit]}


def _tool_fields(ctx: HookContext, name: str, project_dir: str) -> Fields:
    data = ctx.data
    fields: Fields = {
        "tool_name": cursor_tool(ctx.tool or ""),
        "tool_input": dict(ctx.args),
        "tool_use_id": data.get("tool_call_id"),
        "cwd": project_dir,
    }
    if name == "postToolUse":
        fields |= {"tool_output": _output(data.get("tool_result")), "duration": 0}
    elif name == "postToolUseFailure":
        error = data.get("error")
        message = error.get("message", "") if isinstance(error, Mapping) else str(error)
        fields |= {
            "error_message": message,
            "failure_type": "error",
            "duration": 0,
            "is_interrupt": False,
        }
    return fields


def _session_fields(ctx: HookContext, name: str, project_dir: str) -> Fields:
    fields: Fields = {
        "session_id": ctx.session_id,
        "is_background_agent": False,
        "composer_mode": "agent",
    }
    if name == "sessionEnd":
        status = str(ctx.data.get("status"))
        fields["reason"] = {"failed": "error", "cancelled": "aborted"}.get(status, "completed")
        fields["duration_ms"] = round(float(ctx.data.get("duration") or 0) * 1000)
    return fields


_EVENT_FIELDS: Final[dict[str, Callable[[HookContext, str, str], Fields]]] = {
    "beforeShellExecution": _shell_fields,
    "afterShellExecution": _shell_fields,
    "beforeMCPExecution": _mcp_fields,
    "afterMCPExecution": _mcp_fields,
    "beforeReadFile": _read_file_fields,
    "afterFileEdit": _edit_fields,
    "preToolUse": _tool_fields,
    "postToolUse": _tool_fields,
    "postToolUseFailure": _tool_fields,
    "beforeSubmitPrompt": lambda ctx, name, project_dir: {
        "prompt": ctx.data.get("prompt", ""),
        "attachments": [],
    },
    "stop": lambda ctx, name, project_dir: {"status": "completed", "loop_count": 0},
    "afterAgentResponse": lambda ctx, name, project_dir: {"text": ctx.data.get("response", "")},
    "sessionStart": _session_fields,
    "sessionEnd": _session_fields,
    "preCompact": lambda ctx, name, project_dir: _compaction(ctx.data),
}
"""The fields of each Cursor event beside the common ones: ``fields(ctx, name, project_dir)``;
an event not listed gets the event's data as ``data``."""


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
    fields = _EVENT_FIELDS.get(name)
    payload.update(fields(ctx, name, project_dir) if fields is not None else {"data": data})
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


@dataclass(frozen=True, slots=True)
class _Answer:
    """A Cursor hook's stdout object, every field checked."""

    user: str | None
    agent: str | None
    permission: str | None
    context: str | None
    followup: str | None
    go_on: bool | None
    updated: object


def _answer_object(text: str, name: str, label: str) -> dict[str, Any] | Decision | str:
    """The JSON object in ``text``; a decision to let the event be when Cursor does not read
    the event's output; or what is wrong with it."""
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
    return answer


def _read_answer(answer: dict[str, Any]) -> _Answer | str:
    """The fields of ``answer``, or what is wrong with one."""
    try:
        read = _Answer(
            user=answer_field(answer, "user_message", str, "a string", ""),
            agent=answer_field(answer, "agent_message", str, "a string", ""),
            permission=answer_field(answer, "permission", str, "a string", ""),
            context=answer_field(answer, "additional_context", str, "a string", ""),
            followup=answer_field(answer, "followup_message", str, "a string", ""),
            go_on=answer_field(answer, "continue", bool, "true or false", ""),
            updated=answer.get("updated_input"),
        )
    except BadAnswer as err:
        return f"stdout JSON: {err}"
    if read.permission is not None and read.permission not in _PERMISSIONS:
        return f"stdout JSON: permission is {read.permission!r}, expected allow, deny or ask"
    return read


def _blocking(name: str, read: _Answer, label: str) -> Decision | None:
    """The block the answer asks for on ``name``, if any: a stop's follow-up, a denied
    permission, a prompt not to submit."""
    if name == "stop" and read.followup:  # Cursor submits it as the next user message
        message = read.followup
        return Decision("block", message, context=message, source=label, keep_working=True)
    if name in _PERMISSION_EVENTS and read.permission == "deny":
        message = read.agent or read.user or default_reason(label)
        return Decision("block", message, "warning", source=label)
    if name == "beforeSubmitPrompt" and read.go_on is False:
        return Decision("block", read.user or default_reason(label), "warning", source=label)
    return None


def _decided(ctx: HookContext, name: str, read: _Answer, label: str) -> Decision:
    """What an answer that blocks nothing decides: ask, change the input, allow or go on."""
    updated = read.updated
    modified = updated if name == "preToolUse" and isinstance(updated, dict) and updated else None
    if name in _PERMISSION_EVENTS and read.permission == "ask":
        return Decision(
            action="ask",
            message=read.user
            or read.agent
            or f"Allow {cursor_tool(ctx.tool or '')}? (hook {label})",
            modified_args=modified,
            source=label,
        )
    context = read.context if name in ("sessionStart", "postToolUse") else None
    if name in _PERMISSION_EVENTS and read.agent:
        context = read.agent
    action: Action = "modify" if modified else "allow" if read.permission == "allow" else "continue"
    return Decision(
        action=action,
        message=read.user if name in _BLOCKS or name == "sessionStart" else None,
        modified_args=modified,
        context=context,
        source=label,
    )


def cursor_decision(ctx: HookContext, stdout: str, *, label: str) -> Decision | str:
    """The decision in a Cursor hook's stdout (exit code 0), or what is wrong with it."""
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    name = cursor_event(ctx)
    answer = _answer_object(text, name, label)
    if not isinstance(answer, dict):
        return answer
    read = _read_answer(answer)
    if isinstance(read, str):
        return read
    return _blocking(name, read, label) or _decided(ctx, name, read, label)


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
