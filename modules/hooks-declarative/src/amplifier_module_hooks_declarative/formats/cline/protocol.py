"""The Cline hook protocol, so that the hook executables people keep in ``.clinerules/hooks/``
run unchanged.

A ``protocol: cline`` command hook gets Cline's stdin object and its answer is read the way
Cline reads it (the hooks README of github.com/cline/cline and its ``hook-factory.ts``,
``HookProcess.ts``). This module only translates; :mod:`...runners.command` runs the process,
:mod:`.reader` finds the executables. The comparison field by field is in
``docs/hook-formats.md``, section Cline.

**Events** (the executable's name; it travels as the step's alias):

====================  ==========================  ===================================
Cline hook            canonical event             its answer acts
====================  ==========================  ===================================
``TaskStart``         ``session:start``           ``cancel``, ``contextModification``
``TaskResume``        ``session:resume``          ``cancel``, ``contextModification``
``UserPromptSubmit``  ``prompt:submit``           ``cancel``, ``contextModification``
``PreToolUse``        ``tool:pre``                ``cancel``, ``contextModification``
``PostToolUse``       ``tool:post``, ``tool:error``  ``cancel``, ``contextModification``
``PreCompact``        ``context:pre_compact``     ``cancel``
``TaskComplete``      ``prompt:complete``         nothing (Cline discards it)
``TaskCancel``        ``cancel:requested``        nothing (not cancellable)
``Notification``      ``user:notification``       nothing
====================  ==========================  ===================================

**stdin**: ``clineVersion``, ``hookName``, ``timestamp`` (milliseconds since the epoch, as
text), ``taskId`` (the session id), ``workspaceRoots`` (``[project directory]``), ``userId``
(a stable id of this user on this machine), ``model`` (``{provider, slug}``, ``unknown`` when
the event names none) and the hook's own object (``preToolUse: {toolName, parameters}``, ...),
whose ``parameters`` are Cline's: strings, under Cline's tool names (:data:`CLINE_TOOLS`).

**Answer**: stdout is read whatever the exit code, as Cline reads it: one JSON object
``{cancel, contextModification, errorMessage}``, else the last JSON object in it (debug lines
before or after are skipped). An object with ``shouldContinue`` (Cline's removed field) or a
field of the wrong type is no answer. ``cancel: true`` stops the action and the turn with
``errorMessage`` as the reason (Cline cancels the task); ``contextModification`` (at most
50,000 characters) reaches the agent's next request as Cline words it
(:func:`hook_context_text`): ``<hook_context source="PreToolUse" type="general">...``,
``type`` taken from a leading ``TYPE:`` of its first line. No answer on exit 0 lets the
action go on; no answer on another exit code, a timeout (30 seconds) or a process that did
not start is a failure logged with the hook's name, and the action goes on, as in Cline
(:attr:`~...protocols.CommandProtocol.quiet_failures`). Exit code 2 means nothing more than
another non-zero code.

**Environment**: Cline sets no variable for its hooks; none is set here beside
``AMPLIFIER_*``, and no other tool's (:mod:`...tool_identity`).
"""

from __future__ import annotations

import getpass
import json
import logging
import re
import time
import uuid
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from ...answers import DuplicateKeyError, loads_unique
from ...protocols import CommandProtocol
from ...types import Decision, HookContext

__all__ = [
    "CLINE_EVENTS",
    "CLINE_TOOLS",
    "CLINE_VERSION",
    "CONTEXT_LIMIT",
    "PROTOCOL",
    "cline_answer",
    "cline_decision",
    "cline_event",
    "cline_input",
    "cline_parameters",
    "cline_tool",
    "hook_context_text",
]

logger = logging.getLogger(__name__)

CLINE_VERSION: Final = "3.36.0"
"""The Cline version hooks are told (``clineVersion``): a release with every hook mapped."""

CONTEXT_LIMIT: Final = 50_000
"""Cline's limit of a ``contextModification``, in characters; longer ones are cut."""

CLINE_EVENTS: Final[Mapping[str, tuple[str, ...]]] = {
    "TaskStart": ("session:start",),
    "TaskResume": ("session:resume",),
    "TaskCancel": ("cancel:requested",),
    "TaskComplete": ("prompt:complete",),
    "UserPromptSubmit": ("prompt:submit",),
    "PreToolUse": ("tool:pre",),
    "PostToolUse": ("tool:post", "tool:error"),
    "PreCompact": ("context:pre_compact",),
    "Notification": ("user:notification",),
}
"""Cline hook name -> the canonical events it runs on."""

CLINE_TOOLS: Final[Mapping[str, str]] = {
    "bash": "execute_command",
    "read_file": "read_file",
    "write_file": "write_to_file",
    "edit_file": "replace_in_file",
    "grep": "search_files",
    "glob": "list_files",
    "web_fetch": "web_fetch",
}
"""Our tool name -> Cline's; MCP tools (``mcp__<server>__<tool>``) are ``use_mcp_tool``."""

