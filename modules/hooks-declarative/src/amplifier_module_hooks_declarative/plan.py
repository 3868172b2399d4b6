"""The plan of a mount: each event's steps (:class:`~.steps.PlannedStep`), their hooks
(:class:`~.steps.PlannedHook`) with their runners built, in declaration order
(:func:`plan_steps`); and
how one hook runs (:func:`run_hook`: a failure becomes its ``on_failure`` decision)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence

from .document import HookEntry, HookGroup, HooksDocument
from .mapping import alias_of
from .patterns import compile_claude_matcher
from .receipts import receipted
from .runner_plugins import RunnerFactory
from .runners.matcher import MatcherRunner
from .specs import CommandHookSpec
from .steps import PlannedHook, PlannedStep
from .types import Decision, HookContext, failure_decision

__all__ = ["PlannedHook", "PlannedStep", "plan_steps", "run_hook"]


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
