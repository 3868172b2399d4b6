"""Programs whose arguments hold code they run: what that code does is not known from the words.

:func:`runs_code` tells, for one program and its arguments (quote-removed), whether the
program will run code given in its arguments or in a file they name, and why:

* an interpreter given code inline (``python -c``, ``perl -e``/``-E`` bundled as ``-ne``,
  ``ruby -e``, ``node -e``/``--eval``/``-p``, ``php -r``, ``lua -e``, ``Rscript -e``,
  ``tclsh``/``expect -c``, ``osascript -e``, ``gdb -ex``, ``vim -c``/``+cmd``, ``emacs
  --eval``, ``dc -e``), or a program that runs a command named in an option (``tar
  --to-command``, ``--checkpoint-action``, ``-I``/``--use-compress-program``, ``zip -TT``,
  ``rsync -e``/``--rsh``, ``ssh -o ProxyCommand``, ``make --eval``);
* ``awk`` (and ``gawk``, ``mawk``, ``nawk``): a program text that can run or open anything
  (``system``, a pipe ``|``, a redirection ``>``, ``getline``, an indirect call ``@``), or a
  program read from a file or a library loaded (``-f``, ``-i``, ``-l``, ``-E``);
* ``sed``: a script read from a file (``-f``), or a script that is not entirely made of
  commands that only edit the text: every command is read as GNU sed parses it, and one that
  runs (``e``, ``s///e``), reads (``r``, ``R``), writes (``w``, ``W``, ``s///w``) or is not
  known makes the whole script code.

A program not listed is taken at its words; a script file an interpreter other than a shell
runs (``python x.py``) is the program it names, not what the file holds.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Final

from .options import TABLES, parse_options

__all__ = ["runs_code", "sed_script_is_plain"]

# program -> (short option letters that take code, long options that take code)
_INLINE: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "python": ("c", frozenset()),
    "pypy": ("c", frozenset()),
    "perl": ("eE", frozenset()),
    "ruby": ("e", frozenset()),
    "node": ("ep", frozenset({"eval", "print", "require", "import", "loader"})),
    "nodejs": ("ep", frozenset({"eval", "print", "require", "import", "loader"})),
    "bun": ("ep", frozenset({"eval", "print"})),
    "deno": ("", frozenset()),
    "php": ("rBRFE", frozenset({"run"})),
    "lua": ("el", frozenset()),
    "luajit": ("el", frozenset()),
    "rscript": ("e", frozenset()),
    "tclsh": ("c", frozenset()),
    "expect": ("cf", frozenset()),
    "osascript": ("e", frozenset()),
    "gdb": ("x", frozenset({"ex", "eval-command", "init-eval-command", "iex", "command", "x"})),
    "vim": ("cSu", frozenset({"cmd"})),
    "vi": ("cSu", frozenset({"cmd"})),
    "nvim": ("cSu", frozenset({"cmd"})),
    "view": ("cSu", frozenset({"cmd"})),
    "ex": ("cSu", frozenset({"cmd"})),
    "emacs": ("l", frozenset({"eval", "load", "execute", "funcall", "script"})),
    "dc": ("ef", frozenset({"expression", "file"})),  # a file operand too: see runs_code
    "tar": (
        "IF",
        frozenset(
            {
                "to-command",
                "checkpoint-action",
                "use-compress-program",
                "info-script",
                "new-volume-script",
                "rsh-command",
            }
        ),
    ),
    "zip": ("", frozenset({"unzip-command"})),
    "rsync": ("e", frozenset({"rsh", "rsync-path"})),
    "make": ("E", frozenset({"eval"})),  # GNU make 4.3: -E is --eval
    "gmake": ("E", frozenset({"eval"})),
    "just": ("", frozenset({"shell", "command"})),
    "sort": ("", frozenset({"compress-program"})),
    "julia": ("eE", frozenset({"eval", "print"})),
    "guile": ("c", frozenset()),
    "racket": ("e", frozenset({"eval", "require-script"})),
    "sbcl": ("", frozenset({"eval", "load", "script"})),
    "clisp": ("x", frozenset()),
    "elixir": ("e", frozenset({"eval"})),
    "iex": ("e", frozenset({"eval"})),
    "groovy": ("e", frozenset()),
    "pwsh": ("c", frozenset({"command"})),
    "powershell": ("c", frozenset({"command"})),
    "nu": ("c", frozenset({"commands"})),
    "xonsh": ("c", frozenset()),
    "jrunscript": ("e", frozenset()),
    "psql": ("c", frozenset({"command"})),
    "mysql": ("e", frozenset({"execute"})),
    "sqlite3": ("", frozenset({"cmd"})),
    "lldb": ("o", frozenset({"one-line", "source"})),
}
# Interpreters that read their program from input when given no operand (``echo ... | perl``).
_READS_INPUT: Final = frozenset(
    {"python", "pypy", "perl", "ruby", "node", "nodejs", "php", "lua", "luajit", "tclsh",
     "expect", "dc", "osascript", "julia", "guile", "racket", "sbcl", "clisp", "elixir",
     "groovy", "pwsh", "powershell", "nu", "xonsh", "jrunscript", "bun", "deno", "psql", "mysql",
     "rscript", "m4", "ed", "sqlite3", "gdb", "lldb"}
)  # fmt: skip
# Programs whose every run reads commands that may run others from their input or operands:
# m4 (``syscmd``), ed (``!cmd``), sqlite3 (``.shell``, ``.system``).
_ALWAYS_CODE: Final = frozenset({"m4", "ed", "red"})
# A script operand that is the program's input, not a file known before it runs.
_INPUT_SCRIPT: Final = re.compile(r"-|/dev/(?:stdin|tty|fd/[0-9]+)|/proc/[^/]+/fd/[0-9]+")
# Interpreters whose every run reads code from their first operand or input: a bare word
# naming them, with a version suffix (python3.12, perl5.36, lua5.4, pypy3).
_VERSIONED: Final = re.compile(r"(python|pypy|perl|ruby|lua|php|node)[0-9][0-9.]*")
_AWKS: Final = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
# awk program text that runs a command, opens a file or calls a function by name.
_AWK_CODE: Final = re.compile(r"system|getline|[|>@]|close|fflush|printf?\s*>")
_AWK_VALUE_OPTIONS: Final = frozenset("FvW")
_AWK_CODE_OPTIONS: Final = frozenset("fiElx")
_SSH_RUNS: Final = re.compile(
    r"(?i)(proxycommand|localcommand|permitlocalcommand|knownhostscommand)"
)


def _name(program: str) -> str:
    name = program.lower()
    versioned = _VERSIONED.fullmatch(name)
    return versioned.group(1) if versioned else name


def runs_code(program: str, arguments: Sequence[str]) -> str | None:
    """Why ``program`` with ``arguments`` runs code its words do not show, or ``None``."""
    name = _name(program)
    if name in _AWKS:
        return _awk(name, arguments)
    if name == "sed":
        return _sed(arguments)
    if name == "ssh":
        runs = any(_SSH_RUNS.search(word) for word in arguments)
        return "ssh runs a local command named in its options" if runs else None
    if name == "dc" and arguments:
        return "dc runs the program its arguments give or name"
    if name == "deno" and arguments[:1] and arguments[0] in ("eval", "repl"):
        return "deno runs the code given in its arguments"
    if name in _ALWAYS_CODE:
        return f"{program} runs the commands its input or operands give"
    if name == "sqlite3" and any(".shell" in w or ".system" in w for w in arguments):
        return "sqlite3 runs a shell command its arguments give"
    if name in _READS_INPUT and any(_INPUT_SCRIPT.fullmatch(w) for w in arguments):
        return f"{program} reads its program from its input"
    if name not in _INLINE:
        return None
    if name in _READS_INPUT and all(w.startswith("-") for w in arguments):
        return f"{program} reads its program from its input"
    return _inline(program, name, arguments)


def _inline(program: str, name: str, arguments: Sequence[str]) -> str | None:
    """An option of ``arguments`` that gives ``program`` code or a command to run."""
    short, long = _INLINE[name]
    for word in arguments:
        if word == "--" or (word == "-m" and name in ("python", "pypy")):
            break  # what follows is the module's or the script's
        if word.startswith("--") and len(word) > 2:
            option = word[2:].split("=", 1)[0]
            # getopt_long takes any unambiguous abbreviation (make --ev is --eval); an
            # ambiguous one is an error, so every prefix of a code option is that option
            full = next((name for name in sorted(long) if name.startswith(option)), None)
            if full is not None:
                return f"{program} runs the code or command given to --{full}"
        elif word.startswith("-") and len(word) > 1:
            if name == "gdb" and word[1:] in long:
                return f"{program} runs the commands given to {word}"
            letter = next((c for c in word[1:] if c in short or not c.isalnum()), "")
            if letter in short and letter:
                return f"{program} runs the code or command given to -{letter}"
        elif word.startswith("+") and name in ("vim", "vi", "nvim", "view", "ex"):
            return f"{program} runs the editor command {word}"
    return None


def _awk(name: str, arguments: Sequence[str]) -> str | None:
    i = 0
    while i < len(arguments):
        word = arguments[i]
        i += 1
        if word == "--":
            break
        if word.startswith("--"):
            option = word[2:].split("=", 1)[0]
            if option in ("file", "include", "load", "exec", "source", "profile", "dump-variables"):
                return f"{name} reads its program from a file or loads code (--{option})"
            continue
        if word.startswith("-") and len(word) > 1:
            letter = word[1]
            if letter in _AWK_CODE_OPTIONS:
                return f"{name} reads its program from a file or loads code (-{letter})"
            if letter in _AWK_VALUE_OPTIONS and len(word) == 2:
                i += 1
            continue
        i -= 1
        break
    if i >= len(arguments):
        return None
    if _AWK_CODE.search(arguments[i]) is not None:
        return f"{name}'s program may run a command or open a file"
    return None


def _sed(arguments: Sequence[str]) -> str | None:
    parsed = parse_options(arguments, _SED_OPTIONS)
    if "file" in parsed.names:
        return "sed reads its script from a file (--file)"
    scripts = [value or "" for name, value in parsed.options if name == "expression"]
    if not scripts and parsed.operands:
        scripts.append(parsed.operands[0])
    if not all(sed_script_is_plain(script) for script in scripts):
        return "sed's script may run a command, or read or write a file"
    return None


_SED_OPTIONS: Final = dataclasses.replace(
    TABLES["sed"],
    short={k: v for k, v in TABLES["sed"].short.items() if k != "i"},
    short_optional={"i": "in-place"},
)
"""sed's options as sed reads them: ``-i`` takes the rest of its word as a suffix."""


