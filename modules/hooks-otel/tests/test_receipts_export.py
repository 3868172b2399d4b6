"""Receipts reach OpenTelemetry: a whole session with an audit log exports each hook run's
receipt as an ``amplifier.receipt`` event on the span of its tool call, over OTLP/HTTP to a
real receiver on loopback, with the same chain position and hash as the audit log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("amplifier_module_loop_session")
pytest.importorskip("amplifier_module_provider_scripted")
pytest.importorskip("amplifier_module_tool_bash")
pytest.importorskip("amplifier_module_context_simple")
pytest.importorskip("amplifier_module_hooks_redaction")

from otel_receiver import Receiver
from otel_scenario import GITHUB_TOKEN, PARENT_SCRIPT, plan, register_hooks

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.session import AmplifierSession


async def test_receipts_are_span_events_of_their_tool_call(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    with Receiver() as receiver:
        otel = {"endpoint": receiver.endpoint, "protocol": "http/protobuf"}
        config: dict[str, Any] = plan(tmp_path, otel, list(PARENT_SCRIPT))
        config["session"]["audit_log"] = str(log)
        session = AmplifierSession(config, approval_system=StaticApprovalSystem("allow"))
        await session.initialize()
        register_hooks(session)
        try:
            await session.execute("tidy the build directory and say hello")
        finally:
            await session.cleanup()
        spans = list(receiver.spans)

    written = {
        (r["hook"], r.get("tool_call_id")): r
        for r in map(json.loads, log.read_text(encoding="utf-8").splitlines())
        if r["type"] == "hook_run"
    }
    tools = [s for s in spans if s.name == "execute_tool bash"]
    assert len(tools) == 2
    exported: dict[tuple[str, str | None], dict[str, Any]] = {}
    for span in tools:
        for name, attributes in span.events:
            if name == "amplifier.receipt":
                key = (attributes["amplifier.receipt.hook"], span.attributes["gen_ai.tool.call.id"])
                exported[key] = attributes
    deny = next(
        v
        for k, v in exported.items()
        if k[0] == "guard.deny-rm" and v["amplifier.receipt.decision"] == "deny"
    )
    assert deny["amplifier.receipt.outcome"] == "ok"
    assert deny["amplifier.receipt.event"] == "tool:pre"
    flaky = next(v for k, v in exported.items() if k[0] == "audit.flaky")
    assert flaky["amplifier.receipt.outcome"] == "error"
    assert GITHUB_TOKEN not in json.dumps(list(exported.values()))  # free text is redacted
    for (hook, call), attributes in exported.items():
        record = written[(hook, call)]
        assert attributes["amplifier.receipt.hash"] == record["hash"]
        assert attributes["amplifier.receipt.seq"] == record["seq"]
    assert not [k for k in exported if k[0] == "hooks-otel"]
