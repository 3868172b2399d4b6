"""Canonical event names, the ``ALL_EVENTS`` tuple and the PascalCase aliases.

Canonical names use the ``namespace:action`` colon form of the Amplifier ecosystem. The ten
PascalCase names of the app-cli hooks proposal (``PreToolUse``, ``SessionStart`` ...) are
accepted wherever an event name is accepted and resolve to canonical names through
:func:`canonical`. ``Error`` is special: it stands for every ``*:error`` event, so it resolves
to the subscription pattern ``*:error``.

What each event carries is documented in :mod:`amplifier_core.catalogue` and ``docs/events.md``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ALL_EVENTS",
    "APPROVAL_DENIED",
    "APPROVAL_GRANTED",
    "APPROVAL_REQUIRED",
    "ARTIFACT_READ",
    "ARTIFACT_WRITE",
    "CANCEL_COMPLETED",
    "CANCEL_REQUESTED",
    "CONTENT_BLOCK_DELTA",
    "CONTENT_BLOCK_END",
    "CONTENT_BLOCK_START",
    "CONTEXT_COMPACTION",
    "CONTEXT_INCLUDE",
    "CONTEXT_POST_COMPACT",
    "CONTEXT_PRE_COMPACT",
    "EXECUTION_END",
    "EXECUTION_START",
    "HOOK_OBSERVED",
    "LLM_REQUEST",
    "LLM_RESPONSE",
    "MEMORY_UPDATE",
    "MODULE_LOAD_FAILED",
    "MODULE_ON_SESSION_READY_FAILED",
    "ORCHESTRATOR_COMPLETE",
    "PLAN_END",
    "PLAN_START",
    "POLICY_VIOLATION",
    "PROMPT_COMPLETE",
    "PROMPT_SUBMIT",
    "PROVIDER_ERROR",
    "PROVIDER_REQUEST",
    "PROVIDER_RESOLVE",
    "PROVIDER_RESPONSE",
    "PROVIDER_RETRY",
    "PROVIDER_SWITCH",
    "PROVIDER_THROTTLE",
    "PROVIDER_TOOL_SEQUENCE_REPAIRED",
    "SESSION_CHECKPOINT",
    "SESSION_CONFIG",
    "SESSION_END",
    "SESSION_FORK",
    "SESSION_RESUME",
    "SESSION_START",
    "THINKING_DELTA",
    "THINKING_FINAL",
    "TOOL_ERROR",
    "TOOL_POST",
    "TOOL_PRE",
    "USER_NOTIFICATION",
    "canonical",
    "is_pattern",
]

# Session lifecycle
SESSION_START: Final = "session:start"
SESSION_END: Final = "session:end"
SESSION_FORK: Final = "session:fork"
SESSION_RESUME: Final = "session:resume"
SESSION_CHECKPOINT: Final = "session:checkpoint"
SESSION_CONFIG: Final = "session:config"

# Prompt lifecycle
PROMPT_SUBMIT: Final = "prompt:submit"
PROMPT_COMPLETE: Final = "prompt:complete"

# Planning
PLAN_START: Final = "plan:start"
PLAN_END: Final = "plan:end"

# Provider calls
PROVIDER_REQUEST: Final = "provider:request"
PROVIDER_RESPONSE: Final = "provider:response"
PROVIDER_RETRY: Final = "provider:retry"
PROVIDER_ERROR: Final = "provider:error"
PROVIDER_THROTTLE: Final = "provider:throttle"
PROVIDER_TOOL_SEQUENCE_REPAIRED: Final = "provider:tool_sequence_repaired"
PROVIDER_RESOLVE: Final = "provider:resolve"
PROVIDER_SWITCH: Final = "provider:switch"

# LLM wire events
LLM_REQUEST: Final = "llm:request"
LLM_RESPONSE: Final = "llm:response"

# Streaming content
CONTENT_BLOCK_START: Final = "content_block:start"
CONTENT_BLOCK_DELTA: Final = "content_block:delta"
CONTENT_BLOCK_END: Final = "content_block:end"
THINKING_DELTA: Final = "thinking:delta"
THINKING_FINAL: Final = "thinking:final"

# Tool invocations
TOOL_PRE: Final = "tool:pre"
TOOL_POST: Final = "tool:post"
TOOL_ERROR: Final = "tool:error"

# Context management
CONTEXT_PRE_COMPACT: Final = "context:pre_compact"
CONTEXT_POST_COMPACT: Final = "context:post_compact"
CONTEXT_COMPACTION: Final = "context:compaction"
CONTEXT_INCLUDE: Final = "context:include"

# Orchestrator lifecycle
ORCHESTRATOR_COMPLETE: Final = "orchestrator:complete"
EXECUTION_START: Final = "execution:start"
EXECUTION_END: Final = "execution:end"

# Notifications, artifacts, policy
USER_NOTIFICATION: Final = "user:notification"
ARTIFACT_WRITE: Final = "artifact:write"
ARTIFACT_READ: Final = "artifact:read"
POLICY_VIOLATION: Final = "policy:violation"
APPROVAL_REQUIRED: Final = "approval:required"
APPROVAL_GRANTED: Final = "approval:granted"
APPROVAL_DENIED: Final = "approval:denied"

# Cancellation
CANCEL_REQUESTED: Final = "cancel:requested"
CANCEL_COMPLETED: Final = "cancel:completed"

# Module lifecycle
MODULE_LOAD_FAILED: Final = "module:load_failed"
MODULE_ON_SESSION_READY_FAILED: Final = "module:on_session_ready_failed"

# Workspace memory
MEMORY_UPDATE: Final = "memory:update"

# Observe mode: what a hook mounted with ``observe: true`` would have decided
HOOK_OBSERVED: Final = "hook:observed"

# Every upper-case name of this module is an event in ALL_EVENTS (amplifier-core 2.0.2's rule,
# which its suite checks); the tables below are private here and public in
# :mod:`amplifier_core.event_aliases`.

# The 43 event names of amplifier-core 2.0.2's ``ALL_EVENTS``, in its order.
_UPSTREAM_EVENTS: Final[tuple[str, ...]] = (
    SESSION_START,
    SESSION_END,
    SESSION_FORK,
    SESSION_RESUME,
    PROMPT_SUBMIT,
    PROMPT_COMPLETE,
    PLAN_START,
    PLAN_END,
    PROVIDER_REQUEST,
    PROVIDER_RESPONSE,
    PROVIDER_RETRY,
    PROVIDER_ERROR,
    PROVIDER_THROTTLE,
    PROVIDER_TOOL_SEQUENCE_REPAIRED,
    PROVIDER_RESOLVE,
    LLM_REQUEST,
    LLM_RESPONSE,
    CONTENT_BLOCK_START,
    CONTENT_BLOCK_DELTA,
    CONTENT_BLOCK_END,
    THINKING_DELTA,
    THINKING_FINAL,
    TOOL_PRE,
    TOOL_POST,
    TOOL_ERROR,
    CONTEXT_PRE_COMPACT,
    CONTEXT_POST_COMPACT,
    CONTEXT_COMPACTION,
    CONTEXT_INCLUDE,
    ORCHESTRATOR_COMPLETE,
    EXECUTION_START,
    EXECUTION_END,
    USER_NOTIFICATION,
    ARTIFACT_WRITE,
    ARTIFACT_READ,
    POLICY_VIOLATION,
    APPROVAL_REQUIRED,
    APPROVAL_GRANTED,
    APPROVAL_DENIED,
    CANCEL_REQUESTED,
    CANCEL_COMPLETED,
    MODULE_ON_SESSION_READY_FAILED,
    MODULE_LOAD_FAILED,
)

#: Every canonical event this kernel knows: the upstream 43, ``session:config`` (which 2.0.2
#: emits without listing it), the three app-cli events and ``hook:observed`` (observe mode).
ALL_EVENTS: Final[list[str]] = [
    *_UPSTREAM_EVENTS,
    SESSION_CONFIG,
    SESSION_CHECKPOINT,
    PROVIDER_SWITCH,
    MEMORY_UPDATE,
    HOOK_OBSERVED,
]

# Every canonical ``*:error`` event; the ``Error`` alias subscribes to all of them.
_ERROR_EVENTS: Final[tuple[str, ...]] = tuple(e for e in ALL_EVENTS if e.endswith(":error"))

# PascalCase names of the app-cli hooks proposal -> canonical name (or pattern, for ``Error``).
_ALIASES: Final[dict[str, str]] = {
    "PreToolUse": TOOL_PRE,
    "PostToolUse": TOOL_POST,
    "SessionStart": SESSION_START,
    "SessionStop": SESSION_END,
    "PromptSubmit": PROMPT_SUBMIT,
    "ResponseComplete": PROMPT_COMPLETE,
    "Error": "*:error",
    "Checkpoint": SESSION_CHECKPOINT,
    "ModelSwitch": PROVIDER_SWITCH,
    "MemoryUpdate": MEMORY_UPDATE,
}

_PATTERN_CHARS: Final = frozenset("*?[")


def canonical(name: str) -> str:
    """Return the canonical event name (or subscription pattern) for ``name``.

    PascalCase aliases resolve to their colon-form name; every other string is returned as it
    is, so third-party events pass through untouched.
    """
    return _ALIASES.get(name, name)


def is_pattern(name: str) -> bool:
    """True when ``name`` is an fnmatch subscription pattern (``*``, ``tool:*``, ``*:error``)."""
    return not _PATTERN_CHARS.isdisjoint(name)
