"""Precision: identifiers that only look like numbers or keys come back byte for byte.

Thousands of generated timestamps (ISO 8601 and other common formats), UUIDs (v1, v4, upper
case, without dashes), hex digests (md5, sha1, sha256, sha512, git SHAs, docker digests),
versions (semver, PEP 440, four-part and calendar versions, IP addresses), session and request
ids, epoch seconds/millis/micros/nanos, long numbers that fail the Luhn check, file paths and
URLs without credentials, alone and mixed into log lines and JSON.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest

from amplifier_hooks_redact import RedactionConfig, build_redactor

PER_KIND = 400
ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase
HEX = "0123456789abcdef"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def pick(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def luhn_ok(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def random_moment(rng: random.Random) -> datetime:
    offset = timezone(timedelta(minutes=rng.choice([0, 60, -300, 330, 345, -480, 600, -210])))
    start = datetime(1970, 1, 2, tzinfo=UTC).timestamp()
    end = datetime(2099, 12, 31, tzinfo=UTC).timestamp()
    moment = datetime.fromtimestamp(rng.uniform(start, end), UTC).astimezone(offset)
    return moment.replace(microsecond=rng.randrange(1_000_000))


def gen_timestamp(rng: random.Random) -> str:
    m = random_moment(rng)
    formats = [
        m.isoformat(),
        m.isoformat(timespec="seconds"),
        m.isoformat(timespec="milliseconds"),
        m.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        m.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        m.strftime("%Y-%m-%d %H:%M:%S"),
        m.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3],
        m.strftime("%Y%m%dT%H%M%SZ"),
        m.strftime("%Y%m%d%H%M%S"),
        m.strftime("%Y-%m-%d"),
        m.strftime("%Y/%m/%d %H:%M"),
        m.strftime("%d/%m/%Y %H:%M:%S"),
        m.strftime("%m-%d-%Y"),
        m.strftime("%d.%m.%Y"),
        m.strftime("%a, %d %b %Y %H:%M:%S %z"),
        m.strftime("%Y-W%W-%w"),
        m.strftime("%Y-%j"),
        m.strftime("%H:%M:%S.%f"),
        m.strftime("%Y-%m-%dT%H:%M:%S%z"),
        m.strftime("[%d/%b/%Y:%H:%M:%S %z]"),
    ]
    return rng.choice(formats)


def gen_uuid(rng: random.Random) -> str:
    if rng.random() < 0.5:
        value = uuid.UUID(int=rng.getrandbits(128), version=4)
    else:
        value = uuid.uuid1(node=rng.getrandbits(48), clock_seq=rng.getrandbits(14))
    text = str(value)
    return rng.choice([text, text.upper(), value.hex, "{" + text + "}", f"urn:uuid:{text}"])


def gen_digest(rng: random.Random) -> str:
    raw = rng.randbytes(32)
    choice = rng.randrange(7)
    if choice == 0:
        return hashlib.md5(raw).hexdigest()
    if choice == 1:
        return hashlib.sha1(raw).hexdigest()
    if choice == 2:
        return hashlib.sha256(raw).hexdigest()
    if choice == 3:
        return hashlib.sha512(raw).hexdigest()
    if choice == 4:
        return "sha256:" + hashlib.sha256(raw).hexdigest()
    if choice == 5:  # git short SHA, possibly upper case
        return hashlib.sha1(raw).hexdigest()[: rng.randint(7, 12)]
    return hashlib.sha1(raw).hexdigest().upper()


def gen_version(rng: random.Random) -> str:
    r = rng.randint
    forms = [
        f"{r(0, 20)}.{r(0, 50)}.{r(0, 200)}",
        f"v{r(0, 20)}.{r(0, 50)}.{r(0, 200)}-rc.{r(0, 9)}+build.{r(0, 99999)}",
        f"{r(0, 9)}.{r(0, 9)}.{r(0, 9)}-beta.{r(0, 20)}",
        f"{r(0, 300)}.{r(0, 300)}.{r(0, 300)}.{r(0, 9999)}",
        f"{r(0, 99)}.0.{r(0, 99999)}.{r(0, 9999)}",
        f"{r(1990, 2099)}.{r(1, 12):02d}.{r(1, 28):02d}",
        f"{r(0, 9)}.{r(0, 30)}.{r(0, 9)}.post{r(0, 9)}.dev{r(0, 9)}",
        f"{r(0, 255)}.{r(0, 255)}.{r(0, 255)}.{r(0, 255)}",
        f"{r(0, 255)}.{r(0, 255)}.{r(0, 255)}.{r(0, 255)}:{r(1, 65535)}",
        f"2001:db8:{r(0, 65535):x}::{r(0, 65535):x}",
        f"{r(0, 99)}.{r(0, 99)}",
        f"{r(100, 999)}.{r(100, 999)}.{r(100, 999)}.{r(1000, 9999)}",
    ]
    return rng.choice(forms)


def gen_session_id(rng: random.Random) -> str:
    r = rng.randint
    forms = [
        f"sess_{pick(rng, HEX, 32)}",
        f"{uuid.UUID(int=rng.getrandbits(128), version=4)}-{r(0, 99)}",
        pick(rng, CROCKFORD, 26),  # ULID
        f"req_011C{pick(rng, ALNUM, 20)}",
        f"msg_01{pick(rng, ALNUM, 22)}",
        f"toolu_01{pick(rng, ALNUM, 22)}",
        f"chatcmpl-{pick(rng, ALNUM, 29)}",
        f"call_{pick(rng, ALNUM, 24)}",
        f"run-{r(1, 10**9)}-{r(0, 9999):04d}",
        f"web-{pick(rng, HEX, 10)}-{pick(rng, LOWER + string.digits, 5)}",
        f"{r(10**18, 2 * 10**18)}",  # snowflake id (Twitter, Discord: 1...)
        f"job/{r(1, 10**6)}/step/{r(1, 999)}",
    ]
    return rng.choice(forms)


def gen_epoch(rng: random.Random) -> str:
    seconds = rng.uniform(1_000_000_000, 1_999_999_999)
    return rng.choice(
        [
            str(int(seconds)),
            str(int(seconds * 1000)),
            str(int(seconds * 1_000_000)),
            str(int(seconds * 1_000_000_000)),
            f"{seconds:.3f}",
            f"{seconds:.6f}",
        ]
    )


def gen_long_number(rng: random.Random) -> str:
    """13-19 digit numbers that fail the Luhn check, any leading digit, sometimes grouped."""
    while True:
        digits = pick(rng, string.digits, rng.randint(13, 19))
        if not luhn_ok(digits):
            break
    if len(digits) == 16 and rng.random() < 0.3:
        sep = rng.choice(" -")
        return sep.join(digits[i : i + 4] for i in range(0, 16, 4))
    return digits


def gen_path(rng: random.Random) -> str:
    r = rng.randint
    stamp = random_moment(rng).strftime("%Y-%m-%d")
    name = pick(rng, LOWER, 6)
    forms = [
        f"/home/{name}/project/src/module_{r(1, 99)}/file_{stamp}.py",
        f"/var/log/app/{stamp}/{r(100, 999)}-{r(100, 999)}-{r(1000, 9999)}.log",
        f"C:\\Users\\dev\\AppData\\Local\\Temp\\tmp{pick(rng, ALNUM, 8)}\\{r(0, 10**6)}.tmp",
        f"src/app/{name}.py:{r(1, 9999)}:{r(1, 120)}",
        f"node_modules/@types/{name}/index.d.ts",
        f"./assets/icon-{r(16, 512)}@2x.png",
        f"~/.cache/pip/wheels/{pick(rng, HEX, 2)}/{pick(rng, HEX, 62)}",
        f"/nix/store/{pick(rng, LOWER + string.digits, 32)}-python3-3.11.{r(0, 9)}",
    ]
    return rng.choice(forms)


def gen_url(rng: random.Random) -> str:
    r = rng.randint
    host = rng.choice(["example.com", "api.example.org", "localhost:8080", "10.1.2.3:9000"])
    name, repo = pick(rng, LOWER, 6), pick(rng, LOWER, 5)
    run = uuid.UUID(int=rng.getrandbits(128), version=4)
    forms = [
        f"https://{host}/v1/items/{r(1, 10**9)}?ts={r(10**12, 2 * 10**12)}",
        f"https://{host}/runs/{run}#step-{r(1, 99)}",
        f"http://{host}/commit/{hashlib.sha1(rng.randbytes(8)).hexdigest()}",
        f"https://{host}/@{name}/post-{r(1, 999)}",
        f"ssh://git@github.com/{name}/repo.git",
        f"git@github.com:{name}/{repo}.git",
        f"https://{host}/search?q={repo}&page={r(1, 50)}",
        f"https://registry.npmjs.org/@scope/pkg/-/pkg-{r(0, 9)}.{r(0, 20)}.{r(0, 99)}.tgz",
        f"https://{host}:{r(1024, 65535)}/api?id={r(10**6, 10**9)}",
    ]
    return rng.choice(forms)


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "timestamp": gen_timestamp,
    "uuid": gen_uuid,
    "digest": gen_digest,
    "version": gen_version,
    "session_id": gen_session_id,
    "epoch": gen_epoch,
    "long_number": gen_long_number,
    "path": gen_path,
    "url": gen_url,
}


def corpus(kind: str) -> list[str]:
    rng = random.Random(f"identifiers-{kind}")
    return [GENERATORS[kind](rng) for _ in range(PER_KIND)]


@pytest.fixture(scope="module")
def redactor_all() -> object:
    return build_redactor(RedactionConfig(rules=("all",)))


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_identifiers_alone_are_untouched(kind: str) -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    changed = []
    for text in corpus(kind):
        result, counts = redactor.redact_text(text)
        if result.encode() != text.encode() or counts:
            changed.append((text, result))
    assert not changed, f"{kind}: {len(changed)} of {PER_KIND} changed, e.g. {changed[:3]!r}"


def test_identifiers_mixed_into_log_lines_are_untouched() -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    rng = random.Random("identifiers-mixed")
    kinds = list(GENERATORS)
    lines = []
    for _ in range(2000):
        parts = [GENERATORS[rng.choice(kinds)](rng) for _ in range(rng.randint(2, 6))]
        separator = rng.choice([" ", "  ", "\t", " | ", ", ", "\n", " - ", "="])
        lines.append(separator.join(parts))
    text = "\n".join(lines)
    result, counts = redactor.redact_text(text)
    assert counts == {}
    assert result.encode() == text.encode()


def test_identifiers_in_event_data_leave_the_object_untouched() -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    rng = random.Random("identifiers-event")
    records = [
        {kind: GENERATORS[kind](rng) for kind in GENERATORS} | {"n": rng.randint(0, 10**12)}
        for _ in range(300)
    ]
    data = {
        "timestamp": gen_timestamp(rng),
        "messages": [
            {"role": "tool", "content": [{"type": "text", "text": json.dumps(r)}]} for r in records
        ],
        "records": records,
        "tuple": tuple(r["uuid"] for r in records),
    }
    before = json.dumps(data, sort_keys=True)
    result, counts = redactor.redact(data)
    assert counts == {}
    assert result is data
    assert json.dumps(data, sort_keys=True) == before
