"""The Gemini CLI hook protocol, so that hook scripts written for Gemini CLI run unchanged.

A ``protocol: gemini`` command hook gets Gemini CLI's stdin object and its output is read the
way Gemini CLI reads it (``docs/hooks/reference.md`` of google-gemini/gemini-cli). This module
only translates; :mod:`.command` runs the process, :mod:`.gemini_config` reads
``.gemini/settings.json``. The full field-by-field comparison is in ``docs/hook-formats.md``.

**Events** (``hook_event_name``), from the canonical event:

=========================  ======================  =========================================
canonical event            ``hook_event_name``     extra stdin fields
=========================  ======================  =========================================
``tool:pre``               ``BeforeTool``          tool_name, tool_input
``tool:post``              ``AfterTool``           ... and tool_response
``prompt:submit``          ``BeforeAgent``         prompt
``prompt:complete``        ``AfterAgent``          prompt, prompt_response, stop_hook_active
``provider:request``       ``BeforeModel``         llm_request
``provider:response``      ``AfterModel``          llm_request, llm_response
``session:start``          ``SessionStart``        source ``startup``
``session:resume``         ``SessionStart``        source ``resume``
``session:end``            ``SessionEnd``          reason ``exit``
``user:notification``      ``Notification``        notification_type, message, details
``context:pre_compact``    ``PreCompress``         trigger ``auto``
=========================  ======================  =========================================

Every object has ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and
``timestamp``; ``BeforeTool`` / ``AfterTool`` of an MCP tool (``mcp__<server>__<tool>``) also
``mcp_context`` ``{server_name, tool_name}``. ``BeforeToolSelection`` is ``provider:request``
too (with ``BeforeModel``'s hooks, in the file's order), with ``llm_request.toolConfig``
listing the tools offered.

**Tools** (:data:`GEMINI_TOOLS`): ``bash`` = ``run_shell_command``, ``edit_file`` =
``replace``, ``grep`` = ``grep_search``, ``web_search`` = ``google_web_search``, ``todo`` =
``write_todos``; ``read_file``, ``write_file``, ``glob``, ``web_fetch`` keep their names; any
other tool (MCP tools: ``mcp__<server>__<tool>``) keeps its own. Argument keys: ``read_file``
``offset``/``limit`` = ``start_line``/``end_line``; ``edit_file`` ``replace_all`` =
``allow_multiple``; ``glob``/``grep`` ``path`` = ``dir_path``, ``grep`` ``glob`` =
``include_pattern``. ``hookSpecificOutput.tool_input`` is mapped back (keys we have no
counterpart for, such as ``is_background``, are dropped with a log line).

**Exit codes**: 0 reads stdout; 2 is Gemini's "system block", with stderr as the reason: it
blocks ``BeforeTool`` and ``BeforeAgent``; on ``AfterTool`` the tool already ran, so the
reason becomes context the agent reads; on ``AfterAgent`` the agent goes on working with the
reason as its next instruction (Gemini's retry: a ``keep_working`` block); elsewhere a warning
shown to the user. Any other exit code is a hook failure (``on_failure``, default ``warn``:
go on with a warning, as Gemini documents it).

**stdout on exit 0**: a JSON object (or a JSON string holding one, as Gemini accepts):
``decision`` ``allow`` | ``approve`` | ``deny`` | ``block`` | ``ask`` with ``reason``,
``continue: false`` with ``stopReason``, ``systemMessage`` (shown to the user),
``suppressOutput``, ``hookSpecificOutput.tool_input`` (``BeforeTool``: merged into the
arguments) and ``hookSpecificOutput.additionalContext`` (context for the agent, ``<`` and ``>``
escaped as Gemini does). Other text on stdout is shown to the user, as Gemini turns it into a
``systemMessage``. ``llm_request``, ``llm_response`` and ``toolConfig`` change the model call
(:mod:`.model`), and a deny on ``BeforeModel`` / ``AfterModel`` ends the turn;
``clearContext`` and ``tailToolCallRequest`` are not supported: logged and ignored. JSON
that is not an object (``true``, ``[]``, ``null``) is a success with no output, as in Gemini.

**Environment** (Gemini's, and no other tool's: :mod:`.tool_identity`):
``GEMINI_PROJECT_DIR``, ``GEMINI_PLANS_DIR``, ``GEMINI_CWD``, ``GEMINI_SESSION_ID`` and
``CLAUDE_PROJECT_DIR``. Gemini CLI reports no version of its own to hooks, so neither do we.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.state import session_dir

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
from ...protocols import CommandProtocol
from ...types import Decision, HookContext
from ..shared.transcript import transcript_path
from .model import with_model_changes
from .tools import GEMINI_TOOLS, TOOLS_FROM_GEMINI

__all__ = [
    "EVENTS_FROM_GEMINI",
    "GEMINI_EVENTS",
    "GEMINI_TOOLS",
    "PROTOCOL",
    "TOOLS_FROM_GEMINI",
    "gemini_blocked",
    "gemini_decision",
    "gemini_environment",
    "gemini_event",
    "gemini_input",
    "gemini_tool_input",
    "our_tool_input",
]

logger = logging.getLogger(__name__)

#: Canonical event -> Gemini CLI ``hook_event_name``.
GEMINI_EVENTS: Final[Mapping[str, str]] = {
    "tool:pre": "BeforeTool",
    "tool:post": "AfterTool",
    "prompt:submit": "BeforeAgent",
    "prompt:complete": "AfterAgent",
    "provider:request": "BeforeModel",
    "provider:response": "AfterModel",
    "session:start": "SessionStart",
    "session:resume": "SessionStart",
    "session:end": "SessionEnd",
    "user:notification": "Notification",
    "context:pre_compact": "PreCompress",
}

#: Gemini CLI event name -> the canonical event its hooks subscribe to; ``None``: no
#: counterpart here (skipped with a warning when read).
EVENTS_FROM_GEMINI: Final[Mapping[str, str | None]] = {
    "BeforeTool": "tool:pre",
    "AfterTool": "tool:post",
    "BeforeAgent": "prompt:submit",
    "AfterAgent": "prompt:complete",
    "BeforeModel": "provider:request",
    "AfterModel": "provider:response",
    "SessionStart": "session:start",
    "SessionEnd": "session:end",
    "Notification": "user:notification",
    "PreCompress": "context:pre_compact",
    "BeforeToolSelection": "provider:request",  # toolConfig: .model
}

#: Gemini CLI's reference gives ``BeforeToolSelection`` no ``decision``; a guard that says "deny"
#: there is still obeyed (the turn ends) rather than ignored.
_BLOCKS: Final = frozenset(
    {"BeforeTool", "BeforeAgent", "BeforeModel", "AfterModel", "BeforeToolSelection"}
)
_FEEDS_AGENT: Final = frozenset({"AfterTool", "AfterAgent"})
_DECISIONS: Final = frozenset({"allow", "approve", "deny", "block", "ask"})
_UNSUPPORTED: Final = ("clearContext",)  # the model hooks' fields: .model
_KEYS_TO_GEMINI: Final[Mapping[str, Mapping[str, str]]] = {
    "edit_file": {"replace_all": "allow_multiple"},
    "glob": {"path": "dir_path"},
    "grep": {"path": "dir_path", "glob": "include_pattern"},
}
_ONLY_GEMINI: Final[Mapping[str, frozenset[str]]] = {
    "bash": frozenset({"dir_path", "is_background"}),
    "edit_file": frozenset({"instruction"}),
}
_ROLES: Final[Mapping[str, str]] = {"assistant": "model", "tool": "user"}


def gemini_event(ctx: HookContext) -> str:
    """The ``hook_event_name`` for ``ctx``."""
    if ctx.alias == "BeforeToolSelection":
        return ctx.alias
    return GEMINI_EVENTS.get(ctx.event) or ctx.alias or ctx.event


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def gemini_tool_input(tool: str | None, args: Mapping[str, Any]) -> dict[str, Any]:
    """Our tool arguments with Gemini CLI's keys."""
    mapped = dict(args)
    for ours, theirs in _KEYS_TO_GEMINI.get(tool or "", {}).items():
        if ours in mapped:
            mapped[theirs] = mapped.pop(ours)
    if tool == "read_file":
        offset, limit = mapped.pop("offset", None), mapped.pop("limit", None)
        start = offset if _is_int(offset) else 1
        if offset is not None:
            mapped["start_line"] = offset
        if _is_int(limit) and _is_int(start):
            mapped["end_line"] = start + limit - 1
    return mapped


