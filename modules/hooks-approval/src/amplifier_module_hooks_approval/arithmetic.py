"""Arithmetic that evaluates a variable: the variable's value may hold a command that runs.

bash evaluates a variable named in arithmetic as an expression, and an array subscript in that
expression as arithmetic again, where a command substitution runs:
``x='a[$(rm -rf y)]'; echo $((x))`` runs ``rm``. The value may be built so that its text shows
nothing (``d='$'; x="a[${d}(rm -rf y)]"``), so the command cannot be read before it runs.

:func:`evaluated_variable` finds, outside single quotes, each arithmetic context that names a
variable: ``$((...))``, ``((...))``, ``$[...]``, ``let``, a ``[[ ... ]]`` comparing numbers
(``-eq`` ...) or testing ``-v`` a subscript, ``declare -i`` and its kin, a ``${NAME:offset}``
or ``${NAME[subscript]}`` expansion, an assignment to an array element, and an array element
named to a builtin (``printf -v 'a[...]'``, ``read``, ``unset``, ``test -v``). Arithmetic on
numbers alone (``$((1 + 2))``, ``$(( $# + 1 ))``) is not reported.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["evaluated_variable"]

_NAMES: Final = re.compile(r"[A-Za-z_]|\$(?:[A-Za-z_{(]|\[)")
_BODIES: Final = (
    re.compile(r"\$\(\((.{0,4000}?)\)\)", re.DOTALL),
    re.compile(r"(?:^|[\s;&|(!{])\(\((.{0,4000}?)\)\)", re.DOTALL),
    re.compile(r"\$\[(.{0,4000}?)\]", re.DOTALL),
    re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[([^\]]*)\]\+?="),
)
# Builtins whose words are arithmetic or name variables after quote removal: read as written.
_WORDS: Final = (
    re.compile(r"(?:^|[\s;&|(!{])let\s+([^;&|\n]*)"),
    re.compile(
        r"(?:^|[\s;&|(!{])(?:test|\[|printf|read|unset|declare|typeset|local|export|readonly"
        r"|mapfile|readarray|wait|getopts)\s[^;&|\n]{0,4000}?[A-Za-z_][A-Za-z0-9_]*\[([^\]]*)\]"
    ),
)
_ALWAYS: Final = (
    re.compile(r"\[\[[^\n]{0,4000}?\s-(?:eq|ne|lt|le|gt|ge|v)\s"),
    re.compile(
        r"(?:^|[\s;&|(!{])(?:declare|typeset|local|export|readonly)\s+(?:-[A-Za-z]*\s+)*"
        r"-[A-Za-z]*i"
    ),
    re.compile(r"\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*(?::[^-=?+]|\[)"),
)


def _outside_single_quotes(text: str) -> str:
    """``text`` with the content of single-quoted strings (outside double quotes) blanked."""
    out: list[str] = []
    i, size = 0, len(text)
    double = False
    while i < size:
        char = text[i]
        if char == "\\" and not double:
            out.append(text[i : i + 2])
            i += 2
            continue
        if char == '"':
            double = not double
        elif char == "'" and not double:
            close = text.find("'", i + 1)
            close = size if close < 0 else close
            out.append("'" + " " * (close - i - 1) + "'")
            i = close + 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def evaluated_variable(text: str) -> str | None:
    """The arithmetic in ``text`` that evaluates a variable (see the module docstring), or
    ``None``."""
    if not any(c in text for c in "([=-{"):
        return None
    plain = _outside_single_quotes(text)
    for pattern in _ALWAYS:
        found = pattern.search(plain)
        if found is not None:
            return found.group(0).strip()
    for patterns, searched in ((_BODIES, plain), (_WORDS, text)):
        for pattern in patterns:
            for found in pattern.finditer(searched):
                if _NAMES.search(found.group(1)) is not None:
                    return found.group(0).strip()
    return None
