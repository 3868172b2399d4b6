"""One whole session from a mount-plan dict, run by whichever kernel is installed.

``python scenario.py ours|amplifier WORKDIR`` composes a session from the runtime modules
named below plus our hook modules, runs two prompts, cleans up, and prints one JSON line with
what happened (the events the logging hook wrote, what the tools did, which handlers were left
registered). The tests in this folder run it with amplifier-core 2.0.2 and with our kernel and
check the report. It ends with ``os._exit`` because amplifier-core 2.0.2's engine may crash
while the interpreter shuts down.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession


def hooks(workdir: Path, blocked_tool: str, blocked_args: dict[str, str]) -> list[dict[str, Any]]:
    """Our hook modules: logging every event, a declarative deny, redaction, todo reminders."""
    return [
        {"module": "hooks-logging", "config": {"path": str(workdir / "events.jsonl")}},
        {
            "module": "hooks-declarative",
            "config": {
                "include_user": False,
                "include_project": False,
                "hooks": {
                    "PreToolUse": [
                        {
                            "type": "matcher",
                            "match": {"tool": blocked_tool, "args": blocked_args},
                            "action": "block",
                            "message": "blocked by policy",
                        }
                    ]
                },
            },
        },
        {"module": "hooks-redaction", "config": {}},
        {"module": "hooks-todo-reminder", "config": {}},
    ]


def amplifier_plan(workdir: Path) -> dict[str, Any]:
    """Amplifier's published runtime modules: the mock provider asks for ``read``, denied."""
    return {
        "session": {"orchestrator": "loop-basic", "context": "context-simple"},
        "orchestrator": {"config": {"max_iterations": 6}},
        "providers": [{"module": "provider-mock", "config": {"responses": ["all done"]}}],
        "tools": [
            {"module": "tool-bash", "config": {"working_dir": str(workdir)}},
            {"module": "tool-filesystem", "config": {"working_dir": str(workdir)}},
        ],
        "hooks": hooks(workdir, "read", {}),
    }


def our_plan(workdir: Path) -> dict[str, Any]:
    """Our runtime modules: a scripted model tries ``rm -rf victim`` (denied), then writes."""
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "input": {"command": "rm -rf victim"}}]},
            {
                "tool_calls": [
                    {"name": "write_file", "input": {"file_path": "out.txt", "content": "hi"}}
                ]
            },
            {"text": "first turn done"},
            {"text": "second turn done"},
        ]
    }
    return {
        "session": {
            "orchestrator": {"module": "loop-session", "config": {"working_dir": str(workdir)}},
            "context": {"module": "context-simple", "config": {}},
        },
        "providers": [{"module": "provider-scripted", "config": {"script": script}}],
        "tools": [
            {"module": "tool-bash", "config": {"working_dir": str(workdir)}},
            {"module": "tool-filesystem", "config": {"working_dir": str(workdir)}},
            {"module": "tool-todo", "config": {}},
        ],
        "hooks": hooks(workdir, "bash", {"command": "rm *"}),
    }


async def run(kind: str, workdir: Path) -> dict[str, Any]:
    (workdir / "victim").mkdir(exist_ok=True)
    (workdir / "test.txt").write_text("hello\n")
    plan = our_plan(workdir) if kind == "ours" else amplifier_plan(workdir)
    session = AmplifierSession(plan)
    session.coordinator.register_capability("session.working_dir", str(workdir))
    await session.initialize()
    mounted = {
        "orchestrator": type(session.coordinator.get("orchestrator")).__module__,
        "context": type(session.coordinator.get("context")).__module__,
        "providers": sorted(session.coordinator.get("providers") or {}),
        "tools": sorted(session.coordinator.get("tools") or {}),
    }
    answers = [
        await session.execute("please read test.txt and clean up"),
        await session.execute("anything else?"),
    ]
    hooks_registry = session.coordinator.hooks
    await session.cleanup()
    left = {k: v for k, v in hooks_registry.list_handlers().items() if v}
    log = workdir / "events.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return {
        "mounted": mounted,
        "answers": answers,
        "events": [r["event"] for r in records],
        "tool_pre": [r["data"].get("tool_name") for r in records if r["event"] == "tool:pre"],
        "victim_exists": (workdir / "victim").is_dir(),
        "out_txt": (workdir / "out.txt").read_text() if (workdir / "out.txt").exists() else None,
        "handlers_left": left,
    }


if __name__ == "__main__":
    report = asyncio.run(run(sys.argv[1], Path(sys.argv[2])))
    print(json.dumps(report))
    sys.stdout.flush()
    os._exit(0)
