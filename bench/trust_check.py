"""Project trust: what the check before every run of a trusted project's hook costs, on a hook
surface of 2,000 files, in one run.

    python bench/trust_check.py [--files 2000] [--rounds 7] [--dir PATH] [--json PATH] [--check]

A project is made in a temporary directory (on disk unless ``--dir`` says otherwise): a
``.claude/settings.json`` whose hook runs ``scripts/guard.sh``, and ``--files`` files in all
under ``.claude/hooks/`` (20 folders) and ``scripts/``, so the whole surface a record covers is
that large. The project is trusted, then each figure is the time of one call, the best and the
median of ``--rounds`` rounds (each round a batch of calls lasting at least 0.05 s):

- ``per-run check, inotify``: :meth:`TrustGuard.check` with nothing changed (what every run
  of a hook pays);
- ``per-run check after a hook logged``: a write to the hook's own log file (its data), then
  the check (what a hook that logs into its own directory pays on its next run);
- ``per-run check, stat``: the same guard without inotify: a ``stat`` of every file and
  directory of the surface (the fallback where inotify is missing);
- ``os.stat of every file``: the floor of any stat-based check, for comparison;
- ``full check at session start``: ``trust_status`` (walk, read and hash the whole surface).

The run checks what it measures: the guard watches by inotify, the surface holds the asked
number of files, and every check said the project is still trusted. ``--check`` exits 1
unless the per-run check costs at most 1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "util" / "src"))

from amplifier_module_hooks_declarative.trust import trust_project, trust_status  # noqa: E402
from amplifier_module_hooks_declarative.trust.watch import TrustGuard  # noqa: E402

TARGET_US = 1000.0


def make_project(root: Path, files: int) -> Path:
    project = root / "project"
    hooks = project / ".claude" / "hooks"
    settings = {
        "hooks": {
            "PreToolUse": [{"hooks": [{"type": "command", "command": "sh scripts/guard.sh"}]}]
        }
    }
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / "scripts").mkdir()
    (project / "scripts" / "guard.sh").write_text('echo run >> "$(dirname "$0")/guard.log"\n')
    remaining = files - 2
    for index in range(remaining):
        folder = hooks / f"part{index % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        suffix = ".py" if index % 3 == 0 else ".json"
        (folder / f"file{index:05d}{suffix}").write_text(f"# {index}\n")
    return project


def timed(call: Callable[[], Any], rounds: int, min_time: float = 0.05) -> dict[str, float]:
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            call()
        if time.perf_counter() - start >= min_time:
            break
        batch *= 2
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        samples.append((time.perf_counter() - start) / batch * 1e6)
    return {"best_us": min(samples), "median_us": statistics.median(samples), "batch": batch}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="trust-bench-", dir=args.dir))
    os.environ["AMPLIFIER_HOME"] = str(workdir / "home")
    os.environ.pop("AMPLIFIER_TRUST_PROJECT", None)
    try:
        project = make_project(workdir, args.files)
        log = project / "scripts" / "guard.log"
        log.write_text("")
        trust_project(project)
        status = trust_status(project)
        if not status.trusted or status.surface is None:
            print(f"the project is not trusted: {status.why_not()}", file=sys.stderr)
            return 2
        surface_files = len(status.surface.states)
        guard = TrustGuard(status)
        if guard.watching != "inotify":
            print("inotify is not available here: the per-run figure is the stat fallback")
        guard.after_run()  # the log, written by the hook's run, becomes its data
        with log.open("a") as stream:
            stream.write("run\n")
        guard.after_run()

        def check() -> None:
            assert guard.check() is None

        def logged_then_check() -> None:
            with log.open("a") as stream:
                stream.write("run\n")
            assert guard.check() is None

        stat_guard = TrustGuard(trust_status(project), use_inotify=False)

        def stat_check() -> None:
            assert stat_guard.check() is None

        paths = list(status.surface.paths.values())

        def stat_all() -> None:
            for path in paths:
                os.stat(path)

        def full() -> None:
            assert trust_status(project).trusted

        figures = {
            "per-run check, inotify": timed(check, args.rounds),
            "per-run check after a hook logged": timed(logged_then_check, args.rounds),
            "per-run check, stat": timed(stat_check, args.rounds),
            "os.stat of every file": timed(stat_all, args.rounds),
            "full check at session start": timed(full, max(3, args.rounds // 2), 0.2),
        }
        guard.close()
        stat_guard.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"trust check on a hook surface of {surface_files:,} files ({guard.watching})")
    width = max(len(name) for name in figures)
    print(f"{'figure'.ljust(width)} | {'best us':>12} | {'median us':>12}")
    print(f"{'-' * width}-+-{'-' * 12}-+-{'-' * 12}")
    for name, figure in figures.items():
        print(f"{name.ljust(width)} | {figure['best_us']:>12,.2f} | {figure['median_us']:>12,.2f}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"files": surface_files, "watching": guard.watching, "figures": figures}
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    per_run = figures["per-run check, inotify"]["median_us"]
    if args.check and per_run > TARGET_US:
        print(f"per-run check {per_run:.1f} us is over the {TARGET_US:.0f} us target")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
