"""Compare two runs of the application scenario (``run_app.py``) step by step.

    python tests/app/compare_app.py REFERENCE.json OURS.json

Prints one line per step (agree / DIFFER, exit codes, seconds on each kernel), a unified diff
of each step that differs, the kernels each run used, and the in-process timings of
amplifier-foundation's ``create_session`` and one turn with their ratio. The events a hook
logged agree when the reference's occur in ours in the same order (ours may log more: see
``_additions``). Exit 1 when a step differs, when a step failed on the reference, or when
ours does not run our kernel under the drop-in distribution (``amplifier-core``
``2.0.2+hooks.N``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any

from exit_crash import before_exit_crash  # tests/app/exit_crash.py, beside this script

__all__ = ["main"]

_DROP_IN = re.compile(r"^2\.0\.2\+hooks\.\d+$")


def _additions(reference: list[str], ours: list[str]) -> list[str] | None:
    """The events ours logs beyond the reference when the reference's events occur in ours in
    the same order (a subsequence); ``None`` when they do not. Our kernel lets hooks-logging
    subscribe to every event (``*``), so it also logs events an application emits beyond
    ``ALL_EVENTS`` (amplifier-foundation's ``configuration:changed``), which it cannot see on
    2.0.2: additions, never a missing or reordered event."""
    extra: list[str] = []
    position = 0
    for name in ours:
        if position < len(reference) and name == reference[position]:
            position += 1
        else:
            extra.append(name)
    return extra if position == len(reference) else None


def _ratio(reference: dict[str, Any], ours: dict[str, Any], key: str) -> str:
    """How many times faster ours is, by median and by minimum (the minimum is the figure a
    busy machine disturbs least)."""
    try:
        ratios = [reference[key][k] / ours[key][k] for k in ("median", "min")]
    except (KeyError, TypeError, ZeroDivisionError):
        return "n/a"
    return f"ours {ratios[0]:.1f}x faster by median, {ratios[1]:.1f}x by minimum"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", type=Path)
    parser.add_argument("ours", type=Path)
    args = parser.parse_args(argv)
    reference = json.loads(args.reference.read_text(encoding="utf-8"))
    ours = json.loads(args.ours.read_text(encoding="utf-8"))
    problems: list[str] = []

    theirs_steps = {s["name"]: s for s in reference["steps"]}
    print(f"{'step':<20} {'result':<7} {'rc':>7} {'seconds (2.0.2 / ours)':>24}")
    for step in ours["steps"]:
        other = theirs_steps.get(step["name"])
        if other is None:
            problems.append(f"{step['name']}: not run on the reference")
            continue
        same = other["output"] == step["output"] and other["rc"] == step["rc"]
        # amplifier-core 2.0.2's engine now and then dies of a signal while the interpreter
        # shuts down (SIGSEGV, "Fatal Python error: PyGILState_Release"), after the command has
        # done its work: with every byte of its output (before the interpreter's report of the
        # crash, see before_exit_crash) the same as ours, the step agrees.
        printed = before_exit_crash(other["output"]) if other["rc"] < 0 else None
        crashed_at_exit = other["rc"] < 0 and step["rc"] == 0
        crashed_at_exit = crashed_at_exit and step["output"] in (other["output"], printed)
        same = same or crashed_at_exit
        extra: list[str] = []
        if not same and step["name"].endswith(": events") and other["rc"] == step["rc"] == 0:
            added = _additions(other["output"].splitlines(), step["output"].splitlines())
            if added is not None:
                same, extra = True, added
        if other["rc"] != 0 and not crashed_at_exit:
            problems.append(f"{step['name']}: failed on the reference (rc={other['rc']})")
        rc = f"{other['rc']}/{step['rc']}"
        seconds = f"{other['seconds']:.2f} / {step['seconds']:.2f}"
        print(f"{step['name']:<20} {'agree' if same else 'DIFFER':<7} {rc:>7} {seconds:>24}")
        if crashed_at_exit:
            print(f"    the reference died of signal {-other['rc']} at exit, its output complete")
        if same and extra:
            print(f"    in the same order; ours also logs {len(extra)}: {', '.join(extra)}")
        if not same:
            problems.append(f"{step['name']}: the outputs differ")
            diff = difflib.unified_diff(
                other["output"].splitlines(),
                step["output"].splitlines(),
                f"{reference['label']}: {other['command']}",
                f"{ours['label']}: {step['command']}",
                lineterm="",
            )
            print("\n".join(f"    {line}" for line in diff))
    missing = set(theirs_steps) - {s["name"] for s in ours["steps"]}
    problems.extend(f"{name}: not run on ours" for name in sorted(missing))

    for run in (reference, ours):
        kernel = run["kernel"]
        where = kernel["amplifier_core"]
        print(f"{run['label']}: amplifier-core {kernel['amplifier-core']} ({where})")
    if not _DROP_IN.match(ours["kernel"]["amplifier-core"]):
        problems.append(
            f"ours: the distribution amplifier-core is {ours['kernel']['amplifier-core']}, "
            "not the drop-in 2.0.2+hooks.N"
        )

    print("in process, median and minimum of", ours["timing"].get("repeat"), "runs (ms):")
    for key in ("create_session_ms", "turn_ms"):
        theirs_t, mine_t = reference["timing"].get(key), ours["timing"].get(key)
        ratio = _ratio(reference["timing"], ours["timing"], key)
        print(f"  {key:<18} 2.0.2 {theirs_t}  ours {mine_t}  {ratio}")
    for run in (reference, ours):
        if "error" in run["timing"]:
            problems.append(f"{run['label']}: timing failed: {run['timing']['error']}")
    print(f"whole scenario: 2.0.2 {reference['seconds']} s, ours {ours['seconds']} s")

    if problems:
        print("\n".join(["", "NOT THE SAME:", *(f"  {p}" for p in problems)]))
        return 1
    print(f"\nall {len(ours['steps'])} steps agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
