"""Find the shell control operators in a bash command, the way bash would see them.

A glob such as ``ls *`` must never auto-approve ``ls; rm -rf /``. :func:`scan_command` reads a
command as bash quotes it and reports every control operator found *outside* quotes (and the
substitutions that still run inside double quotes), plus the simple commands between them:

========== ====================================================================
operator   what it covers
========== ====================================================================
``;``      command separator
``&&``     and-list
``||``     or-list
``|``      pipe (also ``|&``)
``&``      background job
``>``      output redirection (``>``, ``>>``, ``2>&1``, ``&>``, ``>|``, ``>(``)
``<``      input redirection (``<``, ``<<``, ``<<<``, ``<(``)
``$(``     command substitution (also inside double quotes; ``$((`` too)
`````      backtick command substitution (also inside double quotes)
``(``      subshell or process substitution opening
``)``      closing parenthesis
``newline`` a line feed or carriage return outside quotes: a second command
========== ====================================================================

Quoting follows bash: nothing is special inside single quotes; inside double quotes only
``$(`` and backticks run something and a backslash escapes the next character; ``$'...'``
is ANSI-C quoting where a backslash escapes the next character; outside quotes a backslash
makes the next character literal (``ls \\;`` passes ``;`` to ``ls``). A quote left open is
reported (``unterminated``): bash would refuse the command, and no rule auto-approves it.
A ``#`` that starts a word outside quotes starts a comment, as in bash: the rest of the
line is not read (a quote in it opens nothing, a backslash before its newline continues
nothing), and the newline ending it still separates commands.

:func:`canonical` is the command as the program receives it: bash's quote removal applied
and the words joined by single spaces (``git log --o''utput=x`` is ``git log --output=x``,
``$'\\x2d-force'`` is ``--force``), so that quoting tricks cannot slip an argument past a
pattern. Expansions (``$HOME``, ``*``, ``{a,b}``) are left as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "EVALUATING_BUILTINS",
    "OPERATORS",
    "SEPARATORS",
    "ShellScan",
    "canonical",
    "comment_at",
    "comment_end",
    "scan_command",
    "words",
]

OPERATORS: Final = (
    ";",
    "&&",
    "||",
    "|",
    "&",
    ">",
    "<",
    "$(",
    "`",
    "(",
    ")",
    "newline",
    "expansion",
    "eval",
)
"""Every operator name :func:`scan_command` reports (and a rule's ``allow_operators`` takes)."""

SEPARATORS: Final = frozenset({";", "&&", "||", "|", "&", "$(", "`", "(", ")", "newline"})
"""Operators that end one simple command and start another (redirections do not)."""

_REDIRECT_TAIL: Final = frozenset("<>&|")
# The braced expansions provably inert: ${NAME}, ${1}, ${#}, ${@} ..., a length ${#NAME}, and a
# default or alternative made of literal characters (${NAME:-word}, ${NAME-word}, ${NAME:+word},
# ${NAME+word}): the value is substituted, never evaluated. Anything else in braces
# (transformations such as @P, indirection, defaults that assign, substrings and offsets,
# which are arithmetic, array subscripts, nested quotes or expansions) may evaluate text as code.
_INERT_BRACED: Final = re.compile(
    r"\$\{(?:#?[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-]"
    r"|[A-Za-z_][A-Za-z0-9_]*:?[-+][A-Za-z0-9_./:,%+=@-]*)\}"
)
# Text in quotes that would run if something later evaluated it (prompt expansion, arithmetic
# on an array subscript, eval).
_CODE_IN_QUOTES: Final = re.compile(r"\$[({\[]|`")
# Builtins and keywords that evaluate their arguments as code or as arithmetic (array
# subscripts run command substitutions there; ``test -v 'a[$(...)]'`` and ``[[ $x -eq 0 ]]``
# do too): a simple command starting with one is never provably inert.
EVALUATING_BUILTINS: Final = frozenset(
    {
        "eval",
        "source",
        ".",
        "exec",
        "command",
        "builtin",
        "let",
        "declare",
        "typeset",
        "local",
        "readonly",
        "export",
        "printf",
        "read",
        "mapfile",
        "readarray",
        "unset",
        "coproc",
        "trap",
        "enable",
        "alias",
        "fc",
        "hash",
        "test",
        "[",
        "[[",
        "getopts",
        "complete",
        "compgen",
        "bind",
        "shopt",
        "set",
        "function",
        "select",
        "wait",
    }
)
# Programs that run a command or a script given in their arguments (``env rm -rf /``,
# ``sh -c '...'``, ``xargs rm``, ``find -exec``): a pattern matching their command line cannot
# tell what they run. Compared by the command word's last path component, and only with
# arguments (a shell without any reads its commands from a pipe or a redirection, which the
# scan reports already).
COMMAND_RUNNERS: Final = frozenset(
    {
        "env",
        "xargs",
        "sh",
        "bash",
        "dash",
        "ash",
        "zsh",
        "ksh",
        "mksh",
        "yash",
        "fish",
        "csh",
        "tcsh",
        "busybox",
        "nohup",
        "nice",
        "ionice",
        "timeout",
        "sudo",
        "doas",
        "su",
        "runuser",
        "setsid",
        "stdbuf",
        "chroot",
        "unshare",
        "nsenter",
        "strace",
        "ltrace",
        "watch",
        "flock",
        "taskset",
        "chrt",
        "script",
        "parallel",
        "sg",
        "newgrp",
        "unbuffer",
        "faketime",
        "fakeroot",
    }
)
# find runs a command only with these actions.
_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Keywords that only prefix a pipeline; the command after them is what runs.
_PREFIX_KEYWORDS: Final = frozenset({"!", "time", "-p"})
# A command word holding an expansion or a glob ($X, `...`, {ev,ev}al, /bin/ba?h) may become
# any command, an evaluating builtin or a runner included.
_EXPANDING_WORD: Final = re.compile(r"[$`{}*?\[\]]")
# Variables that change what the shell or the command runs, how words split, or where code is
# loaded from: assigning one (``IFS=/ ...``, ``LD_PRELOAD=./x.so ls``, ``PATH=. ls``) is not
# provably inert.
_SENSITIVE_VARIABLES: Final = frozenset(
    {
        "IFS",
        "PATH",
        "ENV",
        "BASH_ENV",
        "CDPATH",
        "GLOBIGNORE",
        "SHELLOPTS",
        "BASHOPTS",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "HOME",
        "SHELL",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "TEXTDOMAIN",
        "TEXTDOMAINDIR",
        "XDG_CONFIG_HOME",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "NODE_OPTIONS",
        "PERL5LIB",
        "PERL5OPT",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
    }
)
_SENSITIVE_PREFIXES: Final = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_")
_HEAD: Final = 512  # characters of a simple command read for its first word
_ASSIGNMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
# The characters that can start a quote, an escape or an operator (outside quotes), and the
# ones that matter inside double quotes and inside $'...': the scan jumps from one to the next.
_OUTSIDE: Final = re.compile(r"[\\'\"$`;&|<>()\n\r#]")
_IN_DOUBLE: Final = re.compile(r'[\\"`$]')
_IN_ANSI_C: Final = re.compile(r"[\\']")
_QUOTING: Final = re.compile(r"[\\'\"]")
_BLANKS: Final = re.compile(r"[ \t\n\r]+")
_ANSI_C: Final = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")
_OCTAL_DIGITS: Final = frozenset("01234567")
_WHITESPACE: Final = frozenset(" \t\n\r")
# A ``#`` after one of these (or at the start) starts a word, hence a comment.
_WORD_BREAKS: Final = frozenset(" \t\n\r;&|()<>")


def comment_at(text: str, i: int, escaped: int = -1) -> bool:
    """True when the ``#`` at ``i`` (outside quotes) starts a comment: it starts a word (the
    character before it, unless a backslash escaped it (at ``escaped``), ends a word)."""
    return text[i] == "#" and (i == 0 or (text[i - 1] in _WORD_BREAKS and escaped != i - 1))


def comment_end(text: str, i: int) -> int:
    """The index of the newline (or carriage return) ending the comment at ``i``, or the end."""
    newline = text.find("\n", i)
    end = len(text) if newline < 0 else newline
    carriage = text.find("\r", i, end)  # searched only up to the newline: linear in all
    return end if carriage < 0 else carriage


@dataclass(frozen=True, slots=True)
class ShellScan:
    """What bash would see in a command.

    ``operators``: the operator names found, in order of first appearance, each once.
    ``segments``: the simple commands between separators, stripped, empty ones dropped
    (``echo $(rm -rf /)`` gives ``echo`` and ``rm -rf /``).
    ``unterminated``: a quote was left open.
    ``canonical``: the whole command after quote removal (:func:`canonical`).
    ``parts``: each segment as written and after quote removal, when the command has more
    than one (what deny and ask rules also try); empty for one simple command.
    """

    operators: tuple[str, ...]
    segments: tuple[str, ...]
    unterminated: bool
    canonical: str
    parts: tuple[str, ...] = ()

    @property
    def plain(self) -> bool:
        """True for one simple command: no operator and every quote closed."""
        return not self.operators and not self.unterminated


class _Scanner:
    """One pass over a command; collects operators and segment boundaries."""

    __slots__ = ("cuts", "escaped", "found", "text", "unterminated")

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: dict[str, None] = {}
        self.cuts: list[tuple[int, int]] = []  # (start, end) of each separator
        self.unterminated = False
        self.escaped = -1  # the index of the last character a backslash escaped

    def operator(self, name: str, start: int, end: int) -> int:
        self.found.setdefault(name, None)
        if name in SEPARATORS:
            self.cuts.append((start, end))
        return end

    def single_quoted(self, start: int) -> int:
        close = self.text.find("'", start)
        if close < 0:
            self.unterminated = True
            return len(self.text)
        if _CODE_IN_QUOTES.search(self.text, start, close) is not None:
            self.operator("expansion", start - 1, start - 1)
        return close + 1

    def dollar(self, start: int) -> int:
        """``$`` at ``start``, followed by ``{`` or ``[``: an inert ``${NAME}`` is skipped;
        anything else is an expansion that may evaluate text (the scan goes on inside it)."""
        found = _INERT_BRACED.match(self.text, start)
        if found is not None:
            return found.end()
        return self.operator("expansion", start, start + 2)

    def ansi_c_quoted(self, start: int) -> int:
        text, i = self.text, start
        while (found := _IN_ANSI_C.search(text, i)) is not None:
            i = found.start()
            if text[i] == "\\":
                i += 2
            else:
                return i + 1
        self.unterminated = True
        return len(text)

    def double_quoted(self, start: int) -> int:
        text, i = self.text, start
        while (found := _IN_DOUBLE.search(text, i)) is not None:
            i = found.start()
            char = text[i]
            if char == "\\":
                i += 2
            elif char == '"':
                return i + 1
            elif char == "`":
                i = self.operator("`", i, i + 1)
            elif char == "$" and text.startswith("$(", i):
                i = self.operator("$(", i, i + 2)
            elif char == "$" and i + 1 < len(text) and text[i + 1] in "{[":
                i = self.dollar(i)
            else:
                i += 1
        self.unterminated = True
        return len(text)

    def run(self) -> None:
        text, size = self.text, len(self.text)
        i = 0
        while (found := _OUTSIDE.search(text, i)) is not None:
            i = found.start()
            char = text[i]
            following = text[i + 1] if i + 1 < size else ""
            if char == "\\":
                self.escaped = i + 1
                i += 2
            elif char == "'":
                i = self.single_quoted(i + 1)
            elif char == '"':
                i = self.double_quoted(i + 1)
            elif char == "$" and following == "'":  # decoded, it may hold anything
                self.operator("expansion", i, i)
                i = self.ansi_c_quoted(i + 2)
            elif char == "$" and following == '"':  # translated, it may hold anything
                self.operator("expansion", i, i)
                i = self.double_quoted(i + 2)
            elif char == "$" and following == "(":
                i = self.operator("$(", i, i + 2)
            elif char == "$" and following in ("{", "["):
                i = self.dollar(i)
            elif char == "`":
                i = self.operator("`", i, i + 1)
            elif char == ";":
                i = self.operator(";", i, i + 1)
            elif char == "&" and following == "&":
                i = self.operator("&&", i, i + 2)
            elif char == "&" and following == ">":
                i = self.redirect(">", i, i + 2)
            elif char == "&":
                i = self.operator("&", i, i + 1)
            elif char == "|" and following == "|":
                i = self.operator("||", i, i + 2)
            elif char == "|":
                i = self.operator("|", i, i + (2 if following == "&" else 1))
            elif char in "<>":
                i = self.redirect(char, i, i + 1)
            elif char in "\n\r":
                i = self.operator("newline", i, i + 1)
            elif char in "()":
                i = self.operator(char, i, i + 1)
            elif comment_at(
                text, i, self.escaped
            ):  # cut out, never a separator: its newline is one
                end = comment_end(text, i)
                self.cuts.append((i, end))
                i = end
            else:
                i += 1

    def redirect(self, name: str, start: int, end: int) -> int:
        """A redirection, with the operator characters that continue it (``>>``, ``2>&1``)."""
        while end < len(self.text) and self.text[end] in _REDIRECT_TAIL:
            end += 1
        return self.operator(name, start, end)

    def segments(self) -> tuple[str, ...]:
        pieces: list[str] = []
        position = 0
        for start, end in self.cuts:
            pieces.append(self.text[position:start])
            position = end
        pieces.append(self.text[position:])
        return tuple(piece.strip() for piece in pieces if piece.strip())


def _sensitive(name: str) -> bool:
    return name in _SENSITIVE_VARIABLES or name.startswith(_SENSITIVE_PREFIXES)


def _risks(segments: tuple[str, ...]) -> tuple[str, ...]:
    """What the simple commands themselves may run: ``eval`` when one starts (after its
    assignments and ``!`` / ``time``) with an evaluating builtin, a command runner, ``find``
    with ``-exec``, or a command word holding an expansion or a glob, or when it assigns a
    variable that changes what runs (``IFS``, ``PATH``, ``LD_PRELOAD`` ...); ``expansion``
    when it assigns to an array element (the subscript is arithmetic). Only the head of each
    is read; one whose command word lies beyond it counts as evaluating."""
    found: dict[str, None] = {}
    for segment in segments:
        head = words(segment[:_HEAD])
        for index, word in enumerate(head):
            if index == len(head) - 1 and len(segment) > _HEAD:
                found["eval"] = None  # the word may go on past the head
                break
            assignment = _ASSIGNMENT.match(word)
            if assignment is not None:
                if assignment.group(2) is not None:
                    found["expansion"] = None
                if _sensitive(assignment.group(1)):
                    found["eval"] = None
                continue
            if word in _PREFIX_KEYWORDS:
                continue
            name = word.rsplit("/", 1)[-1]
            if (
                word in EVALUATING_BUILTINS
                or (name in COMMAND_RUNNERS and index < len(head) - 1)
                or _EXPANDING_WORD.search(word) is not None
                or (name == "find" and not _FIND_EXEC.isdisjoint(words(segment)))
            ):
                found["eval"] = None
            break
    return tuple(found)


def _bash_input(command: str) -> str:
    """``command`` as bash's parser reads it: NUL bytes dropped (bash ignores them in its
    input) and every backslash-newline outside single quotes and comments removed (a line
    continuation, so ``$\\<newline>(`` is ``$(``; a comment ends at its newline whatever
    precedes it)."""
    if "\0" in command:
        command = command.replace("\0", "")
    if "\\\n" not in command:
        return command
    out: list[str] = []
    i, size = 0, len(command)
    state = ""  # "" outside quotes, "'" single, "$'" ANSI-C, '"' double
    while i < size:
        char = command[i]
        pair = command[i : i + 2]
        if state in ("'", "$'"):
            if state == "$'" and char == "\\":
                out.append(pair)
                i += 2
                continue
            if char == "'":
                state = ""
            out.append(char)
            i += 1
        elif pair == "\\\n":
            i += 2
        elif char == "\\":
            out.append(pair)
            i += 2
        elif state == '"':
            if char == '"':
                state = ""
            out.append(char)
            i += 1
        elif char == "#" and (not out or (len(out[-1]) == 1 and out[-1] in _WORD_BREAKS)):
            end = comment_end(command, i)
            out.append(command[i:end])
            i = end
        else:
            if char == "'":
                state = "$'" if out and out[-1] == "$" else "'"  # an escaped $ is "\\$"
            elif char == '"':
                state = '"'
            out.append(char)
            i += 1
    return "".join(out)


def scan_command(command: str) -> ShellScan:
    """Scan ``command`` for shell control operators (see the module docstring)."""
    command = _bash_input(command)
    stripped = command.strip()
    if _OUTSIDE.search(command) is None:  # no quote, escape or operator: one plain command
        segments_ = (stripped,) if stripped else ()
        return ShellScan(_risks(segments_), segments_, False, canonical(command))
    scanner = _Scanner(command)
    scanner.run()
    segments = scanner.segments()
    for name in _risks(segments):
        scanner.found.setdefault(name, None)
    whole = canonical(command)
    parts: tuple[str, ...] = ()
    if scanner.cuts:
        forms = dict.fromkeys(f for segment in segments for f in (segment, canonical(segment)))
        parts = tuple(f for f in forms if f not in (stripped, whole))
    return ShellScan(tuple(scanner.found), segments, scanner.unterminated, whole, parts)


def _ansi_c(text: str, start: int) -> tuple[str, int]:
    """Decode a ``$'...'`` body from ``start``; returns the text and the index after ``'``."""
    out: list[str] = []
    i, size = start, len(text)
    while i < size:
        char = text[i]
        if char == "'":
            return "".join(out), i + 1
        if char != "\\" or i + 1 >= size:
            out.append(char)
            i += 1
            continue
        code = text[i + 1]
        if code in _ANSI_C:
            out.append(_ANSI_C[code])
            i += 2
        elif code in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[code]
            digits = ""
            j = i + 2
            while j < size and len(digits) < width and text[j] in _HEX_DIGITS:
                digits += text[j]
                j += 1
            out.append(chr(min(int(digits, 16), 0x10FFFF)) if digits else "\\" + code)
            i = j
        elif code in _OCTAL_DIGITS:
            j = i + 1
            while j < size and j < i + 4 and text[j] in _OCTAL_DIGITS:
                j += 1
            out.append(chr(int(text[i + 1 : j], 8)))
            i = j
        else:
            out.append("\\" + code)
            i += 2
    return "".join(out), size


def words(command: str) -> list[str]:
    """The words bash passes on after quote removal (expansions are left as written)."""
    if _QUOTING.search(command) is None:
        return [word for word in _BLANKS.split(command) if word]
    result: list[str] = []
    word: list[str] = []
    started = False
    i, size = 0, len(command)
    while i < size:
        char = command[i]
        if char in _WHITESPACE:
            if started:
                result.append("".join(word))
                word, started = [], False
            i += 1
            continue
        started = True
        if char == "\\":
            if i + 1 < size and command[i + 1] != "\n":  # backslash-newline joins lines
                word.append(command[i + 1])
            i += 2
        elif char == "'":
            close = command.find("'", i + 1)
            close = size if close < 0 else close
            word.append(command[i + 1 : close])
            i = close + 1
        elif char == "$" and command.startswith("$'", i):
            decoded, i = _ansi_c(command, i + 2)
            word.append(decoded)
        elif char == '"' or command.startswith('$"', i):  # $"..." is a translated "..."
            i += 1 if char == '"' else 2
            while i < size and command[i] != '"':
                if command[i] == "\\" and i + 1 < size and command[i + 1] in '"\\$`':
                    word.append(command[i + 1])
                    i += 2
                elif command[i] == "\\" and command.startswith("\\\n", i):
                    i += 2
                else:
                    word.append(command[i])
                    i += 1
            i += 1
        else:
            word.append(char)
            i += 1
    if started:
        result.append("".join(word))
    return result


def canonical(command: str) -> str:
    """``command`` after quote removal, its words joined by single spaces."""
    return " ".join(words(command))
