"""The strings of many events decided in one call, and what plain data is decided by."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from amplifier_hooks_testsupport.plain_data import plain_data, plain_leaves
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.walker import _strings, plain_strings

from .corpus import ordinary, secrets

GH = "ghp_" + "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4Nm"


def _texts() -> list[str]:
    texts = [text for _, text, _ in secrets()] + [text for _, text in ordinary()]
    return texts + [line for text in texts for line in text.splitlines()]


def test_holding_names_exactly_the_strings_whose_own_scan_finds_something() -> None:
    texts = _texts()
    alone = build_redactor(RedactionConfig()).text
    dirty_alone = {text for text in texts if alone.redact(text) is not None}
    rng = random.Random(11)
    for size in (2, 40, 400, len(texts)):
        batch = rng.sample(texts, size)
        together = build_redactor(RedactionConfig()).text
        assert together.holding(batch) == dirty_alone.intersection(batch)
        # and the verdicts it remembered are each string's own
        assert {t for t in batch if together.redact(t) is not None} == dirty_alone & set(batch)


def test_holding_answers_from_remembered_verdicts_too() -> None:
    redactor = build_redactor(RedactionConfig()).text
    assert redactor.holding([f"token {GH}", "plain"]) == {f"token {GH}"}
    assert redactor.holding(["plain", f"token {GH}", "plain"]) == {f"token {GH}"}
    assert redactor.all_clean(["plain", "also plain"])


def test_verdicts_hold_while_another_thread_fills_and_clears_the_cache() -> None:
    redactor = build_redactor(RedactionConfig()).text
    stop = threading.Event()

    def churn() -> None:  # enough new strings to clear the cache again and again
        n = 0
        while not stop.is_set():
            redactor.holding([f"line {n} of output", f"/tmp/project/{n}"])
            n += 1

    thread = threading.Thread(target=churn)
    thread.start()
    try:
        for n in range(3000):
            assert redactor.holding([f"key {GH}", f"ok {n}"]) == {f"key {GH}"}
            assert redactor.redact("nothing here") is None
    finally:
        stop.set()
        thread.join()


class _Text(str):
    pass


@pytest.mark.parametrize(
    "data",
    [
        {1: "int key"},
        {"when": datetime(2026, 1, 1, tzinfo=UTC)},
        {"raw": b"bytes"},
        {"sub": _Text("text")},
        {"nested": [{"deep": {"set": {1, 2}}}]},
        {"x": float("nan")},
        [1.5, float("inf")],
        {"deep": [{"y": -float("inf")}]},
        _Text("top"),
        object(),
    ],
)
def test_data_that_is_not_plain_json_has_no_plain_strings(data: Any) -> None:
    assert plain_strings(data) is None


# Names and values that make name/value entries ({"name": "DB_PASSWORD", "value": ...}) and
# option/value pairs (["--token", ...]), which both walks must read alike.
_KEYS = st.sampled_from(
    [
        "command",
        "password",
        "api_key",
        "note",
        "client_secret",
        "n",
        "name",
        "value",
        "Key",
        "Value",
    ]
)
_LEAVES = plain_leaves(
    st.sampled_from(
        [GH, f"password={GH}", "ls -la", "hunter2", "jane@example.com", "", "--token", "-p"]
    ),
    st.sampled_from(["DB_PASSWORD", "client_secret", "S3cretP4ssW0rd9"]),
    text_size=20,
)
_PLAIN = plain_data(_LEAVES, st.one_of(_KEYS, st.text(max_size=8)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_PLAIN)
def test_plain_strings_are_what_the_redactor_decides_plain_data_by(data: Any) -> None:
    assert sorted(plain_strings(data) or []) == sorted(_strings(data) or [])
    assert plain_strings(data) is not None
