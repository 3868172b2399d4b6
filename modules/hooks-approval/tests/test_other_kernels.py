"""On a kernel whose coordinator has no approval gate, the module emits the approval events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_core.hooks import HookRegistry
from amplifier_core.testing import EventRecorder
from amplifier_module_hooks_approval import kernel_runs_approval_gate, mount

from .support import bash, records


class PlainCoordinator:
    """A coordinator that does not process ask_user itself (as amplifier-core 2.0.2's)."""

    def __init__(self, workspace: Path) -> None:
        self.hooks = HookRegistry()
        self.session_id = "plain-session"
        self._workspace = str(workspace)

    def get_capability(self, name: str) -> Any:
        return self._workspace if name == "session.working_dir" else None


async def test_events_are_emitted_and_decisions_inferred(workspace: Path) -> None:
    coordinator = PlainCoordinator(workspace)
    assert not kernel_runs_approval_gate(coordinator)
    recorder = EventRecorder()
    recorder.attach(coordinator.hooks, "approval:*")
    await mount(coordinator, {"audit_log": "audit.jsonl"})

    asked = await coordinator.hooks.emit("tool:pre", bash("make build", "call_1"))
    assert asked.action == "ask_user"
    assert recorder.names == ["approval:required"]
    required = recorder.events[0][1]
    assert {
        k: required[k] for k in ("tool_name", "tool_call_id", "hook", "event", "timeout", "default")
    } == {
        "tool_name": "bash",
        "tool_call_id": "call_1",
        "hook": "hooks-approval",
        "event": "tool:pre",
        "timeout": 300.0,
        "default": "deny",
    }
    assert required["prompt"] == asked.approval_prompt
    assert required["options"] == ["Allow once", "Allow always", "Deny"]

    # The tool ran: it was approved.
    await coordinator.hooks.emit("tool:post", {**bash("make build", "call_1"), "tool_result": {}})
    assert recorder.names[-1] == "approval:granted"
    granted = recorder.events[-1][1]
    assert (granted["decision"], granted["why"], granted["inferred_from"]) == (
        "allow",
        "inferred",
        "tool:post",
    )

    # Asked again, and the round ended without the tool running: not approved.
    await coordinator.hooks.emit("tool:pre", bash("make deploy", "call_2"))
    await coordinator.hooks.emit("provider:request", {"messages": []})
    assert recorder.names[-2:] == ["approval:required", "approval:denied"]
    denied = recorder.events[-1][1]
    assert denied["tool_call_id"] == "call_2"
    assert denied["reason"].startswith("not approved: bash did not run before provider:request")

    # A rule decision asks nobody and emits nothing.
    await coordinator.hooks.emit("tool:pre", bash("ls", "call_3"))
    await coordinator.hooks.emit("session:end", {})
    assert len(recorder.events) == 4

    got = records(workspace / "audit.jsonl")
    assert [(r["kind"], r["tool_call_id"], r["decision"], r.get("why")) for r in got] == [
        ("request", "call_1", "ask", None),
        ("decision", "call_1", "allow", "inferred"),
        ("request", "call_2", "ask", None),
        ("decision", "call_2", "deny", "inferred"),
        ("rule", "call_3", "allow", None),
    ]
    assert {r["session_id"] for r in got} == {"plain-session"}


async def test_calls_without_ids_are_matched_by_tool_and_input(workspace: Path) -> None:
    coordinator = PlainCoordinator(workspace)
    recorder = EventRecorder()
    recorder.attach(coordinator.hooks, "approval:*")
    await mount(coordinator, {"audit_log": None})
    first = {"tool_name": "bash", "tool_input": {"command": "make a"}}
    second = {"tool_name": "bash", "tool_input": {"command": "make b"}}
    await coordinator.hooks.emit("tool:pre", first)
    await coordinator.hooks.emit("tool:pre", second)
    await coordinator.hooks.emit("tool:error", {**second, "error": {"message": "boom"}})
    await coordinator.hooks.emit("prompt:complete", {})
    decided = [
        (e, d["prompt"].splitlines()[1]) for e, d in recorder.events if e != "approval:required"
    ]
    assert decided == [("approval:granted", "$ make b"), ("approval:denied", "$ make a")]


async def test_nothing_is_tracked_without_audit_or_events(workspace: Path) -> None:
    coordinator = PlainCoordinator(workspace)
    await mount(coordinator, {"audit_log": None, "emit_approval_events": False})
    assert coordinator.hooks.list_handlers() == {"tool:pre": ["hooks-approval"]}


async def test_cleanup_removes_the_inference_observers(workspace: Path) -> None:
    coordinator = PlainCoordinator(workspace)
    cleanup = await mount(coordinator, {"audit_log": None})
    assert set(coordinator.hooks.list_handlers()) == {
        "tool:pre",
        "tool:post",
        "tool:error",
        "provider:request",
        "prompt:complete",
        "orchestrator:complete",
        "session:end",
    }
    cleanup()
    assert all(not names for names in coordinator.hooks.list_handlers().values())