_CANCELS: Final = frozenset(
    {"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreCompact"}
)
_CONTEXTS: Final = frozenset(
    {"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse", "PostToolUse"}
)
_DATA_KEYS: Final = {name: name[0].lower() + name[1:] for name in CLINE_EVENTS}
_TYPE_LINE: Final = re.compile(r"^([A-Z_]+):\s*(.*)")
_MCP: Final = "mcp__"
_STARTS: Final = 256


def cline_event(ctx: HookContext) -> str:
    """The Cline ``hookName`` for ``ctx`` (from its step's alias)."""
    if ctx.alias in CLINE_EVENTS:
        return ctx.alias
    for name, events in CLINE_EVENTS.items():
        if ctx.event in events:
            return name
    return ctx.alias or ctx.event


def cline_tool(tool: str) -> str:
    """Our tool's name as Cline's hooks see it."""
    if tool.startswith(_MCP):
        return "use_mcp_tool"
    return CLINE_TOOLS.get(tool, tool)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def cline_parameters(tool: str, args: Mapping[str, Any]) -> dict[str, str]:
    """Our arguments as the parameters of Cline's tool (every value a string, as Cline's)."""
    path = args.get("file_path", args.get("path"))
    if tool == "bash":
        return {"command": _text(args.get("command", "")), "requires_approval": "false"}
    if tool == "read_file":
        return {"path": _text(path or "")}
    if tool == "write_file":
        return {"path": _text(path or ""), "content": _text(args.get("content", ""))}
    if tool == "edit_file":
        diff = (
            f"------- SEARCH\n{_text(args.get('old_string', ''))}\n=======\n"
            f"{_text(args.get('new_string', ''))}\n+++++++ REPLACE"
        )
        return {"path": _text(path or ""), "diff": diff}
    if tool == "grep":
        found = {"path": _text(path or "."), "regex": _text(args.get("pattern", ""))}
        if args.get("glob"):
            found["file_pattern"] = _text(args["glob"])
        return found
    if tool.startswith(_MCP):
        server, _, name = tool[len(_MCP) :].partition("__")
        return {"server_name": server, "tool_name": name, "arguments": json.dumps(dict(args))}
    return {str(key): _text(value) for key, value in args.items()}


def _millis(stamp: str) -> str:
    try:
        return str(round(datetime.fromisoformat(stamp).timestamp() * 1000))
    except ValueError:
        return str(round(time.time() * 1000))


def _user_id() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid
        name = ""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"amplifier-hooks:{name}@{Path.home()}"))


def _result(result: object) -> str:
    output = result.get("output") if isinstance(result, Mapping) else result
    if isinstance(output, Mapping) and "stdout" in output:
        return str(output.get("stdout") or "") + str(output.get("stderr") or "")
    return output if isinstance(output, str) else json.dumps(output, default=str)


def _event_data(name: str, ctx: HookContext) -> dict[str, Any]:
    data, tool = ctx.data, ctx.tool or ""
    task = {"taskId": ctx.session_id, "ulid": ctx.session_id}
    if name == "PreToolUse":
        return {"toolName": cline_tool(tool), "parameters": cline_parameters(tool, ctx.args)}
    if name == "PostToolUse":
        failed = ctx.event == "tool:error"
        outcome = data.get("error") if failed else data.get("tool_result")
        return {
            "toolName": cline_tool(tool),
            "parameters": cline_parameters(tool, ctx.args),
            "result": _result(outcome),
            "success": not failed,
            "executionTimeMs": 0,
        }
    if name == "UserPromptSubmit":
        return {"prompt": _text(data.get("prompt", "")), "attachments": []}
    if name == "TaskStart":
        return {"taskMetadata": {**task, "initialTask": _text(data.get("prompt", ""))}}
    if name == "TaskResume":
        count = data.get("message_count")
        return {
            "taskMetadata": task,
            "previousState": {
                "lastMessageTs": "",
                "messageCount": str(count if isinstance(count, int) else 0),
                "conversationHistoryDeleted": "false",
            },
        }
    if name == "TaskCancel":
        return {"taskMetadata": {**task, "completionStatus": "cancelled"}}
    if name == "TaskComplete":
        return {"taskMetadata": {**task, "result": _text(data.get("response", "")), "command": ""}}
    if name == "PreCompact":
        count, tokens = data.get("message_count"), data.get("tokens")
        return {
            **task,
            "contextSize": count if isinstance(count, int) else 0,
            "compactionStrategy": "auto-condense",
            "previousApiReqIndex": 0,
            "tokensIn": tokens if isinstance(tokens, int) else 0,
            "tokensOut": 0,
            "tokensInCache": 0,
            "tokensOutCache": 0,
            "deletedRangeStart": 0,
            "deletedRangeEnd": 0,
            "contextJsonPath": "",
            "contextRawPath": "",
        }
    if name == "Notification":
        message = data.get("message")
        return {
            "event": _text(data.get("type", "notification")),
            "source": "amplifier",
            "message": message if isinstance(message, str) else _text(data),
            "waitingForUserInput": False,
        }
    return {"data": dict(data)}


