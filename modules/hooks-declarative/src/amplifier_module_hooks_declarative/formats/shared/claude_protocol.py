"""The Claude Code hook protocol, so that Claude Code hook scripts run unchanged: shared by
the formats that speak it (:mod:`..claude_code`, and :mod:`..factory` with its own tool names).

A ``protocol: claude-code`` command hook gets Claude Code's stdin object and is understood the
way Claude Code understands it. This module only translates; :mod:`.command` runs the process.
Every field, event by event, with each difference: ``docs/hook-formats.md``.

**Events** (``hook_event_name``), from the canonical event:

=========================  ======================  =========================================
canonical event            ``hook_event_name``     extra stdin fields
=========================  ======================  =========================================
``tool:pre``               ``PreToolUse``          tool_name, tool_input, tool_use_id
``approval:required``      ``PermissionRequest``   tool fields, permission_suggestions ([])
``approval:denied``        ``PermissionDenied``    tool fields, reason
``tool:post``              ``PostToolUse``         tool fields, tool_response, tool_result
``tool:error``             ``PostToolUseFailure``  tool fields, error, is_interrupt
``prompt:submit``          ``UserPromptSubmit``    prompt
``prompt:complete``        ``Stop``                stop_hook_active, last_assistant_message
``prompt:complete`` [1]_   ``SubagentStop``        ... and agent_id, agent_type,
                                                   agent_transcript_path
``session:fork``           ``SubagentStart``       agent_id, agent_type
``session:start``          ``SessionStart``        source ``startup`` (or the data's), trigger
``session:resume``         ``SessionStart``        source ``resume``, trigger
``session:end``            ``SessionEnd``          reason (the data's, else ``other``)
``user:notification``      ``Notification``        message, notification_type
``context:pre_compact``    ``PreCompact``          trigger (``auto``), custom_instructions
``context:post_compact``   ``PostCompact``         trigger
``context:include`` [2]_   ``InstructionsLoaded``  file_path, memory_type, load_reason
``config:change`` [3]_     ``ConfigChange``        source, file_path
=========================  ======================  =========================================

.. [1] of a child session (its data carries ``parent_id``), or a hook declared under
   ``SubagentStop``.
.. [2] of a memory file (``source: instructions``), see :mod:`.instructions`.
.. [3] fired by this module when a hook file changed during the session, see :mod:`.reload`.

Any other event keeps its PascalCase alias (or canonical name) and carries the full event
data under ``data``. Every object has ``session_id``, ``transcript_path``, ``cwd``,
``permission_mode`` (``default``), ``hook_event_name`` and hook-shell's ``timestamp``;
``tool_result`` on ``PostToolUse`` and ``trigger`` on ``SessionStart`` are hook-shell's keys
too.

``transcript_path`` is the event data's ``transcript_path`` when the host sets one, else
``transcript.jsonl`` in the session's directory of the state directory
(``$AMPLIFIER_HOME/projects/<project>/sessions/<session id>/``, see
``amplifier_hooks_util.state``). The session runtime does not write a JSONL transcript there
(its checkpoints beside it are JSON files), so the file may not exist: scripts that read the
transcript must check for it, as careful Claude Code scripts do.

**Environment**: ``CLAUDE_PROJECT_DIR``; on ``SessionStart`` also ``CLAUDE_ENV_FILE`` (and
hook-shell's ``AMPLIFIER_ENV_FILE``), the session's file of ``export NAME=value`` lines whose
variables reach later ``bash`` commands (:mod:`.session_env`).

**Tools**: ``bash`` -> ``Bash``, ``write_file`` -> ``Write``, ``edit_file`` -> ``Edit``,
``read_file`` -> ``Read``; other names are unchanged. ``tool_input`` uses Claude Code's keys:
``command`` (and ``timeout`` in milliseconds, where ours is in seconds) for ``Bash``;
``file_path`` (made absolute against the project directory; a legacy ``path`` key is renamed),
``content``, ``old_string``, ``new_string`` for the file tools. ``updatedInput`` is mapped
back to our keys (a path equal to the absolute form of the original keeps the original).
``tool_response`` is the tool result's ``output`` (an object, or ``{"output": ...}``) plus
``success`` and ``error``, with Claude Code's names added: ``stdout``/``stderr``/
``interrupted`` for ``Bash``, ``filePath`` for the file tools.

**Exit codes**: 0 reads stdout (below); 2 is Claude Code's blocking error, with stderr as the
reason, per Claude Code's table: it blocks ``PreToolUse``, ``UserPromptSubmit`` and
``PermissionRequest``; on ``Stop`` and ``SubagentStop`` it keeps the agent working, the reason
its next instruction (a ``block`` that also carries the reason as context: loop-session
continues the turn, other orchestrators give the model the context at its next request); it
is fed to the agent as context on ``PostToolUse`` and ``PostToolUseFailure`` (the tool already
ran); it is shown to the user on every other event. Any other exit code is a hook failure
(``on_failure``; the default ``warn`` goes on with a warning, as Claude Code does).

**stdout on exit 0**: a JSON object is honoured: ``continue: false`` with ``stopReason``
(-> ``Decision.stop``; it also blocks a ``PreToolUse``, ``UserPromptSubmit`` or
``PermissionRequest``; on ``Stop`` / ``SubagentStop`` it only lets the agent stop),
``systemMessage`` (a warning shown to the user), ``hookSpecificOutput`` (its
``hookEventName``, when given, must name the event) with ``permissionDecision`` ``allow`` |
``deny`` | ``ask`` | ``defer`` (``PreToolUse`` only) and ``permissionDecisionReason``,
``updatedInput`` (-> ``modify``, or ``ask`` with the new arguments), ``additionalContext``
(-> context) and, on ``PermissionRequest``, ``decision`` ``{behavior: allow | deny,
updatedInput, message, interrupt}`` (-> ``allow`` with the new arguments, which the approval
gate grants without asking; ``block``); the top-level ``decision`` (``block``, or ``approve``:
on ``PreToolUse`` an allow, elsewhere nothing) with ``reason``; hook-shell's
``contextInjection`` (-> context). ``suppressOutput`` is accepted: a hook's stdout is never
shown to the user here, so there is nothing more to hide. Stdout that is not JSON is plain
text: it becomes context on ``UserPromptSubmit`` and ``SessionStart`` (as in Claude Code) and
is otherwise ignored (logged at debug level). Stdout that starts with ``{`` but is not a valid
JSON object, and fields of the wrong type or value, are hook failures (never silently dropped).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ...answers import (
    BadAnswer,
    DuplicateKeyError,
    answer_field,
    common_fields,
    default_reason,
    join_lines,
    keep_working,
    loads_unique,
    refusal,
    with_system_message,
)
from ...instructions import instructions_fields
from ...mapping import CLAUDE_EVENTS as _DECLARED
from ...mapping import notification_type
from ...session_env import env_file_for
from ...tool_output import with_updated_tool_output
from ...types import Decision, HookContext
from .event_name import hook_event_name
from .transcript import transcript_path

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_TOOLS",
    "EVENTS_FROM_CLAUDE",
    "TOOLS_FROM_CLAUDE",
    "claude_blocked",
    "claude_decision",
    "claude_environment",
    "claude_event",
    "claude_input",
    "claude_tool_input",
    "our_tool_input",
]

logger = logging.getLogger(__name__)

#: Canonical event -> Claude Code ``hook_event_name`` (``prompt:complete`` of a child session
#: is ``SubagentStop``, see :func:`claude_event`).
CLAUDE_EVENTS: Final[Mapping[str, str]] = {
    "tool:pre": "PreToolUse",
    "approval:required": "PermissionRequest",
    "approval:denied": "PermissionDenied",
    "tool:post": "PostToolUse",
    "tool:error": "PostToolUseFailure",
    "prompt:submit": "UserPromptSubmit",
    "prompt:complete": "Stop",
    "session:fork": "SubagentStart",
    "session:start": "SessionStart",
    "session:resume": "SessionStart",
    "session:end": "SessionEnd",
    "user:notification": "Notification",
    "context:pre_compact": "PreCompact",
    "context:post_compact": "PostCompact",
    "context:include": "InstructionsLoaded",  # of a memory file: .instructions
    "config:change": "ConfigChange",  # a hook file changed mid-session: .reload
}

#: Claude Code event name -> the canonical event a hook under that name subscribes to.
EVENTS_FROM_CLAUDE: Final[Mapping[str, str]] = {
    name: event for name, event in _DECLARED.items() if event is not None
}

#: Our tool name -> Claude Code's.
CLAUDE_TOOLS: Final[Mapping[str, str]] = {
    "bash": "Bash",
    "write_file": "Write",
    "edit_file": "Edit",
    "read_file": "Read",
}

#: Claude Code's tool name -> ours.
TOOLS_FROM_CLAUDE: Final[Mapping[str, str]] = {v: k for k, v in CLAUDE_TOOLS.items()}

_FILE_TOOLS: Final = frozenset({"write_file", "edit_file", "read_file"})
#: Exit code 2 / ``decision: block`` stops the operation (the tool call, the prompt, the
#: permission, the compaction: Claude Code 2.1.105 lets ``PreCompact`` block; the change of a
#: configuration file).
_BLOCKS: Final = frozenset(
    {"PreToolUse", "UserPromptSubmit", "PermissionRequest", "PreCompact", "ConfigChange"}
)
#: Exit code 2 / ``decision: block`` keeps the agent working, the reason its instruction.
_KEEPS_WORKING: Final = frozenset({"Stop", "SubagentStop"})
#: Exit code 2 / ``decision: block`` is fed to the agent: the tool has already run.
_FEEDS_AGENT: Final = frozenset({"PostToolUse", "PostToolUseFailure"})
_PLAIN_TEXT_IS_CONTEXT: Final = frozenset({"UserPromptSubmit", "SessionStart"})
_PERMISSIONS: Final = frozenset({"allow", "deny", "ask", "defer"})
_BEHAVIORS: Final = frozenset({"allow", "deny"})
_TOOL_EVENTS: Final = frozenset(
    {"PreToolUse", "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure"}
)


def claude_event(ctx: HookContext) -> str:
    """The ``hook_event_name`` for ``ctx``: ``SubagentStop`` for ``prompt:complete`` of a child
    session (or a hook declared under that name), else :data:`CLAUDE_EVENTS`, else the name
    the hook was declared under."""
    return hook_event_name(ctx, CLAUDE_EVENTS)


def _absolute(path: str, project_dir: str) -> str:
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(project_dir, path))


def claude_tool_input(
    tool: str | None, args: Mapping[str, Any], project_dir: str
) -> dict[str, Any]:
    """Our tool arguments with Claude Code's keys and units."""
    mapped = dict(args)
    if tool in _FILE_TOOLS:
        if "file_path" not in mapped and isinstance(mapped.get("path"), str):
            mapped["file_path"] = mapped.pop("path")
        if isinstance(mapped.get("file_path"), str):
            mapped["file_path"] = _absolute(mapped["file_path"], project_dir)
    elif tool == "bash":
        timeout = mapped.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool):
            mapped["timeout"] = round(timeout * 1000)
    return mapped


