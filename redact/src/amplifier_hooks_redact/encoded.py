"""Encoded blobs: base64, base64url, base32, hex and percent-encoded text that hides a secret.

A blob is found from a trigger: the encoding of a word that secrets carry (``password``,
``token``, ``ghp_``, ``AKIA``, ``-----BEGIN`` ...). Base64 encodes three bytes in four
characters, so a word has three encodings, one per alignment (base32: five bytes in eight
characters, five alignments); the characters that depend on the word alone are its
triggers. Hex has one encoding per letter case. The trigger index finds them all in the same
passes as every other literal, so text without one costs nothing here.

Around a trigger, the run of the encoding's characters is taken whole (at most
:data:`MAX_RUN` characters, at least :data:`MIN_RUN`: only runs long enough to hold a
credential), decoded once, and scanned with the secret rules; what it decodes to is read
through again when it is compressed (gzip, zlib) or base64 once more, up to three layers (a
Helm release secret is base64 of base64 of gzip), a compressed stream's run whole. When the
decoded text holds a secret, the whole run is the span to replace. Percent-encoding needs no
trigger: a run holding a ``%XX`` escape (``%67hp_...``, ``api%5Fkey%3D...``) is decoded
likewise.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import re
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Final, TypeAlias
from urllib.parse import unquote

__all__ = ["MAX_RUN", "MIN_ESCAPES", "MIN_RUN", "encoded_patterns", "encoded_selector"]

MIN_RUN: Final = 16
MAX_RUN: Final = 8192
MIN_ESCAPES: Final = 1
_MIN_TRIGGER: Final = 4
_ALTERNATIVES: Final = 60  # literal triggers per pattern (the trigger reader takes 64)

_WORDS: Final = (
    *("password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "credential"),
    *("PASSWORD", "PASSWD", "SECRET", "TOKEN", "API_KEY", "APIKEY", "Password", "Secret"),
    *("Token", "ApiKey", "BEGIN", "PRIVATE KEY", "Bearer", "eyJhbGci"),
    *("ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xapp-"),
    *("AKIA", "ASIA", "sk-ant-", "sk-proj-", "sk_live_", "rk_live_", "AIza", "hf_", "npm_"),
    "H4sI",  # a gzip stream in base64, itself encoded again (a Helm release secret)
)
_GZIP_BASE64: Final = "H4sI"  # the base64 of a gzip stream's magic bytes and method
_DEPTH: Final = 3  # layers of encoding and compression read through
_INFLATED_MOST: Final = 1 << 22  # characters a compressed run may expand to


def _segments(word: bytes, encode: Callable[[bytes], bytes], bits: int, block: int) -> set[str]:
    """The characters of ``word``'s encodings that depend on ``word`` alone, one per alignment
    of ``word`` in the encoding's block of ``block`` bytes (each character holds ``bits``)."""
    found: set[str] = set()
    for align in range(block):
        encoded = encode(b"\0" * align + word + b"\0" * block).decode()
        inside = [
            i
            for i in range(len(encoded))
            if bits * i >= 8 * align and bits * i + bits <= 8 * (align + len(word))
        ]
        if inside and inside[-1] + 1 - inside[0] >= _MIN_TRIGGER:
            found.add(encoded[inside[0] : inside[-1] + 1])
    return found


def _base64_segments(word: bytes) -> set[str]:
    """The characters of ``word``'s base64 encodings (three alignments), in both alphabets,
    that depend on ``word`` alone."""
    found = _segments(word, base64.b64encode, 6, 3)
    return found | {segment.replace("+", "-").replace("/", "_") for segment in found}


def _base32_segments(word: bytes) -> set[str]:
    """The characters of ``word``'s base32 encodings (five alignments, RFC 4648) that depend
    on ``word`` alone."""
    return _segments(word, base64.b32encode, 5, 5)


