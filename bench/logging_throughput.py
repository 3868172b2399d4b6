"""hooks-logging throughput and the emit latency it adds, in one run.

    python bench/logging_throughput.py [--events 200000] [--rounds 3] [--dir DIR]
                                       [--no-redact-values] [--compare-emit]

Mounts hooks-logging through the kernel's ``HookRegistry`` (a small coordinator stand-in
with ``.hooks`` and ``.session_id``), emits ``--events`` realistic ``tool:pre`` events in a
loop and stops the clock only when the cleanup has written every record to disk; the line
count on disk is checked. The logger runs with its defaults (``redact_values`` on: the
redaction rules over every string written) unless ``--no-redact-values``. The same loop
against a registry with no handler gives the baseline, so the difference is what the logger
adds to each emit. Rounds alternate between the two and the best round of each is reported
(the least disturbed by the machine), with the median and spread of the rounds.
``--compare-emit`` adds, in every round, the logger with ``redact_on_writer: false`` (the
redaction decided in the emit rather than on the writer thread) and prints the ratio of the
medians.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_logging import mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e modules/hooks-logging"
    )

TARGET_EVENTS_PER_SECOND = 50_000
SAMPLE_EVERY = 16  # single emits timed individually, for percentiles


class Coordinator:
    """What hooks-logging needs from a coordinator."""

    def __init__(self, session_id: str) -> None:
        self.hooks = HookRegistry()
        self.session_id = session_id


def payload(n: int) -> dict[str, Any]:
    return {
        "tool_name": "bash",
        "tool": "bash",
        "tool_input": {"command": f"ls -la /tmp/project/{n}", "timeout": 30},
        "tool_call_id": f"toolu_{n:08d}",
        "n": n,
    }


@dataclass
class Run:
    seconds: float  # first emit to last record on disk (logger) or last emit (baseline)
    emit_seconds: float  # the emit loop alone
    samples_ns: list[int]

    def per_event_us(self, events: int) -> float:
        return self.emit_seconds / events * 1e6


async def emit_loop(registry: HookRegistry, events: int) -> tuple[float, list[int]]:
    emit = registry.emit
    clock = time.perf_counter_ns
    samples: list[int] = []
    started = time.perf_counter()
    for n in range(events):
        data = payload(n)
        if n % SAMPLE_EVERY:
            await emit("tool:pre", data)
        else:
            before = clock()
            await emit("tool:pre", data)
            samples.append(clock() - before)
    return time.perf_counter() - started, samples


async def baseline(events: int) -> Run:
    coordinator = Coordinator("baseline")
    elapsed, samples = await emit_loop(coordinator.hooks, events)
    return Run(elapsed, elapsed, samples)


async def with_logger(
    events: int, directory: Path, redact_values: bool, on_writer: bool = True
) -> tuple[Run, Path]:
    session = f"bench-{time.time_ns()}"
    coordinator = Coordinator(session)
    template = str(directory / "{session_id}" / "events.jsonl")
    config = {"path": template, "redact_values": redact_values, "redact_on_writer": on_writer}
    cleanup = await mount(coordinator, config)
    started = time.perf_counter()
    emit_seconds, samples = await emit_loop(coordinator.hooks, events)
    await cleanup()  # returns once every record is on disk
    total = time.perf_counter() - started
    return Run(total, emit_seconds, samples), Path(template.format(session_id=session))


def count_lines(path: Path) -> int:
    count = 0
    with path.open("rb") as f:
        for line in f:
            json.loads(line)
            count += 1
    return count


def percentile(samples: list[int], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000


def report(
    events: int, rounds: int, bases: list[Run], logged: list[Run], size: int, redact: bool
) -> bool:
    base = min(bases, key=lambda r: r.emit_seconds)
    best = min(logged, key=lambda r: r.seconds)
    throughput = events / best.seconds
    added = best.per_event_us(events) - base.per_event_us(events)
    target = TARGET_EVENTS_PER_SECOND
    print(f"hooks-logging throughput (Python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
    print(f"  events per round        {events:,} x tool:pre, {size / events:.0f} bytes per line")
    print(f"  rounds                  {rounds} (best of each shown)")
    print(f"  redact_values           {'on' if redact else 'off'}")
    print()
    print(f"  end to end, on disk     {throughput:,.0f} events/s  (target {target:,})")
    rates = [events / r.seconds for r in logged]
    print(f"  every round             {', '.join(f'{rate:,.0f}' for rate in rates)}")
    print(
        f"  median round            {statistics.median(rates):,.0f} events/s "
        f"(spread {min(rates):,.0f} to {max(rates):,.0f})"
    )
    print(f"  emit loop only          {events / best.emit_seconds:,.0f} events/s")
    print()
    print("  per emit                no handler        with hooks-logging   added")
    print(
        f"    mean                  {base.per_event_us(events):8.2f} us"
        f"       {best.per_event_us(events):8.2f} us        {added:6.2f} us"
    )
    for label, q in (("p50", 0.5), ("p99", 0.99)):
        plain = percentile(base.samples_ns, q)
        logging = percentile(best.samples_ns, q)
        print(
            f"    {label}                   {plain:8.2f} us       {logging:8.2f} us"
            f"        {logging - plain:6.2f} us"
        )
    median_base = statistics.median(r.per_event_us(events) for r in bases)
    median_logged = statistics.median(r.per_event_us(events) for r in logged)
    print(
        f"    mean, median round    {median_base:8.2f} us       {median_logged:8.2f} us"
        f"        {median_logged - median_base:6.2f} us"
    )
    passed = throughput >= target
    print()
    print(
        f"  {'PASS' if passed else 'BELOW TARGET'}: every event was written and read back as JSON"
    )
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: tmp)")
    parser.add_argument(
        "--no-redact-values",
        dest="redact_values",
        action="store_false",
        help="mount the logger with redact_values: false (key-name masking only)",
    )
    parser.add_argument(
        "--compare-emit",
        action="store_true",
        help="also run the logger with redact_on_writer: false in every round",
    )
    args = parser.parse_args()
    events: int = args.events
    directory = Path(args.dir or tempfile.mkdtemp(prefix="hooks-logging-bench-"))
    directory.mkdir(parents=True, exist_ok=True)

    bases: list[Run] = []
    logged: list[Run] = []
    in_emit: list[Run] = []
    size = 0
    try:
        asyncio.run(baseline(min(events, 20_000)))  # warm-up
        for _ in range(args.rounds):
            gc.collect()
            bases.append(asyncio.run(baseline(events)))
            gc.collect()
            run, path = asyncio.run(with_logger(events, directory, args.redact_values))
            lines = count_lines(path)
            if lines != events:
                print(f"FAIL: {lines} lines on disk for {events} events", file=sys.stderr)
                return 1
            logged.append(run)
            size = path.stat().st_size
            shutil.rmtree(path.parent)
            if args.compare_emit:
                gc.collect()
                run, path = asyncio.run(with_logger(events, directory, args.redact_values, False))
                if count_lines(path) != events:
                    print("FAIL: lines lost with redact_on_writer: false", file=sys.stderr)
                    return 1
                in_emit.append(run)
                shutil.rmtree(path.parent)
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)
    passed = report(events, args.rounds, bases, logged, size, args.redact_values)
    if in_emit:
        ours = statistics.median(events / r.seconds for r in logged)
        theirs = statistics.median(events / r.seconds for r in in_emit)
        rates = ", ".join(f"{events / r.seconds:,.0f}" for r in in_emit)
        print()
        print(f"  redact_on_writer: false {theirs:,.0f} events/s median round ({rates})")
        print(f"  default / in the emit   {ours / theirs:.2f}x (medians)")
    return 0 if passed else 2


if __name__ == "__main__":
    sys.exit(main())
