"""A custom rule whose pattern can match nothing at some places (a word boundary, a lookahead)
never holds a scan: the configuration refuses the ones it can see, and the scanner steps past
an empty match, the last one at the end of the text included."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.config import _EMPTY_PROBE
from amplifier_hooks_redact.scanner import _scan

ZERO_WIDTH = [r"\b", r"\B", r"$", r"(?=y)", r"(?<=x)", r"(?<=w)(?=o)", r"(?m)^", r"\Z"]


@pytest.mark.parametrize("pattern", ZERO_WIDTH)
def test_a_custom_rule_that_matches_nothing_somewhere_is_refused(pattern: str) -> None:
    with pytest.raises(ValidationError, match="matches the empty string"):
        RedactionConfig(custom_rules={"edge": pattern})


@settings(max_examples=200, deadline=None)
@given(pattern=st.sampled_from(ZERO_WIDTH), text=st.text(max_size=300))
def test_the_scanner_steps_past_empty_matches(pattern: str, text: str) -> None:
    hits: list[tuple[int, int, int]] = []
    rejected: list[tuple[int, int]] = []

    def select(_text: str, match: re.Match[str]) -> tuple[int, int] | None:
        return match.span()

    _scan(re.compile(pattern), text, text, ((0, select),), hits, rejected)
    assert hits == []  # an empty span is no hit
    assert len(rejected) <= len(text) + 1  # each place at most once


def test_the_probe_shows_each_zero_width_form() -> None:
    assert all(re.search(p, _EMPTY_PROBE) is not None for p in ZERO_WIDTH)


@pytest.mark.parametrize("pattern", [r"tok_[a-z0-9]{8}", r"(?i)secret=\w+"])
def test_custom_rules_that_need_text_still_work(pattern: str) -> None:
    redactor = build_redactor(RedactionConfig(custom_rules={"mine": pattern}))
    clean, counts = redactor.redact_text("a tok_abcd1234 and SECRET=hunter22 here")
    assert counts.get("mine") == 1
    assert "tok_abcd1234" not in clean or "hunter22" not in clean
