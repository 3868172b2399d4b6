"""Every documented vendor shape is found: standing alone, glued to a word, after escapes."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_hooks_redact.rules import _VENDOR_SHAPES

_parser: Any = __import__("re._parser", fromlist=["parse"])
_constants: Any = __import__("re._constants", fromlist=["MAXREPEAT"])
_POOL = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def sample(pattern: str, rng: random.Random) -> str:
    """A random string ``pattern`` matches, random enough to pass for a generated token."""
    c = _constants

    def pick(items: Any) -> str:
        allowed: list[str] = []
        for op, value in items:
            if op is c.LITERAL:
                allowed.append(chr(value))
            elif op is c.RANGE:
                allowed.extend(chr(x) for x in range(value[0], value[1] + 1))
        letters = [a for a in allowed if a.isalnum()] or allowed
        return rng.choice(letters)

    def gen(items: Any) -> str:
        out = []
        for op, value in items:
            if op is c.LITERAL:
                out.append(chr(value))
            elif op is c.IN:
                out.append(pick(value))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                low, high, body = value
                count = low if high is c.MAXREPEAT else rng.randint(low, high)
                out.extend(gen(body) for _ in range(max(count, low)))
            elif op is c.SUBPATTERN:
                out.append(gen(value[-1]))
            elif op is c.BRANCH:
                out.append(gen(rng.choice(value[1])))
        return "".join(out)

    for _ in range(50):
        token = gen(_parser.parse(pattern))
        if any(ch.isdigit() for ch in token) or (
            any(ch.isupper() for ch in token) and any(ch.islower() for ch in token)
        ):
            return token
    raise AssertionError(f"no random-looking sample for {pattern}")


SHAPES = sorted(_VENDOR_SHAPES.items())
BEFORE = ["", "tok", "x\\n", "%3D", "\x1b[01;31m\x1b[K"]


@pytest.mark.parametrize(("prefix", "shape"), SHAPES, ids=[p for p, _ in SHAPES])
def test_every_vendor_shape_is_found_wherever_it_starts(
    prefix: str, shape: re.Pattern[str]
) -> None:
    redactor = build_redactor(RedactionConfig())
    rng = random.Random(prefix)
    token = sample(shape.pattern, rng)
    assert shape.fullmatch(token), token
    for before in BEFORE:
        text = f"out: {before}{token} done"
        redacted, _ = redactor.redact_text(text)
        assert token not in redacted, (prefix, text, redacted)