# The commands that only edit the text in memory or print it.
_SED_PLAIN: Final = frozenset("=dDgGhHlnNpPqQxzF")
_SED_LABEL: Final = frozenset("btT:")
_SED_TEXT: Final = frozenset("aic")
_SED_ADDRESS: Final = re.compile(r"[0-9]+(?:~[0-9]+)?|\$")
_S_FLAGS: Final = re.compile(r"[gpiImM0-9]*")
_NUMBER: Final = re.compile(r"[0-9]+")


def _skip_regex(script: str, i: int, delimiter: str, brackets: bool = False) -> int:
    """The index after the closing ``delimiter`` of a regex or replacement from ``i``, or -1.

    With ``brackets``, a bracket expression (``[/]``, ``[]/]``, ``[^]/]``, ``[[:alpha:]/]``)
    is read whole, as GNU sed reads a regex: the delimiter inside it does not close the regex.
    """
    while i < len(script):
        char = script[i]
        if char == "\\":
            i += 2
            continue
        if char == "\n":
            return -1
        if brackets and char == "[":
            i = _skip_bracket(script, i)
            if i < 0:
                return -1
            continue
        if char == delimiter:
            return i + 1
        i += 1
    return -1


def _skip_bracket(script: str, i: int) -> int:
    """Past the bracket expression opening at ``i`` (``]`` first, or after ``^``, is a
    member; ``[:class:]``, ``[.x.]``, ``[=x=]`` are read whole), or -1 when it is not closed
    on its line."""
    i += 1
    if i < len(script) and script[i] == "^":
        i += 1
    if i < len(script) and script[i] == "]":
        i += 1
    while i < len(script) and script[i] != "\n":
        char = script[i]
        if char == "]":
            return i + 1
        if char == "[" and i + 1 < len(script) and script[i + 1] in ":.=":
            close = script.find(script[i + 1] + "]", i + 2)
            if close < 0 or "\n" in script[i:close]:
                return -1
            i = close + 2
            continue
        i += 1
    return -1