def cline_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Cline's stdin object for ``ctx`` (fields in the module docstring)."""
    name = cline_event(ctx)
    data = ctx.data
    provider, model = data.get("provider"), data.get("model")
    return {
        "clineVersion": CLINE_VERSION,
        "hookName": name,
        "timestamp": _millis(ctx.timestamp),
        "taskId": ctx.session_id,
        "workspaceRoots": [project_dir],
        "userId": _user_id(),
        "model": {
            "provider": provider.strip() if isinstance(provider, str) and provider else "unknown",
            "slug": model.strip() if isinstance(model, str) and model else "unknown",
        },
        _DATA_KEYS.get(name, "data"): _event_data(name, ctx),
    }


def _last_object(text: str) -> Any:
    """The last JSON object in ``text`` (the one ending last, from its outermost ``{``), or
    ``None``; only the last :data:`_STARTS` opening braces are tried."""
    decoder = json.JSONDecoder()
    best: tuple[int, int, Any] | None = None
    starts = [i for i, ch in enumerate(text) if ch == "{"][-_STARTS:]
    for start in starts:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if best is None or end > best[1]:
            best = (start, end, value)
    return None if best is None else best[2]


def cline_answer(stdout: str) -> dict[str, Any] | str:
    """The answer in a Cline hook's stdout, or what is wrong with it: the whole text as one
    JSON object, else the last JSON object in it; an object with ``shouldContinue`` or a
    field of the wrong type is no answer."""
    text = stdout.strip()
    try:
        answer = loads_unique(text)
    except DuplicateKeyError as err:
        return f"stdout JSON is ambiguous ({err}): {text[:200]!r}"
    except ValueError:
        answer = _last_object(text)
    if not isinstance(answer, dict):
        return f"stdout holds no JSON object (Cline's answer): {text[:200]!r}"
    if "shouldContinue" in answer:
        return "stdout JSON has shouldContinue, which Cline no longer reads (use cancel)"
    for key, kind, expected in (
        ("cancel", bool, "true or false"),
        ("contextModification", str, "a string"),
        ("errorMessage", str, "a string"),
    ):
        value = answer.get(key)
        if value is not None and not isinstance(value, kind):
            return f"stdout JSON: {key} is {type(value).__name__} {value!r}, expected {expected}"
    return answer


def hook_context_text(context: str, hook: str) -> str:
    """``context`` as Cline adds it to the conversation, cut at :data:`CONTEXT_LIMIT`: after a
    tool, a ``<hook_context>`` block naming the hook and the type of a leading ``TYPE:`` of its
    first line (else ``general``); on ``TaskStart`` the trimmed text, on ``UserPromptSubmit``
    the text as given, on ``TaskResume`` with type ``general`` (Cline's ``ToolExecutor`` and
    ``Task``)."""
    if len(context) > CONTEXT_LIMIT:
        context = context[:CONTEXT_LIMIT] + "\n\n[... context truncated due to size limit ...]"
    if hook == "TaskStart":
        return f'<hook_context source="TaskStart">\n{context.strip()}\n</hook_context>'
    if hook == "UserPromptSubmit":
        return f'<hook_context source="UserPromptSubmit">\n{context}\n</hook_context>'
    if hook == "TaskResume":
        return f'<hook_context source="TaskResume" type="general">\n{context}\n</hook_context>'
    text = context.strip()
    lines = text.split("\n")
    kind, content = "general", text
    typed = _TYPE_LINE.match(lines[0])
    if typed:
        kind = typed.group(1).lower()
        rest = [line for line in lines[1:] if line.strip()]
        content = "\n".join([typed.group(2), *rest] if typed.group(2) else rest)
    return f'<hook_context source="{hook}" type="{kind}">\n{content}\n</hook_context>'


def cline_decision(ctx: HookContext, stdout: str, *, label: str) -> Decision | str:
    """The decision in a Cline hook's stdout (whatever its exit code), or what is wrong with
    it (a failure, logged: the action goes on)."""
    if not stdout.strip():
        return Decision(source=label)
    answer = cline_answer(stdout)
    if isinstance(answer, str):
        return answer
    name = cline_event(ctx)
    error = (answer.get("errorMessage") or "").strip()
    if answer.get("cancel") is True:
        if name in _CANCELS:
            return Decision(
                action="block",
                stop=True,
                message=error or f"{name} hook {label} requested cancellation",
                level="warning",
                source=label,
            )
        logger.info("hook %s: cancel on %s is not read (as in Cline)", label, name)
    context = answer.get("contextModification") or ""
    if context.strip() and name in _CONTEXTS:
        return Decision(context=hook_context_text(context, name), source=label)
    return Decision(source=label)


PROTOCOL: Final = CommandProtocol(
    name="cline",
    stdin=cline_input,
    blocked=lambda ctx, stderr, label: Decision(source=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: cline_decision(
        ctx, stdout, label=label
    ),
    quiet_failures=True,
    exit_two_blocks=False,
)
"""The ``cline`` protocol of command hooks (the module docstring)."""
