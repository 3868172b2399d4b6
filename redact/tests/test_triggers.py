"""Literal triggers: what they are read as, and that trying a pattern only at its triggers'
positions finds exactly what scanning the whole text finds."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor, scanner
from amplifier_hooks_redact.rules import BUILTIN_RULES
from amplifier_hooks_redact.triggers import JointIndex, TriggerIndex, literal_triggers

from .corpus import ordinary, secrets


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("ghp_[A-Za-z0-9]{36}", ("ghp_",)),
        ("(?:gh[pousr]_)(?<!x.{4})[A-Za-z0-9]{36}", ("gh",)),  # up to the class
        ("(?:AKIA|ASIA|A3T[A-Z0-9])[A-Z0-9]{16}", ("A3T", "AKIA", "ASIA")),
        ("(?:sk_(?:live|test)_)[0-9A-Za-z]{16}", ("sk_live_", "sk_test_")),
        ("pass(?:word|wd)=", ("passwd=", "password=")),
        ("pass(?:word|wd)?=", ("pass",)),  # up to the optional part
        ("(?P<k>token)[ \t]*=", ("token",)),
        (r"\.(?<=SG\.)[A-Za-z0-9]", None),  # one character: not selective enough
        ("[0-9+(][0-9]{6}", None),  # a class first
        ("(?:ab|)cd", ("abcd", "cd")),  # an empty alternative
        ("x*abc", None),
    ],
)
def test_triggers_are_read_off_the_pattern(source: str, expected: tuple[str, ...] | None) -> None:
    assert literal_triggers(re.compile(source)) == expected


def test_case_insensitive_patterns_have_no_triggers() -> None:
    assert literal_triggers(re.compile("token=", re.IGNORECASE)) is None


def test_most_builtin_patterns_are_indexed() -> None:
    patterns = [p for rule in BUILTIN_RULES for p in rule.patterns]
    indexed = [p for p in patterns if literal_triggers(p) is not None]
    assert len(indexed) >= 0.8 * len(patterns), (len(indexed), len(patterns))


def test_positions_cover_overlapping_and_nested_triggers() -> None:
    index = TriggerIndex([("sk-", "sk-ant-"), ("ant",), None, ("passpass",)])
    found = index.positions("sk-ant-x sk-y passpasspass")
    assert found == {0: [0, 9], 1: [3], 3: [14, 18]}  # sk- and sk-ant- start at 0: once
    assert index.indexed == frozenset({0, 1, 3})


def _every_occurrence(triggers: list[tuple[str, ...]], text: str) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for index, words in enumerate(triggers):
        for word in words:
            for start in range(len(text)):
                if text.startswith(word, start):
                    found.setdefault(index, []).append(start)
    return {index: sorted(set(starts)) for index, starts in found.items()}


_WORDS = st.text(alphabet="ab-é", min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_WORDS, min_size=1, max_size=4, unique=True), min_size=1, max_size=30),
    st.text(alphabet="ab-é", max_size=80),
)
def test_positions_are_every_occurrence_of_every_trigger(words: list[list[str]], text: str) -> None:
    """Triggers nested in, overlapping, or spilling past one another (``aab`` beside ``ba``,
    ``-a-`` beside ``a-b``), split over several automata: every place where a trigger of a
    pattern starts is found, once for that pattern (``ab`` and ``abb`` at one place: once)."""
    triggers = [tuple(sorted(group)) for group in words]
    found = TriggerIndex(triggers).positions(text)
    assert {index: starts for index, starts in found.items() if starts} == _every_occurrence(
        triggers, text
    )


def test_positions_of_non_ascii_text_are_character_offsets() -> None:
    index = TriggerIndex([("ghp_",)])
    assert index.positions("é€ ghp_x") == {0: [3]}


def _unindexed(redactor: scanner.TextRedactor) -> scanner.TextRedactor:
    """A redactor like ``redactor`` whose trigger indexes are empty: every pattern scanned."""
    plain = scanner.TextRedactor.__new__(scanner.TextRedactor)
    for slot in scanner.TextRedactor.__slots__:
        setattr(plain, slot, getattr(redactor, slot))
    plain._text_index = TriggerIndex([])
    plain._lowered_index = TriggerIndex([])
    plain._text_plan = scanner._Plan.of(plain._passes, plain._text_index, lowered=False)
    plain._lowered_plan = scanner._Plan.of(plain._passes, plain._lowered_index, lowered=True)
    plain._joint = JointIndex(plain._text_index, plain._lowered_index)
    return plain


_INDEXED = build_redactor(RedactionConfig(rules=("all",))).text
_PLAIN = _unindexed(_INDEXED)


def test_the_corpus_is_redacted_alike_with_and_without_triggers() -> None:
    indexed, plain = _INDEXED, _PLAIN
    texts = [text for _, text, _ in secrets()] + [text for _, text in ordinary()]
    rng = random.Random(7)
    joined = "\n".join(rng.sample(texts, len(texts)))  # one long text, as a log would be
    for text in [*texts, joined, joined.upper(), "İ" + joined]:  # İ: lower() changes length
        assert indexed.find(text) == plain.find(text)


_PIECES = st.sampled_from(
    [
        "ghp_",
        "sk-",
        "sk-ant-",
        "password",
        "PASSWORD",
        "=",
        ": ",
        '"',
        "AKIA",
        "xoxb-",
        "token",
        "://",
        "@",
        " ",
        "\n",
        "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        "0123456789abcdef",
        "+1 555 123 4567",
        "İ",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_glued_fragments_are_redacted_alike_with_and_without_triggers(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    assert _INDEXED.find(text) == _PLAIN.find(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ghp_skAKIA-x1. \n%3Dtokenpassword", max_size=300))
def test_hyperscan_and_the_automata_find_the_same_positions(text: str) -> None:
    words = ["ghp_", "gh", "sk-", "AKIA", "token", "ok", "password", "%3D", "pass"]
    owners = [(w,) for w in words]
    index = TriggerIndex(owners)
    automata = TriggerIndex(owners)
    automata._hs = None  # the Aho-Corasick automata, as where hyperscan is not installed
    assert index.positions(text) == automata.positions(text)


_DIGIT_PIECES = st.sampled_from(
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111111111111111",
        "378282246310005",
        "4222222222222",
        "+1 555 123 4567",
        "+44 20 7946 0958",
        "+4915112345678",
        "(212) 555-4567",
        "1 (212) 555-4567",
        "1(212) 555-4567",
        "1212-555-4567",
        "1-212-555-4567",
        "212.555.4567",
        "020 7946 0958",
        "0151 234 5678",
        "2027",
        "0",
        "1",
        "9",
        " ",
        "-",
        ".",
        "(",
        ")",
        "+",
        ":",
        "/",
        "_",
        "a",
        "x",
        "\n",
        '"',
        "é",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_DIGIT_PIECES, max_size=25))
def test_phone_and_card_numbers_are_found_alike_at_their_possible_starts(
    pieces: list[str],
) -> None:
    # Where Hyperscan runs, the digit pattern is tried only where one of its shapes starts.
    text = "".join(pieces)
    assert _INDEXED.find(text) == _PLAIN.find(text)
    assert _INDEXED.find(text.replace("é", "e")) == _PLAIN.find(text.replace("é", "e"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_DIGIT_PIECES, max_size=8).map("".join), min_size=2, max_size=6))
def test_strings_decided_together_agree_with_their_own_scans(strings: list[str]) -> None:
    strings = [text.replace("é", "e") for text in strings]  # joined: ASCII strings only
    _INDEXED._cache.clear()
    expected = all(_PLAIN.find(text) == [] for text in strings)
    assert _INDEXED.all_clean(strings) is expected
    _INDEXED._cache.clear()


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES | _DIGIT_PIECES, max_size=30))
def test_one_pass_finds_what_each_index_finds(pieces: list[str]) -> None:
    # The text's triggers and the lower-cased copy's, in one case-insensitive pass.
    text = "".join(pieces)
    joint = _INDEXED._joint.positions(text)
    if not text.isascii():
        assert joint is None
        return
    assert joint == (
        _INDEXED._text_index.positions(text),
        _INDEXED._lowered_index.positions(text.lower()),
    )