def our_tool_input(
    tool: str | None, updated: Mapping[str, Any], original: Mapping[str, Any]
) -> dict[str, Any]:
    """Gemini's ``hookSpecificOutput.tool_input`` with our keys (the inverse of the above);
    keys our tool has no counterpart for are dropped."""
    mapped = dict(updated)
    for ours, theirs in _KEYS_TO_GEMINI.get(tool or "", {}).items():
        if theirs in mapped:
            mapped[ours] = mapped.pop(theirs)
    if tool == "read_file":
        start, end = mapped.pop("start_line", None), mapped.pop("end_line", None)
        if _is_int(start):
            mapped["offset"] = start
        first = start if _is_int(start) else original.get("offset", 1)
        if _is_int(end) and _is_int(first):
            mapped["limit"] = max(1, end - first + 1)
    for key in _ONLY_GEMINI.get(tool or "", frozenset()) & set(mapped):
        logger.debug("Gemini tool_input key %r has no counterpart for %s; dropped", key, tool)
        del mapped[key]
    return mapped


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _tool_response(result: object) -> dict[str, Any]:
    """Our ``tool_result`` as Gemini's ``tool_response`` (``llmContent``, ``returnDisplay``,
    ``error``)."""
    if not isinstance(result, Mapping):
        return {"llmContent": _text(result), "returnDisplay": _text(result)}
    output = _text(result.get("output"))
    response: dict[str, Any] = {"llmContent": output, "returnDisplay": output}
    error = result.get("error")
    if error:
        message = error.get("message") if isinstance(error, Mapping) else error
        response["error"] = {"message": _text(message)}
    return response


