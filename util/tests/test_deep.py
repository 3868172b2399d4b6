"""Event data of any depth: the same JSON text as json.dumps, and whole copies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from amplifier_hooks_util.deep import cut_depth, dumps, tree_copy

DEPTH = 10_000


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for level in range(depth):
        value = {"level": level, "inner": [value, (1, 2)]} if level % 2 else {"b": value, "a": None}
    return value


def test_dumps_writes_what_json_writes_where_json_can() -> None:
    data = {"b": [1, 2.5, None, True], "a": {"z": "é", "p": Path("/x")}, "t": (1, "2")}
    for sort_keys in (False, True):
        for ensure_ascii in (False, True):
            expected = json.dumps(data, sort_keys=sort_keys, ensure_ascii=ensure_ascii, default=str)
            assert dumps(data, sort_keys=sort_keys, ensure_ascii=ensure_ascii) == expected


def test_dumps_writes_data_nested_past_the_recursion_limit_as_json_would() -> None:
    shallow = nested(50)
    assert dumps(shallow, sort_keys=True) == json.dumps(shallow, sort_keys=True, default=str)
    text = dumps(nested(DEPTH), sort_keys=True)
    assert text.count('"inner": [') == DEPTH // 2
    assert text.endswith("}")


def test_tree_copy_copies_every_level_and_shares_nothing_mutable() -> None:
    original = nested(DEPTH)
    copied = tree_copy(original)
    mine, theirs, depth = copied, original, 0
    while isinstance(mine, dict):
        assert mine is not theirs
        key = "b" if "b" in mine else "inner"
        mine, theirs = mine[key], theirs[key]
        if isinstance(mine, list):
            assert mine is not theirs
            assert mine[1] == [1, 2]  # tuples come back as lists
            mine, theirs = mine[0], theirs[0]
        depth += 1
    assert (depth, mine) == (DEPTH, "leaf")


def test_tree_copy_copies_a_container_that_contains_itself_once() -> None:
    looped: dict[str, Any] = {"name": "x"}
    looped["self"] = looped
    copied = tree_copy(looped)
    assert copied is not looped
    assert copied["self"] is copied


def test_cut_depth_replaces_only_the_containers_below_the_limit() -> None:
    value = {"a": [1, {"b": (2, [3])}], "s": "text"}
    assert cut_depth(value, 0, "CUT") == "CUT"
    assert cut_depth("leaf", 0, "CUT") == "leaf"
    assert cut_depth(value, 1, "CUT") == {"a": "CUT", "s": "text"}
    assert cut_depth(value, 3, "CUT") == {"a": [1, {"b": "CUT"}], "s": "text"}
    assert cut_depth(value, 5, "CUT") == {"a": [1, {"b": [2, [3]]}], "s": "text"}
    copied = cut_depth(value, 9, "CUT")
    assert copied["a"] is not value["a"]
