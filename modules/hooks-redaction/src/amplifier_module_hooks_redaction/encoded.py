"""Encoded blobs: base64, base64url, hex and percent-encoded text that hides a secret.

A blob is found from a trigger: the encoding of a word that secrets carry (``password``,
``token``, ``ghp_``, ``AKIA``, ``-----BEGIN`` ...). Base64 encodes three bytes in four
characters, so a word has three encodings, one per alignment; the characters that depend on
the word alone are its triggers. Hex has one encoding per letter case. The trigger index finds
them all in the same passes as every other literal, so text without one costs nothing here.

Around a trigger, the run of the encoding's characters is taken whole (at most
:data:`MAX_RUN` characters, at least :data:`MIN_RUN`: only runs long enough to hold a
credential), decoded once, and scanned with the secret rules (never decoded again). When the
decoded text holds a secret, the whole run is the span to replace. Percent-encoding needs no
trigger: a run holding at least :data:`MIN_ESCAPES` ``%XX`` escapes is decoded likewise.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import re
from typing import Final
from urllib.parse import unquote

from .inner import secret_scanner

__all__ = ["MAX_RUN", "MIN_ESCAPES", "MIN_RUN", "encoded_patterns", "select_encoded"]

MIN_RUN: Final = 16
MAX_RUN: Final = 8192
MIN_ESCAPES: Final = 3
_MIN_TRIGGER: Final = 4
_ALTERNATIVES: Final = 60  # literal triggers per pattern (the trigger reader takes 64)

_WORDS: Final = (
    *("password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "credential"),
    *("PASSWORD", "PASSWD", "SECRET", "TOKEN", "API_KEY", "APIKEY", "Password", "Secret"),
    *("Token", "ApiKey", "BEGIN", "PRIVATE KEY", "Bearer", "eyJhbGci"),
    *("ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xapp-"),
    *("AKIA", "ASIA", "sk-ant-", "sk-proj-", "sk_live_", "rk_live_", "AIza", "hf_", "npm_"),
)


def _base64_segments(word: bytes) -> set[str]:
    """The characters of ``word``'s base64 encodings that depend on ``word`` alone."""
    found: set[str] = set()
    for align in range(3):
        encoded = base64.b64encode(b"\0" * align + word + b"\0" * 3).decode()
        inside = [
            i
            for i in range(len(encoded))
            if 6 * i >= 8 * align and 6 * i + 6 <= 8 * (align + len(word))
        ]
        if not inside:
            continue
        segment = encoded[inside[0] : inside[-1] + 1]
        if len(segment) >= _MIN_TRIGGER:
            found.add(segment)
            found.add(segment.replace("+", "-").replace("/", "_"))
    return found


def _triggers() -> list[str]:
    found: set[str] = set()
    for word in _WORDS:
        raw = word.encode()
        found |= _base64_segments(raw)
        found.add(raw.hex())
        found.add(raw.hex().upper())
    return sorted(found)


def encoded_patterns() -> tuple[str, ...]:
    """Patterns of literal triggers (a few dozen alternatives each), and the percent one."""
    words = _triggers()
    sources = [
        "(?:" + "|".join(re.escape(w) for w in words[i : i + _ALTERNATIVES]) + ")"
        for i in range(0, len(words), _ALTERNATIVES)
    ]
    sources.append(r"%[0-9A-Fa-f]{2}(?P<percent>)")
    return tuple(sources)


_B64_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_PCT_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+-%"
)
_HEX: Final = re.compile(r"[0-9A-Fa-f]+")


def _run(text: str, start: int, end: int, chars: frozenset[str]) -> tuple[int, int]:
    """The run of ``chars`` around ``text[start:end]``, at most :data:`MAX_RUN` long."""
    left = start
    while left > 0 and start - left < MAX_RUN and text[left - 1] in chars:
        left -= 1
    right = end
    while right < len(text) and right - left < MAX_RUN and text[right] in chars:
        right += 1
    return left, right


def select_encoded(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    """The whole encoded run around ``match`` when its decoded text holds a secret."""
    start, end = match.span()
    if match.lastgroup == "percent":
        left, right = _run(text, start, end, _PCT_CHARS)
        while right > left and text[right - 1] == ".":  # the full stop of a sentence
            right -= 1
        while right < len(text) and text[right] == "=":
            right += 1
        run = text[left:right]
        if run.count("%") < MIN_ESCAPES or right - left < MIN_RUN:
            return None
        return (left, right) if _holds_secret_percent(run) else None
    left, right = _run(text, start, end, _B64_CHARS)
    padded = right
    while padded < len(text) and padded - right < 2 and text[padded] == "=":
        padded += 1
    if right - left < MIN_RUN:
        return None
    return (left, padded) if _holds_secret(text[left:right]) else None


@functools.lru_cache(maxsize=512)
def _holds_secret(run: str) -> bool:
    return any(_scan(decoded) for decoded in _decodings(run))


@functools.lru_cache(maxsize=512)
def _holds_secret_percent(run: str) -> bool:
    return _scan(unquote(run, errors="surrogateescape").encode("utf-8", "surrogateescape"))


def _decodings(run: str) -> list[bytes]:
    """``run`` decoded as hex (if it is hex) and as base64 at each of its alignments."""
    found: list[bytes] = []
    if _HEX.fullmatch(run):
        for skip in (0, 1):
            body = run[skip : len(run) - (len(run) - skip) % 2]
            with contextlib.suppress(ValueError):
                found.append(bytes.fromhex(body))
    url = "-" in run or "_" in run
    for skip in range(4):  # the run may start inside a quad: try each start
        body = run[skip:]
        body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
        try:
            found.append(
                base64.b64decode(body + "=" * (-len(body) % 4), altchars=b"-_" if url else None)
            )
        except (binascii.Error, ValueError):
            continue
    return found


def _scan(decoded: bytes) -> bool:
    text = decoded.decode("utf-8", "replace")
    printable = sum(1 for c in text if c.isprintable() or c in "\r\n\t")
    if printable < 0.8 * len(text) or printable < 8:
        return False
    return bool(secret_scanner().find(text))
