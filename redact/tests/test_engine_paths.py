"""The scanner's quicker paths against the ones they stand in for: the echoes of an ASCII
text walked as bytes, and card numbers turned away by their first digit."""

from __future__ import annotations

import string

import ahocorasick_rs
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import scanner
from amplifier_hooks_redact.checks import _NETWORKS, is_card_number, luhn_valid

_VALUE = st.text(alphabet="aZ9_-x", min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(_VALUE, st.integers(0, 40), min_size=2, max_size=16),
    st.lists(st.one_of(_VALUE, st.text(alphabet="aZ9 _-x.\n", max_size=8)), max_size=60),
    st.booleans(),
)
def test_echoes_of_an_ascii_text_are_found_as_by_the_string_walk(
    found: dict[str, int], pieces: list[str], accented: bool
) -> None:
    """Where the values occur (overlapping, nested, at the ends), the bytes walk reports what
    the leftmost-longest walk of the string does."""
    text = "".join(pieces)
    if accented:  # a value no ASCII text holds
        found = {**found, "é" + next(iter(found)): 3}
    padding = " " * max(0, scanner._ECHO_AUTOMATON_FROM - len(text))
    text = padding + text
    values = list(found)
    automaton = ahocorasick_rs.AhoCorasick(
        values, matchkind=ahocorasick_rs.MatchKind.LeftmostLongest
    )
    expected = [
        (start, end, found[values[which]])
        for which, start, end in automaton.find_matches_as_indexes(text)
    ]
    assert scanner._echoes(text, found) == expected


def _network_card(digits: str) -> bool:
    """The card check written from the network table alone: a prefix, a length, Luhn."""
    for low, high, width, lengths in _NETWORKS:
        head = digits[:width]
        if len(head) == width and low <= int(head) <= high:
            return len(digits) in lengths and luhn_valid(digits)
    return False


@settings(max_examples=2000, deadline=None)
@given(
    st.text(alphabet=string.digits, min_size=1, max_size=22),
    st.sampled_from(["", " ", "-"]),
)
def test_card_numbers_turned_away_by_their_first_digit_are_not_cards(
    digits: str, separator: str
) -> None:
    candidate = separator.join(digits[i : i + 4] for i in range(0, len(digits), 4))
    expected = 13 <= len(digits) <= 19 and _network_card(digits)
    assert is_card_number(candidate) == expected
