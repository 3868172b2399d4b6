"""The Claude Code hook protocol, so that Claude Code hook scripts run unchanged.

A ``protocol: claude-code`` command hook gets Claude Code's stdin object and is understood the
way Claude Code understands it. This module only translates; :mod:`.command` runs the process.

**Events** (``hook_event_name``), from the canonical event:

=========================  ======================  =========================================
canonical event            ``hook_event_name``     extra stdin fields
=========================  ======================  =========================================
``tool:pre``               ``PreToolUse``          tool_name, tool_input, tool_use_id
``tool:post``              ``PostToolUse``         ... and tool_response
``tool:error``             ``PostToolUseFailure``  ... and error
``prompt:submit``          ``UserPromptSubmit``    prompt
``prompt:complete``        ``Stop``                stop_hook_active (always false)
``session:start``          ``SessionStart``        source ``startup``
``session:resume``         ``SessionStart``        source ``resume``
``session:end``            ``SessionEnd``          reason ``other``
``user:notification``      ``Notification``        message
``context:pre_compact``    ``PreCompact``          trigger ``auto``, custom_instructions
=========================  ======================  =========================================

Any other event keeps its PascalCase alias (or canonical name) and carries the full event
data under ``data``. Every object has ``session_id``, ``transcript_path``, ``cwd``,
``permission_mode`` (``default``) and ``hook_event_name``.

``transcript_path`` is the event data's ``transcript_path`` when the host sets one, else
``transcript.jsonl`` in the session's directory of the state directory
(``$AMPLIFIER_HOME/projects/<project>/sessions/<session id>/``, see
``amplifier_hooks_util.state``). The session runtime does not write a JSONL transcript there
(its checkpoints beside it are JSON files), so the file may not exist: scripts that read the
transcript must check for it, as careful Claude Code scripts do.

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
reason: it blocks ``PreToolUse`` and ``UserPromptSubmit``, is fed to the agent as context on
``PostToolUse``, ``PostToolUseFailure`` and ``Stop`` (the tool already ran, the turn already
ended: the agent reads it at its next request; the turn is not reopened), and is shown to the
user on every other event. Any other exit code is a hook failure (``on_failure``; the default
``warn`` goes on with a warning, as Claude Code does).

**stdout on exit 0**: a JSON object is honoured: ``continue: false`` with ``stopReason``
(-> ``Decision.stop``; it also blocks a ``PreToolUse`` or ``UserPromptSubmit``),
``systemMessage`` (a warning shown to the user), ``hookSpecificOutput`` with
``permissionDecision`` ``allow`` | ``deny`` | ``ask`` and ``permissionDecisionReason``,
``updatedInput`` (-> ``modify``, or ``ask`` with the new arguments) and ``additionalContext``
(-> context), and the top-level ``decision`` (``block``, or on ``PreToolUse`` the older
``approve``) with ``reason``. ``suppressOutput`` is accepted: a hook's stdout is never shown
to the user here, so there is nothing more to hide. Stdout that is not JSON is plain text: it
becomes context on ``UserPromptSubmit`` and ``SessionStart`` (as in Claude Code) and is
otherwise ignored (logged at debug level). Stdout that starts with ``{`` but is not a valid
JSON object, and fields of the wrong type, are hook failures (never silently dropped).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.state import session_dir

from .protocols import CommandProtocol
from .types import Decision, HookContext

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_TOOLS",
    "EVENTS_FROM_CLAUDE",
    "PROTOCOL",
    "TOOLS_FROM_CLAUDE",
    "claude_blocked",
    "claude_decision",
    "claude_event",
    "claude_input",
    "claude_tool_input",
    "our_tool_input",
]

logger = logging.getLogger(__name__)

#: Canonical event -> Claude Code ``hook_event_name``.
CLAUDE_EVENTS: Final[Mapping[str, str]] = {
    "tool:pre": "PreToolUse",
    "tool:post": "PostToolUse",
    "tool:error": "PostToolUseFailure",
    "prompt:submit": "UserPromptSubmit",
    "prompt:complete": "Stop",
    "session:start": "SessionStart",
    "session:resume": "SessionStart",
    "session:end": "SessionEnd",
    "user:notification": "Notification",
    "context:pre_compact": "PreCompact",
}

#: Claude Code event name -> the canonical event a hook under that name subscribes to.
EVENTS_FROM_CLAUDE: Final[Mapping[str, str]] = {
    "PreToolUse": "tool:pre",
    "PostToolUse": "tool:post",
    "PostToolUseFailure": "tool:error",
    "UserPromptSubmit": "prompt:submit",
    "Stop": "prompt:complete",
    "SessionStart": "session:start",
    "SessionEnd": "session:end",
    "Notification": "user:notification",
    "PreCompact": "context:pre_compact",
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
_BLOCKS: Final = frozenset({"PreToolUse", "UserPromptSubmit"})
_FEEDS_AGENT: Final = frozenset({"PostToolUse", "PostToolUseFailure", "Stop"})
_PLAIN_TEXT_IS_CONTEXT: Final = frozenset({"UserPromptSubmit", "SessionStart"})
_PERMISSIONS: Final = frozenset({"allow", "deny", "ask"})


def claude_event(ctx: HookContext) -> str:
    """The ``hook_event_name`` for ``ctx``."""
    return CLAUDE_EVENTS.get(ctx.event) or ctx.alias or ctx.event


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


def claude_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Claude Code's stdin object for ``ctx`` (fields in the module docstring)."""
    name = claude_event(ctx)
    data = ctx.data
    transcript = data.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        transcript = str(session_dir(ctx.session_id, working_dir=project_dir) / "transcript.jsonl")
    cwd = data.get("cwd")
    payload: dict[str, Any] = {
        "session_id": ctx.session_id,
        "transcript_path": transcript,
        "cwd": cwd if isinstance(cwd, str) and cwd else project_dir,
        "permission_mode": "default",
        "hook_event_name": name,
    }
    if ctx.tool is not None:
        payload["tool_name"] = CLAUDE_TOOLS.get(ctx.tool, ctx.tool)
        payload["tool_input"] = claude_tool_input(ctx.tool, ctx.args, project_dir)
        call_id = data.get("tool_call_id")
        if call_id is not None:
            payload["tool_use_id"] = call_id
    if name == "PostToolUse":
        payload["tool_response"] = _tool_response(ctx.tool, data.get("tool_result"))
    elif name == "PostToolUseFailure":
        error = data.get("error")
        payload["error"] = error.get("message", "") if isinstance(error, Mapping) else str(error)
    elif name == "UserPromptSubmit":
        payload["prompt"] = data.get("prompt", "")
    elif name == "Stop":
        payload["stop_hook_active"] = False
    elif name == "SessionStart":
        payload["source"] = "resume" if ctx.event == "session:resume" else "startup"
    elif name == "SessionEnd":
        payload["reason"] = "other"
    elif name == "Notification":
        payload["message"] = data.get("message", "")
    elif name == "PreCompact":
        payload["trigger"] = "auto"
        payload["custom_instructions"] = ""
    elif ctx.event not in CLAUDE_EVENTS:
        payload["data"] = data
    return payload


