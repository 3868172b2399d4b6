"""hooks-redaction throughput (MB/s) on mixed text with few matches and with many, in one run.

    python bench/redaction.py [--size 4] [--rounds 5] [--json PATH]

Two corpora of ``--size`` MB are generated from a fixed seed: the same mix of prose, Python
code, JSON log lines (ISO timestamps, UUIDs, sha256 digests, epoch millis, versions, paths,
URLs) and shell output, with one planted secret or piece of PII per ~100 KB ("few") or per
~300 bytes ("many"). Each round scans a corpus as one string with a fresh redactor (so no
result comes from the per-string cache) and the best round is reported. The number of
redactions is checked against the number planted, so speed is never bought with misses.

It also emits a realistic ``provider:request`` (40 messages, ~2 KB each, a few secrets)
through the kernel's ``HookRegistry`` with the module mounted: the first emit scans every
string, later emits of the same conversation are answered from the cache.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import string
import sys
import time
import uuid
from pathlib import Path
from typing import Any

try:
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_redaction import RedactionConfig, build_redactor, mount
except ImportError as err:  # run from a checkout without the packages installed
    sys.exit(
        f"{err}: install the kernel and the module first, e.g. "
        "pip install -e core -e modules/hooks-redaction"
    )

ALNUM = string.ascii_letters + string.digits
PROSE = (
    "The session resumed after the model asked for the build log. Nothing in the diff "
    "touches the scheduler, but the retry path now waits for the lock before it reads the "
    "queue, which explains why the timing changed between runs. "
)
CODE = '''def load(path: Path, *, retries: int = 3) -> dict[str, Any]:
    """Read the manifest, retrying while another process holds the lock."""
    for attempt in range(retries):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except OSError as err:
            logger.warning("attempt %d failed: %s", attempt, err)
    raise RuntimeError(f"could not read {path}")
'''


class Coordinator:
    """What hooks-redaction needs from a coordinator."""

    def __init__(self) -> None:
        self.hooks = HookRegistry()


def pick(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def log_line(rng: random.Random) -> str:
    record = {
        "ts": f"2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:"
        f"{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(0, 999999):06d}+00:00",
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "sha": hashlib.sha256(rng.randbytes(8)).hexdigest(),
        "ms": rng.randint(1_600_000_000_000, 1_800_000_000_000),
        "version": f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}",
        "path": f"/srv/app/releases/{rng.randint(100, 999)}/lib/module_{rng.randint(1, 99)}.py",
        "url": f"https://api.example.com/v2/runs/{rng.randint(1, 10**9)}?page={rng.randint(1, 9)}",
        "level": rng.choice(["info", "debug", "warning"]),
    }
    return json.dumps(record)


def shell_output(rng: random.Random) -> str:
    rows = [
        f"-rw-r--r--  1 dev staff {rng.randint(100, 99999):>6} Mar {rng.randint(1, 28):>2} "
        f"{rng.randint(10, 23)}:{rng.randint(10, 59)} file_{rng.randint(1, 999)}.txt"
        for _ in range(4)
    ]
    return "\n".join(rows)


def luhn_complete(body: str) -> str:
    total = 0
    for position, char in enumerate(reversed(body)):
        value = int(char) * (2 if position % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return body + str((10 - total % 10) % 10)


def planted(rng: random.Random) -> str:
    """One secret or piece of PII, format-valid and random (no real credential)."""
    kind = rng.randrange(8)
    if kind == 0:
        return "ghp_" + pick(rng, ALNUM, 36)
    if kind == 1:
        return "AKIA" + pick(rng, string.ascii_uppercase + string.digits, 16)
    if kind == 2:
        return f"{pick(rng, string.ascii_lowercase, 7)}@example.com"
    if kind == 3:
        return f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{rng.randint(1000, 9999)}"
    if kind == 4:
        return luhn_complete("4" + pick(rng, string.digits, 14))
    if kind == 5:
        return f"password={pick(rng, ALNUM, 14)}9"
    if kind == 6:
        return "sk-proj-" + pick(rng, ALNUM, 48)
    return "xoxb-" + pick(rng, string.digits, 12) + "-" + pick(rng, ALNUM, 24)


def corpus(size: int, every: int, seed: str) -> tuple[str, int]:
    """About ``size`` characters of mixed text with one planted item per ``every`` characters."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    next_plant = every
    plants = 0
    makers = [lambda: PROSE, lambda: CODE, lambda: log_line(rng), lambda: shell_output(rng)]
    while length < size:
        piece = rng.choice(makers)()
        parts.append(piece)
        length += len(piece) + 1
        if length >= next_plant:
            parts.append(f"note: {planted(rng)} end")
            plants += 1
            next_plant += every
    return "\n".join(parts), plants


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


def provider_request(rng: random.Random) -> dict[str, Any]:
    messages = []
    for index in range(40):
        body = "\n".join([PROSE, log_line(rng), CODE, shell_output(rng), log_line(rng)])[:2000]
        if index % 10 == 3:
            body += f"\nexport GITHUB_TOKEN=ghp_{pick(rng, ALNUM, 36)}"
        role = "user" if index % 2 else "assistant"
        messages.append({"role": role, "content": [{"type": "text", "text": body}]})
    return {"model": "claude-sonnet", "messages": messages}


async def emit_latency(rounds: int) -> tuple[float, float, int]:
    """Microseconds per provider:request emit: first scan, then cached; and the count."""
    rng = random.Random("bench-request")
    cold: list[float] = []
    warm: list[float] = []
    found = 0
    for _ in range(rounds):
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=4.0, help="MB of text per corpus")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds; the best is kept")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()

    size = int(args.size * 1_000_000)
    results: dict[str, Any] = {}
    print(f"hooks-redaction, all rules, {args.size:g} MB per corpus, best of {args.rounds}")
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
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
