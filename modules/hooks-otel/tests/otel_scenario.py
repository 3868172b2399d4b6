"""A scripted session with several hooks, shared by the whole-session tests, the Phoenix test
and the bench: one deny, one ask (answered), one modify, one failing hook, a child session.

The hooks run as a user's would: registered on the session's registry after it is
initialized; hooks-otel and hooks-redaction are mounted from the mount plan. Secrets appear
in a deny reason and in a tool's output: none may reach an exporter.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.models import HookResult
from amplifier_core.session import AmplifierSession

__all__ = ["SECRETS", "plan", "run_scenario"]

GITHUB_TOKEN: Final = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS_KEY: Final = "AKIA" + "IOSFODNN7EXAMPLE"
SECRETS: Final = (GITHUB_TOKEN, AWS_KEY)


def _module(module_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    package = "amplifier_module_" + module_id.replace("-", "_")
    return {"module": module_id, "source": f"{package}:mount", "config": config or {}}


def plan(workspace: Path, otel: dict[str, Any], script: list[Any]) -> dict[str, Any]:
    return {
        "session": {
            "orchestrator": _module("loop-session"),
            "context": _module("context-simple"),
            "working_dir": str(workspace),
        },
        "providers": [_module("provider-scripted", {"script": script, "model": "scripted-1"})],
        "tools": [_module("tool-bash", {"working_dir": str(workspace)})],
        "hooks": [_module("hooks-redaction"), _module("hooks-otel", otel)],
    }


PARENT_SCRIPT: Final = [
    {"text": "cleaning up", "tool_calls": [{"name": "bash", "input": {"command": "rm -rf build"}}]},
    {"text": "saying hello", "tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]},
    "done",
]
CHILD_SCRIPT: Final = ["child done"]


def _tool_command(data: dict[str, Any]) -> str:
    tool_input = data.get("tool_input")
    return str(tool_input.get("command", "")) if isinstance(tool_input, dict) else ""


async def deny_rm(event: str, data: dict[str, Any]) -> HookResult:
    if "rm -rf" in _tool_command(data):
        return HookResult(action="deny", reason=f"rm -rf is not allowed (seen with {GITHUB_TOKEN})")
    return HookResult()


async def rewrite_echo(event: str, data: dict[str, Any]) -> HookResult:
    command = _tool_command(data)
    if command == "echo hi":
        tool_input = {**data["tool_input"], "command": f"echo hello {AWS_KEY}"}
        return HookResult(action="modify", data={**data, "tool_input": tool_input})
    return HookResult()


async def ask_echo(event: str, data: dict[str, Any]) -> HookResult:
    if _tool_command(data).startswith("echo"):
        return HookResult(action="ask_user", approval_prompt="Run echo?")
    return HookResult()


async def flaky_audit(event: str, data: dict[str, Any]) -> HookResult:
    raise RuntimeError("audit store unavailable")


def register_hooks(session: AmplifierSession) -> None:
    hooks = session.coordinator.hooks
    hooks.register("tool:pre", deny_rm, priority=10, name="guard.deny-rm")
    hooks.register("tool:pre", rewrite_echo, priority=20, name="guard.rewrite-echo")
    hooks.register("tool:pre", ask_echo, priority=30, name="guard.ask-echo")
    hooks.register("tool:post", flaky_audit, priority=40, name="audit.flaky")


async def run_scenario(
    workspace: Path,
    otel: dict[str, Any],
    *,
    before_cleanup: Callable[[AmplifierSession], Any] | None = None,
) -> tuple[AmplifierSession, AmplifierSession, StaticApprovalSystem]:
    """Run the parent session (one turn, then a child session forked from it); both are
    cleaned up (their telemetry flushed) before this returns."""
    approvals = StaticApprovalSystem("allow")
    parent = AmplifierSession(plan(workspace, otel, list(PARENT_SCRIPT)), approval_system=approvals)
    await parent.initialize()
    register_hooks(parent)
    try:
        await parent.execute("tidy the build directory and say hello")
        child = AmplifierSession(
            plan(workspace, otel, list(CHILD_SCRIPT)), parent_id=parent.session_id
        )
        await child.initialize()
        try:
            await child.execute("summarise for the parent")
        finally:
            await child.cleanup()
        if before_cleanup is not None:
            before_cleanup(parent)
    finally:
        await parent.cleanup()
    return parent, child, approvals
