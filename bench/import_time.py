"""What importing the kernel costs a hook author, next to pluggy and amplifier-core 2.0.2.

    python bench/import_time.py [--runs 15]

Each figure is the median wall time of ``--runs`` fresh interpreters (``python -I -c ...``)
running one import statement, minus the median of an empty interpreter, in milliseconds:

- ``pluggy``: ``import pluggy``;
- ``pydantic floor``: ``import pydantic`` and one small ``BaseModel`` defined, the least any
  pydantic-based kernel can cost;
- ``ours: hook names``: ``from amplifier_core import HookRegistry, HookResult`` (this checkout);
- ``ours: a coordinator``: the same plus ``ModuleCoordinator()``;
- ``amplifier-core 2.0.2``: ``from amplifier_core import HookRegistry, HookResult`` in its own
  virtual environment under ``bench/.peers/`` (made on first use; skipped when it cannot be).

The ratio column divides each figure by the pydantic floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from _peer_venv import ensure_peer_venv  # noqa: E402

PEER_VENV = BENCH / ".peers" / "amplifier-core-2.0.2"
FLOOR = "import pydantic\nclass M(pydantic.BaseModel):\n    a: int = 0\n    b: str = ''"
HOOK_NAMES = "from amplifier_core import HookRegistry, HookResult"


def _wall(python: str, code: str, runs: int, env: dict[str, str] | None = None) -> float:
    """Median seconds of ``runs`` fresh interpreters running ``code``."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([python, "-c", code], check=True, env=env, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh interpreters per figure")
    args = parser.parse_args()
    ours = {**os.environ, "PYTHONPATH": str(ROOT / "core" / "src")}
    here = sys.executable
    base = _wall(here, "pass", args.runs)
    rows: list[tuple[str, float]] = [
        ("pluggy", _wall(here, "import pluggy", args.runs) - base),
        ("pydantic floor", _wall(here, FLOOR, args.runs) - base),
        ("ours: hook names", _wall(here, HOOK_NAMES, args.runs, ours) - base),
        (
            "ours: a coordinator",
            _wall(
                here,
                HOOK_NAMES + "\nimport amplifier_core\namplifier_core.ModuleCoordinator()",
                args.runs,
                ours,
            )
            - base,
        ),
    ]
    peer = ensure_peer_venv(PEER_VENV, "amplifier-core", "2.0.2")
    if peer.python is not None:
        python = str(peer.python)
        peer_base = _wall(python, "pass", args.runs)
        rows.append(("amplifier-core 2.0.2", _wall(python, HOOK_NAMES, args.runs) - peer_base))
    else:
        print(f"amplifier-core 2.0.2: skipped ({peer.reason})", file=sys.stderr)
    floor = dict(rows)["pydantic floor"]
    print(f"{'import':<24} {'ms':>8} {'x floor':>8}")
    for name, seconds in rows:
        print(f"{name:<24} {seconds * 1000:>8.1f} {seconds / floor:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