def _llm_request(data: Mapping[str, Any]) -> dict[str, Any]:
    messages = data.get("messages")
    return {
        "model": data.get("model", ""),
        "messages": [
            {"role": _ROLES.get(str(m.get("role")), m.get("role")), "content": m["content"]}
            for m in messages or ()
            if isinstance(m, Mapping) and isinstance(m.get("content"), str)
        ],
        "config": {},
    }


def _llm_response(data: Mapping[str, Any]) -> dict[str, Any]:
    response = data.get("response")
    response = response if isinstance(response, Mapping) else {}
    usage = data.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    total = sum(v for v in usage.values() if _is_int(v))
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [_text(response.get("content"))]},
                "finishReason": _text(response.get("stop_reason")) or "STOP",
            }
        ],
        "usageMetadata": {"totalTokenCount": total},
    }


def gemini_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Gemini CLI's stdin object for ``ctx`` (fields in the module docstring)."""
    name = gemini_event(ctx)
    data = ctx.data
    transcript = transcript_path(ctx, project_dir)
    payload: dict[str, Any] = {
        "session_id": ctx.session_id,
        "transcript_path": transcript,
        "cwd": project_dir,
        "hook_event_name": name,
        "timestamp": ctx.timestamp,
    }
    if ctx.tool is not None:
        payload["tool_name"] = GEMINI_TOOLS.get(ctx.tool, ctx.tool)
        payload["tool_input"] = gemini_tool_input(ctx.tool, ctx.args)
        if ctx.tool.startswith("mcp__") and ctx.tool.count("__") >= 2:
            _, server, tool = ctx.tool.split("__", 2)
            payload["mcp_context"] = {"server_name": server, "tool_name": tool}
    if name == "AfterTool":
        payload["tool_response"] = _tool_response(data.get("tool_result"))
    elif name == "BeforeAgent":
        payload["prompt"] = data.get("prompt", "")
    elif name == "AfterAgent":
        payload["prompt"] = data.get("prompt", "")
        payload["prompt_response"] = data.get("response", "")
        payload["stop_hook_active"] = False
    elif name == "BeforeModel":
        payload["llm_request"] = _llm_request(data)
    elif name == "BeforeToolSelection":
        tools = [GEMINI_TOOLS.get(t, t) for t in data.get("tools") or () if isinstance(t, str)]
        offered = {"mode": "AUTO", "allowedFunctionNames": tools}
        payload["llm_request"] = {**_llm_request(data), "toolConfig": offered}
    elif name == "AfterModel":
        payload["llm_request"] = _llm_request(data)
        payload["llm_response"] = _llm_response(data)
    elif name == "SessionStart":
        payload["source"] = "resume" if ctx.event == "session:resume" else "startup"
    elif name == "SessionEnd":
        payload["reason"] = "exit"
    elif name == "Notification":
        source = data.get("source")
        payload["notification_type"] = "ToolPermission" if source == "approval" else source
        payload["message"] = data.get("message", "")
        payload["details"] = {"level": data.get("level"), "source": source}
    elif name == "PreCompress":
        payload["trigger"] = "auto"
    elif ctx.event not in GEMINI_EVENTS:
        payload["data"] = data
    return payload


def gemini_environment(ctx: HookContext, project_dir: str) -> dict[str, str]:
    """What Gemini CLI sets for its hooks (``hookRunner.ts``): ``GEMINI_PROJECT_DIR``,
    ``GEMINI_PLANS_DIR`` (here ``plans`` in the session's state directory), ``GEMINI_CWD``,
    ``GEMINI_SESSION_ID`` and ``CLAUDE_PROJECT_DIR`` (Gemini's alias "for compatibility")."""
    plans = session_dir(ctx.session_id, working_dir=project_dir) / "plans"
    return {
        "GEMINI_PROJECT_DIR": project_dir,
        "GEMINI_PLANS_DIR": str(plans),
        "GEMINI_CWD": project_dir,
        "GEMINI_SESSION_ID": ctx.session_id,
        "CLAUDE_PROJECT_DIR": project_dir,
    }


