"""The events this loop fires, by name (the strings are the contract; some are not in
amplifier-core 2.0.2's catalogue, so they are spelled here rather than imported; the strings
are ``amplifier_core.events``'s, held equal by tests/copies/test_held_copies.py)."""

from typing import Final

__all__ = [
    "ARTIFACT_READ",
    "ARTIFACT_WRITE",
    "CANCEL_REQUESTED",
    "CONTENT_BLOCK_DELTA",
    "CONTENT_BLOCK_END",
    "CONTENT_BLOCK_START",
    "CONTEXT_INCLUDE",
    "EXECUTION_END",
    "EXECUTION_START",
    "LLM_REQUEST",
    "LLM_RESPONSE",
    "MEMORY_UPDATE",
    "ORCHESTRATOR_COMPLETE",
    "ORCHESTRATOR_NAME",
    "POLICY_VIOLATION",
    "PROMPT_COMPLETE",
    "PROMPT_SUBMIT",
    "PROVIDER_ERROR",
    "PROVIDER_REQUEST",
    "PROVIDER_RESOLVE",
    "PROVIDER_RESPONSE",
    "PROVIDER_SWITCH",
    "PROVIDER_TOOL_SEQUENCE_REPAIRED",
    "SESSION_CHECKPOINT",
    "THINKING_DELTA",
    "THINKING_FINAL",
    "TOOL_ERROR",
    "TOOL_POST",
    "TOOL_PRE",
    "USER_NOTIFICATION",
]

ARTIFACT_READ: Final = "artifact:read"
ARTIFACT_WRITE: Final = "artifact:write"
CANCEL_REQUESTED: Final = "cancel:requested"
CONTENT_BLOCK_DELTA: Final = "content_block:delta"
CONTENT_BLOCK_END: Final = "content_block:end"
CONTENT_BLOCK_START: Final = "content_block:start"
CONTEXT_INCLUDE: Final = "context:include"
EXECUTION_END: Final = "execution:end"
EXECUTION_START: Final = "execution:start"
LLM_REQUEST: Final = "llm:request"
LLM_RESPONSE: Final = "llm:response"
MEMORY_UPDATE: Final = "memory:update"
ORCHESTRATOR_COMPLETE: Final = "orchestrator:complete"
POLICY_VIOLATION: Final = "policy:violation"
PROMPT_COMPLETE: Final = "prompt:complete"
PROMPT_SUBMIT: Final = "prompt:submit"
PROVIDER_ERROR: Final = "provider:error"
PROVIDER_REQUEST: Final = "provider:request"
PROVIDER_RESOLVE: Final = "provider:resolve"
PROVIDER_RESPONSE: Final = "provider:response"
PROVIDER_SWITCH: Final = "provider:switch"
PROVIDER_TOOL_SEQUENCE_REPAIRED: Final = "provider:tool_sequence_repaired"
SESSION_CHECKPOINT: Final = "session:checkpoint"
THINKING_DELTA: Final = "thinking:delta"
THINKING_FINAL: Final = "thinking:final"
TOOL_ERROR: Final = "tool:error"
TOOL_POST: Final = "tool:post"
TOOL_PRE: Final = "tool:pre"
USER_NOTIFICATION: Final = "user:notification"

ORCHESTRATOR_NAME: Final = "loop-session"
"""The name this loop gives itself in the events it fires (``orchestrator``)."""
