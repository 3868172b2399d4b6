"""hooks-status-context: what one provider request costs with the module mounted, cached and
uncached, on a repository of a few thousand files, in one run.

    python bench/status_context.py [--files 3000] [--rounds 7] [--dir PATH] [--json PATH]

A repository is made in a temporary directory (on disk unless ``--dir`` says otherwise):
``--files`` committed files in 30 folders, then 40 of them changed, 20 new files, a
``node_modules`` folder of 300 files and a changed lock file, so the status listing has every
tier. Each figure is the time of one ``provider:request`` emitted through the kernel's
``HookRegistry`` (``await registry.emit(...)``), per call, the best and the median of
``--rounds`` rounds:

- ``no hook``: the registry with nothing mounted, the floor;
- ``cached``: the module mounted with its defaults; after the first request every request
  checks the watched files (a few ``stat`` calls) and returns the same text;
- ``uncached``: the module with ``cache: false``: every request runs git (rev-parse, then
  status, log and for-each-ref side by side);
- ``after a writing tool``: a ``tool:post`` of ``bash`` then a ``provider:request``, the
  path a real session takes after each command.

The run checks what it measures: the cached text is the same string for every request, the
cached path took exactly one snapshot, and the uncached text equals the cached one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

try:
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_status_context import StatusContextHook, mount, parse_config
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e modules/hooks-status-context"
    )

ISOLATED = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


class Coordinator:
    """What hooks-status-context needs from a coordinator: hooks and the working directory."""

    def __init__(self, working_dir: Path) -> None:
        self.hooks = HookRegistry()
        self._capabilities: dict[str, Any] = {"session.working_dir": str(working_dir)}

    def get_capability(self, name: str) -> Any:
        return self._capabilities.get(name)


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args],
        cwd=repo,
        env={**os.environ, **ISOLATED},
        check=True,
        capture_output=True,
    )


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_repository(repo: Path, files: int) -> None:
    """``files`` committed files, then changes of every tier."""
    git(repo, "init", "-q", "-b", "main")
    per_folder = max(files // 30, 1)
    for n in range(files):
        write(repo / "src" / f"pkg{n // per_folder:02d}" / f"mod{n:05d}.py", f"value = {n}\n")
    write(repo / "poetry.lock", "v1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial import")
    for n in range(4):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"follow-up {n}")
    for n in range(0, 40 * 7, 7):
        write(repo / "src" / f"pkg{n // per_folder:02d}" / f"mod{n:05d}.py", "changed\n")
    for n in range(20):
        write(repo / f"scratch{n:02d}.txt", "new\n")
    for n in range(300):
        write(repo / "node_modules" / f"dep{n:03d}" / "index.js", "module.exports = 1\n")
    write(repo / "poetry.lock", "v2\n")


async def per_call(
    call: Callable[[], Awaitable[Any]], batch: int, rounds: int
) -> tuple[float, float]:
    """Best and median seconds per call over ``rounds`` batches of ``batch`` calls."""
    for _ in range(min(batch, 20)):
        await call()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(batch):
            await call()
        samples.append((time.perf_counter() - started) / batch)
    return min(samples), statistics.median(samples)


async def measure(repo: Path, rounds: int) -> dict[str, Any]:
    request = {"provider": "bench", "model": "bench", "messages": [], "tools": []}

    bare = Coordinator(repo)
    cached = Coordinator(repo)
    await mount(cached, {})
    uncached = Coordinator(repo)
    await mount(uncached, {"cache": False})

    # correctness of what is timed
    first = await cached.hooks.emit("provider:request", request)
    second = await cached.hooks.emit("provider:request", request)
    fresh = await uncached.hooks.emit("provider:request", request)
    assert first.context_injection is second.context_injection, "cached text is not reused"
    assert fresh.context_injection == first.context_injection, "uncached text differs"
    probe = StatusContextHook(parse_config({"working_dir": str(repo)}))
    for _ in range(100):
        await probe.block()
    assert probe.snapshots_taken == 1, probe.snapshots_taken
    text = first.context_injection or ""

    async def bare_request() -> Any:
        return await bare.hooks.emit("provider:request", request)

    async def cached_request() -> Any:
        return await cached.hooks.emit("provider:request", request)

    async def uncached_request() -> Any:
        return await uncached.hooks.emit("provider:request", request)

    async def after_tool() -> Any:
        await cached.hooks.emit("tool:post", {"tool_name": "bash", "tool_input": {}})
        return await cached.hooks.emit("provider:request", request)

    figures: dict[str, tuple[float, float]] = {
        "no hook": await per_call(bare_request, 2000, rounds),
        "cached": await per_call(cached_request, 2000, rounds),
        "uncached": await per_call(uncached_request, 20, rounds),
        "after a writing tool": await per_call(after_tool, 20, rounds),
    }
    return {
        "figures_us": {
            name: {"best": best * 1e6, "median": median * 1e6}
            for name, (best, median) in figures.items()
        },
        "block_bytes": len(text.encode("utf-8")),
        "block_lines": text.count("\n") + 1,
        "block": text,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--files", type=int, default=3000, help="committed files in the repo")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds; best and median")
    parser.add_argument("--dir", type=Path, help="where to make the repository (default: tmp)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--show", action="store_true", help="print the injected block")
    args = parser.parse_args()
    if shutil.which("git") is None:
        print("git is not installed: nothing to measure", file=sys.stderr)
        return 2

    base = Path(tempfile.mkdtemp(prefix="status-context-bench-", dir=args.dir))
    try:
        repo = base / "repo"
        repo.mkdir()
        started = time.perf_counter()
        make_repository(repo, args.files)
        made = time.perf_counter() - started
        results = asyncio.run(measure(repo, args.rounds))
    finally:
        shutil.rmtree(base, ignore_errors=True)

    figures = results["figures_us"]
    print("hooks-status-context, one provider:request through HookRegistry.emit")
    print(f"repository: {args.files} committed files, made in {made:.1f} s under {base.parent}")
    print(f"block: {results['block_bytes']} bytes, {results['block_lines']} lines")
    print()
    print(f"{'path':<24}{'best us':>12}{'median us':>12}")
    for name, value in figures.items():
        print(f"{name:<24}{value['best']:>12.1f}{value['median']:>12.1f}")
    cached = figures["cached"]["best"]
    bare = figures["no hook"]["best"]
    uncached = figures["uncached"]["best"]
    print()
    print(f"cached request adds {cached - bare:.1f} us over no hook")
    print(f"uncached / cached = {uncached / cached:.0f}x")
    results["ratios"] = {
        "uncached/cached": uncached / cached,
        "cached - no hook (us)": cached - bare,
    }
    if args.show:
        print()
        print(results["block"])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            **{k: v for k, v in results.items() if k != "block"},
            "files": args.files,
            "rounds": args.rounds,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
