"""Follows each approval request to its decision, for the audit log and the approval events.

On this project's kernel the coordinator processes ``ask_user`` itself (its
``amplifier_core.approval.ApprovalGate``): it emits ``approval:required`` and then
``approval:granted`` or ``approval:denied`` with the hook name and prompt, so the module
emits nothing and only observes the decisions to write them to the audit log.

On a kernel without that gate (amplifier-core 2.0.2) nobody emits those events, and a hook
cannot see the human's answer. There the module emits ``approval:required`` when it asks, and
*infers* the outcome: ``approval:granted`` when the tool ran (``tool:post`` or ``tool:error``
for the same ``tool_call_id``), ``approval:denied`` when the round of tool calls ended
(``provider:request``, ``prompt:complete``, ``orchestrator:complete`` or ``session:end``)
without it. Those events and audit records carry ``why: "inferred"``.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from amplifier_hooks_util.deep import dumps

from amplifier_core.models import HookResult

from .audit import AuditLog
from .subject import input_of, tool_of

__all__ = [
    "GATE_EVENTS",
    "RAN_EVENTS",
    "ROUND_END_EVENTS",
    "Pending",
    "Tracker",
    "call_key",
    "kernel_runs_approval_gate",
]

logger = logging.getLogger(__name__)

GATE_EVENTS: Final = ("approval:granted", "approval:denied")
RAN_EVENTS: Final = ("tool:post", "tool:error")
ROUND_END_EVENTS: Final = (
    "provider:request",
    "prompt:complete",
    "orchestrator:complete",
    "session:end",
)
_MAX_PENDING: Final = 256


class _Emitter(Protocol):
    async def emit(self, event: str, data: dict[str, Any]) -> Any: ...


def kernel_runs_approval_gate(coordinator: object) -> bool:
    """True when ``coordinator`` is this kernel's, whose approval gate emits the events."""
    try:
        from amplifier_core import approval as kernel_approval
        from amplifier_core import coordinator as kernel_coordinator
    except ImportError:
        return False
    gate = getattr(kernel_approval, "ApprovalGate", None)
    coordinator_type = getattr(kernel_coordinator, "ModuleCoordinator", None)
    return (
        isinstance(gate, type)
        and isinstance(coordinator_type, type)
        and isinstance(coordinator, coordinator_type)
    )


def call_key(data: Mapping[str, Any]) -> str:
    """What identifies one tool call across its events: the call id, else tool and input."""
    call_id = data.get("tool_call_id")
    if isinstance(call_id, str) and call_id:
        return f"id:{call_id}"
    tool_input = dumps(dict(input_of(data)), sort_keys=True)
    return f"input:{tool_of(data)}:{tool_input}"


@dataclass(slots=True)
class Pending:
    """One request waiting for its decision."""

    prompt: str
    session_id: str
    tool_name: str
    tool_call_id: str | None
    key: str
    asked_by: str
    options: list[str]
    timeout: float
    default: str
    summary: dict[str, Any] = field(default_factory=dict)


