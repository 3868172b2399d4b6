"""The GitHub Copilot hook protocols, so that ``.github/hooks/*.json`` scripts run unchanged.

One file format, two dialects, told apart by the event key a hook was declared under (the
steps' alias, which the protocol reads):

**Copilot CLI and coding agent** (camelCase events: ``preToolUse``, ``postToolUse``,
``sessionStart``, ``sessionEnd``, ``userPromptSubmitted``, ``errorOccurred``, ``agentStop``,
``subagentStop``). stdin: ``timestamp`` (milliseconds since the epoch) and ``cwd``, and per
event ``toolName`` with ``toolArgs`` as JSON *text*, ``toolResult`` (``resultType``,
``textResultForLlm``), ``prompt``, ``source``, ``reason``, ``error``. Only two answers act:
``preToolUse``'s ``{"permissionDecision": "deny", "permissionDecisionReason": ...}`` blocks
the call (``allow`` and ``ask`` are read and change nothing), and ``agentStop`` /
``subagentStop``'s ``{"decision": "block", "reason": ...}`` keeps the agent working; every
other output is ignored. A non-zero exit code is a failure (the default ``warn``: a warning,
the call goes on).

**VS Code** (PascalCase events: ``PreToolUse``, ``PostToolUse``, ``UserPromptSubmit``,
``SessionStart``, ``Stop``, ``SubagentStart``, ``SubagentStop``, ``PreCompact``). stdin:
``timestamp`` (ISO 8601), ``cwd``, ``sessionId``, ``hookEventName``, ``transcript_path``, and
Claude Code's snake_case tool fields ``tool_name``, ``tool_input``, ``tool_use_id``,
``tool_response``. Exit code 2 blocks with stderr as the reason (keeps the agent working on
``Stop``); stdout JSON: ``continue: false`` with ``stopReason`` stops, ``systemMessage`` warns,
``hookSpecificOutput.permissionDecision`` ``allow`` | ``deny`` | ``ask`` (with
``permissionDecisionReason`` and ``updatedInput``), ``additionalContext`` reaches the agent,
``decision: block`` with ``reason`` blocks (keeps working on ``Stop``).

**Tools**: the CLI's ``bash``, ``create``, ``edit``, ``view`` (``toolArgs``: ``command``;
``path``, ``file_text``; ``path``, ``old_str``, ``new_str``; ``path``); VS Code's
``run_in_terminal``, ``create_file``, ``replace_string_in_file``, ``read_file``
(``command``; ``filePath``, ``content``; ``filePath``, ``oldString``, ``newString``;
``filePath``). Other tools keep their names and arguments.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any, Final

from ...answers import BadAnswer, answer_field, keep_working, loads_unique, refusal
from ...protocols import CommandProtocol
from ...types import Action, Decision, HookContext
from ..shared.transcript import transcript_path

__all__ = [
    "CLI_EVENTS",
    "CLI_TOOLS",
    "PROTOCOL",
    "VSCODE_TOOLS",
    "copilot_blocked",
    "copilot_decision",
    "copilot_input",
    "is_cli",
]

#: The CLI's camelCase event -> the canonical event (``*:error``: every error event).
CLI_EVENTS: Final[Mapping[str, str]] = {
    "sessionStart": "session:start",
    "sessionEnd": "session:end",
    "userPromptSubmitted": "prompt:submit",
    "preToolUse": "tool:pre",
    "postToolUse": "tool:post",
    "errorOccurred": "*:error",
    "agentStop": "prompt:complete",
    "subagentStop": "prompt:complete",
    "permissionRequest": "approval:required",
    "notification": "user:notification",
}

#: Our tool name -> the Copilot CLI's.
CLI_TOOLS: Final[Mapping[str, str]] = {
    "bash": "bash",
    "write_file": "create",
    "edit_file": "edit",
    "read_file": "view",
}

#: Our tool name -> VS Code's.
VSCODE_TOOLS: Final[Mapping[str, str]] = {
    "bash": "run_in_terminal",
    "write_file": "create_file",
    "edit_file": "replace_string_in_file",
    "read_file": "read_file",
}

_CLI_KEYS: Final[Mapping[str, Mapping[str, str]]] = {
    "write_file": {"file_path": "path", "path": "path", "content": "file_text"},
    "edit_file": {
        "file_path": "path",
        "path": "path",
        "old_string": "old_str",
        "new_string": "new_str",
    },
    "read_file": {"file_path": "path", "path": "path"},
}
_VSCODE_KEYS: Final[Mapping[str, Mapping[str, str]]] = {
    "write_file": {"file_path": "filePath", "path": "filePath"},
    "edit_file": {
        "file_path": "filePath",
        "path": "filePath",
        "old_string": "oldString",
        "new_string": "newString",
    },
    "read_file": {"file_path": "filePath", "path": "filePath"},
}
_VSCODE_TOOL_EVENTS: Final = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
_VSCODE_BLOCKS: Final = frozenset({"PreToolUse", "UserPromptSubmit"})
_STOPS: Final = frozenset({"Stop", "SubagentStop", "agentStop", "subagentStop"})
_PERMISSIONS: Final = frozenset({"allow", "deny", "ask"})


def is_cli(ctx: HookContext) -> bool:
    """Whether the hook was declared under a Copilot CLI (camelCase) event."""
    return ctx.alias[:1].islower()


def _absolute(path: object, project_dir: str) -> object:
    if isinstance(path, str) and path and not os.path.isabs(path):
        return os.path.normpath(os.path.join(project_dir, path))
    return path


def _renamed(
    tool: str | None, args: Mapping[str, Any], keys: Mapping[str, Mapping[str, str]]
) -> dict[str, Any]:
    names = keys.get(tool or "", {})
    return {names.get(key, key): value for key, value in args.items()}


def _cli_fields(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    data, name = ctx.data, ctx.alias
    fields: dict[str, Any] = {"timestamp": int(time.time() * 1000), "cwd": project_dir}
    if ctx.tool is not None:
        tool = ctx.tool
        fields["toolName"] = CLI_TOOLS.get(tool, tool)
        fields["toolArgs"] = json.dumps(_renamed(tool, ctx.args, _CLI_KEYS))
    if name == "postToolUse":
        result = data.get("tool_result")
        failed = isinstance(result, Mapping) and result.get("success") is False
        output = result.get("output") if isinstance(result, Mapping) else result
        text = output if isinstance(output, str) else json.dumps(output)
        fields["toolResult"] = {
            "resultType": "failure" if failed else "success",
            "textResultForLlm": text,
        }
    elif name == "userPromptSubmitted":
        fields["prompt"] = data.get("prompt", "")
    elif name == "sessionStart":
        fields["source"] = "resume" if ctx.event == "session:resume" else "new"
        fields["initialPrompt"] = data.get("prompt", "")
    elif name == "sessionEnd":
        reason = data.get("reason")
        fields["reason"] = reason if isinstance(reason, str) and reason else "complete"
    elif name == "errorOccurred":
        error = data.get("error")
        message = error.get("message", "") if isinstance(error, Mapping) else str(error or "")
        fields["error"] = {"message": message, "name": "Error", "stack": ""}
    elif name in _STOPS:
        fields["stopHookActive"] = data.get("stop_hook_active") is True
    return fields


def _vscode_fields(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    data, name = ctx.data, ctx.alias
    transcript = transcript_path(ctx, project_dir)
    fields: dict[str, Any] = {
        "timestamp": ctx.timestamp,
        "cwd": project_dir,
        "sessionId": ctx.session_id,
        "hookEventName": name,
        "transcript_path": transcript,
    }
    if ctx.tool is not None or name in _VSCODE_TOOL_EVENTS:
        tool = ctx.tool or ""
        args = _renamed(tool, ctx.args, _VSCODE_KEYS)
        if "filePath" in args:
            args["filePath"] = _absolute(args["filePath"], project_dir)
        fields["tool_name"] = VSCODE_TOOLS.get(tool, tool)
        fields["tool_input"] = args
        call_id = data.get("tool_call_id")
        fields["tool_use_id"] = "" if call_id is None else str(call_id)
    if name == "PostToolUse":
        result = data.get("tool_result")
        output = result.get("output") if isinstance(result, Mapping) else result
        fields["tool_response"] = output if isinstance(output, str) else json.dumps(output)
    elif name == "UserPromptSubmit":
        fields["prompt"] = data.get("prompt", "")
    elif name == "SessionStart":
        fields["source"] = "resume" if ctx.event == "session:resume" else "new"
    elif name in _STOPS:
        fields["stop_hook_active"] = data.get("stop_hook_active") is True
    return fields


def copilot_input(ctx: HookContext, project_dir: str) -> dict[str, Any]:
    """The stdin object for ``ctx`` in the dialect the hook was declared in."""
    if is_cli(ctx):
        return _cli_fields(ctx, project_dir)
    return _vscode_fields(ctx, project_dir)


def _failure(label: str, problem: str) -> Decision:
    return Decision(message=f"hook {label} failed: {problem}", level="warning", source=label)


def copilot_blocked(ctx: HookContext, stderr: str, *, label: str) -> Decision:
    """Exit code 2: a failure in the CLI dialect; in VS Code's, a block with stderr as the
    reason (the agent keeps working on ``Stop``; feedback on ``PostToolUse``)."""
    reason = stderr.strip()
    if is_cli(ctx):
        return _failure(label, f"exit code 2: {reason[:200]}" if reason else "exit code 2")
    name = ctx.alias
    if name in _VSCODE_BLOCKS:
        return refusal(reason, label)
    if name in _STOPS:
        return keep_working(reason or f"hook {label} asks you to continue (exit code 2)", label)
    if not reason:
        return Decision(source=label)
    if name == "PostToolUse":
        return Decision(context=reason, source=label)
    return Decision(message=reason, level="warning", source=label)


def _cli_answer(ctx: HookContext, answer: dict[str, Any], label: str) -> Decision:
    name = ctx.alias
    if name == "preToolUse":
        permission = answer_field(answer, "permissionDecision", str, "allow, deny or ask", "")
        reason = answer_field(answer, "permissionDecisionReason", str, "a string", "")
        if permission is not None and permission not in _PERMISSIONS:
            raise BadAnswer(f"permissionDecision is {permission!r}, expected allow, deny or ask")
        if permission == "deny":
            text = (reason or "").strip() or f"denied by hook {label}"
            return Decision(action="block", message=text, level="warning", source=label)
    elif name in _STOPS and answer.get("decision") == "block":
        reason = answer_field(answer, "reason", str, "a string", "")
        return keep_working((reason or "").strip() or f"hook {label} asks you to continue", label)
    return Decision(source=label)


def _our_args(ctx: HookContext, updated: Mapping[str, Any]) -> dict[str, Any]:
    """VS Code's ``updatedInput`` with our argument names (the original's path key)."""
    inverse = {theirs: ours for ours, theirs in _VSCODE_KEYS.get(ctx.tool or "", {}).items()}
    path_key = "path" if "path" in ctx.args and "file_path" not in ctx.args else "file_path"
    found: dict[str, Any] = {}
    for key, value in updated.items():
        ours = inverse.get(key, key)
        if ours in ("file_path", "path"):
            ours = path_key
        found[ours] = value
    return found


def _vscode_answer(ctx: HookContext, answer: dict[str, Any], label: str) -> Decision:
    name = ctx.alias
    go_on = answer_field(answer, "continue", bool, "true or false", "")
    stop_reason = answer_field(answer, "stopReason", str, "a string", "")
    system_message = answer_field(answer, "systemMessage", str, "a string", "")
    decision = answer_field(answer, "decision", str, "a string", "")
    reason = answer_field(answer, "reason", str, "a string", "")
    specific = answer_field(answer, "hookSpecificOutput", dict, "an object", "") or {}
    where = "hookSpecificOutput."
    permission = answer_field(specific, "permissionDecision", str, "allow, deny or ask", where)
    permission_reason = answer_field(specific, "permissionDecisionReason", str, "a string", where)
    updated = answer_field(specific, "updatedInput", dict, "an object", where)
    context = answer_field(specific, "additionalContext", str, "a string", where)
    if permission is not None and permission not in _PERMISSIONS:
        raise BadAnswer(f"{where}permissionDecision is {permission!r}, expected allow, deny or ask")
    if go_on is False:
        return Decision(
            action="block" if name in _VSCODE_BLOCKS else "continue",
            message=stop_reason or f"stopped by hook {label}",
            level="warning",
            context=context,
            stop=name not in _STOPS,
            source=label,
        )
    if decision == "block":
        text = (reason or "").strip() or f"blocked by hook {label}"
        if name in _STOPS:
            return keep_working(text, label)
        if name in _VSCODE_BLOCKS:
            return Decision(
                action="block", message=text, level="warning", context=context, source=label
            )
        return Decision(context="\n".join(filter(None, [text, context])), source=label)
    modified = _our_args(ctx, updated) if updated is not None and name == "PreToolUse" else None
    if permission == "deny" and name == "PreToolUse":
        text = permission_reason or f"denied by hook {label}"
        return Decision(
            action="block", message=text, level="warning", context=context, source=label
        )
    if permission == "ask" and name == "PreToolUse":
        prompt = permission_reason or f"Allow {ctx.tool or name}? (hook {label})"
        return Decision(
            action="ask", message=prompt, modified_args=modified, context=context, source=label
        )
    action: Action = "modify" if modified else "allow" if permission == "allow" else "continue"
    return Decision(
        action=action,
        message=system_message,
        level="warning" if system_message else "info",
        modified_args=modified,
        context=context,
        source=label,
    )


def copilot_decision(ctx: HookContext, stdout: str, *, label: str) -> Decision | str:
    """The decision in a Copilot hook's stdout (exit code 0), or what is wrong with it."""
    text = stdout.strip()
    if not text or not text.startswith("{"):
        return Decision(source=label)
    try:
        answer = loads_unique(text)
    except ValueError as err:
        return f"stdout starts with '{{' but is not valid JSON ({err}): {text[:200]!r}"
    if not isinstance(answer, dict):  # pragma: no cover - "{" always parses to an object
        return f"stdout is a JSON {type(answer).__name__}, expected an object"
    try:
        if is_cli(ctx):
            return _cli_answer(ctx, answer, label)
        return _vscode_answer(ctx, answer, label)
    except BadAnswer as err:
        return f"stdout JSON: {err}"


PROTOCOL: Final = CommandProtocol(
    name="copilot",
    stdin=copilot_input,
    blocked=lambda ctx, stderr, label: copilot_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: copilot_decision(
        ctx, stdout, label=label
    ),
)
"""The ``copilot`` protocol of command hooks."""