def _triggers() -> list[str]:
    found: set[str] = set()
    for word in _WORDS:
        raw = word.encode()
        found |= _base64_segments(raw)
        found |= _base32_segments(raw)
        found.add(raw.hex())
        found.add(raw.hex().upper())
    found.add(_GZIP_BASE64)
    return sorted(found)


# The triggers of a gzip stream's base64 encoded again.
_GZIP_TWICE: Final = frozenset(_base64_segments(_GZIP_BASE64.encode()))


def encoded_patterns() -> tuple[str, ...]:
    """Patterns of literal triggers (a few dozen alternatives each), and the percent one."""
    words = _triggers()
    sources = [
        "(?:" + "|".join(re.escape(w) for w in words[i : i + _ALTERNATIVES]) + ")"
        for i in range(0, len(words), _ALTERNATIVES)
    ]
    sources.append(r"%[0-9A-Fa-f]{2}(?P<percent>)")
    return tuple(sources)


_B64_RUN: Final = re.compile(r"[A-Za-z0-9+/_-]*")
_PCT_RUN: Final = re.compile(r"[A-Za-z0-9._~+%-]*")
_HEX: Final = re.compile(r"[0-9A-Fa-f]+")
_BASE32: Final = re.compile(r"[A-Z2-7]+")


_LONGEST: Final = 1 << 16  # how far a run is followed to find where it starts and ends
_BEFORE_TRIGGER: Final = 64  # of a longer run, the window starts this far before the trigger


def _run(
    text: str, start: int, end: int, chars: re.Pattern[str], most: int = MAX_RUN
) -> tuple[int, int]:
    """The run of ``chars`` around ``text[start:end]``; of a run longer than ``most``, the
    window of that length that starts just before the trigger (the regex engine reads both
    ways, so a long run costs no Python loop)."""
    left = _run_start(text, start, chars)
    ahead = chars.match(text, end, min(len(text), end + _LONGEST))
    right = ahead.end() if ahead is not None else end
    if right - left > most:
        left = max(left, start - _BEFORE_TRIGGER)
        right = min(right, left + most)
    return left, right


def _run_start(text: str, start: int, chars: re.Pattern[str]) -> int:
    """Where the run of ``chars`` that ends at ``start`` begins (at most :data:`_LONGEST`
    back). The text before is read in windows that grow four times over, so the work is
    in proportion to the run, not to :data:`_LONGEST`."""
    window = _FIRST_WINDOW
    while True:
        low = max(0, start - window)
        back = chars.match(text[low:start][::-1])
        length = back.end() if back is not None else 0
        if length < start - low or low == 0 or window >= _LONGEST:
            return start - length
        window = min(window * 4, _LONGEST)


_FIRST_WINDOW: Final = 256


Find: TypeAlias = Callable[[str], Sequence[object]]
"""The secrets a scanner finds in a text (:class:`.inner.Finder`): any means the text holds one."""


def encoded_selector(find: Find) -> Callable[[str, re.Match[str]], tuple[int, int] | None]:
    """The selector of the encoded-secret rule: the whole encoded run around a match when
    its decoded text holds a secret that ``find`` finds."""

    def select(text: str, match: re.Match[str]) -> tuple[int, int] | None:
        """The whole encoded run around ``match`` when its decoded text holds a secret."""
        start, end = match.span()
        if match.lastgroup == "percent":
            seen = getattr(_DECIDED, "percent", None)
            if seen is not None and seen[0] is text and seen[1] <= start and end <= seen[2]:
                return None  # an escape inside a run already decoded: its answer stands
            left, right = _run(text, start, end, _PCT_RUN)
            _DECIDED.percent = (text, left, right)
            while right > left and text[right - 1] == ".":  # the full stop of a sentence
                right -= 1
            while right < len(text) and text[right] == "=":
                right += 1
            run = text[left:right]
            if run.count("%") < MIN_ESCAPES or right - left < MIN_RUN:
                return None
            return (left, right) if _holds_secret_percent(run, find) else None
        decided = getattr(_DECIDED, "run", None)
        if decided is not None and decided[0] is text and decided[1] <= start and end <= decided[2]:
            return None  # another trigger in a run already decoded: its answer stands
        # A compressed stream is read whole (what follows its start means nothing without it).
        compressed = text.startswith(_GZIP_BASE64, start) or match.group() in _GZIP_TWICE
        left, right = _run(text, start, end, _B64_RUN, _LONGEST if compressed else MAX_RUN)
        padded = right
        while padded < len(text) and padded - right < 2 and text[padded] == "=":
            padded += 1
        if right - left < MIN_RUN:
            return None
        _DECIDED.run = (text, left, right)
        return (left, padded) if _holds_secret(text[left:right], find) else None

    return select