class Tracker:
    """Pending requests of one mounted instance, and what to do when each is decided."""

    def __init__(
        self,
        *,
        hook_name: str,
        audit: AuditLog | None,
        emitter: _Emitter,
        kernel_gate: bool,
        emit_events: bool,
    ) -> None:
        self.hook_name = hook_name
        self.audit = audit
        self.emitter = emitter
        self.kernel_gate = kernel_gate
        self.emit_events = emit_events and not kernel_gate
        self.pending: deque[Pending] = deque(maxlen=_MAX_PENDING)

    @property
    def needed(self) -> bool:
        """False when nothing would ever be done with a decision (no audit, no events)."""
        return self.audit is not None or self.emit_events

    async def asked(self, pending: Pending) -> None:
        """A request was made; emit ``approval:required`` where the kernel does not."""
        if not self.needed:
            return
        self.pending.append(pending)
        if self.emit_events:
            await self._emit(
                "approval:required",
                {
                    **self._subject(pending),
                    "timeout": pending.timeout,
                    "default": pending.default,
                    "cache_hit": False,
                },
            )

    # -- this kernel: observe the gate's events -------------------------------------------

    async def on_gate_event(self, event: str, data: dict[str, Any]) -> HookResult:
        """``approval:granted`` / ``approval:denied`` from the kernel: audit the decision."""
        if data.get("hook") != self.hook_name:
            return HookResult()
        prompt = data.get("prompt")
        pending = self._take(lambda p: _same_prompt(p.prompt, prompt))
        if pending is None:
            return HookResult()
        why = data.get("why")
        self._record(
            pending,
            approved=event == "approval:granted",
            answer=data.get("decision"),
            why=why if isinstance(why, str) else "user",
            cached=bool(data.get("cached", False)),
            reason=data.get("reason"),
        )
        return HookResult()

    # -- other kernels: infer the decision ------------------------------------------------

    async def on_tool_ran(self, event: str, data: dict[str, Any]) -> HookResult:
        """The tool of a pending request ran, so it was approved."""
        if self.pending:
            key = call_key(data)
            pending = self._take(lambda p: p.key == key)
            if pending is not None:
                await self._infer(pending, approved=True, seen=event)
        return HookResult()

    async def on_round_end(self, event: str, data: dict[str, Any]) -> HookResult:
        """The round of tool calls is over: every request still pending was not approved."""
        while self.pending:
            await self._infer(self.pending.popleft(), approved=False, seen=event)
        return HookResult()

    async def _infer(self, pending: Pending, *, approved: bool, seen: str) -> None:
        if approved:
            reason = None
            answer = "allow"
        else:
            answer = "deny"
            reason = (
                f"not approved: {pending.tool_name} did not run before {seen} (the approval "
                "was denied or timed out, or another hook blocked the call)"
            )
        self._record(pending, approved=approved, answer=answer, why="inferred", reason=reason)
        if self.emit_events:
            data = {
                **self._subject(pending),
                "decision": answer,
                "cached": False,
                "why": "inferred",
                "inferred_from": seen,
            }
            if reason is not None:
                data["reason"] = reason
            await self._emit("approval:granted" if approved else "approval:denied", data)

    # -- shared ---------------------------------------------------------------------------

    def _take(self, wanted: Callable[[Pending], bool]) -> Pending | None:
        for index, pending in enumerate(self.pending):
            if wanted(pending):
                del self.pending[index]
                return pending
        return None

    def _subject(self, pending: Pending) -> dict[str, Any]:
        return {
            "tool_name": pending.tool_name,
            "tool_call_id": pending.tool_call_id,
            "prompt": pending.prompt,
            "options": list(pending.options),
            "hook": self.hook_name,
            "event": "tool:pre",
            "trigger_event": "tool:pre",
        }

    def _record(
        self,
        pending: Pending,
        *,
        approved: bool,
        answer: object,
        why: str,
        cached: bool = False,
        reason: object = None,
    ) -> None:
        if self.audit is None:
            return
        record: dict[str, Any] = {
            "kind": "decision",
            "tool_name": pending.tool_name,
            "tool_call_id": pending.tool_call_id,
            **pending.summary,
            "rule": "user",
            "decision": "allow" if approved else "deny",
            "answer": answer,
            "why": why,
            "cached": cached,
            "asked_by": pending.asked_by,
            "prompt": pending.prompt,
        }
        if reason is not None:
            record["reason"] = reason
        self.audit.write(pending.session_id, record)

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        try:
            await self.emitter.emit(event, data)
        except Exception:  # an observer's failure must not turn into the gate's failure
            logger.warning("hooks-approval: emitting %s failed", event, exc_info=True)


def _same_prompt(asked: str, shown: object) -> bool:
    """True when the kernel showed ``asked``: as it is, or with the tool and its input appended
    (the kernel adds them to a prompt that does not show the whole input)."""
    if not isinstance(shown, str):
        return False
    return shown == asked or shown.startswith(asked.rstrip() + "\n\nTool: ")
