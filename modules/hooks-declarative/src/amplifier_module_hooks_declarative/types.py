"""What every declarative hook runner receives and returns.

A runner (command, matcher, llm) gets a :class:`HookContext` and returns a :class:`Decision`.
The dispatcher turns the decisions of one event's hooks into one ``HookResult``. Runners never
raise for a failure of the hook itself (a crash, a timeout, bad output): they return
:func:`failure_decision`, which applies the hook's ``on_failure`` policy.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .receipt_notes import note_failure

__all__ = [
    "Action",
    "Decision",
    "HookContext",
    "OnFailure",
    "Runner",
    "failure_decision",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

Action = Literal["continue", "allow", "block", "modify", "ask"]
OnFailure = Literal["warn", "block", "ignore"]


@dataclass(frozen=True, slots=True)
class HookContext:
    """One event as a declarative hook sees it.

    ``event`` is the canonical name (``tool:pre``); ``alias`` the PascalCase name when one exists
    (``PreToolUse``), else the canonical name. ``tool`` and ``args`` come from ``tool_name`` /
    ``tool_input`` (``None`` / ``{}`` for events without a tool). ``data`` is the full event data.
    ``environment``: variables the session adds for its command hooks (an observer's
    ``TRACEPARENT``, so a hook's own spans join the session's trace).
    """

    event: str
    alias: str
    data: dict[str, Any]
    session_id: str
    project_dir: str
    tool: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    timestamp: str = ""
    environment: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Decision:
    """What one hook decided.

    ``allow`` and ``continue`` both let the operation go on (``allow`` is explicit, and in a
    Claude Code ``PreToolUse`` it skips the remaining permission prompt); ``block`` denies with
    ``message`` as the reason; ``modify`` merges ``modified_args`` into ``tool_input``; ``ask``
    asks the human. ``context`` is text added to the agent's context; ``message`` without a
    block is shown to the user at ``level``. ``stop`` (Claude Code ``continue: false``) ends the
    turn with ``message`` as the reason. ``keep_working`` marks a ``block`` of the agent's
    stop (Claude Code's ``Stop`` ``decision: block``, Gemini's ``AfterAgent`` deny, Cursor's
    ``followup_message``): the agent goes on with ``message`` as its next instruction.
    ``replaced_data``: event data keys whose values the hook replaces whole (a
    ``PostToolUse`` hook's new tool output: ``tool_result``), see :mod:`.tool_output`.
    ``notice``: a message for the user beside a block's reason (hook-shell's ``systemMessage``
    of a deny). ``source`` labels the hook (file and index).
    """

    action: Action = "continue"
    message: str | None = None
    level: Literal["info", "warning", "error"] = "info"
    modified_args: dict[str, Any] | None = None
    context: str | None = None
    stop: bool = False
    source: str = ""
    keep_working: bool = False
    replaced_data: dict[str, Any] | None = None
    interrupt: bool = False  # a block that also ends the turn (see :mod:`.interrupt`)
    notice: str | None = None


def failure_decision(on_failure: OnFailure, source: str, problem: str) -> Decision:
    """The decision for a hook that failed (crashed, timed out, printed garbage, missing).

    ``warn`` logs and shows a warning and lets the operation go on; ``block`` blocks it with the
    problem as the reason; ``ignore`` logs at debug level only. Never silent: even ``ignore``
    leaves a log record.
    """
    text = f"hook {source} failed: {problem}"
    note_failure("error", problem)
    if on_failure == "block":
        logger.warning("%s; blocking (on_failure: block)", text)
        return Decision(action="block", message=text, level="error", source=source)
    if on_failure == "ignore":
        logger.debug("%s; ignored (on_failure: ignore)", text)
        return Decision(source=source)
    logger.warning("%s; continuing (on_failure: warn)", text)
    return Decision(message=text, level="warning", source=source)


class Runner(Protocol):
    """A configured hook: ``await runner.run(context)`` never raises for a hook failure."""

    label: str

    async def run(self, context: HookContext) -> Decision: ...
