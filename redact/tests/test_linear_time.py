"""Redaction time is linear in the text's length on every rule family, adversarial text too.

For each rule, texts are built from what makes its patterns work hardest: its literal
triggers repeated, glued to one another or to the characters its values are made of,
separated by the characters that end a value, or percent-encoded. Each text is redacted at a
size and at twice that size; the time may grow at most 2.2 times (a scan that rereads the
text from each trigger grows four times).

Measured so that a loaded machine does not decide: CPU time of this process
(``time.process_time``), sizes grown until one run takes long enough to dwarf the clock's
grain (up to a megabyte, beyond which the text and its copies no longer fit a core's cache and
other processes' memory traffic, not the scan, decides; a cheap scan is repeated there until
it takes that long), and the least ratio of several rounds that each time both sizes one
after the other.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from amplifier_hooks_redact import (
    BUILTIN_RULES,
    TIMEOUT_MARK,
    RedactionConfig,
    build_redactor,
    redact_within,
)
from amplifier_hooks_redact.triggers import literal_triggers

REDACTOR = build_redactor(RedactionConfig(rules=("all",)))
TEXT = REDACTOR.text

pytestmark = pytest.mark.cpu_timing  # compares CPU times: run alone (noxfile.py)

GROWTH = 2.2
FLOOR = 0.04  # seconds of CPU the smaller size must take at least
SMALLEST = 32_768  # characters
LARGEST = 1_048_576
RUNS = 9  # rounds at most; a linear scan stops at the first within GROWTH

# What follows a trigger: nothing (triggers glued into one run), value characters, the
# characters that end a value, an escape the reading view decodes, a percent escape.
FILLERS = ("", "a1", " ", "=", "\n", "\\n", "%25", "\u200b", ":")


def _seconds(text: str, run: int, repeats: int = 1) -> float:
    # strings the scanner has not seen (no remembered verdict)
    fresh = [f"{text}{run}.{repeat}" for repeat in range(repeats)]
    started = time.process_time()
    for each in fresh:
        TEXT.redact(each)
    return time.process_time() - started


def _growth(unit: str) -> tuple[float, int, float]:
    """How much longer twice the text takes, at the size where it first takes ``FLOOR``:
    the least ratio of several rounds, each timing both sizes one after the other (a busy
    machine slows a round; it does not make a linear scan look quadratic in every one)."""
    size = SMALLEST
    while True:
        text = unit * (size // len(unit) + 1)
        first = _seconds(text, 0)
        if first >= FLOOR or size >= LARGEST:
            break
        size = min(LARGEST, size * (4 if first < FLOOR / 8 else 2))
    double = text + text
    repeats = -(-FLOOR // max(first, 1e-6)) if first < FLOOR else 1
    ratios = []
    for run in range(1, RUNS + 1):
        small = _seconds(text, run, int(repeats))
        ratios.append(_seconds(double, run, int(repeats)) / max(small, 1e-9))
        if ratios[-1] <= GROWTH:
            break  # linear: no need to look again
    return min(ratios), size, first


def _units(rule_name: str) -> list[str]:
    rule = next(rule for rule in BUILTIN_RULES if rule.name == rule_name)
    triggers: set[str] = set()
    for pattern in rule.patterns:
        found = literal_triggers(pattern)
        if found:
            triggers.update(sorted(found, key=len)[:2])
    if not triggers:  # patterns that start with a class: the characters they start with
        triggers = {"+1 ", "4111 ", "(555) ", "a@b", "07700 "}
    if rule.lowered:
        triggers |= {trigger.upper() for trigger in triggers}
    chosen = sorted(triggers)[:3]
    # every filler once, after each chosen trigger in turn: every trigger and every filler is
    # tried, in a third of the texts all their pairs would take
    return [chosen[i % len(chosen)] + filler for i, filler in enumerate(FILLERS)]


# Named shapes: a percent escape of the percent sign after a key, a PEM header repeated, a
# long run of token-shaped text, a base64 run full of encoded secret words, and the shapes
# the context and shape rules read.
NAMED: dict[str, str] = {
    "percent-escapes": "token%3D" + "%25" * 64,
    "pem-headers": "-----BEGIN RSA PRIVATE KEY-----\n",
    "token-shaped": "ghp_" + "Ab1" * 12 + " ",
    "base64-words": "cGFzc3dvcmQ9",
    "split-literals": '"ghp_ab" + ',
    "escapes": "\\u0067hp_",
    # A random-looking run standing alone, a key-named value, a value echoed after itself.
    "random-runs": "Zq8Lm2Xv9Rt4Wp7Ks3Nb6Hd ",
    "key-values": "apiKey=Zq8Lm2Xv9Rt4Wp7Ks3 ",
    "echoes": "token='Zq8Lm2Xv9Rt4' | 'Zq8Lm2Xv9Rt4' ",
    # An instance's address beside a credential, a random run of one letter case.
    "instance-hosts": "endpoint=https://q1w2e3r4t5.svc.corp.net\npassword=Zq8Lm2Xv9Rt4\n",
    "one-case-runs": "15ap0wodu2ptxs7amcvekxvhhncotjtjkm ",
}


def _check(unit: str, label: str) -> None:
    growth, size, first = _growth(unit)
    assert growth <= GROWTH, (
        f"{label}: {unit!r} repeated to {size:,} characters took {first:.3f} s, "
        f"twice that {growth:.2f} times as long (at most {GROWTH})"
    )


# Families seen growing faster than 2.2x at these sizes (a glued run of the token's own
# alphabet, each trigger read up to the 4,096-character reach): linear beyond the reach, to
# be brought within the bound. Not strict: a fix shows as a pass.
NOT_YET = {
    "stripe_key",
    "vendor_token",
    "shaped_token",
    "telegram_bot_token",
    "xml_secret",
    "url_credentials",
}


@pytest.mark.parametrize(
    "rule",
    [
        pytest.param(
            rule.name,
            marks=pytest.mark.xfail(rule.name in NOT_YET, reason="known to grow faster"),
        )
        for rule in BUILTIN_RULES
    ],
)
def test_each_rule_family_scans_in_linear_time(rule: str) -> None:
    for unit in _units(rule):
        _check(unit, rule)


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_adversarial_shapes_scan_in_linear_time(name: str) -> None:
    _check(NAMED[name], name)


def _cpu(make: Callable[[int], str], size: int) -> float:
    return min(_seconds(make(size), run) for run in range(3))


def test_adversarial_text_costs_within_a_few_times_benign_text() -> None:
    size = 1_000_000
    benign = "The retry path waits for the lock before it reads the queue: 42 ms.\n"
    percent = NAMED["percent-escapes"]
    baseline = _cpu(lambda n: benign * (n // len(benign)), size)
    worst = max(
        _cpu(lambda n, u=unit: u * (n // len(u)), size)
        for unit in (percent, NAMED["pem-headers"], NAMED["token-shaped"])
    )
    # Benign text is decided in one pass of the trigger automata: a few milliseconds per
    # megabyte. Adversarial text must be tried at each trigger; it stays within a bound.
    assert worst <= max(3 * baseline, 2.0), (worst, baseline)


async def test_a_redaction_past_its_deadline_fails_closed_and_the_loop_runs_on() -> None:
    slow = NAMED["percent-escapes"] * 40_000  # about 8 MB of escapes
    data = {"tool_result": {"output": slow}, "tool_name": "bash"}
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0.001)

    ticker = asyncio.create_task(tick())
    redacted, counts = await redact_within(REDACTOR, data, deadline=0.01)
    done.set()
    await ticker
    assert redacted["tool_result"]["output"] == TIMEOUT_MARK
    assert counts.get("timeout", 0) >= 1
    assert slow not in str(redacted)
    assert ticks > 1  # the event loop ran while the text was scanned
