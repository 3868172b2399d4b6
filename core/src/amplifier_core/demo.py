"""``amplifier-hooks demo``: the reference hooks firing on a scripted, offline agent turn.

The demo makes a temporary workspace, mounts the demo bundle's modules through the entry-point
loader exactly as a user's bundle would, and drives one agent turn's events through them: a
prompt, a provider request that carries a secret, a tool call the bundle denies, a tool call that
runs, and the end of the session. It prints what every hook did and what reached the log.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

from . import events as ev
from .approval import StaticApprovalSystem
from .bundle import parse_bundle
from .coordinator import ModuleCoordinator
from .display import RecordingDisplay
from .loader import ModuleLoader
from .tracing import trace_emit

__all__ = ["DEMO_BUNDLE", "run_demo"]

DEMO_BUNDLE = """\
bundle:
  name: demo
  version: 1.0.0
session:
  injection_size_limit: 10240
hooks:
  - module: hooks-redaction
    config:
      events: ["provider:request", "tool:post"]
  - module: hooks-template
    config:
      deny_tools: [delete_everything]
      note_results: true
  - module: hooks-logging
    config:
      path: "{workspace}/logs/{session_id}.jsonl"
"""

_FAKE_KEY = "ghp_" + "Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o"


def _script(workspace: Path) -> list[tuple[str, dict[str, Any]]]:
    bash_pre = {"tool_name": "bash", "tool": "bash", "tool_input": {"command": "ls"}}
    return [
        (ev.SESSION_START, {"mount_plan": {"hooks": ["hooks-redaction", "hooks-template"]}}),
        (ev.PROMPT_SUBMIT, {"prompt": "List the workspace, then clean it up."}),
        (
            ev.PROVIDER_REQUEST,
            {
                "model": "scripted",
                "messages": [
                    {"role": "user", "content": f"my token is {_FAKE_KEY}, mail me at a@b.io"},
                ],
            },
        ),
        (ev.TOOL_PRE, bash_pre),
        (
            ev.TOOL_POST,
            {**bash_pre, "tool_result": {"success": True, "output": str(workspace)}},
        ),
        (
            ev.TOOL_PRE,
            {"tool_name": "delete_everything", "tool": "delete_everything", "tool_input": {}},
        ),
        (ev.PROMPT_COMPLETE, {"response": "Done.", "duration": 0.01}),
        (ev.SESSION_END, {"duration": 0.02}),
    ]


async def run_demo(console: Console, *, keep: bool = False) -> int:
    """Run the demo and print it; returns the process exit code."""
    workspace = Path(tempfile.mkdtemp(prefix="amplifier-hooks-demo-"))
    try:
        bundle = parse_bundle(DEMO_BUNDLE.replace("{workspace}", str(workspace)), "demo-bundle")
        display = RecordingDisplay()
        coordinator = ModuleCoordinator(
            approval_system=StaticApprovalSystem("deny"),
            display_system=display,
            config={"session": dict(bundle.session or {})},
            session_id="demo-session",
        )
        loader = ModuleLoader(coordinator)
        await loader.mount_all(bundle.hooks)  # a module that fails is logged once and skipped
        console.rule(f"session demo-session in {workspace}")
        for event, data in _script(workspace):
            trace = await trace_emit(coordinator.hooks, event, data)
            result = trace.result
            assert result is not None
            handled = await coordinator.process_hook_result(result, event, "demo")
            ran = ", ".join(f"{s.name}={s.action}" for s in trace.steps) or "no handlers"
            console.print(f"[bold]{event:<18}[/bold] -> {handled.action:<8} [dim]{ran}[/dim]")
            if handled.action == "deny":
                console.print(f"    [red]denied:[/red] {handled.reason}")
            if event == ev.PROVIDER_REQUEST and result.data is not None:
                console.print(f"    model sees: {result.data['messages'][0]['content']}")
        for shown in display.messages:
            console.print(f"    [cyan]{shown.source}[/cyan] ({shown.level}): {shown.message}")
        await loader.cleanup()
        logs = sorted((workspace / "logs").glob("*.jsonl"))
        for log in logs:
            lines = log.read_text(encoding="utf-8").splitlines()
            console.print(f"[green]{len(lines)} events logged[/green] to {log}")
        if keep:
            console.print(f"workspace kept: {workspace}")
        return 0
    finally:
        if not keep:
            shutil.rmtree(workspace, ignore_errors=True)
