"""The precedence matrix: every ordered pair of the five actions, in both ways of ordering.

A pair ``(first, second)`` means the handler returning ``first`` runs before the one returning
``second``. Each pair is run twice: once ordered by registration (equal priorities) and once
ordered by priority with registration in the opposite order, so that ordering never depends
on which of the two was registered first. The final result follows
deny > ask_user > inject_context > continue, and modified data comes back as ``continue``
carrying it (amplifier-core 2.0.2's contract); deny stops the chain; a modification after an
ask_user is dropped (the user approves the data the ask was about). The registry sets the
``timestamp`` of the data handlers see, so data is compared without it.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult

Data = dict[str, Any]

ACTIONS = ("continue", "deny", "modify", "inject_context", "ask_user")
INPUT: Data = {"tool_name": "bash"}

#: (first, second) -> (final action, handlers that ran). Written out in full on purpose.
PAIR_MATRIX: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("continue", "continue"): ("continue", ("first", "second")),
    ("continue", "deny"): ("deny", ("first", "second")),
    ("continue", "modify"): ("continue", ("first", "second")),
    ("continue", "inject_context"): ("inject_context", ("first", "second")),
    ("continue", "ask_user"): ("ask_user", ("first", "second")),
    ("deny", "continue"): ("deny", ("first",)),
    ("deny", "deny"): ("deny", ("first",)),
    ("deny", "modify"): ("deny", ("first",)),
    ("deny", "inject_context"): ("deny", ("first",)),
    ("deny", "ask_user"): ("deny", ("first",)),
    ("modify", "continue"): ("continue", ("first", "second")),
    ("modify", "deny"): ("deny", ("first", "second")),
    ("modify", "modify"): ("continue", ("first", "second")),
    ("modify", "inject_context"): ("inject_context", ("first", "second")),
    ("modify", "ask_user"): ("ask_user", ("first", "second")),
    ("inject_context", "continue"): ("inject_context", ("first", "second")),
    ("inject_context", "deny"): ("deny", ("first", "second")),
    ("inject_context", "modify"): ("inject_context", ("first", "second")),
    ("inject_context", "inject_context"): ("inject_context", ("first", "second")),
    ("inject_context", "ask_user"): ("ask_user", ("first", "second")),
    ("ask_user", "continue"): ("ask_user", ("first", "second")),
    ("ask_user", "deny"): ("deny", ("first", "second")),
    ("ask_user", "modify"): ("ask_user", ("first", "second")),
    ("ask_user", "inject_context"): ("ask_user", ("first", "second")),
    ("ask_user", "ask_user"): ("ask_user", ("first", "second")),
}

RANK = {"deny": 4, "ask_user": 3, "inject_context": 2, "modify": 0, "continue": 0}


def untimed(data: Data | None) -> Data | None:
    """``data`` without the ``timestamp`` the registry sets."""
    return None if data is None else {k: v for k, v in data.items() if k != "timestamp"}


def result_for(action: str, tag: str, seen: Data) -> HookResult:
    """The result a handler tagged ``tag`` returns for ``action``, given the data it saw."""
    if action == "deny":
        return HookResult(action="deny", reason=f"denied by {tag}")
    if action == "modify":
        return HookResult(action="modify", data={**seen, tag: "modified"})
    if action == "inject_context":
        return HookResult(action="inject_context", context_injection=f"context from {tag}")
    if action == "ask_user":
        return HookResult(action="ask_user", approval_prompt=f"prompt from {tag}")
    return HookResult(action="continue")


class Scenario:
    """Handlers that return fixed actions and record what they saw, in the order they ran."""

    def __init__(self) -> None:
        self.registry = HookRegistry()
        self.ran: list[str] = []
        self.seen: dict[str, Data] = {}

    def add(self, tag: str, action: str, priority: int) -> None:
        async def handler(event: str, data: Data) -> HookResult:
            self.ran.append(tag)
            assert data["timestamp"].endswith("+00:00")
            self.seen[tag] = dict(data)
            return result_for(action, tag, data)

        self.registry.register("tool:pre", handler, priority=priority, name=tag)


def expected_data(actions: tuple[str, ...], ran: tuple[str, ...], tags: tuple[str, ...]) -> Any:
    """What ``result.data`` must be after the given handlers ran."""
    if "deny" in actions[: len(ran)]:
        return None  # deny is returned as it is, and these deny results carry no data
    data = dict(INPUT)
    for tag, action in zip(tags, actions, strict=True):
        if action == "ask_user":
            break  # what the user is asked about no longer changes
        if action == "modify":
            data = {**data, tag: "modified"}
    return data


@pytest.mark.parametrize("ordering", ["registration", "priority"])
@pytest.mark.parametrize(("first", "second"), list(itertools.product(ACTIONS, repeat=2)))
async def test_every_ordered_pair(first: str, second: str, ordering: str) -> None:
    scenario = Scenario()
    if ordering == "registration":
        scenario.add("first", first, priority=0)
        scenario.add("second", second, priority=0)
    else:
        scenario.add("second", second, priority=20)
        scenario.add("first", first, priority=10)

    result = await scenario.registry.emit("tool:pre", dict(INPUT))

    final_action, ran = PAIR_MATRIX[(first, second)]
    assert result.action == final_action
    assert tuple(scenario.ran) == ran
    assert untimed(result.data) == expected_data((first, second), ran, ("first", "second"))

    # The second handler sees the first one's modification (and only then).
    if "second" in scenario.seen:
        seen_by_second = dict(INPUT)
        if first == "modify":
            seen_by_second["first"] = "modified"
        assert untimed(scenario.seen["second"]) == seen_by_second

    if final_action == "deny":
        denier = "first" if first == "deny" else "second"
        assert result.source == denier
        assert result.reason == f"denied by {denier}"
        assert result.context_injections == []
    if final_action == "ask_user":
        asker = "first" if first == "ask_user" else "second"
        assert result.source == asker
        assert result.approval_prompt == f"prompt from {asker}"
    if final_action in ("inject_context", "ask_user"):
        injectors = [t for t, a in (("first", first), ("second", second)) if a == "inject_context"]
        assert [i.content for i in result.context_injections] == [
            f"context from {t}" for t in injectors
        ]
        assert [i.hook_name for i in result.context_injections] == injectors
        assert all(i.event == "tool:pre" for i in result.context_injections)


def test_the_matrix_agrees_with_the_precedence_rule() -> None:
    """The hand-written matrix and the one-line precedence rule say the same thing."""
    assert len(PAIR_MATRIX) == 25
    for (first, second), (final, ran) in PAIR_MATRIX.items():
        if first == "deny":
            assert (final, ran) == ("deny", ("first",))
        else:
            assert RANK[final] == max(RANK[first], RANK[second])
            assert ran == ("first", "second")


@pytest.mark.parametrize("order", list(itertools.permutations(ACTIONS)))
async def test_every_priority_order_of_all_five_actions(order: tuple[str, ...]) -> None:
    scenario = Scenario()
    tags = tuple(f"h{i}-{action}" for i, action in enumerate(order))
    # Register in reverse so that only the priorities give the order.
    for index in reversed(range(len(order))):
        scenario.add(tags[index], order[index], priority=index * 10)

    result = await scenario.registry.emit("tool:pre", dict(INPUT))

    deny_at = order.index("deny")
    ran = tags[: deny_at + 1]
    assert tuple(scenario.ran) == ran
    assert result.action == "deny"
    assert result.source == tags[deny_at]
    assert result.data is None

    # Without the deny handler, everything runs and ask_user wins.
    without_deny = Scenario()
    kept = [(t, a) for t, a in zip(tags, order, strict=True) if a != "deny"]
    for index, (tag, action) in reversed(list(enumerate(kept))):
        without_deny.add(tag, action, priority=index)
    merged = await without_deny.registry.emit("tool:pre", dict(INPUT))
    kept_tags = tuple(t for t, _ in kept)
    kept_actions = tuple(a for _, a in kept)
    assert tuple(without_deny.ran) == kept_tags
    assert merged.action == "ask_user"
    assert untimed(merged.data) == expected_data(kept_actions, kept_tags, kept_tags)
    assert [i.hook_name for i in merged.context_injections] == [
        t for t, a in kept if a == "inject_context"
    ]