def _address(script: str, i: int, brackets: bool) -> int:
    """Past one address at ``i`` (a line, ``$``, ``first~step``, ``/re/``, ``\\cREc`` with
    ``I``/``M`` flags), or ``i`` when there is none; -1 when it cannot be read."""
    found = _SED_ADDRESS.match(script, i)
    if found is not None:
        return found.end()
    if i < len(script) and script[i] in "/\\":
        if script[i] == "\\":
            if i + 1 >= len(script):
                return -1
            delimiter, i = script[i + 1], i + 2
        else:
            delimiter, i = "/", i + 1
        i = _skip_regex(script, i, delimiter, brackets)
        while 0 <= i < len(script) and script[i] in "IM":
            i += 1
    return i


def _range(script: str, i: int, brackets: bool) -> int:
    """Past the addresses at ``i`` (``addr``, ``addr,addr``, ``addr,+N``, ``addr,~N``) and any
    ``!``; -1 when they cannot be read."""
    i = _address(script, i, brackets)
    if 0 <= i < len(script) and script[i] == ",":
        i += 1
        if i < len(script) and script[i] in "+~":
            found = _NUMBER.match(script, i + 1)
            return -1 if found is None else found.end()
        i = _address(script, i, brackets)
    while 0 <= i < len(script) and script[i] in " \t!":
        i += 1
    return i


