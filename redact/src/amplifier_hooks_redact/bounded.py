"""Patterns whose every repeat has an upper bound, so that one attempt costs a bounded time.

A rule's pattern is tried at each place its trigger occurs. With an unbounded repeat
(``[A-Za-z0-9_-]{20,}``, ``[^\\n]*?``), one attempt may read to the end of the text, and a text
holding the trigger many times (``sk-sk-sk-...``, a PEM header repeated) costs the square of
its length. :func:`bounded` rewrites ``*``, ``+`` and ``{m,}`` in a pattern's source to
``{0,N}``, ``{1,N}`` and ``{m,N}``: every attempt then reads at most about ``N`` characters per
repeat, and the scan of a text is linear in its length.

The price: a repeat longer than ``N`` characters is cut there. :data:`TOKEN_REACH` is far
beyond the length of any token, assignment or header value the rules look for.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["GAP_REACH", "TOKEN_REACH", "bounded"]

TOKEN_REACH: Final = 4096
"""The most characters one greedy repeat of a rule's pattern reads."""

GAP_REACH: Final = 512
"""The most characters one lazy repeat reads: a gap between two parts of a match (a
program's name and its password option, a key and its value), never a value itself."""

_BRACES: Final = re.compile(r"\{([0-9]*)(,?)([0-9]*)\}")


def bounded(
    source: str, reach: int = TOKEN_REACH, gap: int = GAP_REACH, *, verbose: bool = False
) -> str:
    """``source`` with every unbounded greedy repeat bounded by ``reach`` and every lazy one
    by ``gap`` (lazy and possessive markers kept); a repeat already bounded, character
    classes, escapes, groups and (in ``verbose`` patterns) comments are left as they are."""
    out: list[str] = []
    i = 0
    size = len(source)
    quantified = False  # the last item written was a quantifier: "?" / "+" modify it
    while i < size:
        char = source[i]
        if char == "\\":
            out.append(source[i : i + 2])
            i += 2
            quantified = False
            continue
        if char == "[":
            end = _class_end(source, i)
            out.append(source[i:end])
            i = end
            quantified = False
            continue
        if verbose and char == "#":
            end = source.find("\n", i)
            end = size if end < 0 else end
            out.append(source[i:end])
            i = end
            continue
        if verbose and char.isspace():
            out.append(char)
            i += 1
            continue
        if char == "(" and source.startswith("(?#", i):
            end = source.find(")", i) + 1 or size  # unterminated: the rest is the comment
            out.append(source[i:end])
            i = end
            continue
        if quantified and char in "?+":  # lazy or possessive marker of the quantifier before
            out.append(char)
            i += 1
            quantified = False
            continue
        if char == "?":  # an optional item, or the "?" of a group's "(?"
            out.append(char)
            i += 1
            quantified = not source.endswith("(", 0, i - 1)
            continue
        if char in "*+":
            most = gap if source.startswith("?", i + 1) else reach
            out.append(f"{{{0 if char == '*' else 1},{most}}}")
            i += 1
            quantified = True
            continue
        if char == "{":
            braces = _BRACES.match(source, i)
            if braces is not None and (braces.group(1) or braces.group(3)):
                least, comma, upper = braces.groups()
                limit = gap if source.startswith("?", braces.end()) else reach
                if comma and not upper and int(least or "0") < limit:
                    out.append(f"{{{least or 0},{limit}}}")
                else:
                    out.append(braces.group(0))
                i = braces.end()
                quantified = True
                continue
        out.append(char)
        i += 1
        quantified = False
    return "".join(out)


def _class_end(source: str, start: int) -> int:
    """Where the character class opened at ``source[start]`` ends (after its ``]``)."""
    i = start + 1
    if source.startswith("^", i):
        i += 1
    if source.startswith("]", i):  # a "]" first in the class is a literal
        i += 1
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "]":
            return i + 1
        i += 1
    return len(source)
