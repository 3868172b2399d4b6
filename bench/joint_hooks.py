"""Matching Claude Code command hooks on one event: what N of them cost against the slowest.

    python bench/joint_hooks.py [--hooks 8] [--runs 15] [--json PATH] [--check]

N Claude Code plugins (a directory of plugins, as a marketplace checkout mounts) each hook
``PreToolUse`` of ``Bash`` with a ``/bin/sh`` script that reads its stdin, sleeps, and allows;
hook ``i`` sleeps ``5 * (i + 1)`` ms, so the slowest sleeps ``5 * N`` ms. Three mounts are
timed, one ``tool:pre`` emit at a time, alternating so that drift of the machine hits all alike:

* **joint**: the plugins as written (Claude Code's matcher groups run at once);
* **sequential**: the same hooks with ``"parallel": false`` on each group (one after another,
  what every matching hook cost before they ran at once);
* **slowest**: the slowest plugin alone;
* **bare**: no hooks at all: the same N commands started with ``asyncio.create_subprocess_exec``
  at once, each fed the event's JSON, awaited together (what spawning N processes costs on
  this machine with nothing of ours around it: the floor for joint).

Prints each side's median in milliseconds and the ratios joint/slowest and
sequential/slowest. The target is joint/slowest at most 1.2 (``--check`` exits 1 past it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

try:
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_declarative import mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(f"{err}: install the kernel and the module first (pip install -e core -e modules/*)")

TARGET = 1.2
STEP_MS = 5


def _plugins(root: Path, count: int, *, parallel: bool, only: int | None = None) -> Path:
    for index in range(count):
        if only is not None and index != only:
            continue
        seconds = STEP_MS * (index + 1) / 1000
        hook = {"type": "command", "command": f"cat > /dev/null; sleep {seconds}; exit 0"}
        plugin = root / f"plugin-{index}"
        (plugin / ".claude-plugin").mkdir(parents=True)
        (plugin / "hooks").mkdir()
        (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": plugin.name}))
        group: dict[str, Any] = {"matcher": "Bash", "hooks": [hook]}
        if not parallel:
            group["parallel"] = False
        hooks = {"hooks": {"PreToolUse": [group]}}
        (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def _bare(count: int, payload: bytes) -> None:
    async def one(index: int) -> None:
        seconds = STEP_MS * (index + 1) / 1000
        process = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            f"cat > /dev/null; sleep {seconds}; exit 0",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        await process.communicate(payload)

    await asyncio.gather(*(one(index) for index in range(count)))


async def _mounted(project: Path, plugins: Path) -> tuple[Any, Callable[[], Awaitable[None]]]:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, "plugins": [str(plugins)]})
    return coordinator, cleanup


async def _measure(count: int, runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="joint-hooks-") as scratch:
        root = Path(scratch)
        project = root / "project"
        project.mkdir()
        layouts = {
            "joint": _plugins(root / "joint", count, parallel=True),
            "sequential": _plugins(root / "sequential", count, parallel=False),
            "slowest": _plugins(root / "slowest", count, parallel=True, only=count - 1),
        }
        mounted: dict[str, Any] = {
            name: await _mounted(project, path) for name, path in layouts.items()
        }
        data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "bench"}
        samples: dict[str, list[float]] = {name: [] for name in (*mounted, "bare")}
        try:
            names = [*mounted, "bare"]
            for run in range(runs + 1):  # the first round warms up, not counted
                order = names[run % len(names) :] + names[: run % len(names)]
                for name in order:
                    started = time.perf_counter()
                    if name == "bare":
                        await _bare(count, json.dumps(data).encode())
                        result = None
                    else:
                        result = await mounted[name][0].hooks.emit("tool:pre", data)
                    elapsed = time.perf_counter() - started
                    if result is not None and result.action not in ("continue", "allow"):
                        raise RuntimeError(f"{name}: the hooks did not allow: {result!r}")
                    if run:
                        samples[name].append(elapsed * 1000)
        finally:
            for _coordinator, cleanup in mounted.values():
                await cleanup()
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {
        "hooks": count,
        "slowest_sleep_ms": STEP_MS * count,
        "median_ms": medians,
        "joint_over_slowest": medians["joint"] / medians["slowest"],
        "sequential_over_slowest": medians["sequential"] / medians["slowest"],
        "bare_over_slowest": medians["bare"] / medians["slowest"],
        "samples_ms": samples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hooks", type=int, default=8)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    found = asyncio.run(_measure(args.hooks, args.runs))
    medians = found["median_ms"]
    print(f"{args.hooks} matching PreToolUse command hooks (the slowest sleeps "
          f"{found['slowest_sleep_ms']} ms), median of {args.runs} emits:")  # fmt: skip
    for name in ("slowest", "joint", "sequential", "bare"):
        print(f"  {name:<10} {medians[name]:8.1f} ms")
    print(f"  joint / slowest      {found['joint_over_slowest']:.2f} (target <= {TARGET})")
    print(f"  sequential / slowest {found['sequential_over_slowest']:.2f}")
    print(f"  bare / slowest       {found['bare_over_slowest']:.2f} (no hooks: the floor)")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(found, indent=1) + "\n")
    return 1 if args.check and found["joint_over_slowest"] > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
