"""hooks-redaction throughput (MB/s) on mixed text with few matches and with many, in one run.

    python bench/redaction.py [--size 4] [--rounds 5] [--no-hyperscan] [--json PATH]

Two corpora of ``--size`` MB are generated from a fixed seed: the same mix of prose, Python
code, JSON log lines (ISO timestamps, UUIDs, sha256 digests, epoch millis, versions, paths,
URLs) and shell output, with one planted secret or piece of PII per ~100 KB ("few") or per
~300 bytes ("many"). Each round scans a corpus as one string with a fresh redactor (so no
result comes from the per-string cache) and the best round is reported. The number of
redactions is checked against the number planted, so speed is never bought with misses.

It also emits a realistic ``provider:request`` (40 messages, ~2 KB each, a few secrets)
through the kernel's ``HookRegistry`` with the module mounted: the first emit scans every
string, later emits of the same conversation are answered from the cache.

The peer, measured in the same run on the same text: Amplifier's own hooks-redaction on
amplifier-core 2.0.2, in that release's environment under ``bench/.peers/`` (never ours). The
module is not on PyPI: give a pip requirement for it in ``AMPLIFIER_REDACTION_REQUIREMENT``
(``git+https://github.com/microsoft/amplifier-module-hooks-redaction@<commit>`` or a path to an
archive of it); without one the peer is skipped with a note. ``--no-peer`` skips it too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _mixed_text import corpus, provider_request
from _peer_venv import ensure_peer_venv, installed_version, pip_install

try:
    from amplifier_core.hooks import HookRegistry
    from amplifier_hooks_redact import RedactionConfig, build_redactor
    from amplifier_module_hooks_redaction import mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e util -e core -e redact -e modules/hooks-redaction"
    )

BENCH = Path(__file__).resolve().parent
PEER_VENV = BENCH / ".peers" / "amplifier-core-2.0.2"
PEER_MODULE = "amplifier-module-hooks-redaction"
PEER_REQUIREMENT_ENV = "AMPLIFIER_REDACTION_REQUIREMENT"


class Coordinator:
    """What hooks-redaction needs from a coordinator."""

    def __init__(self) -> None:
        self.hooks = HookRegistry()


def throughput(text: str, rounds: int) -> tuple[float, int]:
    """Best MB/s over ``rounds`` scans of ``text`` with a fresh redactor, and the count."""
    best = float("inf")
    found = 0
    config = RedactionConfig(rules=("all",))
    for _ in range(rounds):
        redactor = build_redactor(config)  # fresh: nothing cached
        start = time.perf_counter()
        _, counts = redactor.redact_text(text)
        best = min(best, time.perf_counter() - start)
        found = sum(counts.values())
    return len(text.encode()) / 1e6 / best, found


async def emit_latency(rounds: int) -> tuple[float, float, int]:
    """Microseconds per provider:request emit: first scan, then cached; and the count."""
    rng = random.Random("bench-request")
    cold: list[float] = []
    warm: list[float] = []
    found = 0
    from amplifier_hooks_redact.build import clear_engines

    for _ in range(rounds):
        clear_engines()  # a memo of its own: the first emit scans, as a first session's does
        coordinator = Coordinator()
        await mount(coordinator, {})
        data = provider_request(rng)
        start = time.perf_counter()
        result = await coordinator.hooks.emit("provider:request", data)
        cold.append(time.perf_counter() - start)
        assert result.data is not None
        found = sum(result.data["redaction"].values())
        start = time.perf_counter()
        for _ in range(50):
            await coordinator.hooks.emit("provider:request", data)
        warm.append((time.perf_counter() - start) / 50)
    return min(cold) * 1e6, min(warm) * 1e6, found


def peer_figures(size: int, rounds: int) -> tuple[dict[str, Any] | None, str]:
    """Amplifier's hooks-redaction on 2.0.2, in the peer environment: figures, or why not."""
    venv = ensure_peer_venv(PEER_VENV, "amplifier-core", "2.0.2")
    if venv.python is None:
        return None, venv.reason
    requirement = os.environ.get(PEER_REQUIREMENT_ENV, "").strip()
    if requirement:
        failed = pip_install(venv.python, "--force-reinstall", requirement)
        if failed:
            return None, failed
    elif installed_version(venv.python, PEER_MODULE) is None:
        return None, f"set {PEER_REQUIREMENT_ENV} to a pip requirement for Amplifier's module"
    worker = [str(venv.python), str(BENCH / "_redaction_peer.py"), "amplifier", str(size)]
    try:
        done = subprocess.run(
            [*worker, str(rounds)], capture_output=True, text=True, timeout=900, check=False
        )
    except subprocess.TimeoutExpired:
        return None, "the peer worker ran past 900 s"
    if done.returncode != 0:
        return None, f"the peer worker failed: {done.stderr.strip()[-400:]}"
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=4.0, help="MB of text per corpus")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; the best is kept")
    parser.add_argument("--no-peer", action="store_true", help="skip Amplifier's module")
    parser.add_argument(
        "--pairs",
        type=int,
        default=1,
        help="measure ours and the peer this many times, one right after the other; the "
        "ratios of each pair and their median are printed (a busy machine slows both alike)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--no-hyperscan",
        action="store_true",
        help="find the literal triggers with the Aho-Corasick automata even where hyperscan is "
        "installed (to compare the two)",
    )
    args = parser.parse_args()
    from amplifier_hooks_redact import triggers

    if args.no_hyperscan:
        triggers._hyperscan = None
    engine = "Aho-Corasick automata" if triggers._hyperscan is None else "Hyperscan"

    size = int(args.size * 1_000_000)
    results: dict[str, Any] = {}
    print(
        f"hooks-redaction, all rules, {args.size:g} MB per corpus, best of {args.rounds}, "
        f"literal triggers by {engine}"
    )
    for name, every in (("few matches", 100_000), ("many matches", 300)):
        text, plants = corpus(size, every, f"bench-{name}")
        mb_per_s, found = throughput(text, args.rounds)
        status = "ok" if found == plants else f"MISMATCH: planted {plants}"
        print(f"  {name:<13} {mb_per_s:8.1f} MB/s   {found:>6} redactions ({status})")
        results[name] = {"mb_per_s": mb_per_s, "redactions": found, "planted": plants}
        if found != plants:
            return 1

    cold, warm, found = asyncio.run(emit_latency(args.rounds))
    print(
        f"  provider:request, 40 messages x 2 KB: {cold:8.0f} us first emit, "
        f"{warm:6.0f} us repeated (cached), {found} redactions"
    )
    results["provider_request_us"] = {"first": cold, "repeated": warm, "redactions": found}

    peer, reason = (None, "--no-peer") if args.no_peer else peer_figures(size, args.rounds)
    if peer is not None and args.pairs > 1:
        _pairs(args, size, results, peer)
    if peer is None:
        print(f"Amplifier's hooks-redaction on amplifier-core 2.0.2: skipped ({reason})")
    else:
        results["amplifier"] = peer
        print("Amplifier's hooks-redaction on amplifier-core 2.0.2 (its 5 patterns), same text")
        for name in ("few matches", "many matches"):
            theirs = peer[name]["mb_per_s"]
            ratio = results[name]["mb_per_s"] / theirs
            print(f"  {name:<13} {theirs:8.1f} MB/s   ours / theirs {ratio:5.2f}x")
        emits = peer["provider_request_us"]
        print(
            f"  provider:request: {emits['first']:8.0f} us first emit, "
            f"{emits['repeated']:6.0f} us repeated; theirs / ours repeated "
            f"{emits['repeated'] / warm:5.1f}x"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


def _pairs(
    args: argparse.Namespace, size: int, results: dict[str, Any], first: dict[str, Any]
) -> None:
    """Ours, then the peer, ``args.pairs`` times: each pair's ratios and their median."""
    texts = {
        name: corpus(size, every, f"bench-{name}")[0]
        for name, every in (("few matches", 100_000), ("many matches", 300))
    }
    ratios: dict[str, list[float]] = {
        name: [results[name]["mb_per_s"] / first[name]["mb_per_s"]] for name in texts
    }
    for _ in range(args.pairs - 1):
        ours = {name: throughput(text, args.rounds)[0] for name, text in texts.items()}
        theirs, _ = peer_figures(size, args.rounds)
        if theirs is None:
            break
        for name in texts:
            ratios[name].append(ours[name] / theirs[name]["mb_per_s"])
    for name, values in ratios.items():
        shown = ", ".join(f"{value:.2f}x" for value in values)
        print(f"  {name}: ours / theirs per pair {shown}; median {statistics.median(values):.2f}x")
        results[name]["ratio_pairs"] = values


if __name__ == "__main__":
    sys.exit(main())
