"""The commands a program's code names: what an interpreter's inline program may run.

The code an interpreter is given (``python -c``, ``perl -e``, ``node -e``, ``ruby -e``, a
here-string it reads as its program) is not read as a program here, so what it runs is unknown
and a rule never allows it. But a deny rule must still see a command the code spells out:
:func:`commands_in` lists, as shell command texts, what the code could hand to a shell or to
``exec``:

* every string literal (``'...'``, ``"..."``, backquotes, and Perl's ``qx{...}``/Ruby's
  ``%x(...)``) read as a command (``os.system("rm -rf x")``, ``execSync('git push -f')``);
* the literals of one bracketed group read as one argument list (``subprocess.run(["git",
  "push", "-f"])``, ``system("rm", "-rf", "x")``);
* all the literals of the code joined, with and without spaces (``"r" + "m -rf x"``);
* (:func:`literal_words`) all the literals as one argument list, searched from each word
  that names a program (``spawnSync("git", ["push", "-f"])``);
* the code itself read as a command (Tcl's ``exec rm -rf x``, a here-string to a shell).

It over-reads: a literal that only prints ``rm -rf x`` is a command here too. Only deny and
ask rules use it; nothing is allowed because of it.
"""

from __future__ import annotations

import re
import shlex
from typing import Final

__all__ = ["MAX_LITERALS", "commands_in", "literal_words"]

MAX_LITERALS: Final = 64
_QUOTES: Final = "\"'`"
_QX_CLOSING: Final = {"{": "}", "(": ")", "[": "]", "<": ">"}
_GROUP: Final = re.compile(r"[\[(]([^\[\]()]*)[\])]")
_ESCAPE: Final = re.compile(r"\\(.)", re.DOTALL)


def _closing(code: str, start: int, close: str, escapes: bool) -> int:
    """The index of the ``close`` ending a literal opened before ``start``, or -1."""
    i = code.find(close, start)
    while escapes and i > 0:
        slashes = 0
        while i - slashes - 1 >= start and code[i - slashes - 1] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            break
        i = code.find(close, i + 1)
    return i


def _literals(code: str) -> list[str]:
    """The string literals of ``code`` (quotes, backquotes, ``qx``/``%x``), escapes removed.

    One pass: a closing character not found from one point is not looked for again, so a
    text of openings without closings costs no more than its length."""
    found: list[str] = []
    missing: set[str] = set()
    i, size = 0, len(code)
    while i < size and len(found) < MAX_LITERALS:
        char = code[i]
        if char in _QUOTES:
            close, start = char, i + 1
        elif code.startswith(("qx", "%x"), i) and i + 2 < size:
            j = i + 2
            while j < size and code[j] in " \t":
                j += 1
            if j >= size or code[j].isalnum() or code[j] in " \t\n_":
                i += 1
                continue
            close, start = _QX_CLOSING.get(code[j], code[j]), j + 1
        else:
            i += 1
            continue
        end = -1 if close in missing else _closing(code, start, close, close in "\"'")
        if end < 0:
            missing.add(close)
            i = start
            continue
        found.append(_ESCAPE.sub(r"\1", code[start:end]))
        i = end + 1
    return found


def literal_words(code: str) -> tuple[str, ...]:
    """Every string literal of ``code``, in order: an argument list a call may hand to
    ``exec`` (``os.execlp("git", "git", "push", "-f")``, ``spawn("rm", ["-rf", "x"])``)."""
    return tuple(_literals(code))


def commands_in(code: str) -> list[str]:
    """The command texts ``code`` may run (see the module docstring), each once."""
    found: dict[str, None] = {code: None}
    literals = _literals(code)
    found.update(dict.fromkeys(literals))
    for count, group in enumerate(_GROUP.finditer(code)):
        if count >= MAX_LITERALS:
            break
        words = _literals(group.group(1))
        if len(words) > 1:
            found[shlex.join(words)] = None
            found[shlex.join(words[1:])] = None  # exec's list repeats the program first
    if len(literals) > 1:
        found["".join(literals)] = None
        found[" ".join(literals)] = None
    found.pop("", None)
    return list(found)
