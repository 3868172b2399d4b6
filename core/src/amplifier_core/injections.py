"""Admission of hook context injections: size limit, per-turn budget, and where each goes.

Each injection a hook result carries is stripped of control characters, checked against the
per-injection size limit (``session.injection_size_limit``, characters; over it is an
:class:`InjectionTooLargeError`), counted against the per-turn budget
(``session.injection_budget_per_turn``, estimated tokens at four characters each; over it
warns, never blocks) and then stored: a non-ephemeral injection in the mounted context manager
(else the coordinator's own store) with its provenance ``{source: "hook", hook_name, event,
timestamp}``, an ephemeral one in the queue the next provider request takes. Every outcome is
recorded in the audit trail. See docs/coordinator.md.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from .audit import AuditTrail
from .context import InMemoryContext
from .errors import AmplifierError
from .models import ContextInjection

__all__ = [
    "DEFAULT_INJECTION_BUDGET_PER_TURN",
    "DEFAULT_INJECTION_SIZE_LIMIT",
    "InjectionAdmission",
    "InjectionTooLargeError",
    "strip_control_characters",
]

logger = logging.getLogger(__name__)

# The limits an application is advised to set (the command line's sessions do); the kernel's
# default is no limit, as amplifier-core 2.0.2 has it.
DEFAULT_INJECTION_SIZE_LIMIT: Final = 10 * 1024
DEFAULT_INJECTION_BUDGET_PER_TURN: Final = 10_000

_CONTROL: Final = dict.fromkeys(c for c in (*range(32), *range(127, 160)) if c not in (9, 10))


def strip_control_characters(text: str) -> str:
    """``text`` without C0/C1 control characters, except newline and tab."""
    return text.translate(_CONTROL)


class InjectionTooLargeError(AmplifierError, ValueError):
    """A hook's context injection is over ``session.injection_size_limit``."""

    def __init__(self, *, hook_name: str, event: str, size: int, limit: int) -> None:
        super().__init__(
            f"context injection from hook {hook_name!r} on event {event!r} exceeds {limit} "
            f"characters ({size} characters; config key session.injection_size_limit; "
            "None means unlimited)"
        )
        self.hook_name = hook_name
        self.event = event
        self.size = size
        self.limit = limit


