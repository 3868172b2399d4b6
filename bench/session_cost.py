"""The cost per tool call of a session, through a mount plan, on our kernel and on 2.0.2.

The curve as one turn grows (50, 200 and 400 tool calls by default), without hooks and with
the four reference hook modules (hooks-logging, hooks-redaction, hooks-status-context,
hooks-todo-reminder), in three setups:

- amplifier-core 2.0.2 with Amplifier's ``loop-basic`` and ``context-simple``;
- our kernel with the very same Amplifier modules;
- our kernel with our runtime, ``loop-session`` and our ``context-simple`` (this interpreter).

Each setup's figure is the best of ``--rounds`` turns, per tool call, in CPU time of the whole
process (every thread; ``--clock wall`` for the wall clock, which a shared machine disturbs
far more); ratios are to 2.0.2 in the same run, and the last row is each setup's growth from
the smallest size to the largest.
The peers run in virtual environments of their own under ``bench/.peers/`` (made on first use:
Amplifier's modules come from ``../shared/upstream`` or ``AMPLIFIER_MODULES_REQUIREMENTS``).

    python bench/session_cost.py [--sizes 50,200,400] [--rounds 3] [--clock cpu] [--no-peers]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
UPSTREAM = next(
    (
        where / "shared" / "upstream"
        for where in (ROOT.parent, ROOT.parent.parent)  # a checkout, or a worktree beside one
        if (where / "shared" / "upstream").is_dir()
    ),
    ROOT.parent / "shared" / "upstream",
)
WORKER = BENCH / "_plan_worker.py"
AMPLIFIER_MODULES = ("loop-basic", "context-simple")
WORKSPACE = ("util", "redact")
"""The workspace packages the hook modules require."""
HOOK_MODULES = ("hooks-logging", "hooks-redaction", "hooks-status-context", "hooks-todo-reminder")


def _amplifier_requirements() -> list[str]:
    given = os.environ.get("AMPLIFIER_MODULES_REQUIREMENTS", "").split()
    if given:
        return [g for g in given if any(m in g for m in AMPLIFIER_MODULES)] or given
    return [str(UPSTREAM / f"amplifier-module-{m}.tar.gz") for m in AMPLIFIER_MODULES]


def _ensure_env(name: str, kernel: list[str]) -> tuple[Path | None, str]:
    """A venv under bench/.peers/ with ``kernel``, Amplifier's modules and our hook modules."""
    venv = BENCH / ".peers" / name
    python = venv / "bin" / "python"
    marker = venv / ".complete"
    if marker.exists():
        return python, ""
    missing = [r for r in _amplifier_requirements() if r.endswith(".gz") and not Path(r).exists()]
    if missing:
        return (
            None,
            f"Amplifier's modules are not in {UPSTREAM} (set AMPLIFIER_MODULES_REQUIREMENTS)",
        )
    print(f"bench: preparing {venv} (one time)", file=sys.stderr)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            *kernel,
            *(f"-e{ROOT / package}" for package in WORKSPACE),
        ],
        [str(python), "-m", "pip", "install", "-q", "--no-deps", *_amplifier_requirements()],
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            *(f"-e{ROOT / 'modules' / m}" for m in HOOK_MODULES),
        ],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False, timeout=900)
        if done.returncode != 0:
            return None, f"{' '.join(step[:5])} ... failed: {done.stderr.strip()[-300:]}"
    marker.write_text("ok\n")
    return python, ""


CLOCK = {"cpu": "cpu_best", "wall": "best"}


def _measure(
    python: Path | str, orchestrator: str, calls: int, rounds: int, hooks: bool, clock: str = "cpu"
) -> float:
    command = [str(python), str(WORKER), "--orchestrator", orchestrator, "--calls", str(calls)]
    command += ["--rounds", str(rounds)] + (["--hooks"] if hooks else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    best: float = json.loads(done.stdout.strip().splitlines()[-1])[CLOCK[clock]]
    return best


def _curve(
    setups: list[tuple[str, Path | str | None, str]],
    sizes: list[int],
    rounds: int,
    hooks: bool,
    clock: str,
) -> None:
    """One table: per tool call at each size, for each setup, with each setup's ratio to the
    first (2.0.2) and its growth from the smallest size to the largest."""
    label = "the four reference hooks" if hooks else "no hooks"
    print(f"\nper tool call (us, {clock}), {label}")
    names = [name for name, _, _ in setups]
    print(f"{'calls':>6}" + "".join(f"{name:>22}" for name in names))
    figures: dict[str, list[float | None]] = {name: [] for name in names}
    for calls in sizes:
        row = f"{calls:>6}"
        base: float | None = None
        for index, (name, python, orchestrator) in enumerate(setups):
            seconds = (
                _measure(python, orchestrator, calls, rounds, hooks, clock) if python else None
            )
            figures[name].append(seconds)
            if index == 0:
                base = seconds
            if seconds is None:
                row += f"{'-':>22}"
            elif index and base:
                row += f"{f'{seconds * 1e6:,.0f} ({seconds / base:.2f}x)':>22}"
            else:
                row += f"{seconds * 1e6:>22,.0f}"
        print(row)
    growth = f"{'growth':>6}"
    for name in names:
        first, last = figures[name][0], figures[name][-1]
        text = f"{last / first:.2f}x" if first and last else "-"
        growth += f"{f'{sizes[-1]}/{sizes[0]}: {text}':>22}"
    print(growth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,200,400", help="tool calls per turn")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true", help="only our runtime")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCK),
        default="cpu",
        help="CPU time of the whole process (default: steady on a shared machine) or wall clock",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    setups: list[tuple[str, Path | str | None, str]] = []
    if not args.no_peers:
        theirs, why_theirs = _ensure_env("amplifier-core-2.0.2-modules", ["amplifier-core==2.0.2"])
        ours, why_ours = _ensure_env("ours-amplifier-modules", ["-e", str(ROOT / "core")])
        setups += [
            ("2.0.2 loop-basic", theirs, "loop-basic"),
            ("ours loop-basic", ours, "loop-basic"),
        ]
        for why in (why_theirs, why_ours):
            if why:
                print(f"  skipped: {why}")
    setups.append(("ours loop-session", sys.executable, "loop-session"))
    print(
        "columns: amplifier-core 2.0.2 with Amplifier's loop-basic + context-simple; our kernel "
        "with the same modules; our kernel with loop-session + our context-simple. Ratios are "
        "to the first column, in the same run."
    )
    for hooks in (False, True):
        _curve(setups, sizes, args.rounds, hooks, args.clock)


if __name__ == "__main__":
    main()
