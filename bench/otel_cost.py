"""hooks-otel's cost: a session's tool calls with hooks-otel mounted and exporting, against the
same session without it.

One turn of ``--calls`` tool calls (loop-session, context-simple, provider-scripted and a
no-op tool, so that what is measured is the session's own work), each call through a tool:pre
hook that continues and a tool:post hook that continues. ``with hooks-otel``: the module
mounted from the mount plan, exporting traces and metrics over OTLP/HTTP to a real receiver on
loopback (the batch exporter's thread runs during the turn; its share of the interpreter is in
the figure). Rounds alternate the two sessions; figures are medians, as wall time of
``execute`` and as CPU time of the process (every thread, over ``execute`` and the cleanup
that flushes the last spans: the figure a loaded machine disturbs least). The cost per event
divides the difference by the number of events the session emits (counted in a separate
run).

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
) -> tuple[float, float, int]:
    """Wall seconds of ``execute``, CPU seconds of the process (every thread: the export
    thread included) over ``execute`` and the cleanup that flushes the last spans, and the
    events emitted when ``count``."""
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
    cpu = time.process_time()
    try:
        started = time.perf_counter()
        await session.execute("go")
        elapsed = time.perf_counter() - started
    finally:
        await session.cleanup()
    return elapsed, time.process_time() - cpu, emitted


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
        events = (await _session(workspace, calls, None, count=True))[2]
        plain: list[tuple[float, float, int]] = []
        mounted: list[tuple[float, float, int]] = []
        for _ in range(rounds):
            plain.append(await _session(workspace, calls, None))
            mounted.append(await _session(workspace, calls, otel))
        received = len(receiver.spans)
    result: dict[str, Any] = {"calls": calls, "rounds": rounds, "events_per_session": events}
    for index, kind in ((0, "wall"), (1, "cpu")):
        base = statistics.median(r[index] for r in plain)
        with_otel = statistics.median(r[index] for r in mounted)
        extra = with_otel - base
        result[kind] = {
            "without_us_per_call": base / calls * 1e6,
            "with_us_per_call": with_otel / calls * 1e6,
            "extra_us_per_call": extra / calls * 1e6,
            "extra_us_per_event": extra / events * 1e6,
        }
    result["spans_received"] = received
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    result = asyncio.run(_run(args.calls, args.rounds))
    print(
        f"hooks-otel cost, {result['calls']} tool calls per turn, median of {result['rounds']} "
        f"rounds ({result['events_per_session']} events per session), exporting OTLP/HTTP "
        f"to a loopback receiver ({result['spans_received']} spans received)"
    )
    for kind, label in (("wall", "wall time of execute"), ("cpu", "CPU time, all threads")):
        figures = result[kind]
        print(
            f"  {label:22s}: without {figures['without_us_per_call']:8.1f}, with "
            f"{figures['with_us_per_call']:8.1f} us per tool call; difference "
            f"{figures['extra_us_per_call']:8.1f} us per call, "
            f"{figures['extra_us_per_event']:6.1f} us per event (target <= 50)"
        )
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