class InjectionAdmission:
    """One session's injection gate: limits, the turn's token count, the ephemeral queue.

    :param audit: where every admitted, rejected or over-budget injection is recorded.
    :param mounted_context: returns the context manager mounted now (``None``: injections go
        to :attr:`own_context`).
    :param size_limit: characters per injection; ``None`` is unlimited.
    :param budget_per_turn: estimated tokens per turn before a warning; ``None`` is unlimited.
    """

    def __init__(
        self,
        audit: AuditTrail,
        mounted_context: Callable[[], Any],
        *,
        size_limit: int | None = None,
        budget_per_turn: int | None = None,
    ) -> None:
        self.audit = audit
        self.size_limit = size_limit
        self.budget_per_turn = budget_per_turn
        self.own_context = InMemoryContext()
        """Where non-ephemeral injections go while no context manager is mounted."""
        self._mounted_context = mounted_context
        self._ephemeral: list[ContextInjection] = []
        self.turn_tokens = 0
        """Estimated tokens admitted since the last :meth:`reset_turn`."""
        self._budget_warned = False

    @property
    def pending_ephemeral(self) -> int:
        """How many ephemeral injections wait for the next provider request."""
        return len(self._ephemeral)

    def reset_turn(self) -> None:
        """Start a new turn: the budget is counted from zero again."""
        self.turn_tokens = 0
        self._budget_warned = False

    def take_ephemeral(self) -> list[ContextInjection]:
        """The ephemeral injections waiting for the next provider request (the queue empties)."""
        taken, self._ephemeral = self._ephemeral, []
        return taken

    async def admit(
        self, injections: list[ContextInjection], event: str, hook_name: str, *, strict: bool
    ) -> None:
        """Check and store ``injections`` of one hook result (see the module docstring).

        :param hook_name: names an injection that does not name its own handler.
        :param strict: raise :class:`InjectionTooLargeError` for one over the size limit;
            otherwise it is logged and dropped (so that a deny or an ask still stands).
        """
        accepted: list[tuple[ContextInjection, str, str, str, int]] = []
        for item in injections:
            hook = item.hook_name if item.hook_name != "unknown" else hook_name
            where = item.event or event
            content = strip_control_characters(item.content)
            size = len(content)  # characters, as amplifier-core 2.0.2 counts them
            if self._over_limit(hook, where, size, strict=strict):
                continue
            if not content.strip():
                self.audit.record(
                    "injection_rejected",
                    hook=hook,
                    event=where,
                    size=size,
                    limit=self.size_limit,
                    reason="empty",
                )
                continue
            accepted.append((item, hook, where, content, size))
        for item, hook, where, content, size in accepted:
            tokens = (len(content) + 3) // 4
            self._count(hook, where, tokens)
            if item.ephemeral:
                self._ephemeral.append(
                    item.model_copy(update={"content": content, "hook_name": hook, "event": where})
                )
                stored_in: str | None = "ephemeral"
            else:
                stored_in = await self._add_to_context(item, hook, where, content)
                if stored_in is None:
                    continue
            self.audit.record(
                "injection",
                hook=hook,
                event=where,
                role=item.role,
                ephemeral=item.ephemeral,
                size=size,
                tokens=tokens,
                stored_in=stored_in,
            )

    def _over_limit(self, hook: str, event: str, size: int, *, strict: bool) -> bool:
        """Whether an injection of ``size`` characters is over the limit (recorded; raised
        when ``strict``)."""
        limit = self.size_limit
        if limit is None or size <= limit:
            return False
        self.audit.record(
            "injection_rejected", hook=hook, event=event, size=size, limit=limit, reason="too_large"
        )
        error = InjectionTooLargeError(hook_name=hook, event=event, size=size, limit=limit)
        if strict:
            raise error
        logger.error("%s; dropped so that the gate decision stands", error)
        return True

    def _count(self, hook: str, event: str, tokens: int) -> None:
        budget = self.budget_per_turn
        total = self.turn_tokens + tokens
        if budget is not None and total > budget:
            self.audit.record(
                "injection_budget_exceeded",
                hook=hook,
                event=event,
                tokens=tokens,
                turn_tokens=total,
                budget=budget,
            )
            if not self._budget_warned:  # once per turn in the log; every time in the audit
                self._budget_warned = True
                logger.warning(
                    "context injection budget exceeded: hook %r on %r adds ~%d tokens, ~%d "
                    "this turn, budget %d (config key session.injection_budget_per_turn)",
                    hook,
                    event,
                    tokens,
                    total,
                    budget,
                )
        self.turn_tokens = total

    async def _add_to_context(
        self, item: ContextInjection, hook: str, event: str, content: str
    ) -> str | None:
        metadata: dict[str, Any] = {
            "source": "hook",
            "hook_name": hook,
            "event": event,
            "timestamp": datetime.now(UTC).isoformat(),
        }
        if item.append_to_last_tool_result:
            metadata["append_to_last_tool_result"] = True
        message = {"role": item.role, "content": content, "metadata": metadata}
        mounted = self._mounted_context()
        target = mounted if mounted is not None else self.own_context
        try:
            added = target.add_message(message)
            if inspect.isawaitable(added):
                await added
        except Exception as err:
            self.audit.record(
                "injection_failed", hook=hook, event=event, error=f"{type(err).__name__}: {err}"
            )
            logger.error(
                "context manager %s failed to add an injection from hook %r on %r: %s",
                type(target).__name__,
                hook,
                event,
                err,
                exc_info=True,
            )
            return None
        return "context" if mounted is not None else "coordinator"
