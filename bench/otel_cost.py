"""hooks-otel's cost: a session's tool calls with hooks-otel mounted and exporting, against the
same session without it.

One turn of ``--calls`` tool calls (loop-session, context-simple, provider-scripted and a
no-op tool, so that what is measured is the session's own work), each call through a tool:pre
hook that continues and a tool:post hook that continues. ``with hooks-otel``: the module
mounted from the mount plan, exporting traces and metrics over OTLP/HTTP to a real receiver on
loopback (the batch exporter's thread runs during the turn; its share of the interpreter is in
the figure). Rounds alternate the two sessions; figures are medians. The cost per event divides
the difference by the number of events the session emits (counted in a separate run).

    python bench/otel_cost.py [--calls 200] [--rounds 7] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "modules" / "hooks-otel" / "tests"))


from amplifier_core.models import HookResult, ToolResult  # noqa: E402
from amplifier_core.session import AmplifierSession  # noqa: E402

__all__ = ["main"]


class NoopTool:
    name = "noop"
    description = "Does nothing."
    input_schema: dict[str, Any] = {"type": "object"}  # noqa: RUF012 - the tool protocol

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        return ToolResult(success=True, output="ok")


def _module(module_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    package = "amplifier_module_" + module_id.replace("-", "_")
    return {"module": module_id, "source": f"{package}:mount", "config": config or {}}


def _plan(workspace: Path, calls: int, otel: dict[str, Any] | None) -> dict[str, Any]:
    script: list[Any] = [
        {"tool_calls": [{"name": "noop", "input": {"n": i}}]} for i in range(calls)
    ]
    script.append("done")
    return {
        "session": {
            "orchestrator": _module("loop-session", {"max_iterations": calls + 5}),
            "context": _module("context-simple"),
            "working_dir": str(workspace),
        },
        "providers": [_module("provider-scripted", {"script": script})],
        "tools": [],
        "hooks": [_module("hooks-otel", otel)] if otel is not None else [],
    }


async def _continue(event: str, data: dict[str, Any]) -> HookResult:
    return HookResult()


async def _session(
    workspace: Path, calls: int, otel: dict[str, Any] | None, count: bool = False
) -> tuple[float, int]:
    """Seconds of ``execute`` (and the events emitted, when ``count``)."""
    session = AmplifierSession(_plan(workspace, calls, otel))
    await session.initialize()
    await session.coordinator.mount("tools", NoopTool(), name="noop")
    hooks = session.coordinator.hooks
    hooks.register("tool:pre", _continue, name="bench.pre")
    hooks.register("tool:post", _continue, name="bench.post")
    emitted = 0
    if count:
        emit = hooks.emit

        async def counting(event: str, data: dict[str, Any] | None = None) -> HookResult:
            nonlocal emitted
            emitted += 1
            return await emit(event, data)

        hooks.emit = counting  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        await session.execute("go")
        elapsed = time.perf_counter() - started
    finally:
        await session.cleanup()
    return elapsed, emitted


def _receiver() -> Any:
    """The loopback OTLP receiver of hooks-otel's tests."""
    import importlib

    return importlib.import_module("otel_receiver").Receiver()


async def _run(calls: int, rounds: int) -> dict[str, Any]:
    with _receiver() as receiver, tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch)
        otel = {"endpoint": receiver.endpoint, "service_name": "bench"}
        await _session(workspace, 5, None)  # warm imports
        await _session(workspace, 5, otel)
        _, events = await _session(workspace, calls, None, count=True)
        plain: list[float] = []
        mounted: list[float] = []
        for _ in range(rounds):
            plain.append((await _session(workspace, calls, None))[0])
            mounted.append((await _session(workspace, calls, otel))[0])
        received = len(receiver.spans)
    base, with_otel = statistics.median(plain), statistics.median(mounted)
    extra = with_otel - base
    return {
        "calls": calls,
        "rounds": rounds,
        "events_per_session": events,
        "without_us_per_call": base / calls * 1e6,
        "with_us_per_call": with_otel / calls * 1e6,
        "extra_us_per_call": extra / calls * 1e6,
        "extra_us_per_event": extra / events * 1e6,
        "spans_received": received,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    result = asyncio.run(_run(args.calls, args.rounds))
    print(
        f"hooks-otel cost, {result['calls']} tool calls per turn, median of {result['rounds']} "
        f"rounds ({result['events_per_session']} events per session)\n"
        f"  without hooks-otel: {result['without_us_per_call']:9.1f} us per tool call\n"
        f"  with hooks-otel   : {result['with_us_per_call']:9.1f} us per tool call "
        f"(exporting OTLP/HTTP to a loopback receiver; {result['spans_received']} spans "
        "received)\n"
        f"  difference        : {result['extra_us_per_call']:9.1f} us per tool call, "
        f"{result['extra_us_per_event']:.1f} us per event (target <= 50)"
    )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
