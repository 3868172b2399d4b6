"""The OpenAI Codex CLI hook protocol, so that Codex hook scripts run unchanged.

Codex's hooks are Claude-shaped (``hook_event_name``, ``tool_input``, exit code 2,
``hookSpecificOutput``), but Codex reads their answers by its own, stricter rules, taken from
its public source (``codex-rs/hooks``: ``events/*.rs``, ``engine/output_parser.rs``) where its
docs are silent. Every difference from Claude Code is listed in ``docs/hook-formats.md``.

**stdin**: ``session_id``, ``turn_id`` (the event data's ``turn_id``, else ``""``),
``transcript_path``, ``cwd``, ``hook_event_name``, ``model`` (the data's ``model``, else
``""``), ``permission_mode`` (``default``); tool events add ``tool_name``, ``tool_input`` and
``tool_use_id``; ``PostToolUse`` ``tool_response``; ``UserPromptSubmit`` ``prompt``;
``Stop`` / ``SubagentStop`` ``stop_hook_active`` and ``last_assistant_message``;
``SessionStart`` ``source``; ``PreCompact`` / ``PostCompact`` ``trigger``.

**Tools**: ``bash`` is ``Bash`` with ``tool_input`` ``{"command": ...}``; ``write_file`` and
``edit_file`` are ``apply_patch`` with ``tool_input`` ``{"command": <the patch>}`` in Codex's
patch format (``*** Begin Patch`` / ``*** Add File:`` or ``*** Update File:`` / ``*** End
Patch``); a matcher also sees ``apply_patch`` as ``Write`` and ``Edit``, as Codex matches it.
Other tools (MCP tools: ``mcp__server__tool``) keep their names and arguments.

**Exit codes**: 0 reads stdout; 2 with a reason on stderr blocks ``PreToolUse``,
``PermissionRequest`` and ``UserPromptSubmit``, keeps the agent working on ``Stop`` /
``SubagentStop`` (the reason its next instruction), is fed to the agent on ``PostToolUse``;
2 with an empty stderr, any other code, a timeout and stdout Codex would refuse are failures
(the default ``warn``: a warning, the call goes on, as Codex fails open).

**stdout on exit 0**: a JSON object with only the keys Codex knows (an unknown key is a
failure); on ``PreToolUse`` ``permissionDecision: deny`` with a non-empty
``permissionDecisionReason`` blocks, ``allow`` only with ``updatedInput`` (which rewrites a
``Bash`` command), ``ask`` and ``continue: false`` are failures (Codex does not support
them there); the legacy ``decision: block`` with a ``reason`` blocks, ``approve`` is a failure.
``additionalContext`` reaches the agent; ``systemMessage`` is a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...answers import BadAnswer, answer_field, keep_working, loads_unique, refusal
from ...protocols import CommandProtocol
from ...session_env import env_file_for
from ...types import Decision, HookContext
from ..shared.event_name import hook_event_name
from ..shared.transcript import transcript_path

__all__ = [
    "CODEX_EVENTS",
    "CODEX_MATCH_NAMES",
    "CODEX_TOOLS",
    "PROTOCOL",
    "codex_blocked",
    "codex_decision",
    "codex_environment",
    "codex_event",
    "codex_input",
    "codex_tool_input",
]

#: Canonical event -> Codex ``hook_event_name`` (``prompt:complete`` of a child session is
#: ``SubagentStop``).
CODEX_EVENTS: Final[Mapping[str, str]] = {
    "tool:pre": "PreToolUse",
    "approval:required": "PermissionRequest",
    "tool:post": "PostToolUse",
    "prompt:submit": "UserPromptSubmit",
    "prompt:complete": "Stop",
    "session:fork": "SubagentStart",
    "session:start": "SessionStart",
    "session:resume": "SessionStart",
    "context:pre_compact": "PreCompact",
    "context:post_compact": "PostCompact",
}

#: Our tool name -> Codex's.
CODEX_TOOLS: Final[Mapping[str, str]] = {
    "bash": "Bash",
    "write_file": "apply_patch",
    "edit_file": "apply_patch",
}

#: Our tool name -> every name a Codex matcher sees it under (its own first).
CODEX_MATCH_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "bash": ("Bash",),
    "write_file": ("apply_patch", "Write", "Edit"),
    "edit_file": ("apply_patch", "Write", "Edit"),
}

_TOOL_EVENTS: Final = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse"})
_STOPS: Final = frozenset({"Stop", "SubagentStop"})
_BLOCKS: Final = frozenset({"PreToolUse", "PermissionRequest", "UserPromptSubmit"})
_PLAIN_TEXT_IS_CONTEXT: Final = frozenset({"UserPromptSubmit", "SessionStart"})
_UNIVERSAL: Final = frozenset({"continue", "stopReason", "suppressOutput", "systemMessage"})
#: The keys Codex accepts in each event's answer (its schemas forbid any other).
_KEYS: Final[Mapping[str, frozenset[str]]] = {
    "PreToolUse": _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "PermissionRequest": _UNIVERSAL | {"hookSpecificOutput"},
    "PostToolUse": _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "UserPromptSubmit": _UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "Stop": _UNIVERSAL | {"decision", "reason"},
    "SubagentStop": _UNIVERSAL | {"decision", "reason"},
    "SessionStart": _UNIVERSAL | {"hookSpecificOutput"},
}
_SPECIFIC_KEYS: Final[Mapping[str, frozenset[str]]] = {
    "PreToolUse": frozenset(
        {
            "hookEventName",
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
            "additionalContext",
        }
    ),
    "PermissionRequest": frozenset({"hookEventName", "decision"}),
    "PostToolUse": frozenset(
        {"hookEventName", "additionalContext", "updatedToolOutput", "updatedMCPToolOutput"}
    ),
    "UserPromptSubmit": frozenset({"hookEventName", "additionalContext"}),
    "SessionStart": frozenset({"hookEventName", "additionalContext"}),
}
_DECISION_KEYS: Final = frozenset(
    {"behavior", "message", "updatedInput", "updatedPermissions", "interrupt"}
)


def codex_event(ctx: HookContext) -> str:
    """The ``hook_event_name`` for ``ctx``: ``SubagentStop`` for ``prompt:complete`` of a
    child session (or a hook declared under that name), else :data:`CODEX_EVENTS`, else the
    name the hook was declared under."""
    return hook_event_name(ctx, CODEX_EVENTS)


def _lines(text: str, mark: str) -> str:
    return "".join(f"{mark}{line}\n" for line in text.splitlines())


def _path(args: Mapping[str, Any]) -> str:
    value = args.get("file_path", args.get("path"))
    return value if isinstance(value, str) else ""


def codex_tool_input(tool: str | None, args: Mapping[str, Any]) -> dict[str, Any]:
    """Our tool arguments as Codex gives them: ``{"command": ...}`` for ``Bash`` and for
    ``apply_patch`` (the write or edit as a patch); other tools' arguments unchanged."""
    if tool == "bash":
        return {"command": args.get("command", "")}
    if tool == "write_file":
        body = _lines(str(args.get("content", "")), "+")
        patch = f"*** Begin Patch\n*** Add File: {_path(args)}\n{body}*** End Patch\n"
        return {"command": patch}
    if tool == "edit_file":
        old = _lines(str(args.get("old_string", args.get("old_str", ""))), "-")
        new = _lines(str(args.get("new_string", args.get("new_str", ""))), "+")
        patch = f"*** Begin Patch\n*** Update File: {_path(args)}\n@@\n{old}{new}*** End Patch\n"
        return {"command": patch}
    return dict(args)


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _tool_response(result: object) -> object:
    if isinstance(result, Mapping) and "output" in result:
        return result.get("output")
    return result