def _to(script: str, i: int, ends: str, escapes: bool = False) -> int:
    """The index of the first character of ``ends`` from ``i`` (or the end)."""
    while i < len(script) and script[i] not in ends:
        i += 2 if escapes and script[i] == "\\" else 1
    return i


def _substitution(script: str, i: int, command: str, brackets: bool) -> int:
    """Past an ``s`` or ``y`` command's delimited parts and an ``s`` command's plain flags
    (``g``, ``p``, ``i``, ``m``, a number); -1 when they cannot be read."""
    if i >= len(script) or script[i] in "\\\n":
        return -1
    delimiter = script[i]
    i = _skip_regex(script, i + 1, delimiter, brackets and command == "s")
    i = -1 if i < 0 else _skip_regex(script, i, delimiter)
    if i >= 0 and command == "s":
        flags = _S_FLAGS.match(script, i)
        i = flags.end() if flags is not None else i
    return i


def _command(script: str, i: int, brackets: bool) -> int:
    """Past the plain command at ``i``; -1 when it is not plain or cannot be read."""
    command = script[i]
    i += 1
    if command == "{":
        return i
    if command in _SED_PLAIN:
        while i < len(script) and script[i] in " \t0123456789":  # q5, l 70
            i += 1
        return i
    if command in _SED_LABEL:  # GNU sed ends a label at a blank or ';' (``:a w x``)
        while i < len(script) and script[i] in " \t":
            i += 1
        return _to(script, i, "; \t\n}")
    if command in _SED_TEXT:  # text to the end of the line (a backslash continues it)
        return _to(script, i, "\n", escapes=True)
    if command in "sy":
        return _substitution(script, i, command, brackets)
    return -1  # e, r, R, w, W, v and anything unknown


def sed_script_is_plain(script: str) -> bool:
    """True when every command of ``script`` only edits or prints the text (see the module
    docstring); anything not read with certainty is not plain.

    The script is read twice, with bracket expressions in its regexes (GNU sed: ``s/[/]/x/``
    is one regex ``[/]``) and without (a sed that ends the regex at the first delimiter), and
    is plain only when both readings are: a ``w`` one reading sees is a ``w``."""
    return _plain(script, brackets=True) and _plain(script, brackets=False)


def _plain(script: str, *, brackets: bool) -> bool:
    i, size = 0, len(script)
    while i < size:
        char = script[i]
        if char in " \t\n;}":
            i += 1
        elif char == "#":
            i = _to(script, i, "\n")
        else:
            i = _range(script, i, brackets)
            if i < 0 or i >= size:
                return False
            i = _command(script, i, brackets)
            if i < 0:
                return False
    return True
