"""Mixed text for the redaction benchmarks, from a fixed seed, with planted secrets and PII.

Pure standard library, so that a peer's environment (amplifier-core 2.0.2 with Amplifier's own
hooks-redaction) generates the very same text as ours.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import uuid
from typing import Any

__all__ = ["CODE", "PROSE", "corpus", "provider_request"]

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


def provider_request(rng: random.Random) -> dict[str, Any]:
    messages = []
    for index in range(40):
        body = "\n".join([PROSE, log_line(rng), CODE, shell_output(rng), log_line(rng)])[:2000]
        if index % 10 == 3:
            body += f"\nexport GITHUB_TOKEN=ghp_{pick(rng, ALNUM, 36)}"
        role = "user" if index % 2 else "assistant"
        messages.append({"role": role, "content": [{"type": "text", "text": body}]})
    return {"model": "claude-sonnet", "messages": messages}
