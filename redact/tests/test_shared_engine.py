"""One compiled engine per process per effective config: shared, bounded, never mixed up.

Every config here is compiled for real (rules, trigger indexes, Hyperscan where installed);
the cached engine is compared with one compiled afresh for the same config, on generated
texts, and configs that differ in anything the engine reads must never share an engine.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import (
    BUILTIN_RULES,
    RedactionConfig,
    TextRedactor,
    build_redactor,
    engine_key,
    shared_redactor,
)
from amplifier_hooks_redact import build as build_module
from amplifier_hooks_redact.build import ENGINES_KEPT, clear_engines
from amplifier_hooks_redact.rules import custom_rule

_TOKEN = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"
_RULE_NAMES = [rule.name for rule in BUILTIN_RULES]


def _fresh(config: RedactionConfig) -> Any:
    """An engine compiled afresh for ``config``, bypassing the process's table."""
    return build_module._compile(engine_key(config))


def test_the_same_config_shares_one_engine_across_modules_and_sessions() -> None:
    defaults = RedactionConfig()
    logging_like = RedactionConfig(events=("tool:post",), priority=5, notify=False)
    assert shared_redactor(defaults) is shared_redactor(logging_like)  # same rules, same engine
    assert shared_redactor(defaults) is shared_redactor(RedactionConfig())


def test_build_redactor_shares_the_compiled_engine_with_a_memo_of_its_own() -> None:
    config = RedactionConfig(rules=("secrets",))
    shared = shared_redactor(config)
    first, second = build_redactor(config), build_redactor(config)
    assert first is not second
    assert first is not shared
    assert first.text._joint is shared.text._joint is second.text._joint  # compiled once
    assert first.text._text_plan is shared.text._text_plan
    assert first.text.redact(f"t={_TOKEN}") is not None
    assert f"t={_TOKEN}" in first.text._cache
    assert f"t={_TOKEN}" not in second.text._cache  # what one decided, the other did not


_TEXTS = st.lists(
    st.sampled_from(
        [
            _TOKEN,
            "password=hunter2hunter2",
            "jane@example.com",
            "4111 1111 1111 1111",
            "+1 415 555 0134",
            "AKIAABCDEFGHIJKLMNOP",
            "T-123456",
            "ok",
            " ",
            "\n",
            "=",
            "2026-11-27T15:20:33Z",
        ]
    ),
    max_size=6,
).map(" ".join)


@st.composite
def _configs(draw: st.DrawFn) -> RedactionConfig:
    """Small configs (one to three rules, so each compiles quickly) varying every key the
    engine reads."""
    rules = tuple(draw(st.lists(st.sampled_from(_RULE_NAMES), min_size=1, max_size=3, unique=True)))
    custom = draw(st.sampled_from([{}, {"ticket": r"T-[0-9]{6}"}, {"ticket": r"T-[0-9]{5}"}]))
    allow_values = tuple(draw(st.lists(st.sampled_from(["jane@example.com", _TOKEN]), max_size=1)))
    allow_patterns = tuple(draw(st.lists(st.sampled_from([r"AKIA[A-Z]+", r"T-1.*"]), max_size=1)))
    paths = tuple(draw(st.lists(st.sampled_from(["a", "b.*"]), max_size=1)))
    replacement = draw(st.sampled_from(["[REDACTED:{rule}]", "<{rule}>", "***"]))
    return RedactionConfig(
        rules=rules,
        custom_rules=custom,
        allowlist={"values": allow_values, "patterns": allow_patterns, "paths": paths},
        replacement=replacement,
    )


@settings(max_examples=12, deadline=None)
@given(_configs(), _configs(), _TEXTS)
def test_a_shared_engine_answers_as_one_compiled_afresh(
    first: RedactionConfig, second: RedactionConfig, text: str
) -> None:
    data = {"a": text, "b": {"c": text}, "d": [text]}
    expected = {id(config): _fresh(config).redact(data) for config in (first, second)}
    for config in (first, second, first):  # used in turn: neither leaks into the other
        assert shared_redactor(config).redact(data) == expected[id(config)]
        assert build_redactor(config).redact(data) == expected[id(config)]
    if engine_key(first) != engine_key(second):
        assert shared_redactor(first) is not shared_redactor(second)
    else:
        assert shared_redactor(first) is shared_redactor(second)


