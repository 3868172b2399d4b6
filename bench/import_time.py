"""What importing the kernel costs a hook author, next to pluggy and amplifier-core 2.0.2.

    python bench/import_time.py [--runs 21] [--importtime]

Each figure is the median wall time of ``--runs`` fresh interpreters (``python -c ...``)
running one snippet, minus the median of an empty interpreter, in milliseconds:

- ``pluggy``: ``import pluggy``;
- ``pydantic floor``: ``import pydantic`` and one small ``BaseModel`` defined, the least any
  pydantic-based kernel can cost;
- ``ours: import``: ``import amplifier_core`` (this checkout's ``core/src``);
- ``ours: hook names``: ``from amplifier_core import HookRegistry, HookResult``;
- ``ours: a coordinator``: the same plus ``ModuleCoordinator()``;
- ``amplifier-core 2.0.2``: ``from amplifier_core import HookRegistry, HookResult`` with the
  interpreter named by ``AMPLIFIER_CORE_202_PYTHON``, or else in a virtual environment under
  ``bench/.peers/`` (made on first use; skipped when it cannot be).

Every snippet runs once untimed first, with bytecode writing allowed, so no figure includes
compiling a changed source file. ``x floor`` divides a figure by the pydantic floor, ``x pluggy``
by pluggy's. ``--importtime`` also prints ``python -X importtime`` self and cumulative times of
this kernel's modules for the hook names import.
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
PEER_PYTHON_VARIABLE = "AMPLIFIER_CORE_202_PYTHON"
FLOOR = "import pydantic\nclass M(pydantic.BaseModel):\n    a: int = 0\n    b: str = ''"
IMPORT = "import amplifier_core"
HOOK_NAMES = "from amplifier_core import HookRegistry, HookResult"
COORDINATOR = HOOK_NAMES + "\nimport amplifier_core\namplifier_core.ModuleCoordinator()"


def _environment(src: Path | None = None) -> dict[str, str]:
    """This process's environment, with ``src`` first on ``PYTHONPATH`` when given."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def _wall(python: str, code: str, runs: int, env: dict[str, str]) -> float:
    """Median seconds of ``runs`` fresh interpreters running ``code``, after one untimed run
    that may write bytecode (so a changed source file is not compiled in the timed runs)."""
    warm = {key: value for key, value in env.items() if key != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([python, "-c", code], check=True, env=warm, capture_output=True)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([python, "-c", code], check=True, env=env, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _peer_python() -> tuple[str | None, str]:
    """The amplifier-core 2.0.2 interpreter, or ``None`` and why there is none."""
    named = os.environ.get(PEER_PYTHON_VARIABLE)
    if named:
        return named, ""
    peer = ensure_peer_venv(PEER_VENV, "amplifier-core", "2.0.2")
    return (str(peer.python) if peer.python is not None else None), peer.reason


def _importtime(python: str, code: str, env: dict[str, str]) -> list[tuple[int, int, str]]:
    """``(self us, cumulative us, module)`` of this kernel's modules, from ``-X importtime``."""
    done = subprocess.run(
        [python, "-X", "importtime", "-c", code],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "amplifier_core" not in line:
            continue
        own, cumulative, module = (part.strip() for part in line[len("import time:") :].split("|"))
        rows.append((int(own), int(cumulative), module))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="fresh interpreters per figure")
    parser.add_argument(
        "--importtime", action="store_true", help="also print -X importtime of our modules"
    )
    args = parser.parse_args()
    plain = _environment()
    ours = _environment(ROOT / "core" / "src")
    here = sys.executable
    base = _wall(here, "pass", args.runs, plain)
    rows: list[tuple[str, float]] = [
        ("pluggy", _wall(here, "import pluggy", args.runs, plain) - base),
        ("pydantic floor", _wall(here, FLOOR, args.runs, plain) - base),
        ("ours: import", _wall(here, IMPORT, args.runs, ours) - base),
        ("ours: hook names", _wall(here, HOOK_NAMES, args.runs, ours) - base),
        ("ours: a coordinator", _wall(here, COORDINATOR, args.runs, ours) - base),
    ]
    peer, reason = _peer_python()
    if peer is not None:
        peer_base = _wall(peer, "pass", args.runs, plain)
        rows.append(("amplifier-core 2.0.2", _wall(peer, HOOK_NAMES, args.runs, plain) - peer_base))
    else:
        print(f"amplifier-core 2.0.2: skipped ({reason})", file=sys.stderr)
    figures = dict(rows)
    floor, pluggy = figures["pydantic floor"], figures["pluggy"]
    print(f"{'import':<24} {'ms':>8} {'x floor':>8} {'x pluggy':>9}")
    for name, seconds in rows:
        print(f"{name:<24} {seconds * 1000:>8.1f} {seconds / floor:>8.2f} {seconds / pluggy:>9.2f}")
    if "amplifier-core 2.0.2" in figures:
        ratio = figures["amplifier-core 2.0.2"] / figures["ours: hook names"]
        print(f"\nhook names: amplifier-core 2.0.2 / ours = {ratio:.2f}x")
    if args.importtime:
        print(f"\npython -X importtime -c {HOOK_NAMES!r} (microseconds)")
        print(f"{'self':>8} {'cumulative':>11}  module")
        for own, cumulative, module in _importtime(here, HOOK_NAMES, ours):
            print(f"{own:>8} {cumulative:>11}  {module}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
