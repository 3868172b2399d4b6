"""What a mount runs for an event: its steps (:class:`PlannedStep`), each with its hooks
(:class:`PlannedHook`) and how they run. :func:`~.plan.plan_steps` builds them; the
dispatcher (:mod:`.dispatch`) runs them; receipts (:mod:`.receipts`) record them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .patterns import NameMatcher
from .specs import HookSpec, MatcherHookSpec
from .types import Decision, HookContext, Runner

__all__ = ["PlannedHook", "PlannedStep"]


@dataclass(frozen=True, slots=True)
class PlannedHook:
    """One hook of a step: its runner, its spec and how it runs."""

    runner: Runner
    spec: HookSpec
    label: str
    background: bool
    decide: Callable[[HookContext], Decision] | None = None
    """A synchronous shortcut (a matcher's ``decide``): no coroutine on the hot path."""
    observed: bool = False
    """In observe mode (:mod:`.observe`): its runner records, never decides."""

    @property
    def budget_s(self) -> float:
        """How long this hook may take in the foreground (its own timeout)."""
        if self.background or isinstance(self.spec, MatcherHookSpec):
            return 0.0
        return self.spec.timeout_ms / 1000


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One step of one event key: its hooks, how they run, and the name the event was declared
    under (``alias``, passed to hooks as :attr:`HookContext.alias`)."""

    key: str
    alias: str
    hooks: tuple[PlannedHook, ...]
    parallel: bool
    tool_filter: NameMatcher | None
    label: str
    joint: bool = False
    """Runs at once with the adjacent joint steps that match (:class:`~.config.HookGroup`)."""
    ends_on_answer: bool = False
    """hook-shell's rule (:attr:`~.document.HookGroup.ends_on_answer`)."""

    @property
    def budget_s(self) -> float:
        budgets = [hook.budget_s for hook in self.hooks] or [0.0]
        return max(budgets) if self.parallel else sum(budgets)

    @property
    def fail_closed(self) -> bool:
        return any(
            h.spec.on_failure == "block" and not h.background and not h.observed for h in self.hooks
        )
