"""Patterns compiled on first use answer exactly what ``re.compile`` answers."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import BUILTIN_RULES
from amplifier_hooks_redact.lazy import LazyPattern

_BUILTIN = [p for rule in BUILTIN_RULES for p in (*rule.patterns, *rule.ignorecase)]


def test_importing_the_rules_compiles_no_rule_pattern() -> None:
    code = (
        "from amplifier_hooks_redact import BUILTIN_RULES\n"
        "ps = [p for r in BUILTIN_RULES for p in (*r.patterns, *r.ignorecase)]\n"
        "print(len(ps), sum(p.is_compiled for p in ps))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(out[0]) > 100
    assert out[1] == "0"


def test_builtin_flags_are_the_compiled_flags_read_without_compiling() -> None:
    for pattern in _BUILTIN:
        assert isinstance(pattern, LazyPattern)
        fresh = LazyPattern(pattern.pattern, pattern._source_flags)
        assert fresh.flags == re.compile(pattern.pattern, pattern._source_flags).flags
        assert not fresh.is_compiled


_PIECES = st.sampled_from(
    [
        "a",
        "b",
        "A",
        "[a-z]+",
        "\\d",
        "(?i)",
        "(?m)",
        "(?x)",
        "(?s)",
        "(?a)",
        " ",
        "#c\n",
        "^",
        "$",
        "(?P<g>b)",
        "(?i:a)",
        ".",
        "(?:ab|ba)",
        "\\w*",
        "x{2}",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(_PIECES, max_size=6),
    flags=st.sampled_from([0, re.IGNORECASE, re.VERBOSE, re.ASCII, re.MULTILINE | re.DOTALL]),
    text=st.text(alphabet="abAB1 #\nx", max_size=30),
    start=st.integers(0, 5),
)
def test_lazy_answers_what_compiled_answers(
    pieces: list[str], flags: int, text: str, start: int
) -> None:
    source = "".join(pieces)
    try:
        compiled = re.compile(source, flags)
    except re.error:
        return
    lazy = LazyPattern(source, flags)
    assert lazy.flags == compiled.flags  # before compiling
    for method in ("search", "match", "fullmatch"):
        got = getattr(lazy, method)(text, start)
        want = getattr(compiled, method)(text, start)
        assert (got is None) == (want is None)
        if got is not None:
            assert got.span() == want.span()
            assert got.groups() == want.groups()
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert lazy.groupindex == compiled.groupindex
    assert lazy.groups == compiled.groups
    assert lazy.is_compiled
