"""sed's options, read by the shared option parser for the "runs code" check."""

from __future__ import annotations

import pytest

from amplifier_module_hooks_approval.code import runs_code
from amplifier_module_hooks_approval.options import TABLES, OptionTable, parse_options

_SUFFIXED = OptionTable(short={"n": "quiet"}, short_optional={"i": "in-place"})


def test_an_optional_short_value_is_the_rest_of_its_word_and_never_the_next() -> None:
    parsed = parse_options(["-ibak", "-n", "-i", "file"], _SUFFIXED)
    assert parsed.options == (("in-place", "bak"), ("quiet", None), ("in-place", None))
    assert parsed.operands == ("file",)
    assert parse_options(["-ni.orig"], _SUFFIXED).options == (
        ("quiet", None),
        ("in-place", ".orig"),
    )


def test_a_table_without_optional_values_reads_a_bundle_as_before() -> None:
    parsed = parse_options(["-in", "x"], TABLES["sed"])
    assert parsed.options == (("in-place", None), ("quiet", None))
    assert parsed.operands == ("x",)


@pytest.mark.parametrize(
    ("arguments", "runs"),
    [
        (["-i.bak", "-e", "w /tmp/out", "f"], "sed's script may run a command"),
        (["-ie", "s/a/b/", "f"], None),  # -i with the suffix "e"; the script is the operand
        (["-ie", "s/a/b/e", "f"], "sed's script may run a command"),
        (["-e", "", "w /tmp/out"], None),  # with -e, every operand is an input file
        (["-nf", "script.sed"], "sed reads its script from a file"),
        (["--fi=script.sed"], "sed reads its script from a file"),
        (["--expr=p", "f"], None),
        (["--expression"], None),
        (["-n", "--", "p", "-e"], None),  # after --, "-e" is an input file
    ],
)
def test_sed_is_flagged_exactly_when_its_script_may_run_code(
    arguments: list[str], runs: str | None
) -> None:
    found = runs_code("sed", arguments)
    assert found is None if runs is None else (found or "").startswith(runs), (arguments, found)
