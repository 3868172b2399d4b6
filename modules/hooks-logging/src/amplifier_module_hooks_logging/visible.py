"""Text shown on a terminal exactly as it is: invisible and reordering characters escaped.

A log line must read as what happened. Control characters (C0, DEL, C1 such as U+009B, the
one-byte CSI), bidirectional overrides, embeddings, isolates and marks (U+202A..U+202E,
U+2066..U+2069, U+200E, U+200F, U+061C), zero-width characters (U+200B..U+200D, U+2060,
U+FEFF), line and paragraph separators, and every other format character (Unicode categories
Cc, Cf, Zl, Zp, and lone surrogates) are written as JSON writes them, ``\\uXXXX`` (a
surrogate pair of escapes above the BMP). Inside a JSON string that escape reads back as the
same character, so a record shown with ``--json`` stays the record it was.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["INVISIBLE", "visible"]

#: Every code point of the categories Cc, Cf, Zl, Zp and Cs (Unicode 15.1), as ranges.
INVISIBLE: Final = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"  # C0, DEL, C1
    "\u00ad"  # soft hyphen
    "\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"  # Arabic and Syriac format marks
    "\u180e"  # Mongolian vowel separator
    "\u200b-\u200f"  # zero-width space, non-joiner, joiner; LRM, RLM
    "\u2028-\u202e"  # line and paragraph separators; LRE, RLE, PDF, LRO, RLO
    "\u2060-\u2064\u2066-\u206f"  # word joiner, invisible operators; isolates LRI..PDI ...
    "\ud800-\udfff"  # lone surrogates
    "\ufeff\ufff9-\ufffb"  # zero-width no-break space (BOM); interlinear annotation
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"  # language tag and tag characters
    "]"
)


def _escape(match: re.Match[str]) -> str:
    point = ord(match.group())
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    point -= 0x10000
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"


def visible(text: str) -> str:
    """``text`` with every invisible or reordering character written as its escape."""
    return INVISIBLE.sub(_escape, text)
