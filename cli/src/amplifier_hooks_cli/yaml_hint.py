"""The fix for a YAML indentation mistake, read from the lines around it.

PyYAML says what its parser met (``mapping values are not allowed here``, ``did not find
expected key``), not what the author did; nearly always a key is indented more or less than
the keys of its own mapping. :func:`indentation_hint` names the line, its indentation and the
column of the key it most likely belongs beside.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

__all__ = ["indentation_hint"]

_INDENTATION_ERRORS: Final = (
    "mapping values are not allowed here",
    "did not find expected key",
    "expected <block end>",
    "could not find expected ':'",
    "did not find expected '-' indicator",
    "found character '\\t'",
    "found a tab character",
)
_KEY: Final = re.compile(r"^((?:- +)*)([^\s#:][^:#]*?):(\s|$)")


def _key_column(line: str) -> tuple[int, str] | None:
    """``(column where the key starts, key)`` of a ``key:`` line (after any ``- ``), or None."""
    indent = len(line) - len(line.lstrip(" "))
    match = _KEY.match(line[indent:])
    if match is None:
        return None
    return indent + len(match.group(1)), match.group(2).strip()


def indentation_hint(path: Path | str, message: str, line: int | None) -> str | None:
    """How to fix the YAML error ``message`` reported at ``line`` of ``path``, or None when it
    is not an indentation mistake or the file cannot be read."""
    if line is None or not any(e in message for e in _INDENTATION_ERRORS):
        return None
    try:
        lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    if "\t" in text[: len(text) - len(text.lstrip())]:
        return f"line {line} is indented with a tab: YAML indents with spaces only"
    here = _key_column(text)
    if here is None:
        return "check the indentation of this line and the one above: YAML nests by spaces"
    column, key = here
    for number in range(line - 1, 0, -1):
        above = _key_column(lines[number - 1])
        if above is None or above[0] > column:
            continue
        if above[0] == column:
            break  # same column as a key above: the mistake is elsewhere
        sibling_column, sibling = above
        if lines[number - 1].lstrip().startswith("- ") and sibling_column < column:
            return (
                f"line {line} indents '{key}:' {column} spaces; to put it in the same entry "
                f"as '{sibling}:' (line {number}), indent it {sibling_column} spaces"
            )
        return (
            f"line {line} indents '{key}:' {column} spaces, under '{sibling}:' (line {number}) "
            f"at {sibling_column}: a key beside '{sibling}:' takes {sibling_column} spaces, a "
            f"key inside it more, with '{sibling}:' ending its line"
        )
    return f"check the indentation of line {line} against the keys above it"
