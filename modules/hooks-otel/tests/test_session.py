"""Whole sessions mounting hooks-otel from the mount plan, as a user does, exporting over
OTLP/HTTP to a real receiver on loopback; the tree, the hook runs and the absence of secrets
are checked on what arrived."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

pytest.importorskip("amplifier_module_loop_session")
pytest.importorskip("amplifier_module_provider_scripted")
pytest.importorskip("amplifier_module_tool_bash")
pytest.importorskip("amplifier_module_context_simple")
pytest.importorskip("amplifier_module_hooks_redaction")

from otel_receiver import Receiver, Span
from otel_scenario import SECRETS, run_scenario


def _one(spans: list[Span], name: str, **attributes: object) -> Span:
    found = [
        s
        for s in spans
        if s.name == name and all(s.attributes.get(k) == v for k, v in attributes.items())
    ]
    assert len(found) == 1, (name, attributes, [s.name for s in spans])
    return found[0]


async def test_session_tree_hooks_and_no_secret(tmp_path: Path) -> None:
    with Receiver() as receiver:
        otel = {
            "endpoint": receiver.endpoint,
            "protocol": "http/protobuf",
            "capture_content": True,
            "service_name": "hooks-otel-test",
            "shutdown_timeout_s": 120,
        }
        parent, child, approvals = await run_scenario(tmp_path, otel)
        spans = list(receiver.spans)

    session = _one(spans, "amplifier.session", **{"amplifier.session.id": parent.session_id})
    child_session = _one(spans, "amplifier.session", **{"amplifier.session.id": child.session_id})
    turns = [s for s in spans if s.name == "amplifier.turn" and s.parent_id == session.span_id]
    assert len(turns) == 1
    turn = turns[0]
    chats = [s for s in spans if s.name == "chat scripted-1" and s.parent_id == turn.span_id]
    assert len(chats) == 3
    tools = [s for s in spans if s.name == "execute_tool bash" and s.parent_id == turn.span_id]
    assert len(tools) == 2
    denied = next(s for s in tools if s.attributes.get("amplifier.tool.denied"))
    ran = next(s for s in tools if not s.attributes.get("amplifier.tool.denied"))

    def hook(name: str, parent: Span, event: str = "tool:pre") -> Span:
        return _one(
            [s for s in spans if s.parent_id == parent.span_id],
            f"hook {name}",
            **{"hook.event": event},
        )

    deny = hook("guard.deny-rm", denied)
    assert deny.attributes["hook.decision"] == "deny"
    assert "rm -rf is not allowed" in deny.attributes["hook.reason"]
    assert hook("guard.rewrite-echo", ran).attributes["hook.decision"] == "modify"
    assert hook("guard.ask-echo", ran).attributes["hook.decision"] == "ask_user"
    failed = hook("audit.flaky", ran, "tool:post")
    assert failed.status_code == 2  # ERROR
    assert failed.attributes["hook.failure"] == "error"
    approval = _one([s for s in spans if s.parent_id == ran.span_id], "approval_pending")
    assert approval.attributes["amplifier.approval.result"] == "granted"
    assert approval.attributes["amplifier.approval.answer"] == "Allow"
    [asked] = approvals.requests  # the hook's prompt, then the call it is about
    assert asked.startswith("Run echo?\n\nTool: bash\nInput: ")

    assert child_session.trace_id == session.trace_id
    assert child_session.parent_id == session.span_id
    assert child_session.attributes["amplifier.session.type"] == "fork"
    assert {s.trace_id for s in spans} == {session.trace_id}

    assert ran.attributes["gen_ai.tool.call.result"]  # captured, and redacted:
    everything = repr([(s.name, s.attributes, s.status_message) for s in spans])
    for secret in SECRETS:
        assert secret not in everything
    assert "[REDACTED" in everything
    assert "amplifier.hook.decisions" in receiver.metric_names
    assert "gen_ai.client.token.usage" in receiver.metric_names


class _Shown(logging.Handler):
    """What reaches the root logger: what an application's log shows (pytest's own capture
    also listens on loggers that do not propagate, so it cannot tell)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_a_collector_that_is_down_costs_a_counted_drop(tmp_path: Path) -> None:
    with Receiver() as receiver:
        dead = receiver.endpoint  # a port that was just closed again
    otel = {"endpoint": dead, "timeout_s": 0.5, "metrics": False, "shutdown_timeout_s": 120}
    shown = _Shown()
    logging.getLogger().addHandler(shown)
    try:
        parent, _child, _ = await run_scenario(tmp_path, otel)
    finally:
        logging.getLogger().removeHandler(shown)
    warnings = [r.getMessage() for r in shown.records if "export to" in r.getMessage()]
    assert len(warnings) == 2  # once per session's pipeline, not once per batch
    assert "dropped" in warnings[0]
    assert parent.coordinator.otel_hooks.pipeline.dropped > 0  # type: ignore[attr-defined]
    # the exporter library's own retry and failure lines are not shown: the line above is
    raw = [r for r in shown.records if r.name.startswith("opentelemetry")]
    assert raw == []
    routed = [r.getMessage() for r in shown.records if "exporter: " in r.getMessage()]
    assert all(m.startswith("hooks-otel: exporter: ") for m in routed)