def _default_reason(label: str) -> str:
    return f"blocked by hook {label}"


def claude_blocked(ctx: HookContext, reason: str, *, label: str) -> Decision:
    """A Claude Code blocking answer (exit code 2, or ``decision: block``) on ``ctx``'s event."""
    name = claude_event(ctx)
    text = reason.strip()
    if name in _BLOCKS:
        return Decision(
            action="block",
            message=text or f"{_default_reason(label)} (exit code 2, stderr was empty)",
            level="warning",
            source=label,
        )
    if not text:
        logger.debug("hook %s: blocking answer without a reason on %s; nothing to do", label, name)
        return Decision(source=label)
    if name in _FEEDS_AGENT:
        return Decision(context=text, source=label)
    return Decision(message=text, level="warning", source=label)


class _BadAnswer(ValueError):
    """A field of the stdout JSON has the wrong type or value."""


def _field(answer: Mapping[str, Any], key: str, kind: type, expected: str, where: str) -> Any:
    value = answer.get(key)
    if value is not None and not isinstance(value, kind):
        raise _BadAnswer(f"{where}{key} is {type(value).__name__} {value!r}, expected {expected}")
    return value


def _join(*parts: str | None) -> str | None:
    kept = [part for part in parts if part]
    return "\n".join(kept) if kept else None


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
        answer = json.loads(text)
    except ValueError as err:
        return f"stdout starts with '{{' but is not valid JSON ({err}): {text[:200]!r}"
    if not isinstance(answer, dict):  # pragma: no cover - "{" always parses to an object
        return f"stdout is a JSON {type(answer).__name__}, expected an object"
    try:
        return _interpret(ctx, name, answer, label, project_dir)
    except _BadAnswer as err:
        return f"stdout JSON: {err}"


