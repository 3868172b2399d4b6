"""The dispatcher's step iterator and outcome folder against the loop they replaced.

:func:`reference` is the dispatch loop as one function (its steps, filters, joint batches,
hook-shell's "an answer ends the later groups" and the fold), run on the dispatcher's own
batch runners; generated plans of sequential, parallel and joint steps, with tool filters and
hook-shell groups, whose hooks allow, block, ask, change the arguments or add context, must
give the same result and run the same hooks, in the same order, with the same arguments.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core.models import HookResult
from amplifier_module_hooks_declarative.dispatch import Dispatcher, _modified
from amplifier_module_hooks_declarative.mapping import (
    Outcome,
    applies_to,
    match_target,
    to_hook_result,
)
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.plan import PlannedHook, PlannedStep
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.types import Decision, HookContext

EVENT = "tool:pre"
DATA: dict[str, Any] = {"tool_name": "Bash", "tool_input": {"command": "ls"}}


class Scripted:
    """A hook that records the arguments it saw and answers ``decision``."""

    def __init__(self, label: str, decision: Decision, calls: list[tuple[str, Any]]) -> None:
        self.label, self._decision, self._calls = label, decision, calls

    async def run(self, context: HookContext) -> Decision:
        self._calls.append((self.label, dict(context.args)))
        return self._decision


_DECISIONS = st.one_of(
    st.just(Decision()),
    st.just(Decision(action="allow")),
    st.builds(lambda n: Decision(action="block", message=f"no {n}"), st.integers(0, 3)),
    st.just(Decision(action="ask", message="sure?")),
    st.builds(
        lambda n: Decision(action="modify", modified_args={"command": f"ls -{n}"}),
        st.integers(0, 3),
    ),
    st.builds(lambda n: Decision(context=f"note {n}"), st.integers(0, 3)),
)

_STEP = st.fixed_dictionaries(
    {
        "decisions": st.lists(_DECISIONS, min_size=1, max_size=3),
        "shape": st.sampled_from(["sequential", "parallel", "joint"]),
        "matcher": st.sampled_from([None, "Bash", "Write", "Bash|Edit"]),
        "ends_on_answer": st.booleans(),
    }
)


def _plan(shapes: list[dict[str, Any]], calls: list[tuple[str, Any]]) -> list[PlannedStep]:
    spec = CommandHookSpec(type="command", command="true")
    steps: list[PlannedStep] = []
    for index, shape in enumerate(shapes):
        hooks = tuple(
            PlannedHook(Scripted(f"s{index}h{n}", decision, calls), spec, f"s{index}h{n}", False)
            for n, decision in enumerate(shape["decisions"])
        )
        matcher = shape["matcher"]
        steps.append(
            PlannedStep(
                EVENT,
                "PreToolUse",
                hooks,
                shape["shape"] == "parallel",
                compile_claude_matcher(matcher) if matcher is not None else None,
                f"s{index}",
                shape["shape"] == "joint",
                shape["ends_on_answer"],
            )
        )
    return steps


def _due(step: PlannedStep, answered: bool, context: HookContext, data: dict[str, Any]) -> bool:
    if answered and step.ends_on_answer:
        return False
    if step.tool_filter is not None:
        target = match_target(EVENT, context.tool, data)
        if target is not None and not step.tool_filter(target):
            return False
    return applies_to(step.alias, data)


async def reference(dispatcher: Dispatcher, event: str, data: dict[str, Any]) -> HookResult | None:
    """The dispatch loop in one function, on the dispatcher's batch runners."""
    base = dispatcher.context(event, data)
    context, outcome = base, Outcome()
    joint: list[tuple[PlannedStep, HookContext]] = []
    answered = False
    for step in dispatcher.steps_for(event):
        if not _due(step, answered, context, data):
            continue
        if context.alias != step.alias:
            context = dataclasses.replace(context, alias=step.alias)
        if step.joint:
            joint.append((step, context))
            continue
        if joint:
            changed = await dispatcher._joint(joint, outcome)
            joint = []
            if outcome.blocked:
                break
            if changed:
                context = _modified(base, outcome, step.alias)
        answers = outcome.answers
        if step.parallel:
            changed = await dispatcher._joint([(step, context)], outcome)
        else:
            changed = await dispatcher._sequential(step, context, outcome, base)
        if outcome.blocked:
            break
        if step.ends_on_answer and (changed or outcome.answers > answers):
            answered = True
        if changed:
            context = _modified(base, outcome, step.alias)
    if joint and not outcome.blocked:
        await dispatcher._joint(joint, outcome)
    return to_hook_result(outcome, event, data)


def _run(
    shapes: list[dict[str, Any]], use_reference: bool
) -> tuple[HookResult | None, list[tuple[str, Any]]]:
    calls: list[tuple[str, Any]] = []
    dispatcher = Dispatcher(_plan(shapes, calls), project_dir="/p")
    data = {**DATA, "tool_input": dict(DATA["tool_input"])}
    if use_reference:
        result = asyncio.run(reference(dispatcher, EVENT, data))
    else:
        result = asyncio.run(dispatcher.dispatch(EVENT, data))
    return result, calls


@given(st.lists(_STEP, min_size=1, max_size=6))
@settings(max_examples=300, deadline=None)
def test_the_step_iterator_and_folder_decide_as_the_loop_did(shapes: list[dict[str, Any]]) -> None:
    folded, folded_calls = _run(shapes, use_reference=False)
    looped, looped_calls = _run(shapes, use_reference=True)
    assert folded_calls == looped_calls
    assert folded == looped