def our_tool_input(
    tool: str | None, updated: Mapping[str, Any], original: Mapping[str, Any], project_dir: str
) -> dict[str, Any]:
    """Claude Code's ``updatedInput`` with our keys and units (inverse of the above)."""
    mapped = dict(updated)
    if tool in _FILE_TOOLS:
        key = "path" if "file_path" not in original and "path" in original else "file_path"
        path = mapped.pop("file_path", None)
        if isinstance(path, str):
            before = original.get(key)
            if isinstance(before, str) and _absolute(before, project_dir) == path:
                path = before
            mapped[key] = path
    elif tool == "bash":
        timeout = mapped.get("timeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool):
            mapped["timeout"] = timeout / 1000
    return mapped


def _tool_response(tool: str | None, result: object) -> dict[str, Any]:
    """Our ``tool_result`` as Claude Code's ``tool_response``."""
    if not isinstance(result, Mapping):
        return {"output": result}
    output = result.get("output")
    response: dict[str, Any] = dict(output) if isinstance(output, Mapping) else {"output": output}
    response.setdefault("success", result.get("success"))
    response.setdefault("error", result.get("error"))
    if tool == "bash":
        if not isinstance(output, Mapping):
            response["stdout"] = "" if output is None else str(output)
        response.setdefault("stdout", "")
        response.setdefault("stderr", "")
        response.setdefault("interrupted", False)
        response.setdefault("isImage", False)
    elif tool in _FILE_TOOLS:
        path = response.get("file_path") or response.get("path")
        if path is not None:
            response.setdefault("filePath", path)
    return response


def _text(data: Mapping[str, Any], key: str, default: str = "") -> str:
    value = data.get(key)
    return value if isinstance(value, str) else default


def _agent_type(data: Mapping[str, Any]) -> str:
    metadata = data.get("metadata")
    found = metadata.get("agent_type") if isinstance(metadata, Mapping) else None
    return _text(data, "agent_type") or (found if isinstance(found, str) else "")


Fields = dict[str, Any]
FieldsOf = Callable[[HookContext, str, str], Fields]
"""The fields of one event: ``fields(ctx, name, transcript)``."""


def _post_tool_fields(ctx: HookContext, name: str, transcript: str) -> Fields:
    result = ctx.data.get("tool_result")
    # tool_result: hook-shell's key, our result as is
    return {"tool_response": _tool_response(ctx.tool, result), "tool_result": result}


def _failure_fields(ctx: HookContext, name: str, transcript: str) -> Fields:
    error = ctx.data.get("error")
    message = error.get("message", "") if isinstance(error, Mapping) else str(error)
    return {"error": message, "is_interrupt": False}


def _stop_fields(ctx: HookContext, name: str, transcript: str) -> Fields:
    data = ctx.data
    fields: Fields = {
        "stop_hook_active": data.get("stop_hook_active") is True,
        "last_assistant_message": _text(data, "response"),
    }
    if name == "SubagentStop":
        fields.update(
            agent_id=ctx.session_id,
            agent_type=_agent_type(data),
            agent_transcript_path=transcript,
        )
    return fields


def _session_start_fields(ctx: HookContext, name: str, transcript: str) -> Fields:
    default = "resume" if ctx.event == "session:resume" else "startup"
    source = _text(ctx.data, "source", default) or default
    return {"source": source, "trigger": source}  # trigger: hook-shell's name for it


def _compact_fields(ctx: HookContext, name: str, transcript: str) -> Fields:
    trigger = _text(ctx.data, "trigger", "auto") or "auto"
    if name == "PostCompact":
        return {"trigger": trigger}
    return {"trigger": trigger, "custom_instructions": _text(ctx.data, "custom_instructions")}


_EVENT_FIELDS: Final[dict[str, FieldsOf]] = {
    "PostToolUse": _post_tool_fields,
    "PostToolUseFailure": _failure_fields,
    "PermissionRequest": lambda ctx, name, transcript: {"permission_suggestions": []},
    "PermissionDenied": lambda ctx, name, transcript: {"reason": _text(ctx.data, "reason")},
    "UserPromptSubmit": lambda ctx, name, transcript: {"prompt": ctx.data.get("prompt", "")},
    **dict.fromkeys(_KEEPS_WORKING, _stop_fields),
    "SubagentStart": lambda ctx, name, transcript: {
        "agent_id": ctx.session_id,
        "agent_type": _agent_type(ctx.data),
    },
    "SessionStart": _session_start_fields,
    "SessionEnd": lambda ctx, name, transcript: {
        "reason": _text(ctx.data, "reason", "other") or "other"
    },
    "Notification": lambda ctx, name, transcript: {
        "message": ctx.data.get("message", ""),
        "notification_type": notification_type(ctx.data),
    },
    "PreCompact": _compact_fields,
    "PostCompact": _compact_fields,
    "InstructionsLoaded": lambda ctx, name, transcript: instructions_fields(
        ctx.data, ctx.project_dir
    ),
    "ConfigChange": lambda ctx, name, transcript: {
        "source": _text(ctx.data, "source"),
        "file_path": _text(ctx.data, "file_path"),
    },
}
"""The fields Claude Code adds for each event (the module docstring's table)."""


def _event_fields(name: str, ctx: HookContext, transcript: str) -> dict[str, Any]:
    """The fields Claude Code adds for event ``name``; an event Claude Code does not have
    gets its data as ``data``."""
    fields = _EVENT_FIELDS.get(name)
    if fields is not None:
        return fields(ctx, name, transcript)
    return {"data": ctx.data} if ctx.event not in CLAUDE_EVENTS else {}


def claude_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Claude Code's stdin object for ``ctx`` (fields in the module docstring)."""
    name = claude_event(ctx)
    data = ctx.data
    transcript = transcript_path(ctx, project_dir)
    cwd = data.get("cwd")
    payload: dict[str, Any] = {
        "session_id": ctx.session_id,
        "transcript_path": transcript,
        "cwd": cwd if isinstance(cwd, str) and cwd else project_dir,
        "permission_mode": "default",
        "hook_event_name": name,
        "timestamp": ctx.timestamp,  # hook-shell's key
    }
    if ctx.tool is not None or name in _TOOL_EVENTS:
        tool = ctx.tool or ""
        payload["tool_name"] = CLAUDE_TOOLS.get(tool, tool)
        payload["tool_input"] = claude_tool_input(ctx.tool, ctx.args, project_dir)
        call_id = data.get("tool_call_id")
        if call_id is not None:
            payload["tool_use_id"] = call_id
    payload.update(_event_fields(name, ctx, transcript))
    return payload


def claude_environment(ctx: HookContext, project_dir: str) -> dict[str, str]:
    """``CLAUDE_PROJECT_DIR``, and on ``SessionStart`` ``CLAUDE_ENV_FILE``: the session's file
    of ``export NAME=value`` lines, whose variables reach the session's later ``bash`` calls
    (see :mod:`.session_env`)."""
    env = {"CLAUDE_PROJECT_DIR": project_dir}
    if ctx.session_id and claude_event(ctx) == "SessionStart":
        path = env_file_for(ctx.session_id, project_dir)
        env["CLAUDE_ENV_FILE"] = env["AMPLIFIER_ENV_FILE"] = str(path)
    return env


def claude_blocked(ctx: HookContext, reason: str, *, label: str) -> Decision:
    """A Claude Code blocking answer (exit code 2, or ``decision: block``) on ``ctx``'s event."""
    name = claude_event(ctx)
    text = reason.strip()
    if name in _BLOCKS:
        return refusal(text, label)
    if name in _KEEPS_WORKING:  # the agent goes on, the reason is its instruction
        text = text or f"hook {label} asks you to continue (exit code 2, stderr was empty)"
        return keep_working(text, label)
    if not text:
        logger.debug("hook %s: blocking answer without a reason on %s; nothing to do", label, name)
        return Decision(source=label)
    if name in _FEEDS_AGENT:
        return Decision(context=text, source=label)
    return Decision(message=text, level="warning", source=label)


def claude_decision(
    ctx: HookContext, stdout: str, *, label: str, project_dir: str, truncated: bool = False
) -> Decision | str:
    """The decision in a Claude Code hook's stdout (exit code 0), or what is wrong with it.

    ``project_dir`` is the one :func:`claude_input` used (``updatedInput`` paths are mapped
    back against it). ``truncated`` says that ``max_output_bytes`` cut stdout: text that then
    fails to parse is a failure, not plain text.
    """
    name = claude_event(ctx)
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    if not text.startswith("{"):
        if truncated:
            return f"stdout was cut before it ended: {text[:200]!r}"
        if name in _PLAIN_TEXT_IS_CONTEXT:
            return Decision(context=text, source=label)
        logger.debug("hook %s: plain stdout on %s ignored: %.200s", label, name, text)
        return Decision(source=label)
    try:
        answer = loads_unique(text)
    except DuplicateKeyError as err:
        return f"stdout JSON is ambiguous ({err}): {text[:200]!r}"
    except ValueError as err:
        return f"stdout starts with '{{' but is not valid JSON ({err}): {text[:200]!r}"
    if not isinstance(answer, dict):  # pragma: no cover - "{" always parses to an object
        return f"stdout is a JSON {type(answer).__name__}, expected an object"
    try:
        decided = _interpret(ctx, name, answer, label, project_dir)
        return with_updated_tool_output(ctx, name, answer, decided, label)
    except BadAnswer as err:
        return f"stdout JSON: {err}"


def _permission_request(
    ctx: HookContext, specific: Mapping[str, Any], label: str, project_dir: str, extra: Decision
) -> Decision | None:
    """``hookSpecificOutput.decision`` of a ``PermissionRequest`` hook, or ``None``."""
    where = "hookSpecificOutput."
    decision = answer_field(specific, "decision", dict, "an object {behavior, ...}", where)
    if decision is None:
        return None
    where += "decision."
    behavior = answer_field(decision, "behavior", str, "allow or deny", where)
    if behavior not in _BEHAVIORS:
        raise BadAnswer(f"{where}behavior is {behavior!r}, expected allow or deny")
    updated = answer_field(decision, "updatedInput", dict, "an object", where)
    message = answer_field(decision, "message", str, "a string", where)
    interrupt = answer_field(decision, "interrupt", bool, "true or false", where)
    if behavior == "deny":
        return Decision(
            action="block",
            message=message or default_reason(label),
            level="warning",
            context=extra.context,
            source=label,
            interrupt=interrupt is True,  # Claude Code: "stops Claude"; here the turn ends
        )
    modified = None if updated is None else our_tool_input(ctx.tool, updated, ctx.args, project_dir)
    return Decision(
        action="allow",
        message=extra.message,
        level=extra.level,
        modified_args=modified,
        context=extra.context,
        source=label,
    )


@dataclass(frozen=True, slots=True)
class _Answer:
    """A hook's stdout object as Claude Code reads it, every field checked."""

    go_on: bool | None
    stop_reason: str | None
    system_message: str | None
    decision: str | None
    reason: str | None
    specific: dict[str, Any]
    permission: str | None
    permission_reason: str | None
    updated: dict[str, Any] | None
    context: str | None


def _read_answer(name: str, answer: dict[str, Any]) -> _Answer:
    """The fields of ``answer`` on a ``name`` event, checked in the order Claude Code reads
    them.

    :raises BadAnswer: a field has the wrong type or a value the event does not take.
    """
    common = common_fields(answer)
    injection = answer_field(answer, "contextInjection", str, "a string", "")  # hook-shell's key
    specific = answer_field(answer, "hookSpecificOutput", dict, "an object", "") or {}
    where = "hookSpecificOutput."
    declared = answer_field(specific, "hookEventName", str, "a string", where)
    if declared is not None and declared != name:
        raise BadAnswer(f"{where}hookEventName is {declared!r} on a {name} event")
    permission = answer_field(specific, "permissionDecision", str, "allow, deny or ask", where)
    permission_reason = answer_field(specific, "permissionDecisionReason", str, "a string", where)
    updated = answer_field(specific, "updatedInput", dict, "an object", where)
    context = join_lines(
        answer_field(specific, "additionalContext", str, "a string", where), injection
    )
    if permission is not None and permission not in _PERMISSIONS:
        raise BadAnswer(
            f"{where}permissionDecision is {permission!r}, expected allow, deny, ask or defer"
        )
    if permission is not None and name != "PreToolUse":
        raise BadAnswer(f"{where}permissionDecision is for PreToolUse, not {name}")
    if common.decision is not None and common.decision not in ("block", "approve"):
        raise BadAnswer(f"decision is {common.decision!r}, expected block or approve")
    return _Answer(
        common.go_on,
        common.stop_reason,
        common.system_message,
        common.decision,
        common.reason,
        specific,
        permission,
        permission_reason,
        updated,
        context,
    )


def _stopped(name: str, read: _Answer, label: str) -> Decision:
    """``continue: false``: the agent stops (on ``Stop``, it is just let stop)."""
    return Decision(
        action="block" if name in _BLOCKS else "continue",
        message=join_lines(read.stop_reason or f"stopped by hook {label}", read.system_message),
        level="warning",
        context=read.context,
        stop=name not in _KEEPS_WORKING,
        source=label,
    )


def _permitted(
    ctx: HookContext, name: str, read: _Answer, label: str, project_dir: str
) -> Decision:
    """The decision of ``permissionDecision`` (or the older ``decision`` on ``PreToolUse``),
    with ``updatedInput`` as the changed arguments."""
    permission, permission_reason = read.permission, read.permission_reason
    if name == "PreToolUse" and permission is None and read.decision is not None:
        permission = "allow" if read.decision == "approve" else "deny"
        permission_reason = read.reason
    modified = None
    if read.updated is not None and name == "PreToolUse":
        modified = our_tool_input(ctx.tool, read.updated, ctx.args, project_dir)
    if permission == "deny":
        if read.system_message:
            logger.warning("hook %s: %s", label, read.system_message)
        message = permission_reason or default_reason(label)
        return Decision("block", message, "warning", context=read.context, source=label)
    if permission == "ask":
        tool = CLAUDE_TOOLS.get(ctx.tool or "", ctx.tool)
        return Decision(
            action="ask",
            message=join_lines(permission_reason or f"Allow {tool or name}? (hook {label})"),
            modified_args=modified,
            context=read.context,
            source=label,
        )
    return Decision(
        action="modify"
        if modified is not None
        else "allow"
        if permission == "allow"
        else "continue",
        message=join_lines(read.system_message, permission_reason),
        level="warning" if read.system_message else "info",
        modified_args=modified,
        context=read.context,
        source=label,
    )


def _interpret(
    ctx: HookContext, name: str, answer: dict[str, Any], label: str, project_dir: str
) -> Decision:
    read = _read_answer(name, answer)
    if read.go_on is False:
        return _stopped(name, read, label)
    if name == "PermissionRequest":
        extra = Decision(
            message=read.system_message,
            level="warning" if read.system_message else "info",
            context=read.context,
        )
        verdict = _permission_request(ctx, read.specific, label, project_dir, extra)
        if verdict is not None:
            return verdict
    if read.decision == "block" and not (name == "PreToolUse" and read.permission is None):
        blocked = claude_blocked(ctx, read.reason or default_reason(label), label=label)
        return with_system_message(blocked, read.system_message, read.context, label)
    return _permitted(ctx, name, read, label, project_dir)
