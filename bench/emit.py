"""Benchmark ``emit``: this kernel's HookRegistry against pluggy and amplifier-core 2.0.2.

Run from the repository root::

    python bench/emit.py                     # table on stdout, about 40 s
    python bench/emit.py --json bench/results/emit.json

Every implementation runs in its own worker process (``bench/_emit_worker.py``), all with the
same measurement code: ``ours`` imports ``amplifier_core`` from ``core/src`` with this
interpreter, ``pluggy`` uses this interpreter's pluggy, and ``amplifier-core`` imports the PyPI
release from its own virtual environment under ``bench/.peers/`` (created on first use; if that
fails the peer is skipped and said so). Rounds are interleaved: each round times one batch of
every implementation at every handler count before the next round starts, so a noisy moment
on the machine hits all of them alike. Figures are microseconds per emit, best (median) of the
rounds; ratios are best over best, with the median of the per-round ratios beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _peer_venv import ensure_peer_venv
from _report import format_ratio, format_us, render_table
from _worker_client import WorkerClient, WorkerError

__all__ = ["RATIOS", "SERIES", "TARGETS", "Series", "main"]

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORKER = BENCH / "_emit_worker.py"
PEER_DISTRIBUTION = "amplifier-core"
PEER_VERSION = "2.0.2"
PEER_VENV = BENCH / ".peers" / f"{PEER_DISTRIBUTION}-{PEER_VERSION}"
TARGETS: dict[int, float] = {0: 1.5, 10: 1.0, 100: 1.0}
"""Handler count -> the most ours/pluggy may be there (best / best), for ``--check``."""


@dataclass(frozen=True)
class Series:
    """One line of figures: an implementation (``peer``) with one kind of handler."""

    key: str
    label: str
    peer: str
    variant: str


SERIES: tuple[Series, ...] = (
    Series("ours", "ours", "ours", "const"),
    Series("ours_new", "ours, new result", "ours", "new"),
    Series("pluggy", "pluggy", "pluggy", "sync"),
    Series("amplifier_core", f"amplifier-core {PEER_VERSION}", "amplifier-core", "const"),
    Series(
        "amplifier_core_new", f"amplifier-core {PEER_VERSION}, new result", "amplifier-core", "new"
    ),
)

# (label, numerator series, denominator series)
RATIOS: tuple[tuple[str, str, str], ...] = (
    ("ours/pluggy", "ours", "pluggy"),
    ("ours(new)/pluggy", "ours_new", "pluggy"),
    ("amplifier-core/ours", "amplifier_core", "ours"),
    ("amplifier-core(new)/ours(new)", "amplifier_core_new", "ours_new"),
)


@dataclass
class Peer:
    """An implementation under test: its worker, what it reported, or why it was skipped."""

    name: str
    client: WorkerClient | None = None
    info: dict[str, Any] = field(default_factory=dict)
    skipped: str = ""


@dataclass
class Figure:
    """Samples of one series at one handler count, in microseconds per emit."""

    batch: int
    samples: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


# ---------------------------------------------------------------------- workers


def _start(peer: Peer, command: list[str]) -> None:
    try:
        peer.client = WorkerClient(peer.name, command, ROOT)
        peer.info = peer.client.info
    except WorkerError as err:
        peer.skipped = str(err)


def _start_peers(python: str, with_peer: bool) -> dict[str, Peer]:
    worker = [python, "-I", str(WORKER)]
    peers = {name: Peer(name) for name in ("ours", "pluggy", "amplifier-core")}
    _start(peers["ours"], [*worker, "registry", "--src", str(ROOT / "core" / "src")])
    _start(peers["pluggy"], [*worker, "pluggy"])
    ac = peers["amplifier-core"]
    if not with_peer:
        ac.skipped = "not requested (--no-peer)"
        return peers
    venv = ensure_peer_venv(PEER_VENV, PEER_DISTRIBUTION, PEER_VERSION)
    if venv.python is None:
        ac.skipped = venv.reason
        return peers
    _start(ac, [str(venv.python), "-I", str(WORKER), "registry"])
    if ac.client is not None:
        version = ac.info.get("version")
        module_file = Path(str(ac.info.get("module_file"))).resolve()
        if version != PEER_VERSION or not module_file.is_relative_to(PEER_VENV.resolve()):
            ac.skipped = f"{venv.python} imported amplifier_core {version} from {module_file}"
            ac.client.close()
            ac.client = None
    return peers


def _drop(peer: Peer, err: WorkerError) -> None:
    peer.skipped = f"failed during the run: {err}"
    if peer.client is not None:
        peer.client.close()
        peer.client = None


def _measure(
    peers: dict[str, Peer], counts: Sequence[int], repeats: int, min_time: float
) -> dict[tuple[str, int], Figure]:
    """Prepare every series at every count, then time ``repeats`` interleaved rounds."""
    figures: dict[tuple[str, int], Figure] = {}
    for count in counts:
        for series in SERIES:
            peer = peers[series.peer]
            if peer.client is None:
                continue
            try:
                reply = peer.client.request(
                    op="prepare", variant=series.variant, handlers=count, min_time=min_time
                )
            except WorkerError as err:
                _drop(peer, err)
                continue
            figures[series.key, count] = Figure(batch=int(reply["batch"]))
    for _ in range(repeats):
        for count in counts:
            for series in SERIES:
                peer = peers[series.peer]
                if peer.client is None or (series.key, count) not in figures:
                    continue
                try:
                    reply = peer.client.request(op="time", variant=series.variant, handlers=count)
                except WorkerError as err:
                    _drop(peer, err)
                    continue
                figures[series.key, count].samples.append(float(reply["us"]))
    for peer in peers.values():
        if peer.client is not None:
            peer.client.close()
            peer.client = None
    return {key: figure for key, figure in figures.items() if figure.samples}


# ---------------------------------------------------------------------- results


def _ratio(
    figures: dict[tuple[str, int], Figure], top: str, bottom: str, count: int
) -> dict[str, float] | None:
    """``top`` over ``bottom`` at ``count`` handlers: best over best, and the median of the
    ratios within each round (both measured moments apart, so a busy moment cancels out)."""
    a, b = figures.get((top, count)), figures.get((bottom, count))
    if a is None or b is None:
        return None
    paired = [x / y for x, y in zip(a.samples, b.samples, strict=False)]
    return {
        "best": a.best / b.best,
        "paired_median": statistics.median(paired),
        "median": a.median / b.median,
    }


def _results(
    peers: dict[str, Peer],
    figures: dict[tuple[str, int], Figure],
    counts: Sequence[int],
    repeats: int,
    min_time: float,
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for count in counts:
        row: dict[str, Any] = {"handlers": count}
        for series in SERIES:
            figure = figures.get((series.key, count))
            row[series.key] = (
                None
                if figure is None
                else {
                    "best_us": figure.best,
                    "median_us": figure.median,
                    "batch": figure.batch,
                    "samples_us": figure.samples,
                }
            )
        row["ratios"] = {
            label: _ratio(figures, top, bottom, count) for label, top, bottom in RATIOS
        }
        rows.append(row)
    checks = []
    for count, limit in TARGETS.items():
        ratio = _ratio(figures, "ours", "pluggy", count)
        checks.append(
            {
                "handlers": count,
                "limit": limit,
                "ratio": None if ratio is None else ratio["best"],
                "paired_median": None if ratio is None else ratio["paired_median"],
                "met": None if ratio is None else ratio["best"] <= limit,
            }
        )
    measured = [check["met"] for check in checks if check["met"] is not None]
    return {
        "benchmark": "emit",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "machine": platform.machine(),
        },
        "method": {
            "event": "tool:pre",
            "counts": list(counts),
            "rounds": repeats,
            "min_batch_seconds": min_time,
            "figure": "microseconds per emit: best and median of interleaved rounds",
            "ratio": "best / best; paired_median: median over rounds of the ratio within a "
            "round; median: median / median",
        },
        "peers": {
            name: {"measured": not peer.skipped, "skipped": peer.skipped or None, **peer.info}
            for name, peer in peers.items()
        },
        "rows": rows,
        "target": {
            "what": "ours/pluggy (best / best) <= "
            + ", ".join(f"{limit}x at {count} handlers" for count, limit in TARGETS.items()),
            "checks": checks,
            "met": all(measured) if measured else None,
        },
    }


def _figure_cell(figure: dict[str, Any] | None) -> str:
    if figure is None:
        return "-"
    return f"{format_us(figure['best_us'])} ({format_us(figure['median_us'])})"


def _ratio_cell(ratio: dict[str, float] | None) -> str:
    if ratio is None:
        return "-"
    return f"{format_ratio(ratio['best'])} ({format_ratio(ratio['paired_median'])})"


def _render(results: dict[str, Any]) -> str:
    method = results["method"]
    rows = results["rows"]
    shown = [s for s in SERIES if any(row[s.key] is not None for row in rows)]
    figure_rows = [
        [str(row["handlers"]), *(_figure_cell(row[s.key]) for s in shown)] for row in rows
    ]
    ratio_rows = [
        [str(row["handlers"]), *(_ratio_cell(row["ratios"][label]) for label, _, _ in RATIOS)]
        for row in rows
    ]
    lines = [
        f"emit({method['event']!r}, same data dict) with N no-op handlers: microseconds per "
        f"emit, best (median) of {method['rounds']} interleaved rounds",
        "",
        render_table(["handlers", *(s.label for s in shown)], figure_rows),
        "",
        "ratios: best/best (median of the per-round ratios). ours/pluggy: times slower than "
        "pluggy; amplifier-core/ours: times faster than amplifier-core",
        "",
        render_table(["handlers", *(label for label, _, _ in RATIOS)], ratio_rows),
        "",
    ]
    for name, peer in results["peers"].items():
        if peer["measured"]:
            where = peer.get("implementation") or peer.get("package")
            lines.append(
                f"{name}: {where} {peer.get('version')} (python {peer.get('python')}) "
                f"from {peer.get('module_file')}"
            )
        else:
            lines.append(f"{name}: SKIPPED: {peer['skipped']}")
    for check in results["target"]["checks"]:
        what = f"ours/pluggy at {check['handlers']} handlers <= {check['limit']}x (best / best)"
        if check["ratio"] is None:
            lines.append(f"target ({what}): not measured")
        else:
            verdict = "met" if check["met"] else "MISSED"
            lines.append(
                f"target ({what}): {check['ratio']:.2f}x "
                f"(per-round median {check['paired_median']:.2f}x), {verdict}"
            )
    return "\n".join(lines)


# ---------------------------------------------------------------------- command line


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"--counts wants integers like 0,1,10,100: {err}") from err
    if not counts or any(c < 0 for c in counts):
        raise argparse.ArgumentTypeError(f"--counts wants non-negative integers, got {text!r}")
    return counts


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python bench/emit.py",
        description="Time HookRegistry.emit against pluggy and amplifier-core 2.0.2.",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results as JSON")
    parser.add_argument(
        "--counts", type=_counts, default=[0, 1, 10, 100], help="default 0,1,10,100"
    )
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    parser.add_argument(
        "--min-time", type=float, default=0.05, help="seconds per timed batch (default 0.05)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="3 rounds of 0.02 s batches: a smoke run"
    )
    parser.add_argument(
        "--no-peer", action="store_true", help=f"skip amplifier-core {PEER_VERSION}"
    )
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for ours and pluggy (default: this)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 unless ours/pluggy (best / best) is within every target measured: "
        + ", ".join(f"<= {limit}x at {count} handlers" for count, limit in TARGETS.items()),
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    rounds, min_time = (3, 0.02) if args.quick else (args.rounds, args.min_time)
    if rounds < 1 or min_time <= 0:
        print("bench: --rounds must be >= 1 and --min-time > 0", file=sys.stderr)
        return 2
    peers = _start_peers(args.python, with_peer=not args.no_peer)
    if peers["ours"].client is None:
        print(f"bench: cannot measure ours: {peers['ours'].skipped}", file=sys.stderr)
        for peer in peers.values():
            if peer.client is not None:
                peer.client.close()
        return 2
    figures = _measure(peers, args.counts, rounds, min_time)
    results = _results(peers, figures, args.counts, rounds, min_time)
    print(_render(results))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"results written to {args.json}")
    if args.check and results["target"]["met"] is not True:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
