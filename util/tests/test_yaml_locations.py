"""YamlDocument: data and lines from one composition, duplicate keys, merges, and documents
built to break a reader (alias cycles, deep nesting, self-merges)."""

from __future__ import annotations

import textwrap

import pytest
import yaml
from amplifier_hooks_util.yaml_locations import (
    MAX_DEPTH,
    DuplicateKey,
    YamlDocument,
    describe_yaml_error,
)

BUNDLE = textwrap.dedent(
    """\
    bundle:
      name: demo
    hooks:
      - module: hooks-logging
      - module: hooks-approval
        config:
          require_approval: [bash]
    """
)


def error_of(text: str) -> tuple[str, int | None, int | None]:
    with pytest.raises(yaml.YAMLError) as caught:
        YamlDocument.parse(text)
    return describe_yaml_error(caught.value)


def test_data_and_lines_of_values_and_keys() -> None:
    document = YamlDocument.parse(BUNDLE)
    assert document.data["hooks"][1]["config"] == {"require_approval": ["bash"]}
    assert document.line_of(("bundle", "name")) == 2
    assert document.line_of(("hooks", 1)) == 5
    assert document.line_of(("hooks", 1, "config")) == 7
    assert document.line_of(("hooks", 1, "config"), key=True) == 6
    assert document.line_of(("hooks", 1, "config", "require_approval", 0)) == 7


def test_a_path_that_does_not_exist_gives_the_nearest_line() -> None:
    document = YamlDocument.parse(BUNDLE)
    assert document.line_of(("hooks", 1, "source")) == 5  # the entry that lacks it
    assert document.line_of(("hooks", 7)) == 4  # the list
    assert document.line_of(("bundle", "name", "deeper")) == 2  # a scalar has no children
    assert document.line_of(()) == 1


def test_an_empty_document_has_no_lines() -> None:
    document = YamlDocument.parse("")
    assert (document.root, document.data) == (None, None)
    assert document.line_of(("a",)) is None
    assert document.duplicate_keys() == []


def test_duplicate_keys_at_every_depth() -> None:
    document = YamlDocument.parse("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n")
    assert document.duplicate_keys() == [
        DuplicateKey(("b", "c"), line=4, first_line=3),
        DuplicateKey(("a",), line=5, first_line=1),
    ]
    assert document.duplicate_keys()[0].key == "c"


def test_merges_give_the_data_but_leave_the_text_as_written() -> None:
    text = "base: &b {a: 1, c: 3}\nx:\n  <<: *b\n  a: 2\n"
    document = YamlDocument.parse(text)
    assert document.data["x"] == {"a": 2, "c": 3}
    assert document.duplicate_keys() == []  # the merged 'a' is not written twice in x
    assert document.line_of(("x", "a"), key=True) == 4
    several = YamlDocument.parse("p: &p {a: 1}\nq: &q {a: 2, b: 2}\nr:\n  <<: [*p, *q]\n")
    assert several.data["r"] == {"a": 1, "b": 2}  # the first source wins


def test_json_text_gives_positions() -> None:
    document = YamlDocument.positions('{\n "hooks": {\n  "Stop": [1, 2]\n }\n}\n')
    assert document.data is None
    assert document.line_of(("hooks", "Stop", 1)) == 3


def test_an_alias_cycle_is_read_and_walked_once() -> None:
    document = YamlDocument.parse("x: &x [*x, {y: *x}]\nz: &z {me: *z, me2: *z}\n")
    x = document.data["x"]
    assert x[0] is x
    assert x[1]["y"] is x
    assert document.data["z"]["me"] is document.data["z"]
    assert document.duplicate_keys() == []
    assert document.line_of(("x", 0, 0, 0, 1, "y", 0)) == 1
    assert document.line_of(("z", "me", "me", "me2")) == 2


def test_repeated_aliases_share_one_node() -> None:
    lines = ["l0: &l0 [1, 2, 3, 4, 5, 6, 7, 8, 9]"]
    for n in range(1, 13):
        lines.append(f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]")
    text = "\n".join(lines) + "\n"
    document = YamlDocument.parse(text)  # 9**12 leaves if expanded: must not be
    assert document.duplicate_keys() == []
    assert document.data["l12"][0] is document.data["l11"]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
def test_deep_flow_nesting_is_refused_with_its_position(depth: int) -> None:
    message, line, column = error_of("a: " + "[" * depth + "]" * depth + "\n")
    assert message == f"found collections nested more than {MAX_DEPTH} levels deep"
    assert (line, column) == (1, 3 + MAX_DEPTH)  # the mapping is the first level


def test_deep_block_nesting_is_refused() -> None:
    depth = 2000
    text = "".join("  " * i + "k:\n" for i in range(depth)) + "  " * depth + "v\n"
    message, line, _ = error_of(text)
    assert "nested more than" in message
    assert line == MAX_DEPTH + 1


def test_nesting_up_to_the_limit_is_read() -> None:
    depth = MAX_DEPTH
    document = YamlDocument.parse("[" * depth + "x" + "]" * depth)
    value = document.data
    for _ in range(depth - 1):
        value = value[0]
    assert value == ["x"]
    assert document.line_of((0,) * (depth + 5)) == 1


def test_a_mapping_merged_into_itself_is_an_error() -> None:
    message, line, column = error_of("a: &a\n  b: 1\n  <<: *a\n")
    assert "merges this mapping into itself" in message
    assert (line, column) == (1, 4)


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        (
            "hooks:\n  - module: a\n   config: {}\n",
            "expected <block end>, but found '<block mapping start>' "
            "(while parsing a block collection at line 2)",
            3,
            4,
        ),
        (
            "a: {b: 1\nc: 2\n",
            "expected ',' or '}', but got ':' (while parsing a flow mapping at line 1)",
            2,
            2,
        ),
        ("a: *nowhere\n", "found undefined alias 'nowhere'", 1, 4),
        (
            "a: &x 1\nb: &x 2\n",
            "second occurrence (found duplicate anchor 'x'; first occurrence at line 1)",
            2,
            4,
        ),
        (
            "a: 1\n---\nb: 2\n",
            "expected a single document in the stream, but found another document",
            2,
            1,
        ),
    ],
)
def test_syntax_errors_are_described_with_their_position(
    text: str, message: str, line: int, column: int
) -> None:
    described, at_line, at_column = error_of(text)
    assert message in described
    assert (at_line, at_column) == (line, column)


def test_an_error_without_a_position() -> None:
    assert describe_yaml_error(yaml.YAMLError("broken")) == ("broken", None, None)
