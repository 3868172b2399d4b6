"""hooks-approval mounted from a bundle in a real session: tools run or not, the model sees why."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from amplifier_hooks_cli.session import AgentSession
from amplifier_hooks_util.state import session_dir

from amplifier_core.approval import CallbackApprovalSystem, StaticApprovalSystem
from amplifier_core.testing import EventRecorder
from amplifier_module_provider_scripted import ScriptedProvider

from . import support
from .support import call, make_bundle, module, records, sent

NO_FORCE_PUSH = {
    "name": "no-force-push",
    "action": "deny",
    "command": "git push --force*",
    "reason": "force pushes rewrite shared history",
}


def session_for(
    workspace: Path, script: list[Any], approvals: Any, timeout: float = 300
) -> tuple[AgentSession, ScriptedProvider, EventRecorder]:
    config = {"approval_timeout": timeout, "rules": [NO_FORCE_PUSH]}
    session, recorder, provider = support.session_for(
        workspace,
        script,
        make_bundle(hooks=[module("hooks-approval", config)]),
        approval_system=approvals,
        session_id="approval-session",
    )
    return session, provider, recorder


def audit(workspace: Path) -> list[dict[str, Any]]:
    return records(session_dir("approval-session", working_dir=workspace) / "approvals.jsonl")


async def test_static_allow_runs_the_tool(workspace: Path) -> None:
    script = [
        call("write_file", file_path="notes/todo.txt", content="ship it\n"),
        {"text": "written", "expect": "todo.txt"},
    ]
    approvals = StaticApprovalSystem("allow")
    session, _, recorder = session_for(workspace, script, approvals)
    async with session:
        outcome = await session.run("write the note")
    assert outcome.response == "written"
    assert (workspace / "notes" / "todo.txt").read_text() == "ship it\n"
    assert approvals.requests == [
        "Write this file (write_file)?\n"
        "File: notes/todo.txt (in the workspace)\n"
        "Content: 8 bytes in 1 line:\n"
        "  1 | ship it\n"
        "Why asked: write_file needs approval and no rule decided this call."
    ]
    assert recorder.names.count("approval:required") == 1  # the kernel's; none from the module
    assert recorder.names.count("approval:granted") == 1
    assert "tool:post" in recorder.names


async def test_static_deny_blocks_the_tool_and_the_model_sees_it(workspace: Path) -> None:
    script = [
        call("bash", command="rm -rf build && make"),
        {"text": "I will not", "expect": "User denied"},
    ]
    (workspace / "build").mkdir()
    approvals = StaticApprovalSystem("deny")
    session, provider, recorder = session_for(workspace, script, approvals)
    async with session:
        outcome = await session.run("rebuild")
    assert outcome.response == "I will not"
    assert (workspace / "build").is_dir()
    assert "tool:post" not in recorder.names
    seen = sent(provider.requests[1])[-1]
    assert seen["role"] == "tool"
    assert seen["is_error"] is True
    assert seen["content"].startswith(
        "Error: tool call denied by hook 'hooks-approval': User denied: answered 'Deny' to "
        "'Run this bash command?\\n$ rm -rf build && make"
    )
    assert seen["content"].endswith("The hook's reason: hooks-approval: default_action is 'ask'")
    assert recorder.names.count("approval:denied") == 1
    violation = recorder.get_events("policy:violation")[0][1]
    assert violation["hook"] == "hooks-approval"


async def test_callback_system_sees_the_exact_prompt(workspace: Path) -> None:
    prompts: list[tuple[str, list[str], float, str]] = []

    def answer(prompt: str, options: list[str], timeout: float, default: str) -> str:
        prompts.append((prompt, options, timeout, default))
        return "Allow once"

    script = [call("bash", command="echo hi; echo there"), {"text": "done", "expect": "there"}]
    approvals = CallbackApprovalSystem(answer)
    session, _, _ = session_for(workspace, script, approvals, timeout=42)
    async with session:
        await session.run("greet")
    assert prompts == [
        (
            "Run this bash command?\n"
            "$ echo hi; echo there\n"
            "(19 characters; shell operators: ;)\n"
            "Why asked: bash needs approval and no rule decided this call.",
            ["Allow once", "Allow always", "Deny"],
            42.0,
            "deny",
        )
    ]


async def test_allow_always_is_not_asked_again(workspace: Path) -> None:
    script = [
        call("bash", command="make test"),
        {"text": "first", "expect": "make"},
        call("bash", command="make test"),
        {"text": "second"},
        call("bash", command="make lint"),
        {"text": "third"},
    ]
    approvals = CallbackApprovalSystem(lambda prompt, options, timeout, default: "Allow always")
    session, _, recorder = session_for(workspace, script, approvals)
    (workspace / "Makefile").write_text("test:\n\techo testing\nlint:\n\techo linting\n")
    async with session:
        await session.run("test")
        assert approvals.calls == 1
        await session.run("test again")
        assert approvals.calls == 1  # the kernel's session cache answered
        await session.run("lint")
        assert approvals.calls == 2  # a different command is a different question
    posts = [d["tool_result"]["output"]["stdout"] for _, d in recorder.get_events("tool:post")]
    assert posts == [
        "echo testing\ntesting\n",
        "echo testing\ntesting\n",
        "echo linting\nlinting\n",
    ]
    decisions = [r for r in audit(workspace) if r["kind"] == "decision"]
    assert [(r["command"], r["why"], r["cached"]) for r in decisions] == [
        ("make test", "user", False),
        ("make test", "cached", True),
        ("make lint", "user", False),
    ]


async def test_timeout_applies_the_default_deny(workspace: Path) -> None:
    async def slow(prompt: str, options: list[str], seconds: float, default: str) -> str:
        await asyncio.sleep(30)
        return "Allow once"

    script = [
        call("write_file", file_path="late.txt", content="too late"),
        {"text": "timed out", "expect": "no answer"},
    ]
    approvals = CallbackApprovalSystem(slow)
    session, provider, _ = session_for(workspace, script, approvals, timeout=0.2)
    started = time.perf_counter()
    async with session:
        outcome = await session.run("write")
    assert time.perf_counter() - started < 20  # the answer comes after 30 s: not waited for
    assert outcome.response == "timed out"
    assert not (workspace / "late.txt").exists()
    seen = sent(provider.requests[1])[-1]["content"]
    assert "Denied by default: no answer from CallbackApprovalSystem within 0.2s" in seen
    decision = audit(workspace)[-1]
    assert (decision["kind"], decision["decision"], decision["why"]) == (
        "decision",
        "deny",
        "timeout",
    )


async def test_rules_decide_without_asking(workspace: Path) -> None:
    script = [
        {
            "tool_calls": [
                {"name": "bash", "input": {"command": "ls"}},
                {"name": "bash", "input": {"command": "git push --force origin main"}},
            ]
        },
        {"text": "ok", "expect": "force pushes rewrite shared history"},
    ]
    (workspace / "visible.txt").write_text("x")
    approvals = CallbackApprovalSystem(lambda *args: "Deny")
    session, provider, _ = session_for(workspace, script, approvals)
    async with session:
        await session.run("look and push")
    assert approvals.calls == 0
    ls_result, push_result = sent(provider.requests[1])[-2:]
    assert "visible.txt" in ls_result["content"]
    assert push_result["content"] == (
        "Error: tool call denied by hook 'hooks-approval': hooks-approval: rule 'no-force-push' "
        "denies this bash call: force pushes rewrite shared history"
    )
    got = audit(workspace)
    assert [(r["kind"], r["command"], r["rule"], r["decision"]) for r in got] == [
        ("rule", "ls", "builtin:list-files", "allow"),
        ("rule", "git push --force origin main", "no-force-push", "deny"),
    ]
    assert {r["tool_call_id"] for r in got} == {"call_1", "call_2"}