def codex_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """Codex's stdin object for ``ctx`` (fields in the module docstring)."""
    name = codex_event(ctx)
    data = ctx.data
    transcript = transcript_path(ctx, project_dir)
    cwd = data.get("cwd")
    turn = data.get("turn_id")
    payload: dict[str, Any] = {
        "session_id": ctx.session_id,
        "turn_id": turn if isinstance(turn, str) else "" if turn is None else str(turn),
        "transcript_path": transcript,
        "cwd": cwd if isinstance(cwd, str) and cwd else project_dir,
        "hook_event_name": name,
        "model": _text(data, "model"),
        "permission_mode": "default",
    }
    if ctx.tool is not None or name in _TOOL_EVENTS:
        tool = ctx.tool or ""
        payload["tool_name"] = CODEX_TOOLS.get(tool, tool)
        payload["tool_input"] = codex_tool_input(ctx.tool, ctx.args)
        call_id = data.get("tool_call_id")
        payload["tool_use_id"] = "" if call_id is None else str(call_id)
    if name == "PostToolUse":
        payload["tool_response"] = _tool_response(data.get("tool_result"))
    elif name == "UserPromptSubmit":
        payload["prompt"] = data.get("prompt", "")
    elif name in _STOPS:
        payload["stop_hook_active"] = data.get("stop_hook_active") is True
        payload["last_assistant_message"] = _text(data, "response") or None
    elif name == "SessionStart":
        default = "resume" if ctx.event == "session:resume" else "startup"
        payload["source"] = _text(data, "source") or default
    elif name in ("PreCompact", "PostCompact"):
        payload["trigger"] = _text(data, "trigger") or "auto"
    return payload