def gemini_blocked(ctx: HookContext, reason: str, *, label: str) -> Decision:
    """A blocking answer (exit code 2, or ``decision: deny``) on ``ctx``'s event."""
    name = gemini_event(ctx)
    text = reason.strip()
    if name in _BLOCKS:
        return refusal(text, label)
    if not text:
        logger.debug("hook %s: blocking answer without a reason on %s; nothing to do", label, name)
        return Decision(source=label)
    if name == "AfterAgent":  # Gemini retries the turn with the reason as the prompt
        return keep_working(text, label)
    if name in _FEEDS_AGENT:
        logger.warning(
            "hook %s: the tool result cannot be withheld after the tool ran; "
            "the hook's reason is added as context instead",
            label,
        )
        return Decision(context=text, source=label)
    return Decision(message=text, level="warning", source=label)


def _escape(text: str | None) -> str | None:
    return None if text is None else text.replace("<", "&lt;").replace(">", "&gt;")


def gemini_decision(
    ctx: HookContext, stdout: str, *, label: str, truncated: bool = False
) -> Decision | str:
    """The decision in a Gemini CLI hook's stdout (exit code 0), or what is wrong with it."""
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    try:
        answer: object = loads_unique(text)
        if isinstance(answer, str):
            answer = loads_unique(answer)
    except DuplicateKeyError as err:
        return f"stdout JSON is ambiguous ({err}): {text[:200]!r}"
    except ValueError:
        if truncated:
            return f"stdout was cut before it ended: {text[:200]!r}"
        return Decision(message=text, source=label)
    if not isinstance(answer, dict):  # Gemini reads no output from it: a silent success
        logger.debug("hook %s: stdout is a JSON %s; no output", label, type(answer).__name__)
        return Decision(source=label)
    try:
        decided = _interpret(ctx, answer, label)
        return with_model_changes(ctx, gemini_event(ctx), answer, decided, label)
    except BadAnswer as err:
        return f"stdout JSON: {err}"


def _interpret(ctx: HookContext, answer: dict[str, Any], label: str) -> Decision:
    name = gemini_event(ctx)
    common = common_fields(answer)
    go_on, stop_reason, system_message = common.go_on, common.stop_reason, common.system_message
    decision, reason = common.decision, common.reason
    specific = answer_field(answer, "hookSpecificOutput", dict, "an object", "") or {}
    where = "hookSpecificOutput."
    updated = answer_field(specific, "tool_input", dict, "an object", where)
    context = _escape(answer_field(specific, "additionalContext", str, "a string", where))
    if decision is not None and decision not in _DECISIONS:
        raise BadAnswer(f"decision is {decision!r}, expected allow, deny, block or ask")
    for key in (*_UNSUPPORTED, "tailToolCallRequest"):
        if key in specific:
            logger.warning("hook %s: hookSpecificOutput.%s is not supported; ignored", label, key)
    advisory = name not in _BLOCKS | _FEEDS_AGENT | {"BeforeModel", "AfterModel"}

    if go_on is False and not advisory:
        return Decision(
            action="block" if name in _BLOCKS else "continue",
            message=join_lines(stop_reason or reason or f"stopped by hook {label}", system_message),
            level="warning",
            context=context,
            stop=True,
            source=label,
        )
    if decision in ("deny", "block") and not advisory:
        blocked = gemini_blocked(ctx, reason or default_reason(label), label=label)
        return with_system_message(blocked, system_message, context, label)
    modified = None
    if updated is not None and name == "BeforeTool":
        modified = our_tool_input(ctx.tool, updated, ctx.args)
    if decision == "ask" and name == "BeforeTool":
        tool = GEMINI_TOOLS.get(ctx.tool or "", ctx.tool)
        return Decision(
            action="ask",
            message=reason or f"Allow {tool}? (hook {label})",
            modified_args=modified,
            context=context,
            source=label,
        )
    allowed = decision in ("allow", "approve") and name == "BeforeTool"
    return Decision(
        action="modify" if modified else "allow" if allowed else "continue",
        message=system_message,
        modified_args=modified or None,
        context=context,
        source=label,
    )


PROTOCOL: Final = CommandProtocol(
    name="gemini",
    stdin=gemini_input,
    blocked=lambda ctx, stderr, label: gemini_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: gemini_decision(
        ctx, stdout, label=label, truncated=truncated
    ),
    environment=gemini_environment,
)
"""The ``gemini`` protocol of command hooks."""
