"""Deciding the strings of one event together gives each string its own scan's verdict."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.joined import joinable
from amplifier_hooks_redact.rules import BUILTIN_RULES

from .corpus import ordinary, secrets


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("^abc", False),  # plain ^ does not hold after a line break
        ("(?m)^abc", True),
        (r"\Aabc", False),
        ("abc$", False),
        (r"abc\Z", False),
        (r"x(?=$)", False),
        ("(?m)x(?=$)", True),
        (r"\bfoo\b", True),
        ("abc(?![a-z])", True),
        (r"abc(?!\s)", False),  # a line break is a space: the look-ahead would fail
        ("(?<![^a])b", False),
        (r"(?<!\W)x", False),
        ("(?<!.)x", True),  # . is not a line break
        ("(?s)(?<!.)x", False),
        (r"(a)(?!\1)", False),
        ("(?:^|=)x", False),
    ],
)
def test_joinable_reads_every_assertion(source: str, expected: bool) -> None:
    assert joinable(re.compile(source)) is expected


def test_every_builtin_pattern_without_triggers_is_joinable() -> None:
    redactor = build_redactor(RedactionConfig())
    plans = (redactor.text._text_plan, redactor.text._lowered_plan)
    assert all(all(plan.joinable) for plan in plans)
    assert any(rule.patterns for rule in BUILTIN_RULES)


def _verdicts_alone(texts: list[str]) -> list[bool]:
    alone = build_redactor(RedactionConfig()).text
    return [alone.redact(text) is None for text in texts]


def _corpus_texts() -> list[str]:
    texts = [text for _, text, _ in secrets()] + [text for _, text in ordinary()]
    lines = [line for text in texts for line in text.splitlines()]
    return texts + lines


def test_batches_of_the_corpus_get_each_strings_own_verdict() -> None:
    texts = _corpus_texts()
    clean_alone = dict(zip(texts, _verdicts_alone(texts), strict=True))
    rng = random.Random(7)
    for _ in range(300):
        batch = rng.sample(texts, rng.randint(2, 12))
        together = build_redactor(RedactionConfig()).text
        assert together.all_clean(batch) is all(clean_alone[t] for t in batch)
        for text in batch:  # each verdict remembered is the string's own
            assert (together.redact(text) is None) is clean_alone[text], text


_PIECES = st.sampled_from(
    [
        "ghp_",
        "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm",
        "password=",
        "hunter2hunter2",
        "+1 415 555 0134",
        "4111 1111 1111 1111",
        "jane@example.com",
        "%3D",
        "<password>",
        "</password>",
        "AKIA",
        "ABCDEFGHIJKLMNOP",
        "\n",
        " ",
        ":",
        "=",
        "\\n",
        "toolu_0001",
        "2026-11-27T15:20:33.456+00:00",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_PIECES, max_size=6).map("".join), min_size=2, max_size=6))
def test_generated_batches_get_each_strings_own_verdict(batch: list[str]) -> None:
    alone = _verdicts_alone(batch)
    together = build_redactor(RedactionConfig()).text
    assert together.all_clean(batch) is all(alone)
    assert [together.redact(text) is None for text in batch] == alone


def test_a_clean_event_comes_back_as_the_same_object() -> None:
    redactor = build_redactor(RedactionConfig())
    data = {"tool_input": {"command": "ls -la /tmp/project/12"}, "tool_call_id": "toolu_0001"}
    clean, counts = redactor.redact(data)
    assert clean is data
    assert counts == {}


def test_an_event_with_a_secret_is_walked_and_copied() -> None:
    redactor = build_redactor(RedactionConfig())
    token = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"
    data = {"a": {"b": ["ok", f"token {token}"]}, "c": "plain"}
    clean, counts = redactor.redact(data)
    assert clean is not data
    assert token not in repr(clean)
    assert counts == {"github_token": 1}
    assert data["a"]["b"][1].endswith(token)  # the caller's data is not changed


def test_bytes_and_str_subclasses_take_the_walk() -> None:
    class Text(str):
        pass

    redactor = build_redactor(RedactionConfig())
    token = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"
    clean, counts = redactor.redact({"raw": token.encode(), "sub": Text(token)})
    assert token.encode() not in clean["raw"]
    assert token not in clean["sub"]
    assert counts == {"github_token": 2}


def test_a_custom_anchored_rule_is_searched_string_by_string() -> None:
    config = RedactionConfig(rules=("secrets",), custom_rules={"ticket": r"^T-[0-9]{6}$"})
    redactor = build_redactor(config)
    plan = redactor.text._text_plan
    assert not all(plan.joinable)
    data = {"a": "x", "b": "T-123456", "c": "y"}
    clean, counts = redactor.redact(data)
    assert clean["b"] == "[REDACTED:ticket]"
    assert counts == {"ticket": 1}
