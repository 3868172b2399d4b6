"""Receipts and the audit chain: every handler run leaves a chained record in the session's
audit log file; any removed, reordered or edited record is found; required guards refuse a
tool call they did not run on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.audit import AuditTrail, members, render
from amplifier_core.audit_chain import verify_lines
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.receipts import REQUIRE_HANDLER, Receipts, near_miss


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _coordinator(tmp_path: Path, **session: Any) -> ModuleCoordinator:
    return ModuleCoordinator(
        config={"session": {"audit_log": str(tmp_path / "audit.jsonl"), **session}},
        session_id="sess-1",
    )


async def test_every_handler_run_leaves_a_receipt(tmp_path: Path) -> None:
    coordinator = _coordinator(tmp_path)

    async def guard(_event: str, data: dict[str, Any]) -> HookResult | None:
        if data["tool_input"]["command"].startswith("rm"):
            return HookResult(action="deny", reason="no rm")
        return None

    async def crash(_event: str, _data: dict[str, Any]) -> None:
        raise RuntimeError("boom")

    async def slow(_event: str, _data: dict[str, Any]) -> None:
        await asyncio.sleep(10)

    coordinator.hooks.register("tool:pre", crash, name="crash", priority=1)
    coordinator.hooks.register("tool:pre", slow, name="slow", priority=2, timeout=0.05)
    coordinator.hooks.register("tool:pre", guard, name="guard", priority=3, fail_closed=True)
    for call, command in (("c1", "ls"), ("c2", "rm -rf x")):
        await coordinator.hooks.emit(
            "tool:pre",
            {"tool_name": "bash", "tool_call_id": call, "tool_input": {"command": command}},
        )
    await coordinator.cleanup()

    records = [json.loads(line) for line in _lines(tmp_path / "audit.jsonl")]
    runs = {(r["hook"], r["tool_call_id"]): r for r in records if r["type"] == "hook_run"}
    assert runs[("crash", "c1")]["outcome"] == "error"
    assert runs[("crash", "c1")]["why"] == "RuntimeError: boom"
    assert runs[("slow", "c1")]["outcome"] == "timeout"
    assert runs[("guard", "c1")]["decision"] == "continue"
    assert runs[("guard", "c2")]["decision"] == "deny"
    assert runs[("guard", "c2")]["fail_closed"] is True
    for run in runs.values():
        assert (run["kind"], run["tool"], run["event"]) == ("handler", "bash", "tool:pre")
        assert run["source"].startswith(__file__)
        assert run["session_id"] == "sess-1"
    assert records[-1] == {**records[-1], "type": "chain_end", "records": len(records) - 1}
    report = verify_lines(_lines(tmp_path / "audit.jsonl"))
    assert report.intact
    assert not report.unsealed


async def test_receipts_follow_the_session_settings(tmp_path: Path) -> None:
    off = _coordinator(tmp_path, receipts=False)
    assert off.receipts is None
    plain = ModuleCoordinator(config={})
    assert plain.receipts is None  # no audit log: no receipts, and emit runs unobserved
    assert plain.hooks._observed is None
    on = _coordinator(tmp_path)
    assert on.receipts is not None
    assert on.get_capability("audit.receipts") is on.receipts
    assert REQUIRE_HANDLER not in str(on.hooks.list_handlers())  # nothing required: no check


async def test_a_required_handler_that_fails_refuses_the_call(tmp_path: Path) -> None:
    coordinator = _coordinator(tmp_path, require_guards=["guard.*"])

    async def flaky(_event: str, data: dict[str, Any]) -> None:
        if data["tool_call_id"] == "c2":
            raise RuntimeError("network down")

    ran: list[str] = []

    async def audit(_event: str, data: dict[str, Any]) -> None:
        ran.append(data["tool_call_id"])

    coordinator.hooks.register("tool:pre", flaky, name="guard.scan")
    coordinator.hooks.register("tool:post", audit, name="guard.after")  # not due on tool:pre
    first = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c1"})
    second = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c2"})
    assert first.action == "continue"
    assert second.action == "deny"
    assert second.source == REQUIRE_HANDLER
    assert "guard.scan (error: RuntimeError: network down)" in (second.reason or "")
    await coordinator.process_hook_result(second, "tool:pre")  # as the session does
    (denied,) = coordinator.audit.of_type("deny")
    assert denied["hook"] == REQUIRE_HANDLER


async def test_a_required_guard_that_is_not_loaded_refuses_every_call(tmp_path: Path) -> None:
    coordinator = _coordinator(tmp_path, require_guards=["hooks-approval"])
    result = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c1"})
    assert result.action == "deny"
    assert "hooks-approval (no hook of that name is loaded)" in (result.reason or "")


def test_near_miss_names_a_rule_that_differs_only_in_spelling() -> None:
    assert near_miss(["BASH"], "bash") == "BASH"
    assert near_miss(["Write", "web-fetch"], "web_fetch") == "web-fetch"
    assert near_miss(["bash"], "bash") is None  # it matches: no miss
    assert near_miss(["Shell"], "bash") is None


# ---------------------------------------------------------------------------- the chain

_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3),
)
_fields = st.dictionaries(
    st.text(st.characters(categories=("L", "N")), min_size=1, max_size=8).filter(
        lambda k: (
            k
            not in {"ts", "type", "session_id", "chain", "seq", "prev", "hash"}
            | {"hook", "event", "data", "decision", "outcome", "duration", "kind", "fixed"}
        )
    ),
    _values,
    max_size=5,
)


def _write_log(path: Path, batches: list[list[dict[str, Any]]]) -> None:
    """Several trails (sessions) appending to one file, records and receipts mixed: receipts
    rendered by the caller, and receipts queued by a session's :class:`Receipts` (rendered
    when their batch is written)."""
    trails = [AuditTrail(path, session_id=f"s{n}") for n in range(len(batches))]
    receipts = [Receipts(trail, HookRegistry()) for trail in trails]
    longest = max(len(batch) for batch in batches)
    for step in range(longest):
        for trail, keeper, batch in zip(trails, receipts, batches, strict=True):
            if step < len(batch):
                fields = batch[step]
                if step % 3 == 1:
                    fixed = {"type": "hook_run", "session_id": "s", "hook": "h"}
                    trail.receipt(fixed, members(fixed), {"ts": "t", **fields})
                elif step % 3 == 2:
                    keeper.ran(
                        hook=f"h{step}",
                        event="tool:pre",
                        data={"tool_name": "bash", "tool_call_id": f"c{step}"},
                        decision="continue",
                        outcome="ok",
                        duration=0.001,
                        **fields,
                    )
                else:
                    trail.record("deny", **fields)
    for trail in trails:
        trail.close()


_logs = st.lists(st.lists(_fields, min_size=1, max_size=7), min_size=1, max_size=3)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=_logs, data=st.data())
def test_any_removed_reordered_or_edited_record_is_found(
    tmp_path_factory: pytest.TempPathFactory, batches: list[list[dict[str, Any]]], data: Any
) -> None:
    path = tmp_path_factory.mktemp("chain") / "audit.jsonl"
    _write_log(path, batches)
    lines = _lines(path)
    clean = verify_lines(lines)
    assert (clean.intact, clean.unsealed, clean.records) == (True, [], len(lines))

    how = data.draw(st.sampled_from(["remove", "swap", "edit", "rewrite"]))
    # a record rewritten with a fresh hash is found by the next record of its chain: a chain's
    # last record has none (what the chain cannot prove: docs/security.md)
    allowed = [i for i, line in enumerate(lines) if how != "rewrite" or '"chain_end"' not in line]
    if not allowed:
        return
    index = data.draw(st.sampled_from(allowed))
    tampered = list(lines)
    if how == "remove":
        del tampered[index]
    elif how == "swap":  # two records of one chain (chains in one file interleave freely)
        chain = json.loads(lines[index])["chain"]
        same = [i for i, line in enumerate(lines) if json.loads(line)["chain"] == chain]
        other = data.draw(st.sampled_from(same))
        if other == index:
            return
        tampered[index], tampered[other] = tampered[other], tampered[index]
    else:
        record = json.loads(lines[index])
        key = data.draw(st.sampled_from(sorted(k for k in record if k != "hash")))
        value = data.draw(
            _values.filter(lambda v: v != record[key] or type(v) is not type(record[key]))
        )
        record[key] = value
        if how == "edit":  # the line changed, its hash kept
            del record["hash"]
            body = render(record)
            tampered[index] = body[:-1] + f', "hash": "{json.loads(lines[index])["hash"]}"}}'
        else:  # the line changed and sealed again with a fresh hash
            from amplifier_core.audit_chain import seal

            del record["hash"]
            tampered[index] = seal(render(record))[0]
        if tampered[index] == lines[index]:
            return
    report = verify_lines(tampered)
    assert report.breaks or report.unsealed, (how, index)


# ---------------------------------------------------------------------------- deferred writing


def _ran(receipts: Receipts, call: str, **extra: Any) -> None:
    receipts.ran(
        hook="guard",
        event="tool:pre",
        data={"tool_name": "bash", "tool_call_id": call},
        decision="continue",
        outcome="ok",
        duration=0.0021,
        **extra,
    )


def test_queued_receipts_are_written_before_the_next_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(path, session_id="s")
    receipts = Receipts(trail, HookRegistry())
    _ran(receipts, "c1")
    _ran(receipts, "c2", why="a reason", exit_code=3)
    assert _lines(path) == []  # queued: nothing rendered yet
    trail.record("deny", reason="no")
    written = [json.loads(line) for line in _lines(path)]
    assert [(r["type"], r["seq"], r.get("tool_call_id")) for r in written] == [
        ("hook_run", 0, "c1"),
        ("hook_run", 1, "c2"),
        ("deny", 2, None),
    ]
    assert (written[0]["duration_ms"], written[1]["exit_code"]) == (2.1, 3)
    trail.close()
    report = verify_lines(_lines(path))
    assert (report.intact, report.unsealed, report.records) == (True, [], 4)


def test_reading_the_trail_chains_the_queued_receipts_as_the_file_has_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(path, session_id="s")
    receipts = Receipts(trail, HookRegistry())
    for call in ("c1", "c2", "c3"):
        _ran(receipts, call)
    kept = trail.of_type("hook_run")
    trail.flush()
    written = [json.loads(line) for line in _lines(path)]
    assert kept == written  # the same fields, values and chain, in the same order
    trail.close()


def test_exported_receipts_carry_the_chain_fields_of_their_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(path, session_id="s")
    receipts = Receipts(trail, HookRegistry())
    exported: list[dict[str, Any]] = []
    receipts.add_listener(exported.append)
    _ran(receipts, "c1")
    assert [r["seq"] for r in exported] == [0]  # handed over as it happens, chained
    trail.close()
    assert exported[0] == json.loads(_lines(path)[0])


def test_queued_receipts_are_written_at_interpreter_exit(tmp_path: Path) -> None:
    import subprocess
    import sys
    import textwrap

    path = tmp_path / "audit.jsonl"
    script = textwrap.dedent(
        f"""
        from amplifier_core.audit import AuditTrail
        from amplifier_core.hooks import HookRegistry
        from amplifier_core.receipts import Receipts

        trail = AuditTrail({str(path)!r}, session_id="s")
        receipts = Receipts(trail, HookRegistry())
        for n in range(5):
            receipts.ran(hook="guard", event="tool:pre", data={{"tool_call_id": f"c{{n}}"}},
                         decision="continue", outcome="ok", duration=0.0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = _lines(path)
    assert [json.loads(line)["tool_call_id"] for line in lines] == [f"c{n}" for n in range(5)]
    report = verify_lines(lines)
    assert report.intact
    assert report.unsealed == [json.loads(lines[0])["chain"]]  # never closed: no chain_end


async def test_a_session_writes_every_receipt_by_its_end(tmp_path: Path) -> None:
    coordinator = _coordinator(tmp_path)

    async def guard(_event: str, _data: dict[str, Any]) -> None:
        return None

    coordinator.hooks.register("tool:pre", guard, name="guard")
    for call in range(300):  # more than a batch, and a batch left over at the end
        await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": f"{call}"})
    await coordinator.cleanup()
    lines = _lines(tmp_path / "audit.jsonl")
    runs = [json.loads(line) for line in lines if '"hook_run"' in line]
    assert [r["tool_call_id"] for r in runs] == [str(call) for call in range(300)]
    assert json.loads(lines[-1])["type"] == "chain_end"
    report = verify_lines(lines)
    assert (report.intact, report.unsealed) == (True, [])


_UNCLOSED_SESSION = """
import asyncio, gc, sys
from amplifier_core.coordinator import ModuleCoordinator

KEPT = []


async def main(path, kept):
    coordinator = ModuleCoordinator(config={"session": {"audit_log": path}}, session_id="s1")

    async def guard(_event, _data):
        return None

    coordinator.hooks.register("tool:pre", guard, name="guard")
    for call in range(300):
        await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": f"c{call}"})
    if kept:
        KEPT.append(coordinator)


asyncio.run(main(sys.argv[1], sys.argv[2] == "kept"))
if sys.argv[2] == "collected":
    gc.collect()
"""


@pytest.mark.parametrize("end", ["kept", "collected"])
def test_a_session_never_closed_loses_no_receipt(tmp_path: Path, end: str) -> None:
    """A real process runs a session's hooks and exits without closing it: still referenced
    at exit (``kept``), or dropped and collected before (``collected``). Every receipt is in
    the log and the chain holds; it has no ``chain_end``, as a session that never ended."""
    import subprocess
    import sys

    path = tmp_path / "audit.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _UNCLOSED_SESSION, str(path), end],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = _lines(path)
    assert [json.loads(line)["tool_call_id"] for line in lines] == [f"c{n}" for n in range(300)]
    report = verify_lines(lines)
    assert (report.intact, report.records) == (True, 300)
    assert report.unsealed == [json.loads(lines[0])["chain"]]


# ---------------------------------------------------------------------------- rendering

_names = st.text(max_size=12)
# a hook's fields (never None) and a run's own: apart from each other and from the receipt's
_hook_fields = st.dictionaries(_names.map("f".__add__), _values.filter(lambda v: v is not None))
_run_fields = st.dictionaries(_names.map("x".__add__), _values, max_size=4)
_run = st.fixed_dictionaries(
    {
        "hook": _names,
        "event": _names,
        "tool": st.none() | _names,
        "call": st.none() | _names | st.integers(-(2**40), 2**40),
        "decision": _names,
        "outcome": _names,
        "micros": st.integers(0, 10**9),
        "ended": st.floats(0, 4e9),
        "fixed": _hook_fields,
        "extra": _run_fields,
        "handler": st.booleans(),
    }
)


def _reference(session: str, run: dict[str, Any], ts: str, chained: tuple[Any, ...]) -> str:
    """The receipt's line as json.dumps writes its record, its duration in ms written with
    three decimals under a millisecond (as receipts always wrote it), sealed."""
    from amplifier_core.audit_chain import seal

    record: dict[str, Any] = {
        "type": "hook_run",
        "session_id": session,
        "hook": run["hook"],
        "kind": "handler" if run["handler"] else "declarative",
    }
    if not run["handler"]:
        record.update(run["fixed"])
    record["event"] = run["event"]
    if run["tool"] is not None:
        record["tool"] = run["tool"]
    record.update(decision=run["decision"], outcome="ok" if run["handler"] else run["outcome"])
    record["ts"] = ts
    if run["call"] is not None:
        record["tool_call_id"] = run["call"]
    record["duration_ms"] = "\0duration\0"
    if not run["handler"]:
        record.update((k, v) for k, v in run["extra"].items() if v is not None)
    record["chain"], record["seq"], record["prev"] = chained
    micros = run["micros"]
    took = f"{micros / 1000:.3f}" if micros < 1000 else repr(micros / 1000)
    return seal(json.dumps(record, default=repr).replace('"\\u0000duration\\u0000"', took))[0]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(runs=st.lists(_run, min_size=1, max_size=6))
def test_a_receipts_line_is_its_record_as_json_dumps_writes_it(
    tmp_path_factory: pytest.TempPathFactory, runs: list[dict[str, Any]]
) -> None:
    """The batch renders each line from fragments (a hook's head made once, its hash state
    copied): byte for byte the line json.dumps of its record makes, chained and sealed."""
    from datetime import UTC, datetime

    path = tmp_path_factory.mktemp("render") / "audit.jsonl"
    trail = AuditTrail(path, session_id="s\u00e9\n")
    receipts = Receipts(trail, HookRegistry())
    for run in runs:
        data = {"tool_name": run["tool"], "tool_call_id": run["call"]}
        duration = run["micros"] / 1_000_000
        if run["handler"]:
            tell = receipts.plain_for(run["hook"], run["event"])
            tell(run["decision"], duration, run["ended"], data)
        else:
            receipts.ran(
                hook=run["hook"],
                event=run["event"],
                data=data,
                decision=run["decision"],
                outcome=run["outcome"],
                duration=duration,
                fixed=run["fixed"] or None,
                **run["extra"],
            )
    trail.flush()
    lines = _lines(path)
    prev: str | None = None
    for seq, (line, run) in enumerate(zip(lines, runs, strict=True)):
        if run["handler"]:
            millis = int(run["ended"] * 1000)
            second = datetime.fromtimestamp(millis // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            ts = f"{second}.{millis % 1000:03d}+00:00"
        else:  # ran() reads the clock itself
            ts = json.loads(line)["ts"]
        assert line == _reference("s\u00e9\n", run, ts, (trail.chain_id, seq, prev))
        prev = json.loads(line)["hash"]
    trail.close()


_hook = st.fixed_dictionaries(
    {
        "hook": _names,
        "handler": st.booleans(),
        "fixed": _hook_fields,
        "micros": st.integers(0, 10**7),
    }
)
_event = st.fixed_dictionaries(
    {
        "event": _names,
        "tool": st.none() | _names,
        "call": st.none() | _names | st.integers(-(2**40), 2**40) | st.booleans(),
        "decision": _names,
        # the next event's time after this one's, in ms: often the same millisecond
        "later": st.sampled_from([0, 0, 0, 1, 999, 1000, 250_000]),
    }
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    hooks=st.lists(_hook, min_size=1, max_size=6, unique_by=lambda h: (h["hook"], h["handler"])),
    events=st.lists(_event, min_size=1, max_size=40),
    start=st.integers(0, 4_000_000_000_000),
)
def test_the_hooks_of_one_event_are_lines_as_json_dumps_writes_them(
    tmp_path_factory: pytest.TempPathFactory,
    hooks: list[dict[str, Any]],
    events: list[dict[str, Any]],
    start: int,
) -> None:
    """Every hook of an event queues its run through the teller made for it, all told the
    event's one data (so its tool call's text and the run's time are rendered once for them
    all); events follow in the same millisecond or later, over several batches: each line is
    byte for byte the json.dumps of its record, chained and sealed, and the log verifies."""
    from datetime import UTC, datetime

    path = tmp_path_factory.mktemp("events") / "audit.jsonl"
    trail = AuditTrail(path, session_id="s\u00e9")
    receipts = Receipts(trail, HookRegistry())
    expected: list[tuple[dict[str, Any], int | None]] = []  # run, its time in ms (handlers)
    millis = start
    for event in events:
        data = {"tool_name": event["tool"], "tool_call_id": event["call"]}
        for hook in hooks:
            duration = hook["micros"] / 1_000_000
            run = {**hook, **event, "outcome": "ok", "extra": {}}
            if hook["handler"]:
                tell = receipts.plain_for(hook["hook"], event["event"])
                tell(event["decision"], duration, (millis + 0.25) / 1000, data)
                expected.append((run, millis))
            else:
                told = receipts.teller(receipts.hook_of(hook["hook"], hook["fixed"] or None))
                told(event["event"], data, event["decision"], duration)
                expected.append((run, None))
        millis += event["later"]
    trail.flush()
    lines = _lines(path)
    assert len(lines) == len(expected)
    prev: str | None = None
    for seq, (line, (run, ms)) in enumerate(zip(lines, expected, strict=True)):
        if ms is None:  # the teller reads the clock itself
            ts = json.loads(line)["ts"]
        else:
            second = datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            ts = f"{second}.{ms % 1000:03d}+00:00"
        assert line == _reference("s\u00e9", run, ts, (trail.chain_id, seq, prev))
        prev = json.loads(line)["hash"]
    trail.close()
    report = verify_lines(_lines(path))
    assert (report.intact, report.unsealed, report.records) == (True, [], len(expected) + 1)


def test_receipts_of_two_sessions_on_one_trail_keep_their_order(tmp_path: Path) -> None:
    """A child session writing to its parent's trail: the queue holds both sessions'
    receipts, interleaved; each is rendered by its own session, in the order they ran."""
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(path, session_id="parent")
    parent, child = Receipts(trail, HookRegistry()), Receipts(trail, HookRegistry())
    order = [parent, parent, child, parent, child, child, parent]
    for call, keeper in enumerate(order):
        keeper.ran(
            hook="parent-guard" if keeper is parent else "child-guard",
            event="tool:pre",
            data={"tool_call_id": f"c{call}"},
            decision="continue",
            outcome="ok",
            duration=0.0,
        )
    trail.close()
    lines = _lines(path)
    runs = [json.loads(line) for line in lines[:-1]]
    assert [(r["hook"], r["tool_call_id"], r["seq"]) for r in runs] == [
        ("parent-guard" if keeper is parent else "child-guard", f"c{n}", n)
        for n, keeper in enumerate(order)
    ]
    report = verify_lines(lines)
    assert (report.intact, report.unsealed, report.records) == (True, [], len(order) + 1)


def test_a_receipt_json_cannot_hold_is_written_as_its_repr_and_chained(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A run's field that JSON refuses (a list holding itself) does not break the batch: that
    receipt is written as its repr, the others as they are, and the chain holds."""
    path = tmp_path / "audit.jsonl"
    trail = AuditTrail(path, session_id="s")
    receipts = Receipts(trail, HookRegistry())
    cycle: list[Any] = []
    cycle.append(cycle)
    _ran(receipts, "c1")
    _ran(receipts, "c2", detail=cycle)
    _ran(receipts, "c3")
    trail.close()
    lines = _lines(path)
    records = [json.loads(line) for line in lines]
    assert [r.get("tool_call_id") for r in records[:3]] == ["c1", None, "c3"]
    assert records[1]["type"] == "hook_run"
    assert "c2" in records[1]["unrenderable"]
    assert "a receipt could not be rendered" in caplog.text
    report = verify_lines(lines)
    assert (report.intact, report.unsealed, report.records) == (True, [], 4)


async def test_queued_and_kept_receipts_are_nothing_the_collector_walks(tmp_path: Path) -> None:
    """A queued receipt holds only numbers, strings and None (the collector untracks it at its
    first collection); a written one is kept as its line, and read back as the file has it."""
    import gc

    coordinator = _coordinator(tmp_path)

    async def noop(_event: str, _data: dict[str, Any]) -> None:
        return None

    for index in range(3):
        coordinator.hooks.register("tool:pre", noop, name=f"noop-{index}")
    receipts = coordinator.get_capability("audit.receipts")
    for call in ("c1", "c2"):
        await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": call})
    receipts.not_run(
        hook="guard", event="tool:pre", data={"tool_call_id": "c2"}, outcome="skipped", why="w"
    )
    queued = list(coordinator.audit.queue)
    assert len(queued) == 7
    gc.collect()
    assert [item for item in queued[:6] if gc.is_tracked(item)] == []  # the runs' receipts
    gc.collect()  # one with fields of its own (``why``) holds a tuple: untracked after it
    assert [item for item in queued if gc.is_tracked(item)] == []
    kept = coordinator.audit.of_type("hook_run")  # chained and written by the reading
    assert [r["hook"] for r in kept] == ["noop-0", "noop-1", "noop-2"] * 2 + ["guard"]
    assert kept[-1]["why"] == "w"
    coordinator.audit.flush()
    written = [json.loads(line) for line in _lines(tmp_path / "audit.jsonl")]
    assert coordinator.audit.of_type("hook_run") == written == kept
    await coordinator.cleanup()


async def test_an_observed_handler_timed_in_place_is_read_as_emit_reads_it(
    tmp_path: Path,
) -> None:
    """emit times an observed async handler itself (no wrapper coroutine): a mapping result is
    the HookResult it stands for, anything else an invalid result, a raise an error."""
    coordinator = _coordinator(tmp_path)

    async def mapping(_event: str, _data: dict[str, Any]) -> Any:
        return {"action": "inject_context", "context_injection": "note"}

    async def invalid(_event: str, _data: dict[str, Any]) -> Any:
        return "yes"

    async def boom(_event: str, _data: dict[str, Any]) -> None:
        raise ValueError("bad")

    async def deny(_event: str, _data: dict[str, Any]) -> HookResult:
        return HookResult(action="deny", reason="no")

    coordinator.hooks.register("tool:pre", mapping, name="mapping", priority=1)
    coordinator.hooks.register("tool:pre", boom, name="boom", priority=2)
    coordinator.hooks.register("tool:pre", invalid, name="invalid", priority=3)
    coordinator.hooks.register("tool:post", deny, name="deny")
    pre = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c1"})
    post = await coordinator.hooks.emit("tool:post", {"tool_name": "bash", "tool_call_id": "c1"})
    await coordinator.cleanup()
    assert (pre.action, post.action, post.source) == ("deny", "deny", "deny")
    records = [json.loads(line) for line in _lines(tmp_path / "audit.jsonl")]
    runs = {r["hook"]: r for r in records if r["type"] == "hook_run"}
    assert {name: (r["decision"], r["outcome"]) for name, r in runs.items()} == {
        "mapping": ("inject_context", "ok"),
        "boom": ("continue", "error"),
        "invalid": ("deny", "invalid_result"),
        "deny": ("deny", "ok"),
    }
    assert runs["boom"]["why"] == "ValueError: bad"
    assert all(r["duration_ms"] >= 0 for r in runs.values())
    assert verify_lines(_lines(tmp_path / "audit.jsonl")).intact


def test_a_kept_receipt_whose_hook_left_the_cache_reads_its_fields_back() -> None:
    """A trail that renders nothing keeps receipts unchained; their hooks' fields are cached
    for 4,096 hooks, and a receipt of a hook dropped from that cache reads them from its
    text."""
    trail = AuditTrail(None, session_id="s")  # the stdlib logger, DEBUG off: nothing rendered
    receipts = Receipts(trail, HookRegistry())
    for index in range(4200):
        receipts.ran(
            hook=f"hook-{index}",
            event="tool:pre",
            data={"tool_name": "bash", "tool_call_id": f"c{index}"},
            decision="continue",
            outcome="ok",
            duration=0.002,
            fixed={"source": f"hooks.json:{index}", "code_sha256": {"run.sh": "ab" * 32}},
        )
    kept = trail.of_type("hook_run")
    assert len(kept) == 4200
    for index in (0, 4199):
        record = kept[index]
        assert (record["hook"], record["source"], record["tool_call_id"]) == (
            f"hook-{index}",
            f"hooks.json:{index}",
            f"c{index}",
        )
        assert record["code_sha256"] == {"run.sh": "ab" * 32}
        assert (record["session_id"], record["kind"], record["duration_ms"]) == (
            "s",
            "declarative",
            2.0,
        )