def codex_environment(ctx: HookContext, project_dir: str) -> dict[str, str]:
    """On ``SessionStart``, ``CODEX_ENV_FILE`` and ``CLAUDE_ENV_FILE``: the session's file of
    ``export NAME=value`` lines whose variables reach later ``bash`` calls; nothing else
    (Codex sets no project variable for its hooks)."""
    if ctx.session_id and codex_event(ctx) == "SessionStart":
        path = str(env_file_for(ctx.session_id, project_dir))
        return {"CODEX_ENV_FILE": path, "CLAUDE_ENV_FILE": path}
    return {}


def _failure(label: str, problem: str) -> Decision:
    """A failed hook as Codex treats it: a warning, and the operation goes on."""
    return Decision(message=f"hook {label} failed: {problem}", level="warning", source=label)


def codex_blocked(ctx: HookContext, stderr: str, *, label: str) -> Decision:
    """Exit code 2 on ``ctx``'s event: a block, a refused stop or feedback, with stderr as the
    reason; without one, a failure (Codex's rule)."""
    name = codex_event(ctx)
    reason = stderr.strip()
    if not reason:
        return _failure(label, f"{name} hook exited with code 2 but wrote no reason to stderr")
    if name in _BLOCKS:
        return refusal(reason, label)
    if name in _STOPS:
        return keep_working(reason, label)
    if name == "PostToolUse":
        return Decision(context=reason, source=label)
    return Decision(message=reason, level="warning", source=label)


def _checked(answer: dict[str, Any], name: str) -> dict[str, Any]:
    """The answer's ``hookSpecificOutput`` (empty when absent), the whole answer checked
    against the keys Codex accepts for the event.

    :raises BadAnswer: a key Codex does not know, a wrong type, a missing ``hookEventName``.
    """
    for key in answer:
        if key not in _KEYS.get(name, _UNIVERSAL):
            raise BadAnswer(f"unknown key {key!r} for {name} (Codex refuses the answer)")
    for key, kind, expected in (
        ("continue", bool, "true or false"),
        ("suppressOutput", bool, "true or false"),
        ("stopReason", str, "a string"),
        ("systemMessage", str, "a string"),
        ("reason", str, "a string"),
        ("decision", str, "a string"),
    ):
        answer_field(answer, key, kind, expected, "")
    specific = answer_field(answer, "hookSpecificOutput", dict, "an object", "")
    if specific is None:
        return {}
    where = "hookSpecificOutput."
    for key in specific:
        if key not in _SPECIFIC_KEYS.get(name, frozenset()):
            raise BadAnswer(f"unknown key {where}{key} for {name} (Codex refuses the answer)")
    declared = answer_field(specific, "hookEventName", str, "a string", where)
    if declared is None:
        raise BadAnswer(f"{where}hookEventName is missing")
    if declared != name:
        raise BadAnswer(f"{where}hookEventName is {declared!r} on a {name} event")
    answer_field(specific, "additionalContext", str, "a string", where)
    answer_field(specific, "permissionDecisionReason", str, "a string", where)
    return dict(specific)