@pytest.mark.parametrize(
    "change",
    [
        {"rules": ("secrets",)},
        {"disabled_rules": ("email",)},
        {"custom_rules": {"ticket": r"T-[0-9]{6}"}},
        {"replacement": "<{rule}>"},
        {"allowlist": {"values": ["jane@example.com"]}},
        {"allowlist": {"patterns": [r"jane@.*"]}},
        {"allowlist": {"paths": ["a.b"]}},
    ],
)
def test_a_config_change_the_engine_reads_is_another_engine(change: dict[str, Any]) -> None:
    base = RedactionConfig()
    changed = RedactionConfig(**change)
    assert engine_key(changed) != engine_key(base)
    assert shared_redactor(changed) is not shared_redactor(base)


def test_a_changed_custom_pattern_is_another_engine() -> None:
    six = RedactionConfig(rules=("email",), custom_rules={"ticket": r"T-[0-9]{6}"})
    five = RedactionConfig(rules=("email",), custom_rules={"ticket": r"T-[0-9]{5}"})
    assert shared_redactor(six).redact_text("T-123456")[0] == "[REDACTED:ticket]"
    assert shared_redactor(five).redact_text("T-123456")[0] == "[REDACTED:ticket]6"


def test_the_table_keeps_only_the_most_recently_used_engines() -> None:
    clear_engines()
    configs = [
        RedactionConfig(rules=("email",), replacement=f"<{{rule}} {n}>")
        for n in range(ENGINES_KEPT + 5)
    ]
    engines = [shared_redactor(config) for config in configs]
    assert len(build_module._ENGINES) == ENGINES_KEPT
    assert shared_redactor(configs[-1]) is engines[-1]  # kept
    assert shared_redactor(configs[0]) is not engines[0]  # dropped, compiled again
    assert shared_redactor(configs[0]).redact_text("jane@example.com")[0] == "<email 0>"


def test_threads_asking_at_once_get_one_engine_and_the_same_answers() -> None:
    clear_engines()
    config = RedactionConfig(rules=("secrets",), replacement="#{rule}#")
    texts = [f"{n} token={_TOKEN}{n}" if n % 3 else f"clean {n}" for n in range(300)]
    fresh = _fresh(config)
    expected = [fresh.redact_text(text) for text in texts]
    got: list[Any] = []
    answers: dict[int, list[Any]] = {}
    barrier = threading.Barrier(8)

    def work(number: int) -> None:
        barrier.wait()
        engine = shared_redactor(config)
        got.append(engine)
        answers[number] = [engine.redact_text(text) for text in texts]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(got) == 8
    assert all(engine is got[0] for engine in got)
    assert all(answers[n] == expected for n in range(8))


def test_text_redactors_of_equal_inputs_share_what_is_compiled() -> None:
    rules = tuple(rule for rule in BUILTIN_RULES if rule.name in {"github_token", "email"})
    first = TextRedactor(rules, replacement="<{rule}>")
    second = TextRedactor(list(rules), replacement="<{rule}>")
    assert first._joint is second._joint  # compiled once
    assert first._cache is not second._cache  # a memo each
    others = [
        TextRedactor(rules, replacement="#{rule}#"),
        TextRedactor(rules[:1], replacement="<{rule}>"),
        TextRedactor(rules, replacement="<{rule}>", allow_values=["x"]),
        TextRedactor(rules, replacement="<{rule}>", allow_patterns=[re.compile("x")]),
    ]
    assert all(other._joint is not first._joint for other in others)
    assert TextRedactor(rules, replacement="#{rule}#").redact(f"t {_TOKEN}") == (
        "t #github_token#",
        {"github_token": 1},
    )


def test_equal_custom_rules_built_twice_are_compiled_twice() -> None:
    """A custom rule's selector is made anew each time: nothing to share, nothing mixed up."""
    pattern = re.compile(r"T-[0-9]{6}")
    first = TextRedactor([custom_rule("ticket", pattern)])
    second = TextRedactor([custom_rule("ticket", pattern)])
    assert first._joint is not second._joint
    assert first.redact("T-123456") == second.redact("T-123456")
