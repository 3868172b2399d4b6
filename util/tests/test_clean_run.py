"""A run answers only for leading items that hold what they held when they were decided.

Generative: lists of plain data are decided, then edited in place (deep inside an item, or a
key added), replaced, inserted before, appended to and cut short; whatever :meth:`start`
answers for must equal, item by item and in place, what was decided, and an item changed
since is never answered for unless it holds again exactly what it held.
"""

from __future__ import annotations

import copy
from typing import Any

from amplifier_hooks_util.clean_run import CleanRun, CleanRuns, plain_copy
from hypothesis import given, settings
from hypothesis import strategies as st

leaves = st.one_of(st.text(max_size=4), st.integers(), st.booleans(), st.none())
plain = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)
items = st.lists(st.dictionaries(st.text(max_size=3), plain, max_size=3), max_size=8)
edits = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 20), plain), max_size=6)


def _edit(listed: list[Any], op: int, index: int, value: Any) -> None:
    if not listed or op == 0:
        listed.append({"new": value})
        return
    where = index % len(listed)
    item = listed[where]
    if op == 1:
        item["changed"] = value
    elif op == 2:
        for key in list(item)[:1]:
            inner = item[key]
            if isinstance(inner, list):
                inner.append(value)  # deep inside, in place
            else:
                item[key] = [inner, value]
    elif op == 3:
        listed[where] = {"replaced": value}
    elif op == 4:
        listed.insert(0, {"first": value})
    else:
        del listed[where:]


@settings(max_examples=300, deadline=None)
@given(first=items, changes=edits)
def test_start_answers_only_for_items_as_they_were_decided(
    first: list[dict[str, Any]], changes: list[tuple[int, int, Any]]
) -> None:
    run = CleanRun()
    listed = list(first)
    run.decided(listed, 0)
    decided = copy.deepcopy(listed)
    assert run.start(listed) == len(listed)  # nothing changed: every item
    for op, index, value in changes:
        _edit(listed, op, index, value)
    start = run.start(listed)
    assert listed[:start] == decided[:start]
    assert all(type(item) is dict for item in listed[:start])
    run.decided(listed, start)
    assert run.start(listed) == len(listed)


@settings(max_examples=200, deadline=None)
@given(first=items, changes=edits, nested=st.booleans())
def test_a_view_leaves_out_exactly_the_items_answered_for(
    first: list[dict[str, Any]], changes: list[tuple[int, int, Any]], nested: bool
) -> None:
    runs = CleanRuns()
    listed = list(first)

    def data() -> dict[str, Any]:
        carried = list(listed)
        return {"request": {"messages": carried, "n": 1}} if nested else {"messages": carried}

    _, marks = runs.view(data())
    runs.decided(marks)
    decided = copy.deepcopy(listed)
    for op, index, value in changes:
        _edit(listed, op, index, value)
    now = data()
    view, marks = runs.view(now)
    carried = now["request"]["messages"] if nested else now["messages"]
    shown = view["request"]["messages"] if nested else view["messages"]
    start = len(carried) - len(shown)
    assert carried[start:] == shown
    assert carried[:start] == decided[:start]
    assert now == (
        {"request": {"messages": listed, "n": 1}} if nested else {"messages": listed}
    )  # the data itself is left as it was


def test_what_is_not_plain_data_or_a_container_ends_the_run() -> None:
    run = CleanRun()
    listed: list[Any] = [{"a": "b"}, {"when": object()}, {"c": "d"}]
    run.decided(listed, 0)
    assert len(run) == 1
    run.decided(["--token", "value"], 0)  # lone strings: never answered for
    assert len(run) == 0
    assert plain_copy({"a": [1, (2, "x")]}) == {"a": [1, (2, "x")]}
    assert plain_copy({1: "a"}) is None


@settings(max_examples=300, deadline=None)
@given(first=items, changes=edits, as_tuple=st.booleans())
def test_start_answers_the_longest_run_of_items_equal_to_the_decided(
    first: list[dict[str, Any]], changes: list[tuple[int, int, Any]], as_tuple: bool
) -> None:
    run = CleanRun()
    listed = list(first)
    run.decided(listed, 0)
    decided = copy.deepcopy(listed)
    for op, index, value in changes:
        _edit(listed, op, index, value)
    expected = 0
    while expected < min(len(listed), len(decided)) and listed[expected] == decided[expected]:
        expected += 1
    assert run.start(tuple(listed) if as_tuple else listed) == expected
