"""Walking nested event data: what is copied, what is shared, what is never touched."""

from __future__ import annotations

import copy
from collections import OrderedDict, defaultdict
from typing import Any, NamedTuple

import pytest

from amplifier_hooks_redact import BUILTIN_RULES, Redactor, TextRedactor
from amplifier_hooks_redact.paths import PathMatcher, parse_path

GH = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"
MARK = "[REDACTED:github_token]"


def redactor(*paths: str) -> Redactor:
    return Redactor(TextRedactor(BUILTIN_RULES), paths)


class Pair(NamedTuple):
    left: Any
    right: Any


def test_nested_structures_are_redacted_keys_included() -> None:
    marker = object()
    data: dict[str, Any] = {
        GH: {"list": [1, 2.5, None, True, b"ghp_bytes", marker, f"x {GH}"]},
        "tuple": (GH, 3),
        "pair": Pair(GH, "plain"),
        "content": [{"type": "text", "text": GH}, {"type": "image", "data": b"\x00"}],
    }
    snapshot = copy.deepcopy({k: v for k, v in data.items() if k != GH})
    result, counts = redactor().redact(data)
    assert counts == {"github_token": 5}
    assert list(result) == [MARK, "tuple", "pair", "content"]  # the token as a key too
    assert result[MARK]["list"][:6] == [1, 2.5, None, True, b"ghp_bytes", marker]
    assert result[MARK]["list"][5] is marker
    assert result[MARK]["list"][6] == f"x {MARK}"
    assert result["tuple"] == (MARK, 3)
    assert type(result["tuple"]) is tuple
    assert result["pair"] == Pair(MARK, "plain")
    assert type(result["pair"]) is Pair
    assert result["content"][0] == {"type": "text", "text": MARK}
    # The input is untouched.
    assert data[GH]["list"][6] == f"x {GH}"
    assert {k: v for k, v in data.items() if k != GH} == snapshot


def test_unchanged_data_is_returned_as_the_same_object_and_subtrees_are_shared() -> None:
    clean = {"a": [{"b": "2024-01-15T10:30:00Z"}], "c": ("d",)}
    result, counts = redactor().redact(clean)
    assert result is clean
    assert counts == {}
    mixed = {"clean": clean, "dirty": [GH]}
    result, _ = redactor().redact(mixed)
    assert result is not mixed
    assert result["clean"] is clean  # only the changed path is copied
    assert result["dirty"] == [MARK]


def test_container_subclasses_keep_their_type() -> None:
    ordered = OrderedDict(a=GH)
    default: defaultdict[str, list[str]] = defaultdict(list, a=[GH])

    class Tagged(list[str]):
        pass

    result, _ = redactor().redact({"o": ordered, "d": default, "t": Tagged([GH])})
    assert type(result["o"]) is OrderedDict
    assert result["o"] == {"a": MARK}
    assert type(result["d"]) is defaultdict
    assert result["d"]["a"] == [MARK]
    assert result["d"].default_factory is list
    assert type(result["t"]) is Tagged
    assert result["t"] == [MARK]


def test_self_referencing_data_is_walked_once() -> None:
    data: dict[str, Any] = {"text": GH}
    data["self"] = data
    result, counts = redactor().redact(data)
    assert counts == {"github_token": 1}
    assert result["text"] == MARK
    assert result["self"] is data  # the cycle is left as it was


def test_strings_at_the_top_level_and_in_tuples() -> None:
    assert redactor().redact(GH) == (MARK, {"github_token": 1})
    assert redactor().redact((GH, (GH,))) == ((MARK, (MARK,)), {"github_token": 2})


@pytest.mark.parametrize(
    ("path", "exempt", "redacted"),
    [
        ("a", [("a",), ("a", "b")], [("b",)]),
        ("a.b", [("a", "b")], [("a", "c"), ("b",)]),
        ("messages[0].meta", [("messages", 0, "meta")], [("messages", 1, "meta")]),
        ("messages.0.meta", [("messages", 0, "meta")], [("messages", 1, "meta")]),
        (
            "messages[*].meta",
            [("messages", 0, "meta"), ("messages", 7, "meta")],
            [("messages", "x", "meta")],
        ),
        ("a.*.c", [("a", "x", "c"), ("a", 3, "c")], [("a", "c"), ("a", "x", "y", "c")]),
        ("**.sha", [("sha",), ("a", "sha"), ("a", 1, "b", "sha")], [("a", "shax")]),
        ("a.**.c", [("a", "c"), ("a", "x", "c"), ("a", 1, 2, "c")], [("b", "c")]),
        ("a.**", [("a", "b"), ("a",)], [("b",)]),
    ],
)
def test_key_paths(
    path: str, exempt: list[tuple[Any, ...]], redacted: list[tuple[Any, ...]]
) -> None:
    matcher = PathMatcher([path])

    def is_exempt(keys: tuple[Any, ...]) -> bool:
        states = matcher.initial
        for key in keys:
            result = matcher.step(states, key, isinstance(key, int))
            if result is None:
                return True
            states = result
        return False

    for keys in exempt:
        assert is_exempt(keys), (path, keys)
    for keys in redacted:
        assert not is_exempt(keys), (path, keys)


def test_key_paths_in_a_walk() -> None:
    data = {
        "messages": [{"meta": GH, "text": GH}, {"meta": GH, "text": GH}],
        "checks": {"sha": GH, "deeper": [{"sha": GH, "other": GH}]},
    }
    result, counts = redactor("messages[1].meta", "**.sha").redact(data)
    assert result["messages"] == [{"meta": MARK, "text": MARK}, {"meta": GH, "text": MARK}]
    assert result["checks"] == {"sha": GH, "deeper": [{"sha": GH, "other": MARK}]}
    assert counts == {"github_token": 4}


@pytest.mark.parametrize("path", ["", " a", "a..b", "a.b*", "**[0]", "a[x]", "[*", "**.**"])
def test_bad_key_paths(path: str) -> None:
    with pytest.raises(ValueError, match="key path"):
        parse_path(path)
