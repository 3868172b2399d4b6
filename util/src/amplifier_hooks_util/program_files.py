"""The files a shell command's own programs need to start: what a sandbox that hides some
directories (``/tmp``, ``/var/tmp``) must still show, read-only, for the command to run.

:func:`program_files` reads a command line as ``sh -c`` would split it into simple commands
(``;``, ``&&``, ``||``, ``|``, ``&``, new lines) and, for each, names:

* its program: the first word after any ``NAME=value`` assignments and ``exec``, found on the
  hook's ``PATH`` when it holds no ``/``, else taken relative to the working directory;
* the interpreter of a program that is a script (its ``#!`` line; ``#!/usr/bin/env NAME``
  found on ``PATH``);
* the script an interpreter is given: its first argument that is not an option and names an
  existing regular file;
* for an interpreter inside a virtual environment (a ``pyvenv.cfg`` beside its ``bin``
  directory), that environment's directory, which it reads at start; and the file the
  interpreter's links lead to.

Every path is absolute and normalised; only paths that exist are named. A command the shell
could not split (an unclosed quote) names nothing; what the shell would run anyway fails the
same way contained or not. Words inside ``$(...)``, functions or ``eval`` are not programs
here: a hook that needs more from a hidden directory declares it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Iterator, Sequence
from typing import Final

__all__ = ["argv_files", "program_files"]

_SEPARATORS: Final = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")"})
_REDIRECTIONS: Final = re.compile(r"^[0-9]*[<>]+&?$|^&>+$")
_ASSIGNMENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PREFIXES: Final = frozenset({"exec", "command", "nohup", "time"})
_SHEBANG_BYTES: Final = 256


def _simple_commands(command: str) -> Iterator[list[str]]:
    """The words of each simple command of ``command``, redirections and their targets
    dropped; nothing for a line the shell could not split."""
    for line in command.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            tokens = list(lexer)
        except ValueError:  # an unclosed quote
            continue
        words: list[str] = []
        skip_next = False
        for token in tokens:
            if skip_next:
                skip_next = False
            elif token in _SEPARATORS:
                if words:
                    yield words
                words = []
            elif _REDIRECTIONS.match(token):
                skip_next = True
            else:
                words.append(token)
        if words:
            yield words


def _program(words: list[str]) -> tuple[str, list[str]] | None:
    """The program word of a simple command and the words after it."""
    index = 0
    while index < len(words) and (_ASSIGNMENT.match(words[index]) or words[index] in _PREFIXES):
        index += 1
    if index >= len(words):
        return None
    return words[index], words[index + 1 :]


def _locate(word: str, cwd: str, search_path: str | None) -> str | None:
    """``word`` as the shell would find it: on ``PATH`` without a ``/``, else from ``cwd``."""
    if "/" in word:
        full = os.path.normpath(os.path.join(cwd, os.path.expanduser(word)))
        return full if os.path.isfile(full) else None
    found = shutil.which(word, path=search_path)
    return os.path.normpath(os.path.join(cwd, found)) if found else None


def _shebang(path: str, cwd: str, search_path: str | None) -> str | None:
    """The interpreter a script's ``#!`` line names, located; ``None`` for anything else."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return _locate(names[0], cwd, search_path) if names else None
    return _locate(words[0], cwd, search_path)


def _with_environment(interpreter: str) -> list[str]:
    """``interpreter``, its virtual environment's directory when it lives in one, the file its
    links lead to, and the installation that file belongs to (``PREFIX`` of
    ``PREFIX/bin/NAME`` holding a ``lib/NAME`` directory: a Python's standard library)."""
    found = [interpreter]
    environment = os.path.dirname(os.path.dirname(interpreter))
    if os.path.isfile(os.path.join(environment, "pyvenv.cfg")):
        found.append(environment)
    real = os.path.realpath(interpreter)
    if real != interpreter:
        found.append(real)
    prefix = _installation(real)
    if prefix is not None:
        found.append(prefix)
    return found


def _installation(real: str) -> str | None:
    """``PREFIX`` for an interpreter ``PREFIX/bin/NAME`` whose ``PREFIX/lib`` holds a
    directory named as it is without its last version part (``python3.11`` in
    ``lib/python3.11``), as a Python built into a prefix of its own is laid out."""
    directory, name = os.path.split(real)
    if os.path.basename(directory) != "bin":
        return None
    prefix = os.path.dirname(directory)
    if os.path.isdir(os.path.join(prefix, "lib", name)):
        return prefix
    return None


def _script(arguments: list[str], cwd: str) -> str | None:
    """The first argument that is not an option and names an existing regular file."""
    for word in arguments:
        if word.startswith("-"):
            continue
        full = os.path.normpath(os.path.join(cwd, os.path.expanduser(word)))
        return full if os.path.isfile(full) else None
    return None


def program_files(command: str, cwd: str, search_path: str | None) -> tuple[str, ...]:
    """The files and directories ``command``'s own programs need to start (see the module
    docstring), absolute, in order of first mention, each once.

    ``cwd`` is the directory the command runs in; ``search_path`` the ``PATH`` it is given
    (``None``: this process's)."""
    found: dict[str, None] = {}
    cwd = os.path.abspath(cwd)
    for words in _simple_commands(command):
        program = _program(words)
        if program is not None:
            found.update(dict.fromkeys(_needed(*program, cwd, search_path)))
    return tuple(found)


def argv_files(argv: Sequence[str], cwd: str, search_path: str | None) -> tuple[str, ...]:
    """What :func:`program_files` names for a command given as its argument vector (no shell
    between: ``argv[0]`` is the program, the rest its arguments, as written)."""
    if not argv:
        return ()
    cwd = os.path.abspath(cwd)
    return tuple(dict.fromkeys(_needed(argv[0], list(argv[1:]), cwd, search_path)))


def _needed(word: str, arguments: list[str], cwd: str, search_path: str | None) -> list[str]:
    """What one simple command (program ``word``, then ``arguments``) needs to start."""
    located = _locate(word, cwd, search_path)
    if located is None:
        return []
    found = _with_environment(located)
    interpreter = _shebang(located, cwd, search_path)
    if interpreter is not None:
        found += _with_environment(interpreter)
    script = _script(arguments, cwd)
    if script is not None:
        found.append(script)
    return found
