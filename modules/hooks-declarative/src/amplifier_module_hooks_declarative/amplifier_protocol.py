"""The module's own protocol, ``amplifier``: what a command hook's process reads on stdin (the
event, tool, arguments, session and the event's data as JSON) and how its stdout on exit code 0
becomes a :class:`~.types.Decision` (``{"action": "allow" | "block" | "modify" | "ask" |
"continue", "message", "context", "modified_args"}``). :data:`~.protocols.AMPLIFIER` puts the
two together; :mod:`.runners.command` runs the process."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from .answers import default_reason, excerpt, refusal
from .types import Action, Decision, HookContext

__all__ = ["amplifier_blocked", "amplifier_decision", "amplifier_input"]

_ACTIONS: Final[dict[str, Action]] = {
    "allow": "allow",
    "continue": "continue",
    "block": "block",
    "deny": "block",
    "modify": "modify",
    "ask": "ask",
}


def amplifier_input(ctx: HookContext) -> dict[str, Any]:
    """The ``amplifier`` protocol's stdin object for ``ctx``."""
    return {
        "event": ctx.alias,
        "tool": ctx.tool,
        "args": ctx.args,
        "session_id": ctx.session_id,
        "timestamp": ctx.timestamp,
        "data": ctx.data,
        "event_name": ctx.event,
    }


def _optional_text(answer: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` present in ``answer``, which must be a string or null."""
    for key in keys:
        value = answer.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValueError(f"`{key}` is {type(value).__name__} {value!r}, expected a string")
        return value
    return None


def amplifier_decision(stdout: str, *, label: str) -> Decision | str:
    """The decision in an ``amplifier`` hook's stdout (exit code 0), or what is wrong with it."""
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    try:
        answer = json.loads(text)
    except ValueError as err:
        return f"stdout is not JSON ({err}): {excerpt(text, lines=2)}"
    if not isinstance(answer, dict):
        return (
            f"stdout is a JSON {type(answer).__name__}, expected an object such as "
            f'{{"action": "allow"}}: {excerpt(text, lines=2)}'
        )
    raw_action = answer.get("action", "continue")
    action = _ACTIONS.get(raw_action) if isinstance(raw_action, str) else None
    if action is None:
        return (
            f"stdout JSON has unknown action {raw_action!r}; "
            "expected allow, block, modify, ask or continue"
        )
    try:
        message = _optional_text(answer, "message")
        context = _optional_text(answer, "context", "additionalContext")
    except ValueError as err:
        return f"stdout JSON: {err}"
    modified = answer.get("modified_args")
    if action == "modify" and not isinstance(modified, dict):
        return (
            "stdout JSON has action modify but modified_args is "
            f"{type(modified).__name__} {modified!r}, expected an object"
        )
    if action == "block":
        return Decision(
            action="block",
            message=message or default_reason(label),
            level="warning",
            context=context,
            source=label,
        )
    return Decision(
        action=action,
        message=message,
        modified_args=modified if action == "modify" else None,
        context=context,
        source=label,
    )


def amplifier_blocked(ctx: HookContext, stderr: str, label: str) -> Decision:
    """The ``amplifier`` protocol's decision for exit code 2: a refusal with its stderr."""
    return refusal(stderr.strip(), label)
