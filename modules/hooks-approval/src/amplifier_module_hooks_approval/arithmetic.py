"""Arithmetic that evaluates a variable: the variable's value may hold a command that runs.

bash evaluates a variable named in arithmetic as an expression, and an array subscript in that
expression as arithmetic again, where a command substitution runs:
``x='a[$(rm -rf y)]'; echo $((x))`` runs ``rm``. The value may be built so that its text shows
nothing (``d='$'; x="a[${d}(rm -rf y)]"``), so the command cannot be read before it runs.

:func:`evaluated_variable` finds, outside single quotes, each arithmetic context that names a
variable: ``$((...))``, ``((...))``, ``$[...]``, ``let``, a ``[[ ... ]]`` comparing numbers
(``-eq`` ...) or testing ``-v``, ``declare -i`` and its kin, a ``${NAME:offset}`` or
``${NAME[subscript]}`` expansion, an assignment to an array element, and an array element
named to a builtin (``printf -v 'a[...]'``, ``read``, ``unset``, ``test -v``). Arithmetic on
numbers alone (``$((1 + 2))``, ``$(( $# + 1 ))``) is not reported.

Every search runs in time linear in the text: each context's body is found with one forward
search from its opening, and the next opening is searched after that body.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

__all__ = ["evaluated_variable"]

_NAMES: Final = re.compile(r"[A-Za-z_]|\$(?:[A-Za-z_{(]|\[)")
_STARTS: Final = " \t\n;&|(!{"
# (opening, closing, the opening must start a word)
_DELIMITED: Final = (("$((", "))", False), ("((", "))", True), ("$[", "]", False))
_TESTS: Final = re.compile(r"\s-(?:eq|ne|lt|le|gt|ge|v)\s")
_EXPANSION: Final = re.compile(r"\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*(?::[^-=?+]|\[)")
_LET: Final = re.compile(r"(?:^|[\s;&|(!{])let\s+([^;&|\n]*)")
_ELEMENT_BUILTINS: Final = re.compile(
    r"(?:^|[\s;&|(!{])(?:test|\[|printf|read|unset|declare|typeset|local|export|readonly"
    r"|mapfile|readarray|wait|getopts)\s"
)
_DECLARERS: Final = frozenset({"declare", "typeset", "local", "export", "readonly"})
_WORD: Final = re.compile(r"[^\s;&|()]+")
_NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


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


def _bodies(text: str, opening: str, closing: str, word_start: bool) -> Iterator[str]:
    """The bodies between ``opening`` and the next ``closing``, each searched after the last."""
    i = text.find(opening)
    while i >= 0:
        start = i + len(opening)
        if word_start and i > 0 and text[i - 1] not in _STARTS:
            i = text.find(opening, i + 1)
            continue
        end = text.find(closing, start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        i = text.find(opening, end + len(closing))


def _elements(text: str) -> Iterator[tuple[str, str]]:
    """Each array element ``NAME[subscript]``: its subscript and what follows the ``]``."""
    i = text.find("[")
    while i >= 0:
        end = text.find("]", i + 1)
        named = i > 0 and text[i - 1] in _NAME_CHARS
        if named:
            yield text[i + 1 : len(text) if end < 0 else end], text[end + 1 : end + 3]
        if end < 0:
            return
        i = text.find("[", end + 1)


def _declares_integer(text: str) -> str | None:
    """A ``declare``-like builtin given an option holding ``i`` (its values are arithmetic)."""
    words = _WORD.findall(text)
    for k, word in enumerate(words):
        if word not in _DECLARERS:
            continue
        for option in words[k + 1 :]:
            if not option.startswith("-") or option in _DECLARERS:
                break
            if "i" in option[1:]:
                return f"{word} {option}"
    return None


def _tests(plain: str) -> str | None:
    for body in _bodies(plain, "[[", "]]", True):
        found = _TESTS.search(body)
        if found is not None:
            return f"[[{body[:40]}"
    return None


def evaluated_variable(text: str) -> str | None:
    """The arithmetic in ``text`` that evaluates a variable (see the module docstring), or
    ``None``."""
    if not any(c in text for c in "([=-{"):
        return None
    plain = _outside_single_quotes(text)
    found = _tests(plain) or _declares_integer(plain)
    if found is not None:
        return found
    expansion = _EXPANSION.search(plain)
    if expansion is not None:
        return expansion.group(0)
    for opening, closing, word_start in _DELIMITED:
        for body in _bodies(plain, opening, closing, word_start):
            if _NAMES.search(body) is not None:
                return f"{opening}{body[:40]}"
    for body in _LET.findall(text):
        if _NAMES.search(body) is not None:
            return f"let {body[:40]}"
    builtin = _ELEMENT_BUILTINS.search(text) is not None
    for source, assignment_only in ((plain, True), (text, False)):
        if not assignment_only and not builtin:
            continue
        for subscript, after in _elements(source):
            if (not assignment_only or after.startswith(("=", "+="))) and _NAMES.search(
                subscript
            ) is not None:
                return f"[{subscript[:40]}]"
    return None
