"""emit remembers the list items it found plain; an item changed in place is looked at again.

Differential: whatever is edited in place between emits (a value replaced by a path, a tuple
or a model-like object, a nested list extended), every handler sees exactly what the data
normalised afresh gives, as if nothing had been remembered.
"""

from __future__ import annotations

import copy
from pathlib import PurePosixPath
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core.hooks import HookRegistry, _as_json

plain = st.recursive(
    st.one_of(st.text(max_size=6), st.integers(), st.booleans(), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)
odd = st.one_of(
    st.builds(PurePosixPath, st.text(alphabet="abc/", min_size=1, max_size=5)),
    st.tuples(st.integers(), st.text(max_size=3)),
    st.sets(st.integers(), max_size=2),
    plain,
)


def _message(n: int, payload: Any) -> dict[str, Any]:
    return {"role": "tool", "content": f"out {n}", "meta": {"payload": [payload]}}


@settings(max_examples=150, deadline=None)
@given(
    payloads=st.lists(plain, min_size=1, max_size=5),
    edits=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 2), odd), max_size=8),
)
async def test_a_handler_sees_the_data_as_normalised_afresh(
    payloads: list[Any], edits: list[tuple[int, int, Any]]
) -> None:
    seen: list[Any] = []

    async def handler(event: str, data: dict[str, Any]) -> None:
        seen.append((copy.deepcopy(data["messages"]), _types(data["messages"])))

    registry = HookRegistry()
    registry.register("provider:request", handler)
    messages = [_message(n, payload) for n, payload in enumerate(payloads)]
    for _ in range(2):  # met twice: remembered
        await registry.emit("provider:request", {"messages": list(messages)})
    for index, where, value in edits:
        message = messages[index % len(messages)]
        if where == 0:
            message["content"] = value
        elif where == 1:
            message["meta"]["payload"].append(value)
        else:
            messages.append(_message(index, value))
        expected = _as_json({"messages": list(messages)})["messages"]
        await registry.emit("provider:request", {"messages": list(messages)})
        assert seen[-1] == (expected, _types(expected))


@settings(max_examples=150, deadline=None)
@given(
    payloads=st.lists(plain, min_size=1, max_size=5),
    edits=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 3), odd), max_size=8),
    nested=st.booleans(),
)
async def test_a_conversation_carried_again_is_seen_as_normalised_afresh(
    payloads: list[Any], edits: list[tuple[int, int, Any]], nested: bool
) -> None:
    """The same dicts carried by every event, at the top of the data or one dict down, with a
    last message for one event only: edited in place, replaced or appended to between emits,
    each is handed over exactly as normalising the data afresh gives it."""
    seen: list[Any] = []

    def carried(data: dict[str, Any]) -> Any:
        return data["request"]["messages"] if nested else data["messages"]

    async def handler(event: str, data: dict[str, Any]) -> None:
        seen.append((copy.deepcopy(carried(data)), _types(carried(data))))

    def event(messages: list[Any], number: int) -> dict[str, Any]:
        items = [*messages, {"role": "system", "content": f"for this event only {number}"}]
        return {"request": {"messages": items, "stream": True}} if nested else {"messages": items}

    registry = HookRegistry()
    registry.register("llm:request", handler)
    messages = [_message(n, payload) for n, payload in enumerate(payloads)]
    for number in range(2):  # met twice: remembered
        await registry.emit("llm:request", event(messages, number))
    for number, (index, where, value) in enumerate(edits):
        message = messages[index % len(messages)]
        if where == 0:
            message["content"] = value
        elif where == 1:
            message["meta"]["payload"].append(value)
        elif where == 2:
            messages[index % len(messages)] = _message(index, value)
        else:
            messages.append(_message(index, value))
        for _ in range(2):  # and again unchanged
            data = event(messages, number)
            expected = carried(_as_json(data))  # a new dict: data is not changed
            await registry.emit("llm:request", data)
            assert seen[-1] == (expected, _types(expected))


def _types(value: Any) -> Any:
    if type(value) is dict:
        return {key: _types(item) for key, item in value.items()}
    if type(value) is list:
        return [_types(item) for item in value]
    return type(value).__name__  # exact: a tuple or a path handed over is not a list or str
