"""The audit trail: one JSON line per record, with provenance, read back from real sinks."""

from __future__ import annotations

import io
import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.audit import AuditTrail
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.models import HookResult


def read_lines(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


async def run_every_kind(coordinator: ModuleCoordinator) -> None:
    """Drive a real registry through every audited outcome."""
    hooks = coordinator.hooks

    async def lint(_e: str, _d: dict[str, Any]) -> HookResult:
        return HookResult(
            action="inject_context",
            context_injection="E501 line too long" * 3,  # 54 chars, 14 tokens > budget 10
            user_message="lint found 1 issue",
            user_message_level="warning",
        )

    async def crash(_e: str, _d: dict[str, Any]) -> HookResult:
        raise RuntimeError("boom")

    async def guard(_e: str, data: dict[str, Any]) -> HookResult:
        if data.get("tool_name") == "bash":
            return HookResult(action="deny", reason="no shell today", context_injection="x" * 99)
        return HookResult(action="ask_user", approval_prompt="Write prod?")

    hooks.register("tool:post", lint, name="lint")
    hooks.register("tool:post", crash, name="crasher")
    hooks.register("tool:pre", guard, name="guard")

    post = await hooks.emit("tool:post", {"tool_name": "write_file"})
    await coordinator.process_hook_result(post, "tool:post")
    ask = await hooks.emit("tool:pre", {"tool_name": "write_file"})
    await coordinator.process_hook_result(ask, "tool:pre")
    deny = await hooks.emit("tool:pre", {"tool_name": "bash"})
    await coordinator.process_hook_result(deny, "tool:pre")


async def test_every_record_kind_reaches_the_configured_file(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "audit.jsonl"
    coordinator = ModuleCoordinator(
        approval_system=StaticApprovalSystem("allow"),
        config={
            "session": {
                "audit_log": str(log),
                "receipts": False,  # the receipts are tests/test_receipts.py's
                "injection_budget_per_turn": 10,
                "injection_size_limit": 64,
            }
        },
        session_id="sess-1",
    )
    await run_every_kind(coordinator)

    records = read_lines(log)
    assert records == coordinator.audit.records
    for record in records:
        assert record["session_id"] == "sess-1"
        assert datetime.fromisoformat(record["ts"]).tzinfo is not None
        assert record["hook"]
        assert record["event"] in {"tool:post", "tool:pre"}

    by_type: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_type.setdefault(record["type"], []).append(record)
    assert set(by_type) == {
        "user_message",
        "injection",
        "injection_budget_exceeded",
        "hook_failure",
        "approval_requested",
        "approval_decision",
        "injection_rejected",
        "deny",
    }

    (injection,) = by_type["injection"]
    assert injection["hook"] == "lint"
    assert (injection["size"], injection["tokens"]) == (54, 14)
    assert (injection["role"], injection["ephemeral"]) == ("system", False)

    (budget,) = by_type["injection_budget_exceeded"]
    assert (budget["tokens"], budget["turn_tokens"], budget["budget"]) == (14, 14, 10)

    (failure,) = by_type["hook_failure"]
    assert failure["hook"] == "crasher"
    assert failure["kind"] == "error"
    assert failure["error"] == "RuntimeError: boom"
    assert failure["fail_closed"] is False

    (message,) = by_type["user_message"]
    assert (message["hook"], message["level"]) == ("lint", "warning")

    (requested,) = by_type["approval_requested"]
    assert requested["prompt"] == "Write prod?"
    assert requested["options"] == ["Allow", "Deny"]
    assert requested["cache_hit"] is False
    (decision,) = by_type["approval_decision"]
    assert decision["hook"] == "guard"
    assert decision["approved"] is True
    assert decision["answer"] == "Allow"
    assert decision["system"] == "StaticApprovalSystem"

    (rejected,) = by_type["injection_rejected"]
    assert (rejected["hook"], rejected["size"], rejected["limit"]) == ("guard", 99, 64)
    (deny,) = by_type["deny"]
    assert (deny["hook"], deny["reason"]) == ("guard", "no shell today")


async def test_the_file_is_appended_to_across_trails(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    for session_id in ("a", "b"):
        trail = AuditTrail(log, session_id=session_id)
        trail.record("deny", hook="h", event="tool:pre", reason="no")
    assert [r["session_id"] for r in read_lines(log)] == ["a", "b"]


def test_a_text_stream_sink_gets_one_json_object_per_line() -> None:
    stream = io.StringIO()
    trail = AuditTrail(stream, session_id="s")
    trail.record("deny", hook="h", event="tool:pre", reason="no\nnewline breaks nothing")
    trail.record(
        "hook_failure", hook="h", event="x", kind="timeout", error="slow", fail_closed=True
    )
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["reason"] == "no\nnewline breaks nothing"
    assert json.loads(lines[1])["kind"] == "timeout"


async def test_the_default_sink_stays_off_stdout_and_logs_at_debug(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    coordinator = ModuleCoordinator()
    await coordinator.process_hook_result(
        HookResult(action="deny", reason="quiet"), "tool:pre", "g"
    )
    assert capsys.readouterr().out == ""
    assert coordinator.audit.of_type("deny")[0]["reason"] == "quiet"

    caplog.set_level(logging.DEBUG, logger="amplifier_core.audit")
    await coordinator.process_hook_result(HookResult(action="deny", reason="loud"), "tool:pre", "g")
    logged = [
        json.loads(r.getMessage()) for r in caplog.records if r.name == "amplifier_core.audit"
    ]
    assert [(r["type"], r["reason"]) for r in logged] == [("deny", "loud")]
    assert capsys.readouterr().out == ""


async def test_timeouts_and_invalid_results_are_audited_as_hook_failures() -> None:
    coordinator = ModuleCoordinator()

    async def slow(_e: str, _d: dict[str, Any]) -> HookResult:
        import asyncio

        await asyncio.sleep(5)
        return HookResult()

    def garbage(_e: str, _d: dict[str, Any]) -> object:
        return "not a result"

    coordinator.hooks.register("tool:pre", slow, name="slow", timeout=0.01, fail_closed=True)
    coordinator.hooks.register("tool:post", garbage, name="garbage")  # type: ignore[arg-type]
    denied = await coordinator.hooks.emit("tool:pre", {})
    await coordinator.hooks.emit("tool:post", {})
    assert denied.action == "deny"
    failures = coordinator.audit.of_type("hook_failure")
    assert [(f["hook"], f["kind"], f["fail_closed"]) for f in failures] == [
        ("slow", "timeout", True),
        ("garbage", "invalid_result", True),  # a result that cannot be read denies
    ]


def test_the_ring_keeps_only_the_newest_records() -> None:
    trail = AuditTrail(io.StringIO(), ring_size=3)
    for index in range(5):
        trail.record("deny", hook="h", event="e", reason=str(index))
    assert [r["reason"] for r in trail.records] == ["2", "3", "4"]
    with pytest.raises(ValueError, match="ring_size"):
        AuditTrail(ring_size=0)


def test_an_unwritable_path_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ValueError, match=r"audit log .*cannot open for appending"):
        ModuleCoordinator(config={"session": {"audit_log": str(blocker / "audit.jsonl")}})
    with pytest.raises(ValueError, match=r"session\.audit_log"):
        ModuleCoordinator(config={"session": {"audit_log": 42}})
    with pytest.raises(TypeError, match="sink"):
        AuditTrail(42)  # type: ignore[arg-type]


def test_a_write_failure_never_reaches_the_session(caplog: pytest.LogCaptureFixture) -> None:
    stream = io.StringIO()
    trail = AuditTrail(stream)
    stream.close()
    record = trail.record("deny", hook="h", event="e", reason="r")
    assert record["reason"] == "r"
    assert "could not be written" in caplog.text


async def test_a_shared_trail_gets_the_session_id_and_failure_listener() -> None:
    trail = AuditTrail(io.StringIO())
    coordinator = ModuleCoordinator(audit=trail, session_id="given")
    assert coordinator.audit is trail
    assert trail.session_id == "given"

    def broken(_e: str, _d: dict[str, Any]) -> HookResult:
        raise ValueError("bad")

    coordinator.hooks.register("session:start", broken, name="broken")
    await coordinator.hooks.emit("session:start", {})
    assert trail.of_type("hook_failure")[0]["session_id"] == "given"
