"""The plan of a mount: each event's steps (:class:`PlannedStep`), their hooks
(:class:`PlannedHook`) with their runners built, in declaration order (:func:`plan_steps`); and
how one hook runs (:func:`run_hook`: a failure becomes its ``on_failure`` decision)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .document import HookEntry, HookGroup, HooksDocument
from .mapping import alias_of
from .patterns import NameMatcher, compile_claude_matcher
from .receipts import receipted
from .runner_plugins import RunnerFactory
from .runners.matcher import MatcherRunner
from .specs import CommandHookSpec, HookSpec, MatcherHookSpec
from .types import Decision, HookContext, Runner, failure_decision

__all__ = ["PlannedHook", "PlannedStep", "plan_steps", "run_hook"]


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


def _hook(entry: HookEntry, factory: RunnerFactory, receipts: bool) -> PlannedHook:
    background = isinstance(entry.spec, CommandHookSpec) and entry.spec.async_
    runner = factory(entry.spec, entry.label)
    if entry.condition is not None:  # Claude Code's ``if``: started only when it matches
        from .runners.condition import ConditionalRunner

        runner = ConditionalRunner(runner, entry.condition)
    decide = runner.decide if isinstance(runner, MatcherRunner) else None
    spec = getattr(runner, "spec", None)  # a runner may fill keys from the module's config
    spec = spec if isinstance(spec, type(entry.spec)) else entry.spec
    hook = PlannedHook(runner, spec, entry.label, background, decide)
    return receipted(hook) if receipts else hook


def _step(
    event: str, alias: str, step: HookEntry | HookGroup, factory: RunnerFactory, receipts: bool
) -> PlannedStep:
    """One declared step (a hook, or a group of hooks) with its runners built."""
    if not isinstance(step, HookGroup):
        hook = _hook(step, factory, receipts)
        return PlannedStep(event, alias, (hook,), False, None, step.label)
    matcher = step.matcher
    return PlannedStep(
        event,
        alias,
        tuple(_hook(entry, factory, receipts) for entry in step.hooks),
        step.parallel,
        compile_claude_matcher(matcher) if matcher is not None else None,
        step.label,
        step.joint,
        step.ends_on_answer,
    )


def plan_steps(
    documents: Sequence[HooksDocument], factory: RunnerFactory, *, receipts: bool = False
) -> list[PlannedStep]:
    """Every step of every document, in declaration order, with its runners built;
    ``receipts``: each hook's runner leaves receipts (:func:`~.receipts.receipted`; only on a
    kernel that keeps them: else nothing wraps the runners)."""
    steps: list[PlannedStep] = []
    for document in documents:
        for block in document.events:
            # a name of its own (PreToolUse, beforeShellExecution), else the event's alias
            alias = alias_of(block.event) if block.name == block.event else block.name
            planned = (_step(block.event, alias, step, factory, receipts) for step in block.steps)
            steps.extend(step for step in planned if step.hooks)
    return steps


async def run_hook(hook: PlannedHook, context: HookContext) -> Decision:
    """Run one hook; a runner that raises or returns something other than a decision gets
    the hook's ``on_failure`` decision. Its decision names the hook when it names no one."""
    try:
        decision: object = await hook.runner.run(context)
    except asyncio.CancelledError:
        raise
    except Exception as err:
        return failure_decision(
            hook.spec.on_failure, hook.label, f"the runner raised {type(err).__name__}: {err}"
        )
    if not isinstance(decision, Decision):
        return failure_decision(
            hook.spec.on_failure,
            hook.label,
            f"the runner returned {type(decision).__name__}, not a Decision",
        )
    return decision if decision.source else dataclasses.replace(decision, source=hook.label)
