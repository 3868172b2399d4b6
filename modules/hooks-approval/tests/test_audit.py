"""The audit log and the approval events on this kernel, through the coordinator's gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_core.models import HookResult
from amplifier_core.testing import EventRecorder, MockCoordinator
from amplifier_module_hooks_approval import AuditLog, kernel_runs_approval_gate, mount

from .support import bash, records

AUDIT = "audit/{session_id}.jsonl"


async def run_tool_pre(coordinator: MockCoordinator, data: dict[str, Any]) -> HookResult:
    """What the session runtime does at tool:pre: emit, then let the coordinator decide."""
    result = await coordinator.hooks.emit("tool:pre", data)
    return await coordinator.process_hook_result(result, "tool:pre", "hooks")


def make_coordinator(workspace: Path, approval: str = "allow") -> MockCoordinator:
    coordinator = MockCoordinator(approval=approval)  # type: ignore[arg-type]
    coordinator.register_capability("session.working_dir", str(workspace))
    return coordinator


async def test_every_request_and_decision_is_recorded(workspace: Path) -> None:
    coordinator = make_coordinator(workspace, approval="allow")
    await mount(
        coordinator,
        {"audit_log": AUDIT, "rules": [{"name": "no-curl", "action": "deny", "command": "curl *"}]},
    )
    assert (await run_tool_pre(coordinator, bash("ls -la", "c1"))).action == "continue"
    assert (await run_tool_pre(coordinator, bash("make", "c2"))).action == "continue"
    assert (await run_tool_pre(coordinator, bash("curl x", "c3"))).action == "deny"
    write = {
        "tool_name": "write_file",
        "tool_input": {"file_path": "notes.txt", "content": "hello\n"},
        "tool_call_id": "c4",
    }
    assert (await run_tool_pre(coordinator, write)).action == "continue"
    assert (
        await run_tool_pre(coordinator, {"tool_name": "read_file", "tool_input": {}})
    ).action == "continue"

    got = records(workspace / "audit" / "test-session.jsonl")
    summary = [(r["kind"], r["tool_call_id"], r["rule"], r["decision"]) for r in got]
    assert summary == [
        ("rule", "c1", "builtin:list-files", "allow"),
        ("request", "c2", "default_action", "ask"),
        ("decision", "c2", "user", "allow"),
        ("rule", "c3", "no-curl", "deny"),
        ("request", "c4", "default_action", "ask"),
        ("decision", "c4", "user", "allow"),
    ]
    for record in got:
        assert record["session_id"] == "test-session"
        assert record["ts"].endswith("+00:00")
        assert record["prompt"]
    assert got[0]["command"] == "ls -la"
    assert got[0]["prompt"].endswith(
        "Allowed without asking: rule 'builtin:list-files' allows it: lists files or prints "
        "the working directory."
    )
    assert got[2]["prompt"] == got[1]["prompt"]
    assert (got[2]["answer"], got[2]["why"], got[2]["cached"]) == ("Allow once", "user", False)
    assert got[2]["asked_by"] == "default_action"
    assert got[3]["prompt"].endswith("Denied without asking: rule 'no-curl' denies it.")
    assert got[4]["path"] == "notes.txt"
    assert got[4]["absolute_path"] == str(workspace / "notes.txt")
    assert got[4]["content_bytes"] == 6
    assert got[4]["content_sha256"] == (
        "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
    )


async def test_denials_and_cached_allow_always_are_recorded(workspace: Path) -> None:
    coordinator = make_coordinator(workspace, approval="always")
    await mount(coordinator, {"audit_log": AUDIT})
    assert (await run_tool_pre(coordinator, bash("make", "c1"))).action == "continue"
    assert (await run_tool_pre(coordinator, bash("make", "c2"))).action == "continue"
    assert coordinator.approvals.requests == [coordinator.approvals.requests[0]]  # asked once

    denying = make_coordinator(workspace, approval="deny")
    await mount(denying, {"audit_log": "audit/deny.jsonl"})
    denied = await run_tool_pre(denying, bash("make", "c3"))
    assert denied.action == "deny"

    allowed = [
        r for r in records(workspace / "audit" / "test-session.jsonl") if r["kind"] == "decision"
    ]
    assert [(r["answer"], r["why"], r["cached"]) for r in allowed] == [
        ("Allow always", "user", False),
        ("allow always (remembered)", "cached", True),
    ]
    (_request, decision) = records(workspace / "audit" / "deny.jsonl")
    assert (decision["decision"], decision["answer"], decision["why"]) == ("deny", "Deny", "user")
    assert decision["reason"].startswith("User denied: answered 'Deny' to 'Run this")


async def test_the_module_emits_no_approval_events_on_this_kernel(workspace: Path) -> None:
    coordinator = make_coordinator(workspace)
    assert kernel_runs_approval_gate(coordinator)
    recorder = EventRecorder()
    recorder.attach(coordinator.hooks, "approval:*")
    await mount(coordinator, {"audit_log": AUDIT})
    await run_tool_pre(coordinator, bash("make"))
    assert recorder.names == ["approval:required", "approval:granted"]  # the kernel's, once each
    required = recorder.get_events("approval:required")[0][1]
    assert required["hook"] == "hooks-approval"
    assert required["tool_name"] == "bash"


async def test_decisions_of_other_hooks_are_not_recorded(workspace: Path) -> None:
    coordinator = make_coordinator(workspace)
    await mount(coordinator, {"audit_log": AUDIT, "tools": []})
    coordinator.hooks.register(
        "tool:pre",
        lambda e, d: HookResult(action="ask_user", approval_prompt="Other?"),
        name="other",
    )
    await run_tool_pre(coordinator, bash("make"))
    assert not (workspace / "audit").exists()


async def test_an_unwritable_audit_log_never_fails_a_call(workspace: Path, caplog: Any) -> None:
    (workspace / "blocked").write_text("a file, not a directory")
    coordinator = make_coordinator(workspace)
    await mount(coordinator, {"audit_log": "blocked/{session_id}.jsonl"})
    assert (await run_tool_pre(coordinator, bash("ls"))).action == "continue"
    assert (await run_tool_pre(coordinator, bash("pwd"))).action == "continue"
    warnings = [r.getMessage() for r in caplog.records if "audit log" in r.getMessage()]
    assert len(warnings) == 1
    assert "cannot write the audit log" in warnings[0]


def test_audit_log_writes_whole_lines_and_reopens_after_close(tmp_path: Path) -> None:
    log = AuditLog("{session_id}.jsonl", str(tmp_path))
    log.write("s1", {"kind": "rule", "text": "ünïcode\nline"})
    log.close()
    log.write("s1", {"kind": "rule"})
    log.close()
    lines = (tmp_path / "s1.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert records(tmp_path / "s1.jsonl")[0]["text"] == "ünïcode\nline"
    assert log.written == 2


async def test_cleanup_unregisters_everything_and_closes_the_log(workspace: Path) -> None:
    coordinator = make_coordinator(workspace)
    cleanup = await mount(coordinator, {"audit_log": AUDIT})
    await run_tool_pre(coordinator, bash("ls"))
    names = {n for names in coordinator.hooks.list_handlers().values() for n in names}
    assert names == {"hooks-approval", "hooks-approval.audit"}
    cleanup()
    names = {n for names in coordinator.hooks.list_handlers().values() for n in names}
    assert names == set()
