"""hooks-python-check latency per checked file: each checker alone and all of them together.

    python bench/python_check.py [--rounds 10] [--lines 200] [--json PATH]

A Python file of ``--lines`` lines (typed functions and a class, with one unused import, one
type error, one formatting slip and one TODO planted) is written into a fresh project directory
with its own ``ruff.toml`` and ``mypy.ini``, so the checkout's settings play no part. Then, in
one run:

- each checker alone, as the module runs it (``ruff check``, ``ruff format --check --diff``,
  ``mypy`` as a process with a cold and then a warm cache, mypy through its daemon as the
  module runs it by default: the first check starts it, later ones ask it, the stub scan); the
  mypy runs each see a changed file;
- the whole handler through ``HookRegistry.emit("tool:post", ...)`` with every check on: the
  latency a write tool call gains, with the daemon (the default) and without;
- the same emit for a tool call that is not checked (``read_file``): what every other call pays;
- the first file a freshly mounted module checks, through emit, each round with a new mount
  and an empty mypy cache: right after mount (the daemon's start at mount still under way) and
  once that start has finished (a session whose first write comes after the model's first
  reply); ``--first-rounds`` rounds each.

Each figure is the median (and min, max) of ``--rounds`` runs. Every run's findings are checked
against what was planted, so a fast figure is never a run that found nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from _report import render_table

try:
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_python_check import (
        CheckRun,
        PythonCheckHook,
        mount,
        resolve_command,
        run_format,
        run_mypy,
        run_ruff,
        scan_stubs,
    )
    from amplifier_module_hooks_python_check.checkers import MYPY_ARGS
    from amplifier_module_hooks_python_check.checkers import mypy_run as mypy_result
    from amplifier_module_hooks_python_check.config import parse_config
    from amplifier_module_hooks_python_check.daemon import MypyDaemons
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e modules/hooks-python-check ruff mypy"
    )

RUFF_TOML = 'line-length = 100\n\n[lint]\nselect = ["E", "F", "W", "B", "UP"]\n'
FUNCTION = '''

def scale_{n}(values: list[float], factor: float = {n}.5) -> list[float]:
    """Multiply every value by ``factor``, skipping negative ones."""
    result: list[float] = []
    for value in values:
        if value < 0:
            continue
        result.append(value * factor)
    return result
'''
CLASS = '''

class Account:
    """A balance with a history of changes."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.history: list[int] = []

    def deposit(self, amount: int) -> int:
        """Add ``amount`` and return the new balance."""
        self.history.append(amount)
        return sum(self.history)

    def label(self) -> int:
        # TODO: include the currency
        return self.owner
