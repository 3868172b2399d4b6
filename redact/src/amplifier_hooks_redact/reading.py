"""The text as a reader sees it: what hides a secret from a pattern but not from the model.

A token split by characters that display as nothing (``gh\\u200bp_...``, a soft hyphen, a
combining mark, an ANSI colour or OSC 8 hyperlink sequence) or written with escapes as text
(``\\u0067hp_...``, ``\\x41KIA...``, ``\\101KIA...``, ``&#x67;hp_...``, ``&quot;``)
reads as the token to the model, and to anyone who prints or decodes it. :func:`reading_view`
returns that reading: invisible characters and terminal control sequences removed, escapes
written as text decoded once, a string literal interpolated into a template (``"${"ghp_"}..."``)
read as its text, with a map back to the original text, so the rules can scan the reading and
the spans they find be replaced in the original.

Text without any of those spellings (almost all text) has no view: :data:`MARK` finds the
first one. Percent-encoding is not read here: ``encoded_secret`` decodes a percent-encoded
run whole (:mod:`.encoded`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final

from .lazy import LazyPattern, lazy_compile

__all__ = ["MARK", "Reading", "mark_positions", "reading_view"]

# Unicode format characters (Cf) and combining marks (Mn, Me), of Unicode 14: what a display
# draws as nothing or folds into the character before it.
_INVISIBLE: Final = (
    r"\u00ad\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1-\u05c2\u05c4-\u05c5\u05c7"
    r"\u0600-\u0605\u0610-\u061a\u061c\u064b-\u065f\u0670\u06d6-\u06dd\u06df-\u06e4"
    r"\u06e7-\u06e8\u06ea-\u06ed\u070f\u0711\u0730-\u074a\u07a6-\u07b0\u07eb-\u07f3\u07fd"
    r"\u0816-\u0819\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0859-\u085b\u0890-\u0891"
    r"\u0898-\u089f\u08ca-\u0902\u093a\u093c\u0941-\u0948\u094d\u0951-\u0957\u0962-\u0963"
    r"\u0981\u09bc\u09c1-\u09c4\u09cd\u09e2-\u09e3\u09fe\u0a01-\u0a02\u0a3c\u0a41-\u0a42"
    r"\u0a47-\u0a48\u0a4b-\u0a4d\u0a51\u0a70-\u0a71\u0a75\u0a81-\u0a82\u0abc\u0ac1-\u0ac5"
    r"\u0ac7-\u0ac8\u0acd\u0ae2-\u0ae3\u0afa-\u0aff\u0b01\u0b3c\u0b3f\u0b41-\u0b44\u0b4d"
    r"\u0b55-\u0b56\u0b62-\u0b63\u0b82\u0bc0\u0bcd\u0c00\u0c04\u0c3c\u0c3e-\u0c40"
    r"\u0c46-\u0c48\u0c4a-\u0c4d\u0c55-\u0c56\u0c62-\u0c63\u0c81\u0cbc\u0cbf\u0cc6"
    r"\u0ccc-\u0ccd\u0ce2-\u0ce3\u0d00-\u0d01\u0d3b-\u0d3c\u0d41-\u0d44\u0d4d\u0d62-\u0d63"
    r"\u0d81\u0dca\u0dd2-\u0dd4\u0dd6\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc"
    r"\u0ec8-\u0ecd\u0f18-\u0f19\u0f35\u0f37\u0f39\u0f71-\u0f7e\u0f80-\u0f84\u0f86-\u0f87"
    r"\u0f8d-\u0f97\u0f99-\u0fbc\u0fc6\u102d-\u1030\u1032-\u1037\u1039-\u103a\u103d-\u103e"
    r"\u1058-\u1059\u105e-\u1060\u1071-\u1074\u1082\u1085-\u1086\u108d\u109d\u135d-\u135f"
    r"\u1712-\u1714\u1732-\u1733\u1752-\u1753\u1772-\u1773\u17b4-\u17b5\u17b7-\u17bd\u17c6"
    r"\u17c9-\u17d3\u17dd\u180b-\u180f\u1885-\u1886\u18a9\u1920-\u1922\u1927-\u1928\u1932"
    r"\u1939-\u193b\u1a17-\u1a18\u1a1b\u1a56\u1a58-\u1a5e\u1a60\u1a62\u1a65-\u1a6c"
    r"\u1a73-\u1a7c\u1a7f\u1ab0-\u1ace\u1b00-\u1b03\u1b34\u1b36-\u1b3a\u1b3c\u1b42"
    r"\u1b6b-\u1b73\u1b80-\u1b81\u1ba2-\u1ba5\u1ba8-\u1ba9\u1bab-\u1bad\u1be6\u1be8-\u1be9"
    r"\u1bed\u1bef-\u1bf1\u1c2c-\u1c33\u1c36-\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce0\u1ce2-\u1ce8"
    r"\u1ced\u1cf4\u1cf8-\u1cf9\u1dc0-\u1dff\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    r"\u2066-\u206f\u20d0-\u20f0\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u302a-\u302d\u3099-\u309a"
    r"\ua66f-\ua672\ua674-\ua67d\ua69e-\ua69f\ua6f0-\ua6f1\ua802\ua806\ua80b\ua825-\ua826"
    r"\ua82c\ua8c4-\ua8c5\ua8e0-\ua8f1\ua8ff\ua926-\ua92d\ua947-\ua951\ua980-\ua982\ua9b3"
    r"\ua9b6-\ua9b9\ua9bc-\ua9bd\ua9e5\uaa29-\uaa2e\uaa31-\uaa32\uaa35-\uaa36\uaa43\uaa4c"
    r"\uaa7c\uaab0\uaab2-\uaab4\uaab7-\uaab8\uaabe-\uaabf\uaac1\uaaec-\uaaed\uaaf6\uabe5"
    r"\uabe8\uabed\ufb1e\ufe00-\ufe0f\ufe20-\ufe2f\ufeff\ufff9-\ufffb\U000101fd\U000102e0"
    r"\U00010376-\U0001037a\U00010a01-\U00010a03\U00010a05-\U00010a06\U00010a0c-\U00010a0f"
    r"\U00010a38-\U00010a3a\U00010a3f\U00010ae5-\U00010ae6\U00010d24-\U00010d27"
    r"\U00010eab-\U00010eac\U00010f46-\U00010f50\U00010f82-\U00010f85\U00011001"
    r"\U00011038-\U00011046\U00011070\U00011073-\U00011074\U0001107f-\U00011081"
    r"\U000110b3-\U000110b6\U000110b9-\U000110ba\U000110bd\U000110c2\U000110cd"
    r"\U00011100-\U00011102\U00011127-\U0001112b\U0001112d-\U00011134\U00011173"
    r"\U00011180-\U00011181\U000111b6-\U000111be\U000111c9-\U000111cc\U000111cf"
    r"\U0001122f-\U00011231\U00011234\U00011236-\U00011237\U0001123e\U000112df"
    r"\U000112e3-\U000112ea\U00011300-\U00011301\U0001133b-\U0001133c\U00011340"
    r"\U00011366-\U0001136c\U00011370-\U00011374\U00011438-\U0001143f\U00011442-\U00011444"
    r"\U00011446\U0001145e\U000114b3-\U000114b8\U000114ba\U000114bf-\U000114c0"
    r"\U000114c2-\U000114c3\U000115b2-\U000115b5\U000115bc-\U000115bd\U000115bf-\U000115c0"
    r"\U000115dc-\U000115dd\U00011633-\U0001163a\U0001163d\U0001163f-\U00011640\U000116ab"
    r"\U000116ad\U000116b0-\U000116b5\U000116b7\U0001171d-\U0001171f\U00011722-\U00011725"
    r"\U00011727-\U0001172b\U0001182f-\U00011837\U00011839-\U0001183a\U0001193b-\U0001193c"
    r"\U0001193e\U00011943\U000119d4-\U000119d7\U000119da-\U000119db\U000119e0"
    r"\U00011a01-\U00011a0a\U00011a33-\U00011a38\U00011a3b-\U00011a3e\U00011a47"
    r"\U00011a51-\U00011a56\U00011a59-\U00011a5b\U00011a8a-\U00011a96\U00011a98-\U00011a99"
    r"\U00011c30-\U00011c36\U00011c38-\U00011c3d\U00011c3f\U00011c92-\U00011ca7"
    r"\U00011caa-\U00011cb0\U00011cb2-\U00011cb3\U00011cb5-\U00011cb6\U00011d31-\U00011d36"
    r"\U00011d3a\U00011d3c-\U00011d3d\U00011d3f-\U00011d45\U00011d47\U00011d90-\U00011d91"
    r"\U00011d95\U00011d97\U00011ef3-\U00011ef4\U00013430-\U00013438\U00016af0-\U00016af4"
    r"\U00016b30-\U00016b36\U00016f4f\U00016f8f-\U00016f92\U00016fe4\U0001bc9d-\U0001bc9e"
    r"\U0001bca0-\U0001bca3\U0001cf00-\U0001cf2d\U0001cf30-\U0001cf46\U0001d167-\U0001d169"
    r"\U0001d173-\U0001d182\U0001d185-\U0001d18b\U0001d1aa-\U0001d1ad\U0001d242-\U0001d244"
    r"\U0001da00-\U0001da36\U0001da3b-\U0001da6c\U0001da75\U0001da84\U0001da9b-\U0001da9f"
    r"\U0001daa1-\U0001daaf\U0001e000-\U0001e006\U0001e008-\U0001e018\U0001e01b-\U0001e021"
    r"\U0001e023-\U0001e024\U0001e026-\U0001e02a\U0001e130-\U0001e136\U0001e2ae"
    r"\U0001e2ec-\U0001e2ef\U0001e8d0-\U0001e8d6\U0001e944-\U0001e94a\U000e0001"
    r"\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
# Terminal control sequences: CSI (colours, cursor moves, any number of parameters), OSC (a
# title, an OSC 8 hyperlink; ended by BEL or ST), DCS / SOS / PM / APC strings, and the
# two-character escapes (ESC 7, ESC ( B).
_TERMINAL: Final = (
    r"\x1b\[[0-?]{0,64}[ -/]{0,8}[@-~]"
    r"|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]{0,4096}\x1b\\"
    r"|\x1b[ -/]{0,4}[0-~]"
)
_BACKSLASH: Final = r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-3][0-7]{2})"
_AMPERSAND: Final = r"&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|quot|amp|apos|lt|gt|nbsp);"
_HIDDEN: Final = f"[{''.join(_INVISIBLE)}]+"
# A string literal interpolated into a template reads as its text: ``"${"ghp_"}..."`` (HCL,
# shells, JavaScript), ``#{'...'}`` (Ruby), ``{{ "..." }}`` (Jinja, Go templates),
# ``{'...'}`` (Python f-strings). The ``$`` or ``#`` before it is kept: a token glued to it is
# found all the same, and a search that starts with a literal ``{`` is fast.
_INTERPOLATED: Final = r"\{\{?[ \t]*(?P<q>[\"'`])[^\"'`\n{}\\]{0,256}(?P=q)[ \t]*\}\}?"
MARK: Final = lazy_compile(f"{_TERMINAL}|{_BACKSLASH}|{_AMPERSAND}|{_HIDDEN}|{_INTERPOLATED}")
"""A spelling a reader sees through."""
# The same, one pattern per leading character: a pattern that starts with a literal is
# searched at the speed of a plain string search, an alternation is not (8 ms against under
# 1 ms on 4 MB of text); the character is looked for first.
_TERMINAL_SEARCH: Final = lazy_compile(_TERMINAL)
_BACKSLASH_SEARCH: Final = lazy_compile(_BACKSLASH)
_AMPERSAND_SEARCH: Final = lazy_compile(_AMPERSAND)
_HIDDEN_SEARCH: Final = lazy_compile(_HIDDEN)
_INTERPOLATED_SEARCH: Final = lazy_compile(_INTERPOLATED)


def _searches(text: str) -> list[LazyPattern]:
    """The patterns whose leading character ``text`` holds (an entity also needs its ``;``)."""
    found = []
    if "\x1b" in text:
        found.append(_TERMINAL_SEARCH)
    if "\\" in text:
        found.append(_BACKSLASH_SEARCH)
    if "&" in text and ";" in text:
        found.append(_AMPERSAND_SEARCH)
    if not text.isascii():
        found.append(_HIDDEN_SEARCH)
    if "{" in text:
        found.append(_INTERPOLATED_SEARCH)
    return found


def mark_positions(text: str) -> list[int]:
    """Where a spelling a reader sees through starts in ``text`` (unordered)."""
    return [match.start() for pattern in _searches(text) for match in pattern.finditer(text)]


def _first(text: str, start: int, searches: list[LazyPattern]) -> re.Match[str] | None:
    """The first match of any of ``searches`` at or after ``start``."""
    best: re.Match[str] | None = None
    for pattern in searches:
        found = pattern.search(text, start, best.start() if best is not None else len(text))
        if found is not None:
            best = found
    return best


_ENTITIES: Final = {"quot": '"', "amp": "&", "apos": "'", "lt": "<", "gt": ">", "nbsp": " "}
_LONGEST: Final = 1 << 20  # a longer text is read as it is


def _decoded(piece: str) -> str:
    """What one match of :data:`MARK` reads as: nothing, or the character it escapes."""
    head = piece[0]
    if head == "{":  # an interpolated literal: its text
        quotes = [i for i, char in enumerate(piece) if char in "\"'`"]
        return piece[quotes[0] + 1 : quotes[-1]]
    if head == "\\":
        kind = piece[1]
        point = int(piece[2:], 16) if kind in "ux" else int(piece[1:], 8)
    elif head == "&":
        if piece[1] != "#":
            return _ENTITIES[piece[1:-1]]
        body = piece[2:-1]
        point = int(body[1:], 16) if body[:1] in "xX" else int(body)
    else:  # a terminal sequence or invisible characters
        return ""
    if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
        return "\ufffd"
    char = chr(point)
    return "" if MARK.fullmatch(char) else char


@dataclass(frozen=True, slots=True)
class Reading:
    """The reading of a text and the map back: ``pieces`` are ``(view start, original start,
    original end, copied)``, in order; a copied piece maps character for character, a
    decoded one (a character, or an interpolated literal's text) stands for its whole
    original span."""

    text: str
    pieces: tuple[tuple[int, int, int, bool], ...]
    _starts: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the reading's ``text[start:end]`` (``end > start``)."""
        return self._at(start, first=True), self._at(end - 1, first=False)

    def _at(self, position: int, *, first: bool) -> int:
        number = bisect.bisect_right(self._starts, position) - 1
        view, low, high, copied = self.pieces[number]
        if copied:
            return low + position - view + (0 if first else 1)
        return low if first else high


def reading_view(text: str) -> Reading | None:
    """The text as a reader sees it, or ``None`` when it reads as it is written."""
    if len(text) > _LONGEST:
        return None
    searches = _searches(text)
    found = _first(text, 0, searches) if searches else None
    if found is None:
        return None
    parts: list[str] = []
    pieces: list[tuple[int, int, int, bool]] = []
    size = 0
    position = 0
    while found is not None:
        start, end = found.span()
        if start > position:
            pieces.append((size, position, start, True))
            parts.append(text[position:start])
            size += start - position
        read = _decoded(found.group())
        if read:
            pieces.append((size, start, end, False))
            parts.append(read)
            size += len(read)
        position = end
        found = _first(text, end, searches)
    if position < len(text):
        pieces.append((size, position, len(text), True))
        parts.append(text[position:])
    if not pieces:
        return None
    return Reading("".join(parts), tuple(pieces), tuple(piece[0] for piece in pieces))
