"""Left boundaries of token patterns: where a token may start.

A token is usually preceded by a separator, but text from tools carries separators in
spellings that are letters or digits themselves: a JSON escape printed as text (``\\n``,
``\\t``), a percent-encoded byte (``%3D``, ``%20``) or an ANSI colour sequence
(``\\x1b[01;31m\\x1b[K``). :func:`after` builds the look-behind that rejects a prefix glued to
a word but accepts it after any of those spellings; :func:`glued` is for prefixes distinctive
enough to be found wherever they start, after a letter or digit too (``tok<token>``).

Both put the check *after* the literal prefix, so that the literal stays at the start of the
pattern, where the trigger index (:mod:`.triggers`) and the regex engine find it quickly.
"""

from __future__ import annotations

from typing import Final

__all__ = ["ESCAPED_SEPARATORS", "after", "glued"]

_ANSI_PARAMETERS: Final = 12  # "\x1b[01;31m" has 5; longer sequences are rare

ESCAPED_SEPARATORS: Final[tuple[str, ...]] = (
    r"\\[nrtfvb0]",  # \n, \t ... written as text (escaped JSON printed by a tool)
    r"%[0-9A-Fa-f]{2}",  # a percent-encoded separator: %3D, %20, %0A
    r"\\u00[0-9A-Fa-f]{2}",  # \u003d, \u0022
    *(rf"\x1b\[[0-9;?]{{{n}}}[A-Za-z]" for n in range(_ANSI_PARAMETERS + 1)),
)
"""Fixed-width spellings of a separator that end in a letter or digit."""


def after(prefix: str, width: int, word: str) -> str:
    """``prefix`` (``width`` characters long) not glued to a preceding ``word`` character,
    unless that character ends an escaped separator (:data:`ESCAPED_SEPARATORS`)."""
    escapes = "|".join(f"(?<={escape}.{{{width}}})" for escape in ESCAPED_SEPARATORS)
    return f"(?:{prefix})(?:(?<!{word}.{{{width}}})|{escapes})"


def glued(prefix: str) -> str:
    """``prefix`` wherever it starts: its shape after it is distinctive enough."""
    return f"(?:{prefix})"
