"""The scripted session exported to a real Arize Phoenix, its spans read back from Phoenix's
REST API: the tree (session > turn > provider / tool > hook runs), the attributes, and no
secret anywhere.

``nox -s otel`` installs Phoenix, starts it on loopback and sets ``HOOKS_OTEL_PHOENIX_URL``;
without it this test is skipped.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

PHOENIX = os.environ.get("HOOKS_OTEL_PHOENIX_URL", "")
pytestmark = pytest.mark.skipif(not PHOENIX, reason="set HOOKS_OTEL_PHOENIX_URL (nox -s otel)")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from otel_scenario import SECRETS, run_scenario  # noqa: E402

PROJECT = "hooks-otel-check"
READ_BOUND_S = 120.0


def _spans() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = ""
    while True:
        url = f"{PHOENIX}/v1/projects/{PROJECT}/spans?limit=500" + (
            f"&cursor={cursor}" if cursor else ""
        )
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                page = json.load(response)
        except urllib.error.HTTPError as err:
            if err.code == 404:  # the project appears with its first span
                return []
            raise
        found.extend(page["data"])
        cursor = page.get("next_cursor") or ""
        if not cursor:
            return found


def _read_back(expected: int) -> list[dict[str, Any]]:
    """Poll until Phoenix holds every span the exporters delivered (it ingests in the
    background), within a generous bound."""
    deadline = time.monotonic() + READ_BOUND_S
    spans: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        spans = _spans()
        if len(spans) >= expected:
            return spans
        time.sleep(0.5)
    raise AssertionError(f"Phoenix holds {len(spans)} spans after {READ_BOUND_S}s, {expected} sent")


async def test_trace_in_phoenix(tmp_path: Path) -> None:
    otel = {
        "endpoint": PHOENIX,
        "protocol": "http/protobuf",
        "capture_content": True,
        "metrics": False,  # Phoenix receives traces only
        "shutdown_timeout_s": 120,  # every span delivered before the read-back
        "service_name": "hooks-otel-check",
        "resource_attributes": {"openinference.project.name": PROJECT},
    }
    parent, child, approvals = await run_scenario(tmp_path, otel)
    sent = sum(s.coordinator.otel_hooks.pipeline.exported for s in (parent, child))  # type: ignore[attr-defined]
    dropped = sum(s.coordinator.otel_hooks.pipeline.dropped for s in (parent, child))  # type: ignore[attr-defined]
    assert dropped == 0
    spans = _read_back(sent)

    def under(parent_span: dict[str, Any], name: str, **attributes: Any) -> list[dict[str, Any]]:
        return [
            s
            for s in spans
            if s["parent_id"] == parent_span["context"]["span_id"]
            and s["name"] == name
            and all(s["attributes"].get(k) == v for k, v in attributes.items())
        ]

    (session,) = [
        s
        for s in spans
        if s["name"] == "amplifier.session"
        and s["attributes"].get("amplifier.session.id") == parent.session_id
    ]
    assert session["parent_id"] is None
    (turn,) = under(session, "amplifier.turn")
    assert len(under(turn, "chat scripted-1", **{"gen_ai.provider.name": "scripted"})) == 3
    tools = under(turn, "execute_tool bash", **{"gen_ai.tool.name": "bash"})
    assert len(tools) == 2
    assert all(t["attributes"]["gen_ai.tool.call.id"] for t in tools)
    (denied,) = [t for t in tools if t["attributes"].get("amplifier.tool.denied")]
    (ran,) = [t for t in tools if not t["attributes"].get("amplifier.tool.denied")]

    (deny,) = under(denied, "hook guard.deny-rm", **{"hook.decision": "deny"})
    assert "rm -rf is not allowed" in deny["attributes"]["hook.reason"]
    assert under(ran, "hook guard.rewrite-echo", **{"hook.decision": "modify"})
    assert under(ran, "hook guard.ask-echo", **{"hook.decision": "ask_user"})
    (failed,) = under(ran, "hook audit.flaky", **{"hook.event": "tool:post"})
    assert failed["status_code"] == "ERROR"
    assert failed["attributes"]["hook.failure"] == "error"
    (approval,) = under(ran, "approval_pending")
    assert approval["attributes"]["amplifier.approval.answer"] == "Allow"
    assert approval["attributes"]["amplifier.approval.result"] == "granted"
    [asked] = approvals.requests  # the hook's prompt, then the call it is about
    assert asked.startswith("Run echo?\n\nTool: bash\nInput: ")

    (child_session,) = under(session, "amplifier.session", **{"amplifier.session.type": "fork"})
    assert child_session["attributes"]["amplifier.session.id"] == child.session_id
    assert child_session["context"]["trace_id"] == session["context"]["trace_id"]
    assert under(child_session, "amplifier.turn")

    everything = json.dumps(_spans())
    for secret in SECRETS:
        assert secret not in everything
    assert "[REDACTED" in everything
