"""Measure one long turn through a mount plan, with whichever kernel this interpreter has.

``python _plan_worker.py --orchestrator loop-basic --calls 200 [--hooks]`` builds a session
from a mount plan (the orchestrator and context manager named, the reference hook modules when
``--hooks``), mounts a provider answering from a script (``calls`` tool calls, then a final
text) and a no-op tool, runs the turn a few times and prints one JSON line: seconds per tool
call, best and median of the rounds. The provider and tool are defined here, so every kernel
runs the very same code around its own session, registry and coordinator.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession, ToolResult
from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ToolCall, Usage

REFERENCE_HOOKS = (
    "hooks-logging",
    "hooks-redaction",
    "hooks-status-context",
    "hooks-todo-reminder",
)
USAGE = Usage(input_tokens=1, output_tokens=1, total_tokens=2)


class ScriptProvider:
    """Asks for ``calls`` tool calls, one per response, then answers with text."""

    name = "script"

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.served = 0

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.served += 1
        if self.served <= self.calls:
            call = ToolCall(id=f"c{self.served}", name="noop", arguments={"n": self.served})
            return ChatResponse(content=[], tool_calls=[call], usage=USAGE)
        return ChatResponse(content=[TextBlock(text="done")], usage=USAGE)

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return response.tool_calls or []


class NoopTool:
    name = "noop"
    description = "does nothing"
    input_schema: dict[str, Any] = {"type": "object"}  # noqa: RUF012

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(success=True, output="ok")


def plan(orchestrator: str, hooks: bool, logs: Path) -> dict[str, Any]:
    entries: list[dict[str, Any]] = []
    if hooks:
        for module in REFERENCE_HOOKS:
            config: dict[str, Any] = {}
            if module == "hooks-logging":
                config = {"path": str(logs / "{session_id}.jsonl")}
            entries.append({"module": module, "config": config})
    orchestrator_config: dict[str, Any] = {"max_iterations": 100_000}
    if orchestrator == "loop-session":
        orchestrator_config.update(checkpoint_every_turn=False, working_dir=str(logs))
    return {
        "session": {
            "orchestrator": {"module": orchestrator, "config": orchestrator_config},
            "context": {"module": "context-simple", "config": {}},
        },
        "providers": [],
        "tools": [],
        "hooks": entries,
    }


async def one_turn(
    orchestrator: str, calls: int, hooks: bool, workdir: Path
) -> tuple[float, float]:
    """Seconds per tool call of one turn: wall clock, and CPU time of the whole process (every
    thread: a logger's writer, a kernel's engine)."""
    session = AmplifierSession(plan(orchestrator, hooks, workdir))
    session.coordinator.register_capability("session.working_dir", str(workdir))
    await session.initialize()
    provider = ScriptProvider(calls)
    await session.coordinator.mount("providers", provider, name="script")
    await session.coordinator.mount("tools", NoopTool(), name="noop")
    started = time.perf_counter()
    cpu = time.process_time()
    answer = await session.execute("go")
    elapsed = time.perf_counter() - started
    spent = time.process_time() - cpu
    await session.cleanup()
    if answer != "done" or provider.served != calls + 1:
        raise RuntimeError(f"the turn did not run as scripted: {answer!r}, {provider.served}")
    return elapsed / calls, spent / calls


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orchestrator", default="loop-basic")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hooks", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        await one_turn(args.orchestrator, 10, args.hooks, workdir)  # imports, caches
        samples = [
            await one_turn(args.orchestrator, args.calls, args.hooks, workdir)
            for _ in range(args.rounds)
        ]
    wall = [sample[0] for sample in samples]
    cpu = [sample[1] for sample in samples]
    figures = {"best": min(wall), "median": statistics.median(wall)}
    figures.update(cpu_best=min(cpu), cpu_median=statistics.median(cpu))
    print(json.dumps(figures))
    sys.stdout.flush()
    os._exit(0)  # amplifier-core 2.0.2's engine may crash while the interpreter shuts down


if __name__ == "__main__":
    asyncio.run(main())