def _trimmed(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _pre_tool_use(
    ctx: HookContext, answer: dict[str, Any], specific: dict[str, Any], label: str
) -> Decision:
    _refuse_unsupported_controls(answer)
    context = specific.get("additionalContext")
    permission = specific.get("permissionDecision")
    reason = specific.get("permissionDecisionReason")
    updated = specific.get("updatedInput")
    if permission is not None or reason is not None or updated is not None:
        return _permission_decision(ctx, permission, reason, updated, context, label)
    return _legacy_decision(answer, context, label)


def _refuse_unsupported_controls(answer: dict[str, Any]) -> None:
    """What Codex refuses on PreToolUse: ``continue:false``, ``stopReason``,
    ``suppressOutput``."""
    if answer.get("continue") is False:
        raise BadAnswer("PreToolUse hook returned unsupported continue:false")
    if "stopReason" in answer:
        raise BadAnswer("PreToolUse hook returned unsupported stopReason")
    if answer.get("suppressOutput") is True:
        raise BadAnswer("PreToolUse hook returned unsupported suppressOutput")


def _permission_decision(
    ctx: HookContext,
    permission: object,
    reason: object,
    updated: object,
    context: object,
    label: str,
) -> Decision:
    """``hookSpecificOutput.permissionDecision`` (with its reason and ``updatedInput``)."""
    context_text = context if isinstance(context, str) else None
    if updated is not None and permission != "allow":
        raise BadAnswer("PreToolUse hook returned updatedInput without permissionDecision:allow")
    if permission == "allow":
        if updated is None:
            raise BadAnswer("PreToolUse hook returned unsupported permissionDecision:allow")
        return Decision(
            action="modify",
            modified_args=_our_input(ctx, updated),
            context=context_text,
            source=label,
        )
    if permission == "ask":
        raise BadAnswer("PreToolUse hook returned unsupported permissionDecision:ask")
    if permission == "deny":
        text = _trimmed(reason)
        if text is None:
            raise BadAnswer(
                "PreToolUse hook returned permissionDecision:deny without a non-empty "
                "permissionDecisionReason"
            )
        return Decision(
            action="block", message=text, level="warning", context=context_text, source=label
        )
    if permission is None:
        raise BadAnswer(
            "PreToolUse hook returned permissionDecisionReason without permissionDecision"
        )
    raise BadAnswer(f"permissionDecision is {permission!r}, expected allow, deny or ask")


def _legacy_decision(answer: dict[str, Any], context: object, label: str) -> Decision:
    """The older top-level ``decision`` / ``reason`` pair."""
    context_text = context if isinstance(context, str) else None
    decision, legacy_reason = answer.get("decision"), answer.get("reason")
    if decision == "approve":
        raise BadAnswer("PreToolUse hook returned unsupported decision:approve")
    if decision == "block":
        text = _trimmed(legacy_reason)
        if text is None:
            raise BadAnswer("PreToolUse hook returned decision:block without a non-empty reason")
        return Decision(
            action="block", message=text, level="warning", context=context_text, source=label
        )
    if decision is not None:
        raise BadAnswer(f"decision is {decision!r}, expected block or approve")
    if legacy_reason is not None:
        raise BadAnswer("PreToolUse hook returned reason without decision")
    return Decision(context=context_text, source=label)


def _our_input(ctx: HookContext, updated: object) -> dict[str, Any]:
    """``updatedInput`` as our arguments: a ``Bash`` command; other tools' inputs as given
    (an ``apply_patch`` patch cannot be turned back into a write here).

    :raises BadAnswer: not an object, or a patch.
    """
    if not isinstance(updated, dict):
        raise BadAnswer("hookSpecificOutput.updatedInput is not an object")
    if ctx.tool == "bash":
        command = updated.get("command")
        if not isinstance(command, str):
            raise BadAnswer("hookSpecificOutput.updatedInput.command is not a string")
        return {"command": command}
    if ctx.tool in ("write_file", "edit_file"):
        raise BadAnswer("an apply_patch updatedInput cannot be applied to a file tool here")
    return dict(updated)


def _permission_request(answer: dict[str, Any], specific: dict[str, Any], label: str) -> Decision:
    for key, problem in (("stopReason", "stopReason"), ("suppressOutput", "suppressOutput")):
        if key in answer and answer[key] not in (None, False):
            raise BadAnswer(f"PermissionRequest hook returned unsupported {problem}")
    if answer.get("continue") is False:
        raise BadAnswer("PermissionRequest hook returned unsupported continue:false")
    decision = answer_field(specific, "decision", dict, "an object", "hookSpecificOutput.")
    if decision is None:
        return Decision(source=label)
    for key in decision:
        if key not in _DECISION_KEYS:
            raise BadAnswer(f"unknown key hookSpecificOutput.decision.{key}")
    for key in ("updatedInput", "updatedPermissions"):
        if decision.get(key) is not None:
            raise BadAnswer(f"PermissionRequest hook returned unsupported {key}")
    if decision.get("interrupt") is True:
        raise BadAnswer("PermissionRequest hook returned unsupported interrupt:true")
    behavior = decision.get("behavior")
    if behavior == "allow":
        return Decision(action="allow", source=label)
    if behavior == "deny":
        text = _trimmed(decision.get("message")) or "PermissionRequest hook denied approval"
        return Decision(action="block", message=text, level="warning", source=label)
    raise BadAnswer(f"hookSpecificOutput.decision.behavior is {behavior!r}, expected allow or deny")


def _with_block_reason(answer: dict[str, Any], name: str) -> str | None:
    """The reason of ``decision: block``, ``None`` without a block.

    :raises BadAnswer: a block without a non-empty reason, another decision.
    """
    decision = answer.get("decision")
    if decision is None:
        return None
    if decision != "block":
        raise BadAnswer(f"decision is {decision!r}, expected block")
    text = _trimmed(answer.get("reason"))
    if text is None:
        raise BadAnswer(f"{name} hook returned decision:block without a non-empty reason")
    return text


def _interpret(ctx: HookContext, name: str, answer: dict[str, Any], label: str) -> Decision:
    specific = _checked(answer, name)
    system_message = answer.get("systemMessage")
    if name == "PreToolUse":
        decided = _pre_tool_use(ctx, answer, specific, label)
    elif name == "PermissionRequest":
        decided = _permission_request(answer, specific, label)
    elif name in _STOPS:
        if answer.get("continue") is False:  # the agent stops, whatever another hook says
            decided = Decision(message=answer.get("stopReason"), level="warning", source=label)
        else:
            reason = _with_block_reason(answer, name)
            decided = Decision(source=label) if reason is None else keep_working(reason, label)
    else:
        if name == "PostToolUse" and answer.get("suppressOutput") is True:
            raise BadAnswer("PostToolUse hook returned unsupported suppressOutput")
        context = specific.get("additionalContext")
        if answer.get("continue") is False:
            stop_reason = answer.get("stopReason") or f"stopped by hook {label}"
            return Decision(
                action="block" if name in _BLOCKS else "continue",
                message=stop_reason,
                level="warning",
                context=context,
                stop=True,
                source=label,
            )
        reason = _with_block_reason(answer, name) if "decision" in _KEYS.get(name, ()) else None
        if reason is None and name == "PostToolUse" and answer.get("reason") is not None:
            raise BadAnswer("PostToolUse hook returned reason without decision")
        if reason is not None and name in _BLOCKS:
            decided = Decision(
                action="block", message=reason, level="warning", context=context, source=label
            )
        elif reason is not None:  # PostToolUse: the feedback replaces what the agent reads
            decided = Decision(context="\n".join(filter(None, [reason, context])), source=label)
        else:
            decided = Decision(context=context, source=label)
    if isinstance(system_message, str) and system_message and not decided.message:
        return Decision(
            action=decided.action,
            message=system_message,
            level="warning",
            modified_args=decided.modified_args,
            context=decided.context,
            stop=decided.stop,
            source=label,
            keep_working=decided.keep_working,
        )
    return decided


def codex_decision(
    ctx: HookContext, stdout: str, *, label: str, truncated: bool = False
) -> Decision | str:
    """The decision in a Codex hook's stdout (exit code 0), or why Codex would refuse it (a
    failure: the operation goes on with a warning)."""
    name = codex_event(ctx)
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    if not text.startswith(("{", "[")):
        if truncated:
            return f"stdout was cut before it ended: {text[:200]!r}"
        if name in _STOPS:
            return f"hook returned invalid {name} JSON output: {text[:200]!r}"
        if name in _PLAIN_TEXT_IS_CONTEXT:
            return Decision(context=text, source=label)
        return Decision(source=label)
    try:
        answer = loads_unique(text)
    except ValueError as err:
        return f"hook returned invalid {name} JSON output ({err}): {text[:200]!r}"
    if not isinstance(answer, dict):
        return f"hook returned invalid {name} JSON output: a JSON {type(answer).__name__}"
    try:
        return _interpret(ctx, name, answer, label)
    except BadAnswer as err:
        return f"stdout JSON: {err}"


PROTOCOL: Final = CommandProtocol(
    name="codex",
    stdin=codex_input,
    blocked=lambda ctx, stderr, label: codex_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: codex_decision(
        ctx, stdout, label=label, truncated=truncated
    ),
    environment=codex_environment,
)
"""The ``codex`` protocol of command hooks."""
