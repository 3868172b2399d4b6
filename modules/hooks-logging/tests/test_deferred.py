"""Plain event data redacted on the writer thread writes what redacting it in the handler
writes, record by record, and never anything unredacted."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_testsupport.plain_data import plain_data, plain_leaves
from hypothesis import example, given, settings
from hypothesis import strategies as st

from amplifier_core.hooks import HookRegistry
from amplifier_hooks_redact import Redactor, TextRedactor
from amplifier_module_hooks_logging import DataEncoder, SecretKeys, mount
from amplifier_module_hooks_logging.deferred import (
    NOT_SETTLED,
    DeferredRedaction,
    Unsettled,
    _brackets_below,
)
from amplifier_module_hooks_logging.encode import plain_encoder
from amplifier_module_hooks_logging.redact import value_engine, value_redactor
from amplifier_module_hooks_logging.writer import EventWriter

GH = "ghp_" + "Vb3Nq8Lr2Tz6Wk1Xs5Pm9Hd4Jf7Cy0Ga2Ue8R"
CARD = "4111 1111 1111 1111"


_ENGINES = (value_engine(), value_engine())  # building one compiles the rules: done once


def _pair(engine: Redactor | None = None) -> tuple[DeferredRedaction, DataEncoder]:
    """A deferred redaction and the handler's own encoder, with the same rules, each with an
    engine that has decided nothing yet."""
    deferred_engine, inline_engine = _ENGINES
    for shared in _ENGINES:
        shared.text._cache.clear()
    secrets = SecretKeys()

    def make(engine: Redactor) -> DataEncoder:
        return DataEncoder(secrets, "utf8", value_redactor(engine))

    chosen = engine if engine is not None else deferred_engine
    return DeferredRedaction(chosen, secrets, lambda: make(chosen)), make(inline_engine)


def _written(deferred: DeferredRedaction, records: list[str | Unsettled]) -> list[str]:
    deferred.settle([r for r in records if isinstance(r, Unsettled)])
    out = []
    for record in records:
        if isinstance(record, Unsettled):
            assert record.settled is not None
            out.append(record.settled)
        else:
            out.append(record)
    return out


_KEYS = st.sampled_from(
    ["command", "password", "api_key", "note", "client_secret", "env", "Authorization", "n"]
)
_LEAVES = plain_leaves(
    st.sampled_from(
        [GH, f"token {GH}", f"password={GH}", f"pay {CARD}", "jane@example.com", "hunter2"]
    ),
    st.sampled_from(["ls -la /tmp/x", "toolu_0001", "2026-11-27T15:20:33.456+00:00", "", "\n"]),
    text_size=16,
)
_PLAIN = plain_data(_LEAVES, st.one_of(_KEYS, st.text(max_size=6)), max_leaves=16)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PLAIN, min_size=1, max_size=8))
def test_a_batch_settled_on_the_writer_writes_what_the_handler_would(batch: list[Any]) -> None:
    deferred, encoder = _pair()
    records = [deferred.record(data) for data in batch]
    assert _written(deferred, records) == [encoder.encode(data) for data in batch]


_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool"]), "content": _LEAVES}
)
_STEP = st.one_of(
    st.tuples(st.just("append"), _MESSAGE),
    st.tuples(st.just("edit"), st.integers(min_value=0), _LEAVES),  # a value, in place
    st.tuples(st.just("nest"), st.integers(min_value=0), _PLAIN),  # a nested part, in place
    st.tuples(st.just("replace"), st.integers(min_value=0), _MESSAGE),  # a new dict there
    st.tuples(st.just("settle"), st.booleans()),  # the writer's batch: now, or with the next
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_MESSAGE, min_size=1, max_size=4), st.lists(_STEP, max_size=24))
def test_a_conversation_carried_again_and_edited_in_place_is_written_as_the_handler_would(
    start: list[dict[str, Any]], steps: list[Any]
) -> None:
    """The same message dicts in every event, remembered once settled clean: one edited in
    place (a secret put in an old message), replaced or extended is decided again."""
    deferred, encoder = _pair()
    messages = list(start)
    pending: list[tuple[str | Unsettled, str]] = []

    def emit() -> None:
        data = {"request": {"messages": messages, "model": "m"}, "n": len(pending)}
        pending.append((deferred.record(data), encoder.encode(data)))

    def settle() -> None:
        written = _written(deferred, [record for record, _ in pending])
        assert written == [expected for _, expected in pending]
        pending.clear()

    emit()
    for step in steps:
        kind = step[0]
        if kind == "append":
            messages.append(dict(step[1]))
        elif kind == "edit":
            messages[step[1] % len(messages)]["content"] = step[2]
        elif kind == "nest":
            messages[step[1] % len(messages)]["blocks"] = [step[2], {"text": "x"}]
        elif kind == "replace":
            messages[step[1] % len(messages)] = dict(step[2])
        elif step[1]:
            settle()
            continue
        emit()
    settle()


_SUSPECT_LEAVES = st.one_of(
    st.sampled_from([1e-05, -2.5e-07, 0.00001234, 1e-300, 0.0, -0.0, 1.0, 1, True, False, 0]),
    st.sampled_from(["1e-5", "x0.00001", "e-", "0.0000", "3e", "-"]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.integers(),
    st.none(),
)
_QUIET_MESSAGE = st.fixed_dictionaries(  # nothing to redact: the runs are extended
    {"role": st.sampled_from(["user", "assistant", "tool"]), "content": _SUSPECT_LEAVES}
)
_EDIT = st.one_of(
    st.tuples(st.just("append"), _QUIET_MESSAGE),
    st.tuples(st.just("edit"), st.integers(min_value=0), _SUSPECT_LEAVES),
    st.tuples(st.just("same"), st.integers(min_value=0)),  # an equal value of another type
    st.tuples(st.just("reorder"), st.integers(min_value=0)),  # the same keys, another order
    st.tuples(st.just("nest"), st.integers(min_value=0), _PLAIN),
    st.tuples(st.just("settle"), st.booleans()),
)


def _equal_of_another_type(value: Any) -> Any:
    """``value`` as an equal number of another type (``True`` -> ``1`` -> ``1.0`` ->
    ``True``), or ``value`` itself when there is none."""
    kind = type(value)
    if kind is bool:
        return int(value)
    if kind is int and abs(value) < 2**53:
        return float(value)
    if kind is float and value in (0.0, 1.0):
        return bool(value)
    if kind is float and value.is_integer():
        return int(value)
    return value


@settings(max_examples=300, deadline=None)
@given(st.lists(_QUIET_MESSAGE, min_size=1, max_size=4), st.lists(_EDIT, max_size=24))
@example(  # a small float put in an old message, settled, then carried again
    [{"role": "user", "content": "a"}],
    [("edit", 0, 1e-05), ("settle", True), ("append", {"role": "tool", "content": "b"})],
)
def test_the_text_recorded_is_the_plain_encoders_whatever_was_edited_in_place(
    start: list[dict[str, Any]], steps: list[Any]
) -> None:
    """Only what is new in a conversation is searched for what orjson writes otherwise than
    the json module; the text recorded is still, byte for byte, the one ``plain_encoder``
    writes for the whole data, through in-place edits that keep an item equal (``1`` for
    ``True``, keys in another order) or put a small float in an old message."""
    deferred, _ = _pair()
    plain = plain_encoder(finite=True)
    messages = [dict(message) for message in start]
    pending: list[Unsettled] = []

    def emit() -> None:
        data = {"messages": messages, "request": {"messages": messages[::2]}, "n": 1}
        record = deferred.record(data)
        text = record.text if isinstance(record, Unsettled) else None
        if text is not None:
            assert text == plain(data)
            pending.append(record)

    emit()
    for step in steps:
        kind = step[0]
        if kind == "append":
            messages.append(dict(step[1]))
        elif kind == "edit":
            messages[step[1] % len(messages)]["content"] = step[2]
        elif kind == "same":
            message = messages[step[1] % len(messages)]
            message["content"] = _equal_of_another_type(message["content"])
        elif kind == "reorder":
            message = messages[step[1] % len(messages)]
            message["role"] = message.pop("role")
        elif kind == "nest":
            messages[step[1] % len(messages)]["blocks"] = [step[2], {"text": "x"}]
        elif step[1]:
            deferred.settle(pending)
            pending.clear()
            continue
        emit()
    deferred.settle(pending)


def test_messages_settled_clean_are_not_taken_again() -> None:
    deferred, encoder = _pair()
    messages = [{"role": "user", "content": f"note {n}"} for n in range(50)]
    counts = []
    for _ in range(4):
        record = deferred.record({"messages": messages})
        assert isinstance(record, Unsettled)
        counts.append(len(record.strings))
        _written(deferred, [record])
    assert counts[2] < counts[0] / 10  # met twice, settled clean: remembered
    messages[3]["content"] = f"token {GH}"
    record = deferred.record({"messages": messages})
    (written,) = _written(deferred, [record])
    assert GH not in written
    assert written == encoder.encode({"messages": messages})


def test_plain_data_waits_for_the_writer_and_other_data_is_encoded_at_once() -> None:
    deferred, encoder = _pair()
    plain = {"tool_input": {"command": f"echo {GH}"}, "n": 1, "ok": [True, None, 1.5]}
    assert isinstance(deferred.record(plain), Unsettled)
    for data in (
        {"when": datetime(2026, 1, 1, tzinfo=UTC), "token": GH},  # converted
        {"raw": f"x {GH}".encode()},  # bytes
        {1: GH},  # a key JSON would change
        {"password": "hunter2"},  # a key the logger masks
        {"x": float("nan")},
    ):
        record = deferred.record(data)
        assert isinstance(record, str)
        assert record == encoder.encode(data)
        assert GH not in record


def test_a_cycle_is_encoded_in_the_handler() -> None:
    deferred, encoder = _pair()
    data: dict[str, Any] = {"a": f"token {GH}"}
    data["self"] = data
    record = deferred.record(data)
    assert isinstance(record, str)
    assert GH not in record
    assert record == encoder.encode(data)


@pytest.mark.parametrize("leaf", [f"token {GH}", "plain"])
@pytest.mark.parametrize("depth", [10, 63, 64, 65, 70, 250])
def test_deep_plain_data_is_cut_as_the_handler_cuts_it(depth: int, leaf: str) -> None:
    deferred, encoder = _pair()
    data: Any = leaf
    for n in range(depth):
        data = {"k": data, "n": n} if n % 2 else [data, "x"]
    record = deferred.record(data)
    (written,) = _written(deferred, [record])
    assert written == encoder.encode(data)
    assert GH not in written


class _Failing(TextRedactor):
    def holding(self, texts: Any) -> set[str]:
        raise RuntimeError("decision failed")


def test_when_the_batch_decision_fails_each_record_is_redacted_on_its_own() -> None:
    failing = Redactor(_Failing(_ENGINES[0].text.rules))
    deferred, encoder = _pair(failing)
    batch = [{"c": f"echo {GH}"}, {"c": "ls"}, {"c": [CARD]}]
    records = [deferred.record(data) for data in batch]
    written = _written(deferred, records)
    assert written == [encoder.encode(data) for data in batch]
    assert all(GH not in text and CARD not in text for text in written)


def test_a_record_never_settled_is_written_as_a_marker(tmp_path: Path) -> None:
    writer = EventWriter(lambda sid: str(tmp_path / "e.jsonl"))  # no settle
    writer.put((time.time(), "info", "x", "s", Unsettled(json.dumps({"t": GH}), [GH])))
    assert writer.close()
    text = (tmp_path / "e.jsonl").read_text()
    assert GH not in text
    assert json.loads(text)["data"] == json.loads(NOT_SETTLED)


async def _logger(tmp_path: Path) -> tuple[HookRegistry, Any, Path]:
    class Coordinator:
        def __init__(self) -> None:
            self.hooks = HookRegistry()
            self.session_id = "s-1"

    coordinator = Coordinator()
    path = tmp_path / "events.jsonl"
    cleanup = await mount(coordinator, {"path": str(path)})
    return coordinator.hooks, cleanup, path


async def test_the_file_holds_the_data_as_emitted_and_redacted(tmp_path: Path) -> None:
    hooks, cleanup, path = await _logger(tmp_path)
    data: dict[str, Any] = {"tool_input": {"command": f"curl -H 'token {GH}'"}, "items": ["a"]}
    await hooks.emit("tool:pre", data)
    data["tool_input"]["command"] = "changed after emit"  # the record is the emit's snapshot
    data["items"].append(GH)
    for n in range(3000):  # a batch of records decided together, a few with secrets
        command = f"echo {GH}" if n % 500 == 0 else f"ls /tmp/{n}"
        await hooks.emit("tool:pre", {"tool_input": {"command": command}, "n": n})
    await cleanup()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert GH not in "".join(lines)
    records = [json.loads(line)["data"] for line in lines]
    first = records[0]
    assert first["tool_input"]["command"] == "curl -H 'token [REDACTED:github_token]'"
    assert first["items"] == ["a"]
    numbered = [r for r in records if "n" in r]
    assert [r["n"] for r in numbered] == list(range(3000))
    for record in numbered:
        n = record["n"]
        expected = "echo [REDACTED:github_token]" if n % 500 == 0 else f"ls /tmp/{n}"
        assert record["tool_input"]["command"] == expected


@pytest.mark.parametrize("redact_values", [True, False])
async def test_redact_values_off_writes_values_as_they_are(
    tmp_path: Path, redact_values: bool
) -> None:
    class Coordinator:
        def __init__(self) -> None:
            self.hooks = HookRegistry()
            self.session_id = "s-1"

    coordinator = Coordinator()
    path = tmp_path / "events.jsonl"
    cleanup = await mount(coordinator, {"path": str(path), "redact_values": redact_values})
    await coordinator.hooks.emit("tool:pre", {"command": f"echo {GH}"})
    await cleanup()
    assert (GH in path.read_text()) is not redact_values


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(["{", "[", "}", "]", "a", '"x":', "{[" * 40, "b" * 5000])),
    limit=st.integers(0, 200),
)
def test_brackets_below_counts_as_the_whole_text_does(parts: list[str], limit: int) -> None:
    text = "".join(parts)
    expected = text.count("{") + text.count("[") < limit
    assert _brackets_below(text, limit) is expected