def _interpret(
    ctx: HookContext, name: str, answer: dict[str, Any], label: str, project_dir: str
) -> Decision:
    go_on = _field(answer, "continue", bool, "true or false", "")
    stop_reason = _field(answer, "stopReason", str, "a string", "")
    _field(answer, "suppressOutput", bool, "true or false", "")
    system_message = _field(answer, "systemMessage", str, "a string", "")
    decision = _field(answer, "decision", str, "a string", "")
    reason = _field(answer, "reason", str, "a string", "")
    specific = _field(answer, "hookSpecificOutput", dict, "an object", "") or {}
    where = "hookSpecificOutput."
    permission = _field(specific, "permissionDecision", str, "allow, deny or ask", where)
    permission_reason = _field(specific, "permissionDecisionReason", str, "a string", where)
    updated = _field(specific, "updatedInput", dict, "an object", where)
    context = _field(specific, "additionalContext", str, "a string", where)
    if permission is not None and permission not in _PERMISSIONS:
        raise _BadAnswer(
            f"{where}permissionDecision is {permission!r}, expected allow, deny or ask"
        )
    if decision is not None and decision not in ("block", "approve"):
        raise _BadAnswer(f"decision is {decision!r}, expected block (or approve on PreToolUse)")

    if go_on is False:
        return Decision(
            action="block" if name in _BLOCKS else "continue",
            message=_join(stop_reason or f"stopped by hook {label}", system_message),
            level="warning",
            context=context,
            stop=True,
            source=label,
        )
    if name == "PreToolUse" and permission is None and decision is not None:
        permission = "allow" if decision == "approve" else "deny"
        permission_reason = reason
    elif decision == "block":
        blocked = claude_blocked(ctx, reason or _default_reason(label), label=label)
        return Decision(
            action=blocked.action,
            message=_join(blocked.message, system_message),
            level="warning" if system_message else blocked.level,
            context=_join(blocked.context, context),
            source=label,
        )

    modified = None
    if updated is not None and name == "PreToolUse":
        modified = our_tool_input(ctx.tool, updated, ctx.args, project_dir)
    if permission == "deny":
        if system_message:
            logger.warning("hook %s: %s", label, system_message)
        return Decision(
            action="block",
            message=permission_reason or _default_reason(label),
            level="warning",
            context=context,
            source=label,
        )
    if permission == "ask":
        tool = CLAUDE_TOOLS.get(ctx.tool or "", ctx.tool)
        return Decision(
            action="ask",
            message=_join(permission_reason or f"Allow {tool or name}? (hook {label})"),
            modified_args=modified,
            context=context,
            source=label,
        )
    if modified is not None:
        return Decision(
            action="modify",
            message=_join(system_message, permission_reason),
            level="warning" if system_message else "info",
            modified_args=modified,
            context=context,
            source=label,
        )
    return Decision(
        action="allow" if permission == "allow" else "continue",
        message=_join(system_message, permission_reason),
        level="warning" if system_message else "info",
        context=context,
        source=label,
    )


PROTOCOL: Final = CommandProtocol(
    name="claude-code",
    stdin=claude_input,
    blocked=lambda ctx, stderr, label: claude_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: claude_decision(
        ctx, stdout, label=label, project_dir=project_dir, truncated=truncated
    ),
    environment=lambda ctx, project_dir: {"CLAUDE_PROJECT_DIR": project_dir},
)
"""The ``claude-code`` protocol of command hooks."""
