"""No command holds the session: a decision has a budget, and past it the call fails closed.

The reading runs in a worker thread under a deadline (``decision_timeout``) and an optional
count of steps (``decision_steps``); the tests here use steps and a deadline of ``0``, which
run out at the same point on every machine. What is proved:

* under any budget a command's decision is either the one without a budget or the budget's
  failure, never a third answer (generated commands made of the units that make the reading
  work hardest, and generated budgets);
* a command spends at least a step per ``STEP_CHARS`` characters, so a command made longer
  than a budget runs out of it, whatever it is made of;
* through the hook, a call past its budget is asked, or denied under ``default_action:
  deny``; a deny rule's command past its budget is never allowed.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_approval import mount
from amplifier_module_hooks_approval.deadline import (
    STEP_CHARS,
    Budget,
    DecisionTimeout,
    spend,
    within,
)
from amplifier_module_hooks_approval.subject import subject_of

from .support import bash
from .test_decision_time import RULES, UNITS

ADVERSARIAL = {
    **UNITS,
    "nested xargs": "xargs ",
    "nested find": "find x -exec ",
    "rule words after an unknown program": "w rm rm rm ",
    "plain words": "a ",
}


def _decided(command: str, steps: int | None) -> str | None:
    """The rules' action on ``command`` within ``steps`` (``None``: the budget ran out)."""
    try:
        with within(Budget(None, steps)):
            subject = subject_of(bash(command), "/nonexistent-workspace")
            return RULES.decide(subject).action
    except DecisionTimeout:
        return None


@settings(max_examples=80, deadline=None)
@given(
    units=st.lists(st.sampled_from(sorted(ADVERSARIAL)), min_size=1, max_size=4),
    count=st.integers(1, 12),
    steps=st.integers(0, 400),
)
def test_a_budget_gives_the_decision_or_runs_out(units: list[str], count: int, steps: int) -> None:
    command = "".join(ADVERSARIAL[unit] for unit in units) * count
    unbounded = _decided(command, None)
    assert unbounded is not None
    bounded = _decided(command, steps)
    assert bounded in (None, unbounded), (command, steps)
    if bounded is not None:  # enough steps for this command: enough for any larger budget
        assert _decided(command, steps + 1) == unbounded


@settings(max_examples=60, deadline=None)
@given(unit=st.sampled_from(sorted(ADVERSARIAL)), count=st.integers(1, 300))
def test_a_command_longer_than_its_budget_runs_out(unit: str, count: int) -> None:
    command = ADVERSARIAL[unit] * count
    assert _decided(command, len(command) // STEP_CHARS) is None


def test_a_deadline_of_zero_runs_out_before_the_first_step() -> None:
    with pytest.raises(DecisionTimeout, match="within 0 s"), within(Budget(0)):
        pytest.fail("the block ran")  # pragma: no cover
    with within(Budget(None)):
        spend(10**9)  # no deadline and no step limit: never runs out


async def _emit(coordinator: MockCoordinator, config: dict[str, Any], command: str) -> Any:
    rules = [{"name": "rmrf", "action": "deny", "command": "rm -rf *"}]
    await mount(coordinator, {"audit_log": None, "rules": rules, **config})
    return await coordinator.hooks.emit("tool:pre", bash(command))


@pytest.mark.parametrize("unit", sorted(ADVERSARIAL))
@pytest.mark.parametrize(("default", "action"), [("ask", "ask_user"), ("deny", "deny")])
async def test_a_call_past_its_budget_fails_closed(
    coordinator: MockCoordinator, unit: str, default: str, action: str
) -> None:
    text = ADVERSARIAL[unit]
    command = "ls; " + text * (64 * STEP_CHARS // len(text) + 1)  # more than 64 steps
    config = {"decision_steps": 64, "default_action": default}
    result = await _emit(coordinator, config, command)
    assert result.action == action, result
    assert "could not be read within" in (result.reason or "")


@pytest.mark.parametrize("steps", [None, 100])
async def test_a_denied_command_past_its_budget_is_never_allowed(
    coordinator: MockCoordinator, steps: int | None
) -> None:
    command = "rm -rf victim; " + "a " * 5_000
    result = await _emit(coordinator, {"decision_steps": steps}, command)
    if steps is None:  # within the default deadline: the deny rule denies it
        assert result.action == "deny"
        return
    assert result.action == "ask_user"  # past its steps: asked, never allowed
    assert "Why asked: the command could not be read within decision_timeout" in (
        result.approval_prompt or ""
    )
