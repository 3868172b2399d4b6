"""The cost per tool call of a session, through a mount plan, on our kernel and on 2.0.2.

Part 1, the kernels side by side: one 200-call turn with the same Amplifier modules
(``loop-basic``, ``context-simple``, a provider answering from a script and a no-op tool), on
our kernel and on amplifier-core 2.0.2, without hooks and with the four reference hook modules
(hooks-logging, hooks-redaction, hooks-status-context, hooks-todo-reminder). Each kernel runs
in a virtual environment of its own under ``bench/.peers/`` (made on first use: Amplifier's
modules come from ``../shared/upstream`` or ``AMPLIFIER_MODULES_REQUIREMENTS``).

Part 2, our runtime as the conversation grows: ``loop-session`` and our ``context-simple`` on
our kernel (this interpreter), 50, 200 and 400 calls in one turn.

    python bench/session_cost.py [--calls 200] [--rounds 5] [--no-peers]
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


def _measure(python: Path | str, orchestrator: str, calls: int, rounds: int, hooks: bool) -> float:
    command = [str(python), str(WORKER), "--orchestrator", orchestrator, "--calls", str(calls)]
    command += ["--rounds", str(rounds)] + (["--hooks"] if hooks else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    best: float = json.loads(done.stdout.strip().splitlines()[-1])["best"]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-peers", action="store_true", help="only part 2")
    args = parser.parse_args()

    if not args.no_peers:
        ours, why_ours = _ensure_env("ours-amplifier-modules", ["-e", str(ROOT / "core")])
        theirs, why_theirs = _ensure_env("amplifier-core-2.0.2-modules", ["amplifier-core==2.0.2"])
        print(f"per tool call, one {args.calls}-call turn, Amplifier's loop-basic + context-simple")
        print(f"{'setup':<26}{'ours us':>10}{'2.0.2 us':>10}{'ours/2.0.2':>12}")
        for hooks in (False, True):
            label = "four reference hooks" if hooks else "no hooks"
            a = _measure(ours, "loop-basic", args.calls, args.rounds, hooks) if ours else None
            b = _measure(theirs, "loop-basic", args.calls, args.rounds, hooks) if theirs else None
            ratio = f"{a / b:>12.2f}" if a and b else f"{'-':>12}"
            print(f"{label:<26}{(a or 0) * 1e6:>10.0f}{(b or 0) * 1e6:>10.0f}{ratio}")
        for why in (why_ours, why_theirs):
            if why:
                print(f"  skipped: {why}")

    print("\nour loop-session + context-simple, per tool call as one turn grows")
    print(f"{'calls':>8}{'us/call':>10}{'x at 50':>10}")
    base = None
    for calls in (50, 200, 400):
        seconds = _measure(sys.executable, "loop-session", calls, args.rounds, False)
        base = base or seconds
        print(f"{calls:>8}{seconds * 1e6:>10.0f}{seconds / base:>10.2f}")


if __name__ == "__main__":
    main()