# The last run decoded, in which text: every other trigger inside it would give the same
# answer (a long run full of triggers is decoded once per MAX_RUN characters, not once per
# trigger; a run replaced is replaced once). Kept by identity, per thread: another text, or
# another thread's, never matches.
_DECIDED: Final = threading.local()


@functools.lru_cache(maxsize=512)
def _holds_secret(run: str, find: Find) -> bool:
    return any(_read_through(decoded, _DEPTH, find) for decoded in _decodings(run))


_B64_BYTES: Final = re.compile(rb"[A-Za-z0-9+/_-]{16,}={0,2}")


def _read_through(decoded: bytes, depth: int, find: Find) -> bool:
    """Whether ``decoded`` holds a secret, read through up to ``depth`` more layers of
    gzip or zlib compression and base64 (a gzip stream in base64 in base64)."""
    if _scan(decoded, find):
        return True
    if depth <= 0:
        return False
    if decoded[:2] == b"\x1f\x8b" or (decoded[:1] == b"\x78" and decoded[1:2] in _ZLIB):
        inflated = _inflate(decoded)
        return inflated is not None and _read_through(inflated, depth - 1, find)
    body = decoded.strip()
    if _B64_BYTES.fullmatch(body) is not None:
        inner = body.decode("ascii")
        return any(_read_through(layer, depth - 1, find) for layer in _decodings(inner))
    return False


_ZLIB: Final = frozenset((b"\x01", b"\x5e", b"\x9c", b"\xda"))


def _inflate(data: bytes) -> bytes | None:
    """``data`` decompressed (gzip or zlib; a stream cut short gives what it holds), at most
    :data:`_INFLATED_MOST` bytes of it."""
    inflater = zlib.decompressobj(wbits=47)  # 32 + 15: gzip or zlib, from its header
    try:
        return inflater.decompress(data, _INFLATED_MOST)
    except zlib.error:
        return None


@functools.lru_cache(maxsize=512)
def _holds_secret_percent(run: str, find: Find) -> bool:
    return _scan(unquote(run, errors="surrogateescape").encode("utf-8", "surrogateescape"), find)


def _decodings(run: str) -> list[bytes]:
    """``run`` decoded as hex (if it is hex) and as base64 at each of its alignments."""
    found: list[bytes] = []
    if _HEX.fullmatch(run):
        for skip in (0, 1):
            body = run[skip : len(run) - (len(run) - skip) % 2]
            with contextlib.suppress(ValueError):
                found.append(bytes.fromhex(body))
    if _BASE32.fullmatch(run):
        for skip in range(8):  # the run may start inside a group of eight: try each start
            body = run[skip:]
            with contextlib.suppress(binascii.Error, ValueError):
                found.append(base64.b32decode(body + "=" * (-len(body) % 8)))
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


# Control characters and the replacement character of bytes that are not UTF-8.
_UNPRINTABLE: Final = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\ufffd]")


def _scan(decoded: bytes, find: Find) -> bool:
    text = decoded.decode("utf-8", "replace")
    printable = len(text) - len(_UNPRINTABLE.findall(text))
    if printable < 0.8 * len(text) or printable < 8:
        return False
    return bool(find(text))
