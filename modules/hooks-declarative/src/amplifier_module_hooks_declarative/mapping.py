"""Names and results: which kernel event a declared name means, and what the decisions of one
event's hooks become as one ``HookResult``.

Event names. A hooks file may key its lists by

* the app-cli PascalCase names (:data:`PASCAL_EVENTS`): ``PreToolUse`` -> ``tool:pre`` ...;
  ``Error`` means every ``*:error`` event;
* Claude Code's names (:data:`CLAUDE_EVENTS`): ``UserPromptSubmit`` -> ``prompt:submit``,
  ``PermissionRequest`` -> ``approval:required``, ``PermissionDenied`` -> ``approval:denied``,
  ``PostToolUseFailure`` -> ``tool:error``,
  ``Stop`` -> ``prompt:complete`` of a top-level session (the agent has finished answering
  the prompt), ``SubagentStop`` -> ``prompt:complete`` of a child session (one with a
  ``parent_id``), ``SubagentStart`` -> ``session:fork``, ``SessionEnd`` -> ``session:end``,
  ``Notification`` -> ``user:notification``, ``PreCompact`` / ``PostCompact`` ->
  ``context:pre_compact`` / ``context:post_compact``. Claude Code events our kernels never
  fire (:data:`NEVER_FIRED`) map to ``None``: accepted, skipped with a warning. In a Claude
  Code block ``SessionStart`` also covers ``session:resume``, and its matcher selects by source
  (``startup`` for ``session:start``, ``resume`` for ``session:resume``), as in Claude Code;
* canonical names (``tool:pre``), including events of third-party modules (``my_tool:done``).

Results. Decisions are combined in declaration order into an :class:`Outcome`; the strongest
wins: block > ask > modify > allow > continue, and nothing is dropped on the way:

================  =============================================================================
decision          HookResult
================  =============================================================================
block             ``deny``, ``reason`` = the message(s), ``source`` = the hook's label (on
                  amplifier-core 2.0.2, which has no ``source``: ``user_message_source``); on
                  ``approval:required`` with ``decision: "deny"`` in the data, and on
                  ``prompt:complete`` a ``keep_working`` block adds ``keep_working: true``
stop              ``deny`` with the stop reason (Claude Code ``continue: false``)
ask               ``ask_user``, ``approval_prompt`` = the message(s), options Allow once /
                  Allow always / Deny
modify            ``modify``, ``modified_args`` merged into ``tool_input`` and ``input`` (into
                  the event data for events without a tool); on a conflict the later hook wins
allow             on ``approval:required``: ``modify`` with ``decision: "allow"`` in the data
                  (the approval gate grants without asking); elsewhere as continue
allow, continue   ``continue`` (no result at all when nothing else is said)
message           a user message at the decision's level, its source the hook's label
context           a context injection (system role) naming the hook and the event
================  =============================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from amplifier_core import events as kernel_events
from amplifier_core.models import ContextInjection, HookResult

from .instructions import INSTRUCTIONS_EVENT, is_instructions, load_reason
from .tool_output import merge_replacements
from .types import Decision

__all__ = [
    "APPROVAL_EVENT",
    "APPROVAL_OPTIONS",
    "CLAUDE_EVENTS",
    "ERROR_PATTERN",
    "KEEP_WORKING",
    "KNOWN_EVENTS",
    "MATCH_FIELDS",
    "NEVER_FIRED",
    "PASCAL_EVENTS",
    "STOP_EVENT",
    "Outcome",
    "alias_of",
    "applies_to",
    "apply_modification",
    "event_injections",
    "is_tool_event",
    "match_target",
    "notification_type",
    "to_hook_result",
]

ERROR_PATTERN: Final = "*:error"
"""What ``Error`` stands for: every ``*:error`` event."""

#: The app-cli proposal's PascalCase event names.
PASCAL_EVENTS: Final[dict[str, str]] = {
    "PreToolUse": "tool:pre",
    "PostToolUse": "tool:post",
    "SessionStart": "session:start",
    "SessionStop": "session:end",
    "PromptSubmit": "prompt:submit",
    "ResponseComplete": "prompt:complete",
    "Error": ERROR_PATTERN,
    "Checkpoint": "session:checkpoint",
    "ModelSwitch": "provider:switch",
    "MemoryUpdate": "memory:update",
}

#: Claude Code hook events that nothing in our session corresponds to: a hooks file may name
#: them (Claude Code settings run unchanged) and their hooks are skipped with a warning.
NEVER_FIRED: Final[tuple[str, ...]] = (
    "Setup",
    "UserPromptExpansion",
    "PostToolBatch",
    "StopFailure",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
)

#: Claude Code's hook event names; ``None``: no counterpart here (skipped with a warning).
CLAUDE_EVENTS: Final[dict[str, str | None]] = {
    "PreToolUse": "tool:pre",
    "PermissionRequest": "approval:required",
    "PermissionDenied": "approval:denied",
    "PostToolUse": "tool:post",
    "PostToolUseFailure": "tool:error",
    "UserPromptSubmit": "prompt:submit",
    "Stop": "prompt:complete",
    "SubagentStart": "session:fork",
    "SubagentStop": "prompt:complete",
    "SessionStart": "session:start",
    "SessionEnd": "session:end",
    "Notification": "user:notification",
    "PreCompact": "context:pre_compact",
    "PostCompact": "context:post_compact",
    "InstructionsLoaded": INSTRUCTIONS_EVENT,  # a memory file read: .instructions
    "ConfigChange": "config:change",  # a hook file changed mid-session: .reload
    **dict.fromkeys(NEVER_FIRED),
}

#: What a Claude Code matcher is matched against on events without a tool (Claude Code's
#: rule): the event data key holding it. ``SessionStart`` is split by source when the file
#: is read (``startup`` / ``resume``), so it needs none here.
_TOOL_MATCHED: Final = frozenset(
    {"tool:pre", "tool:post", "tool:error", "approval:required", "approval:denied"}
)

MATCH_FIELDS: Final[dict[str, str]] = {
    "user:notification": "notification_type",
    "context:pre_compact": "trigger",
    "context:post_compact": "trigger",
    "session:end": "reason",
    "session:fork": "agent_type",
    "prompt:complete": "agent_type",
    INSTRUCTIONS_EVENT: "load_reason",
    "config:change": "source",
}

#: Names that share a kernel event and apply to only one kind of session: ``Stop`` to a
#: top-level session, ``SubagentStop`` to a child session (its events carry ``parent_id``).
_TOP_LEVEL_ONLY: Final = frozenset({"Stop"})
_CHILD_ONLY: Final = frozenset({"SubagentStop"})

#: Every canonical event the kernels fire (amplifier-core's ``ALL_EVENTS`` and the app-cli ones).
KNOWN_EVENTS: Final[frozenset[str]] = frozenset(
    {
        *kernel_events.ALL_EVENTS,
        "session:checkpoint",
        "provider:switch",
        "memory:update",
    }
)

STOP_EVENT: Final = "prompt:complete"
"""Where a ``keep_working`` block (Claude Code's ``Stop`` / ``SubagentStop``, Gemini's
``AfterAgent``, Cursor's ``followup_message``) means "keep working": a deny whose data holds
:data:`KEEP_WORKING`; its reason is the agent's next instruction on loop-session, context for
the next request on orchestrators that ignore the result."""

KEEP_WORKING: Final = "keep_working"
"""The key of a ``prompt:complete`` deny's data that sends the agent back to work."""

APPROVAL_EVENT: Final = "approval:required"
"""Where an ``allow`` or a ``block`` decides: the kernel's approval gate grants or denies
without asking the human when the combined result's data holds ``decision: "allow"`` or
``decision: "deny"``."""

APPROVAL_OPTIONS: Final[tuple[str, ...]] = ("Allow once", "Allow always", "Deny")
"""The options an ``ask`` decision offers the human."""

_ALIAS_OF: Final[dict[str, str]] = {
    canonical: alias for alias, canonical in PASCAL_EVENTS.items() if canonical != ERROR_PATTERN
}
_LEVELS: Final = {"info": 0, "warning": 1, "error": 2}
_HAS_MESSAGE_LIST: Final = "user_messages" in HookResult.model_fields
_HAS_SOURCE: Final = "source" in HookResult.model_fields


def alias_of(event: str) -> str:
    """The PascalCase name of a canonical event (``Error`` for ``*:error`` events), else the
    canonical name itself."""
    alias = _ALIAS_OF.get(event)
    if alias is not None:
        return alias
    return "Error" if event.endswith(":error") else event


def applies_to(alias: str, data: dict[str, Any]) -> bool:
    """False when the name ``alias`` was declared under does not apply to this event:
    ``Stop`` in a child session, ``SubagentStop`` in a top-level one, and either when the turn
    did not end normally (the event's ``status`` is ``cancelled``, ``error`` or
    ``incomplete``: Claude Code runs no Stop hook after an interrupt or a failure);
    ``InstructionsLoaded`` on a ``context:include`` that is not a memory file."""
    if alias == "InstructionsLoaded":
        return is_instructions(data)
    if alias in _TOP_LEVEL_ONLY or alias in _CHILD_ONLY:
        status = data.get("status", "completed")
        if isinstance(status, str) and status != "completed":
            return False
    if alias in _TOP_LEVEL_ONLY:
        return not data.get("parent_id")
    if alias in _CHILD_ONLY:
        return bool(data.get("parent_id"))
    return True


def match_target(event: str, tool: str | None, data: dict[str, Any]) -> str | None:
    """What a group's Claude Code ``matcher`` is matched against: the tool name (``""`` on a
    tool or approval event about no tool, which only ``*`` or an empty matcher takes), else
    the event's field in :data:`MATCH_FIELDS`; ``None``: the matcher does not apply (the group
    runs)."""
    if tool is not None:
        return tool
    if event in _TOOL_MATCHED:  # about no tool: only a matcher that takes every name runs
        return ""
    key = MATCH_FIELDS.get(event)
    if key is None:
        return None
    if key == "notification_type":
        return notification_type(data)
    if key == "load_reason":
        return load_reason(data)
    value = data.get(key)
    if value is None and key == "agent_type":
        metadata = data.get("metadata")
        value = metadata.get("agent_type") if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else None


def notification_type(data: dict[str, Any]) -> str:
    """Claude Code's ``notification_type`` of a ``user:notification``: the data's own, else
    ``permission_prompt`` when the approval gate raised it, else the notification's source."""
    given = data.get("notification_type")
    if isinstance(given, str) and given:
        return given
    source = data.get("source")
    if source == "approval":
        return "permission_prompt"
    return source if isinstance(source, str) else ""


def is_tool_event(data: dict[str, Any]) -> bool:
    """True when the event concerns a tool call (its data has ``tool_name`` or ``tool_input``)."""
    return "tool_input" in data or "tool_name" in data


def apply_modification(data: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    """``data`` with ``modified`` merged into ``tool_input`` and ``input`` (tool events) or into
    the data itself (other events)."""
    if not is_tool_event(data):
        return {**data, **modified}
    current = data.get("tool_input", data.get("input"))
    args = {**(current if isinstance(current, dict) else {}), **modified}
    return {**data, "tool_input": args, "input": args}


@dataclass(slots=True)
class Outcome:
    """The decisions of one event's hooks so far, combined in declaration order."""

    blocks: list[Decision] = field(default_factory=list)
    asks: list[Decision] = field(default_factory=list)
    modified: dict[str, Any] | None = None
    allowed: bool = False
    messages: list[Decision] = field(default_factory=list)
    contexts: list[Decision] = field(default_factory=list)
    replaced: dict[str, Any] | None = None  # event data keys replaced whole (tool output)
    answers: int = 0
    """Decisions that answered with a context, even an empty one (``context`` not ``None``):
    hook-shell's bridge returns at the first, whatever its text (:mod:`.dispatch`)."""

    @property
    def blocked(self) -> bool:
        return bool(self.blocks)

    def add(self, decision: Decision) -> bool:
        """Take ``decision`` into account; return True when it modified the arguments."""
        action = decision.action
        if action == "block" or decision.stop:
            self.blocks.append(decision)
            modified = False
            if decision.notice:  # shown to the user beside the reason
                self.messages.append(Decision(message=decision.notice, source=decision.source))
        else:
            # modify, and also ask or allow with new arguments (Claude Code's updatedInput)
            modified = bool(decision.modified_args) and action in ("modify", "ask", "allow")
            if modified:
                self.modified = {**(self.modified or {}), **(decision.modified_args or {})}
            if action == "ask":
                self.asks.append(decision)
            else:
                if action == "allow":
                    self.allowed = True
                if decision.message:
                    self.messages.append(decision)
        if decision.context is not None:
            self.answers += 1
        if decision.context:
            self.contexts.append(decision)
        if decision.replaced_data is not None and action != "block" and not decision.stop:
            self.replaced = merge_replacements(self.replaced, decision)
        return modified

    @property
    def empty(self) -> bool:
        """Nothing to tell the kernel: every hook continued or allowed silently."""
        return not (
            self.blocks
            or self.asks
            or self.modified
            or self.messages
            or self.contexts
            or self.replaced is not None
        )


def event_injections(outcome: Outcome, event: str) -> list[ContextInjection]:
    """The outcome's context texts as injections naming their hook and the event."""
    return [
        ContextInjection(content=d.context or "", hook_name=d.source or "unknown", event=event)
        for d in outcome.contexts
        if d.context and d.context.strip()
    ]


def _message_fields(decisions: list[Decision]) -> dict[str, Any]:
    if not decisions:
        return {}
    fields: dict[str, Any] = {
        "user_message": "\n".join(d.message or "" for d in decisions),
        "user_message_level": max((d.level for d in decisions), key=_LEVELS.__getitem__),
        "user_message_source": decisions[0].source or None,
    }
    if _HAS_MESSAGE_LIST:  # each message with its own level and source
        from amplifier_core.models import UserMessage  # absent from amplifier-core 2.0.2

        fields["user_messages"] = [
            UserMessage(message=d.message or "", level=d.level, source=d.source or "hook")
            for d in decisions
        ]
    return fields


def _texts(decisions: list[Decision], fallback: str) -> str:
    texts = list(dict.fromkeys(d.message for d in decisions if d.message))
    return "; ".join(texts) if texts else fallback


def _name_source(fields: dict[str, Any], source: str | None) -> None:
    """Name the hook a deny or ask came from: in ``source`` on our kernel; on a kernel whose
    results have none (amplifier-core 2.0.2) in ``user_message_source``, unless a message
    already names its own, so that the orchestrator and the logs can still say which hook."""
    if not source:
        return
    if _HAS_SOURCE:
        fields["source"] = source
    elif not fields.get("user_message_source"):
        fields["user_message_source"] = source


def to_hook_result(outcome: Outcome, event: str, data: dict[str, Any]) -> HookResult | None:
    """One ``HookResult`` for the whole outcome (see the table in the module docstring), or
    ``None`` when every hook let the event pass without a word."""
    if outcome.empty and not (outcome.allowed and event == APPROVAL_EVENT):
        return None
    fields: dict[str, Any] = _message_fields(outcome.messages)
    injections = event_injections(outcome, event)
    if injections:  # the scalar too, for kernels that read only context_injection
        fields["context_injections"] = injections
        fields["context_injection"] = "\n\n".join(i.content for i in injections)
    if outcome.blocks:
        first = outcome.blocks[0]
        fields.update(
            action="deny",
            reason=_texts(
                outcome.blocks, f"{'stopped' if first.stop else 'blocked'} by hook {first.source}"
            ),
        )
        if event == APPROVAL_EVENT:  # a decision of the approval, not a failure
            fields["data"] = {**data, "decision": "deny"}
        elif event == STOP_EVENT and any(d.keep_working for d in outcome.blocks):
            fields["data"] = {**data, KEEP_WORKING: True}
        _name_source(fields, first.source)
        return HookResult(**fields)
    new_data = apply_modification(data, outcome.modified) if outcome.modified else None
    if outcome.replaced is not None:
        new_data = {**(data if new_data is None else new_data), **outcome.replaced}
    if outcome.asks:
        first = outcome.asks[0]
        fields.update(
            action="ask_user",
            approval_prompt=_texts(outcome.asks, f"Allow this {event} (hook {first.source})?"),
            approval_options=list(APPROVAL_OPTIONS),
        )
        if new_data is not None:
            fields["data"] = new_data
        _name_source(fields, first.source)
        return HookResult(**fields)
    if event == APPROVAL_EVENT and outcome.allowed:  # PermissionRequest: allow, not asked
        granted = {**(new_data if new_data is not None else data), "decision": "allow"}
        return HookResult(action="modify", data=granted, **fields)
    if new_data is not None:
        return HookResult(action="modify", data=new_data, **fields)
    if injections:
        return HookResult(action="inject_context", **fields)
    return HookResult(action="continue", **fields)