'''
PLANTED = {
    "ruff": {"F401"},
    "format": {None},
    "mypy": {"return-value"},
    "stubs": {"TODO"},
}


def source(lines: int) -> str:
    """About ``lines`` lines of ordinary typed code with the planted issues."""
    parts = ['"""Numbers and accounts."""\n\nimport os\nfrom dataclasses import dataclass\n']
    parts.append("\n\n@dataclass\nclass Point:\n    x: float\n    y: float\n")
    parts.append(CLASS)
    n = 0
    while sum(part.count("\n") for part in parts) < lines:
        parts.append(FUNCTION.format(n=n))
        n += 1
    parts.append("\n\nTOTAL = sum( scale_0([1.0, 2.0]))\n")  # the formatting slip
    return "".join(parts)


def check_planted(run: CheckRun) -> None:
    found = {issue.code for issue in run.issues}
    if run.problem or run.missing or found != PLANTED[run.check]:
        raise SystemExit(
            f"{run.check}: expected {PLANTED[run.check]}, found {found} "
            f"(problem={run.problem!r}, missing={run.missing!r})"
        )


async def timed(rounds: int, call: Callable[[], Awaitable[Any]]) -> list[float]:
    """Milliseconds of each of ``rounds`` calls."""
    samples: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def row(name: str, samples: list[float]) -> list[str]:
    return [
        name,
        f"{statistics.median(samples):.2f}",
        f"{min(samples):.2f}",
        f"{max(samples):.2f}",
        str(len(samples)),
    ]


class Coordinator:
    """What the module needs from a coordinator: ``hooks`` and the session's directory."""

    def __init__(self, working_dir: Path) -> None:
        self.hooks = HookRegistry()
        self._working_dir = str(working_dir)

    def get_capability(self, name: str) -> Any:
        return self._working_dir if name == "session.working_dir" else None


async def first_file(
    project: Path,
    mypy_args: list[str],
    *,
    wait: bool,
    edit: Callable[[], None],
    write: dict[str, Any],
    warm: bool = True,
) -> float:
    """Milliseconds of the first checked write after a fresh mount (as ``mount`` builds it),
    at once or once the daemon's start at mount has finished; without that start
    (``warm=False``), the first check starts the daemon, as before it was made at mount."""
    coordinator = Coordinator(project)
    hook = PythonCheckHook(parse_config({"args": {"mypy": mypy_args}}), coordinator)
    coordinator.hooks.register("tool:post", hook.handle, priority=50, name="hooks-python-check")
    if warm:
        hook.warm()
    try:
        if wait and not await asyncio.to_thread(hook.wait_warm, 300):
            raise SystemExit("the daemon's start at mount did not end in 300 s")
        edit()
        started = time.perf_counter()
        result = await coordinator.hooks.emit("tool:post", write)
        elapsed = (time.perf_counter() - started) * 1000
    finally:
        await asyncio.to_thread(hook.close)
    expected = "python-check: 4 issues in calc.py (ruff 1, format 1, mypy 1, stubs 1)"
    if result.user_message != expected:
        raise SystemExit(f"first file: expected {expected!r}, got {result.user_message!r}")
    return elapsed


async def measure(
    project: Path, rounds: int, lines: int, first_rounds: int
) -> dict[str, list[float]]:
    path = project / "calc.py"
    path.write_text(source(lines), encoding="utf-8")
    ruff = resolve_command("ruff", None).command
    mypy = resolve_command("mypy", None).command
    if ruff is None or mypy is None:
        raise SystemExit("ruff and mypy must be installed (pip install ruff mypy)")
    cache = ["--follow-imports=silent", "--cache-dir", str(project / ".cache")]
    figures: dict[str, list[float]] = {}

    async def ruff_check() -> None:
        check_planted(await run_ruff(ruff, path, cwd=project, seconds=60, extra=()))

    async def ruff_format() -> None:
        run = await run_format(
            ruff, path, cwd=project, seconds=60, extra=(), display="calc.py", diff_lines=40
        )
        check_planted(run)

    base = path.read_text(encoding="utf-8")
    edits = iter(range(1_000_000))

    def edit() -> None:
        """A new version of the file (an extra comment), so every check reads a change."""
        path.write_text(f"{base}# edit {next(edits)}\n", encoding="utf-8")

    async def mypy_run() -> None:
        edit()
        check_planted(await run_mypy(mypy, path, cwd=project, seconds=120, extra=cache))

    daemons = MypyDaemons()

    async def mypy_daemon() -> None:
        edit()
        done = await daemons.check(path, cwd=project, args=(*MYPY_ARGS, *cache), seconds=120)
        check_planted(mypy_result(done, path, cwd=project))

    async def stubs() -> None:
        text = path.read_text(encoding="utf-8")
        issues = scan_stubs(text, markers=("TODO", "FIXME", "XXX"))
        check_planted(CheckRun("stubs", issues))

    figures["ruff check"] = await timed(rounds, ruff_check)
    figures["ruff format --check"] = await timed(rounds, ruff_format)
    figures["mypy, cold cache"] = await timed(1, mypy_run)
    figures["mypy, warm cache"] = await timed(rounds, mypy_run)
    try:
        figures["dmypy, first check (starts the daemon)"] = await timed(1, mypy_daemon)
        figures["dmypy, warm (the module's default)"] = await timed(rounds, mypy_daemon)
    finally:
        await daemons.aclose()
    figures["stub scan (in process)"] = await timed(rounds, stubs)

    write = {
        "tool_name": "write_file",
        "tool_input": {"file_path": "calc.py", "content": "..."},
        "tool_result": {"success": True, "output": {"file_path": str(path)}},
    }
    first: dict[str, list[float]] = {
        "first file after mount, no start at mount": [],
        "first file after mount, at once": [],
        "first file after mount, start at mount done": [],
    }
    for run in range(first_rounds):
        for n, samples in enumerate(first.values()):
            fresh = ["--follow-imports=silent", "--cache-dir", str(project / f".first-{run}-{n}")]
            samples.append(
                await first_file(project, fresh, wait=n == 2, edit=edit, write=write, warm=n != 0)
            )
    figures.update(first)

    plain = Coordinator(project)
    undo = await mount(plain, {"args": {"mypy": cache}, "mypy_daemon": False})
    coordinator = Coordinator(project)
    cleanup = await mount(coordinator, {"args": {"mypy": cache}})
    read = {**write, "tool_name": "read_file"}

    async def emit_on(target: Coordinator) -> None:
        edit()
        result = await target.hooks.emit("tool:post", write)
        expected = "python-check: 4 issues in calc.py (ruff 1, format 1, mypy 1, stubs 1)"
        if result.user_message != expected:
            raise SystemExit(f"emit: expected {expected!r}, got {result.user_message!r}")

    async def emit_write() -> None:
        await emit_on(coordinator)

    async def emit_plain() -> None:
        await emit_on(plain)

    async def emit_read() -> None:
        await coordinator.hooks.emit("tool:post", read)

    try:
        await emit_write()  # the daemon's start is the first-check row above, not this one
        figures["all four via emit (write_file)"] = await timed(rounds, emit_write)
        figures["all four via emit, mypy_daemon: false"] = await timed(rounds, emit_plain)
        figures["emit, tool not checked (read_file)"] = await timed(max(rounds, 2000), emit_read)
    finally:
        cleanup()
        undo()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=10, help="timed runs per figure")
    parser.add_argument("--lines", type=int, default=200, help="lines of the checked file")
    parser.add_argument("--json", type=Path, help="also write the samples as JSON")
    parser.add_argument(
        "--first-rounds", type=int, default=3, help="fresh mounts timed for the first file"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="python-check-bench-") as tmp:
        project = Path(tmp)
        (project / "ruff.toml").write_text(RUFF_TOML, encoding="utf-8")
        (project / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
        figures = asyncio.run(measure(project, args.rounds, args.lines, args.first_rounds))

    print(
        f"hooks-python-check, one {args.lines}-line file, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, milliseconds"
    )
    skipped = figures.pop("emit, tool not checked (read_file)")
    headers = ["what", "median ms", "min ms", "max ms", "runs"]
    print(render_table(headers, [row(name, samples) for name, samples in figures.items()]))
    parts = (
        "ruff check",
        "ruff format --check",
        "dmypy, warm (the module's default)",
        "stub scan (in process)",
    )
    serial = sum(statistics.median(figures[name]) for name in parts)
    together = statistics.median(figures["all four via emit (write_file)"])
    print(f"one after the other: {serial:.1f} ms; together through emit: {together:.1f} ms")
    warm = statistics.median(figures["mypy, warm cache"])
    daemon = statistics.median(figures["dmypy, warm (the module's default)"])
    print(f"mypy on a changed file: {warm:.1f} ms as a process, {daemon:.1f} ms through its daemon")
    cold = statistics.median(figures["first file after mount, no start at mount"])
    at_once = statistics.median(figures["first file after mount, at once"])
    ready = statistics.median(figures["first file after mount, start at mount done"])
    print(
        f"first file after a fresh mount: {ready:.1f} ms once the start at mount is done "
        f"({ready / together:.2f}x a later file, {ready / cold:.2f}x the first file without "
        f"that start: {cold:.1f} ms); {at_once:.1f} ms when it comes at once "
        f"({at_once / cold:.2f}x)"
    )
    print(
        "emit for a tool call that is not checked (read_file), with the module mounted: "
        f"median {statistics.median(skipped) * 1000:.1f} us over {len(skipped)} calls"
    )
    figures["emit, tool not checked (read_file)"] = skipped
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"lines": args.lines, "samples_ms": figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
