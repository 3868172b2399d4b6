"""The module runs unchanged on amplifier-core 2.0.2 (PyPI), in that release's own environment."""

from __future__ import annotations

import json
from pathlib import Path

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

SCRIPT = """
import asyncio, json, os, sys, types
workspace = sys.argv[1]
import amplifier_core
from amplifier_core import ModuleCoordinator
from amplifier_module_hooks_approval import kernel_runs_approval_gate, mount

class Approvals:  # the kernel's ApprovalSystem interface, answering "Allow once"
    def __init__(self):
        self.prompts = []

    async def request_approval(self, prompt, options, timeout, default):
        self.prompts.append(prompt)
        return "Allow once"

async def main():
    session = types.SimpleNamespace(
        session_id="test-session",
        parent_id=None,
        config={"session": {"orchestrator": "loop-basic", "context": "context-simple"}},
    )
    approvals = Approvals()
    coordinator = ModuleCoordinator(session, approvals, None)
    seen = []

    async def observe(event, data):
        seen.append([event, data.get("why"), data.get("tool_call_id")])
        return amplifier_core.HookResult()

    for event in ("approval:required", "approval:granted", "approval:denied"):
        coordinator.hooks.register(event, observe, name="observer")
    cleanup = await mount(coordinator, {
        "audit_log": workspace + "/{session_id}.jsonl",
        "rules": [{"name": "no-rm", "action": "deny", "command": "rm *"}],
    })
    bash = lambda command, call: {
        "tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": call
    }
    allowed = await coordinator.hooks.emit("tool:pre", bash("git status", "c1"))
    denied = await coordinator.hooks.emit("tool:pre", bash("ls; rm -rf /", "c2"))
    asked = await coordinator.hooks.emit("tool:pre", bash("ls && curl x | sh", "c3"))
    # The kernel's coordinator turns ask_user into a decision (its approval system allows).
    processed = await coordinator.process_hook_result(asked, "tool:pre", "hooks-approval")
    ran = {**bash("ls && curl x | sh", "c3"), "tool_result": {}}
    await coordinator.hooks.emit("tool:post", ran)
    await coordinator.hooks.emit("tool:pre", bash("make", "c4"))
    await coordinator.hooks.emit("provider:request", {"messages": []})
    registered = coordinator.hooks.list_handlers()
    cleanup()
    print(json.dumps({
        "version": amplifier_core.__version__,
        "gate": kernel_runs_approval_gate(coordinator),
        "allowed": allowed.action,
        "denied": [denied.action, denied.reason],
        "asked": [asked.action, asked.approval_prompt, asked.approval_options,
                  asked.approval_timeout, asked.approval_default],
        "processed": processed.action,
        "asked_prompts": approvals.prompts,
        "seen": seen,
        "registered": registered,
        "after_cleanup": coordinator.hooks.list_handlers(),
    }))

asyncio.run(main())
"""


@needs_upstream
def test_gates_and_emits_approval_events_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], args=[str(tmp_path)])
    report = json.loads(out.strip().splitlines()[-1])
    assert report["version"] == "2.0.2"
    assert report["gate"] is False
    assert report["allowed"] == "continue"
    assert report["denied"] == [
        "deny",
        "hooks-approval: rule 'no-rm' denies this bash call",
    ]
    action, prompt, options, timeout, default = report["asked"]
    assert action == "ask_user"
    assert prompt.splitlines()[:3] == [
        "Run this bash command?",
        "$ ls && curl x | sh",
        "(17 characters; shell operators: && |)",
    ]
    assert (options, timeout, default) == (["Allow once", "Allow always", "Deny"], 300.0, "deny")
    assert report["processed"] == "continue"
    assert report["asked_prompts"] == [prompt]
    assert report["seen"] == [
        ["approval:required", None, "c3"],
        ["approval:granted", "inferred", "c3"],
        ["approval:required", None, "c4"],
        ["approval:denied", "inferred", "c4"],
    ]
    assert report["registered"]["tool:pre"] == ["hooks-approval"]
    assert all(names in ([], ["observer"]) for names in report["after_cleanup"].values()), report[
        "after_cleanup"
    ]
    audit = [
        json.loads(line) for line in (tmp_path / "test-session.jsonl").read_text().splitlines()
    ]
    assert [(r["kind"], r["tool_call_id"], r["rule"], r["decision"]) for r in audit] == [
        ("rule", "c1", "builtin:git-read", "allow"),
        ("rule", "c2", "no-rm", "deny"),
        ("request", "c3", "default_action", "ask"),
        ("decision", "c3", "user", "allow"),
        ("request", "c4", "default_action", "ask"),
        ("decision", "c4", "user", "deny"),
    ]
