"""What receipts cost per hook run: a session's emit with receipts against the same without.

    python bench/receipts_cost.py [--handlers 10] [--emits 2000] [--rounds 9] [--check]

Two kinds of hook run are measured, each on a ``ModuleCoordinator`` whose ``session.audit_log``
is a real file (in a temporary directory):

* ``handler``: ``--handlers`` no-op async Python handlers on ``tool:pre`` (their receipts come
  from the kernel's handler-run observer);
* ``declarative``: hooks-declarative mounted with ``--handlers`` matcher hooks on
  ``PreToolUse`` (each decides on its synchronous path; the receipt comes from the module's
  wrapper), when the module is installed.

For each kind, the same emits run with ``session.receipts: false`` (the baseline) and with
receipts on; rounds alternate between the two and each figure is the median of the rounds.
The cost per hook run is the difference per emit divided by the hook runs of an emit (the
dispatcher's own run counted for declarative hooks). The clock is the process's CPU time
(``time.process_time``): on a shared machine the wall clock counts other processes' turns.
The timed part includes the observer, rendering, hashing and writing every receipt: the batch
still pending is written (``flush``) before the clock stops. The garbage collector runs as
in a session (the queued receipts' share of its work is counted). Each kind is measured twice:
``batched``, emits back to back (a busy session: receipts are written 128 at a time), and
``per event``, the trail flushed after every emit (a session whose events are more than a
quarter of a second apart: each event's receipts are written as a batch of their own, so a
batch's fixed cost is shared by fewer runs). As a yardstick of the machine's speed the run
also prints the CPU time of ``json.dumps`` of one receipt. ``--check`` exits 1 when any of
the costs exceeds 5 us.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

try:
    from amplifier_core.coordinator import ModuleCoordinator
except ImportError as err:
    sys.exit(f"{err}: install the kernel first (pip install -e core)")

TARGET_US = 5.0


async def _noop(_event: str, _data: dict[str, Any]) -> None:
    return None


def _data(index: int) -> dict[str, Any]:
    return {
        "tool_name": "bash",
        "tool_call_id": f"call_{index}",
        "tool_input": {"command": "git status", "description": "status"},
    }


async def _handlers(log: Path, receipts: bool, count: int) -> tuple[Any, Callable[[], Any]]:
    coordinator = ModuleCoordinator(
        config={"session": {"audit_log": str(log), "receipts": receipts}}
    )
    for index in range(count):
        coordinator.hooks.register("tool:pre", _noop, name=f"noop-{index}")

    async def done() -> None:
        await coordinator.cleanup()

    return coordinator, done


async def _declarative(log: Path, receipts: bool, count: int) -> tuple[Any, Callable[[], Any]]:
    from amplifier_module_hooks_declarative import mount

    coordinator = ModuleCoordinator(
        config={"session": {"audit_log": str(log), "receipts": receipts}}
    )
    hooks = [
        {
            "type": "matcher",
            "match": {"tool": "bash", "args": {"command": f"rm {i} *"}},
            "action": "block",
        }
        for i in range(count)
    ]
    config = {"include_user": False, "include_project": False, "hooks": {"PreToolUse": hooks}}
    cleanup = await mount(coordinator, config)

    async def done() -> None:
        await cleanup()
        await coordinator.cleanup()

    return coordinator, done


Setup = Callable[[Path, bool, int], Awaitable[tuple[Any, Callable[[], Any]]]]


async def _round(
    setup: Setup, receipts: bool, count: int, emits: int, where: Path, per_event: bool
) -> float:
    """Seconds per emit of one round (the pending receipts written before the clock stops;
    ``per_event``: after every emit)."""
    log = where / f"audit-{receipts}-{time.monotonic_ns()}.jsonl"
    coordinator, done = await setup(log, receipts, count)
    emit = coordinator.hooks.emit
    flush = coordinator.audit.flush
    for index in range(50):  # warm the chains and the caches
        await emit("tool:pre", _data(index))
    flush()
    gc.collect()
    started = time.process_time()
    if per_event:
        for index in range(emits):
            await emit("tool:pre", _data(index))
            flush()
    else:
        for index in range(emits):
            await emit("tool:pre", _data(index))
    flush()
    took = time.process_time() - started
    await done()
    log.unlink()
    return took / emits


async def _measure(
    name: str, setup: Setup, count: int, runs: int, emits: int, rounds: int, where: Path
) -> list[float]:
    """The cost per hook run, batched and per event."""
    costs: list[float] = []
    for per_event in (False, True):
        off: list[float] = []
        on: list[float] = []
        for _ in range(rounds):
            off.append(await _round(setup, False, count, emits, where, per_event))
            on.append(await _round(setup, True, count, emits, where, per_event))
        base, with_receipts = statistics.median(off), statistics.median(on)
        per_run = (with_receipts - base) / runs * 1e6
        paired = statistics.median((b - a) / runs * 1e6 for a, b in zip(off, on, strict=True))
        how = "per event" if per_event else "batched"
        print(
            f"{name:12} {how:9} {runs:3d} hook runs/emit  without {base * 1e6:8.1f} us/emit  "
            f"with {with_receipts * 1e6:8.1f} us/emit  receipts: {per_run:5.2f} us per hook run "
            f"(paired rounds: {paired:5.2f})"
        )
        costs.append(per_run)
    return costs


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--handlers", type=int, default=10)
    parser.add_argument("--emits", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    costs: list[float] = []
    with tempfile.TemporaryDirectory(prefix="receipts-bench-") as raw:
        where = Path(raw)
        costs.extend(
            await _measure(
                "handler", _handlers, args.handlers, args.handlers, args.emits, args.rounds, where
            )
        )
        try:
            import amplifier_module_hooks_declarative  # noqa: F401
        except ImportError:
            print("declarative  skipped: hooks-declarative is not installed")
        else:
            costs.extend(
                await _measure(
                    "declarative",
                    _declarative,
                    args.handlers,
                    args.handlers + 1,
                    args.emits,
                    args.rounds,
                    where,
                )
            )
    receipt = {
        "type": "hook_run",
        "session_id": "7c0b8a52-5a4f-4d55-9a3b-2f0e5f1d2c11",
        "hook": "noop-1",
        "kind": "handler",
        "source": "/work/bench/receipts_cost.py:55",
        "ts": "2026-12-03T07:00:00.123+00:00",
        "event": "tool:pre",
        "tool": "bash",
        "tool_call_id": "call_123",
        "decision": "continue",
        "outcome": "ok",
        "duration_ms": 0.004,
        "chain": "abcdef0123456789",
        "seq": 12,
        "prev": "b" * 64,
    }
    started = time.process_time()
    for _ in range(20_000):
        json.dumps(receipt)
    yardstick = (time.process_time() - started) / 20_000 * 1e6
    print(f"yardstick: json.dumps of one receipt takes {yardstick:.2f} us of CPU here")
    worst = max(costs)
    print(f"worst: {worst:.2f} us per hook run (target: at most {TARGET_US:g} us)")
    return 1 if args.check and worst > TARGET_US else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
