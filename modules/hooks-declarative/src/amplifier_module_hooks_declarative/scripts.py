"""The script file a command hook runs, found without running it, so a missing one is a config
error before the session starts rather than a failure on every event.

Only what can be told for certain is reported: the first simple command of the line is read
with shell rules; its program, when written as a path (``./check.sh``, ``~/hooks/x``,
``"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh``), or the script an interpreter is given
(``python3 hooks/pre_tool.py``, ``bash -e guard.sh``, ``node x.js``) must exist. Variables are
expanded from the environment the hook runs with; a word that still holds a ``$`` or a
command substitution after that is not judged, nor is a bare program name (found on ``PATH``
when it runs), ``python -m pkg`` or ``sh -c '...'``.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = ["script_path", "script_problem"]

_OPERATORS: Final = frozenset({";", "&&", "||", "|", "&", "|&", "(", ")", "{", "}", "!"})
_REDIRECT: Final = re.compile(r"^\d*(?:>>?|<<?<?|>&|<&|&>>?)")
_ASSIGNMENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE: Final = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_SINGLE_QUOTED_DOLLAR: Final = re.compile(r"'[^']*\$[^']*'")
_PYTHON: Final = re.compile(r"^python(?:\d+(?:\.\d+)*)?$")
_SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
_OTHERS: Final = frozenset({"node", "ruby", "perl", "php"})
_NO_SCRIPT: Final = {
    "python": frozenset({"-c", "-m"}),
    "shell": frozenset({"-c", "-s"}),
    "other": frozenset({"-e", "-E", "--eval", "-p", "--print", "-r"}),
}
_WITH_VALUE: Final = {
    "python": frozenset({"-W", "-X", "-Q"}),
    "shell": frozenset({"-o", "-O", "+o", "+O"}),
    "other": frozenset({"--require", "-I", "--import", "--loader"}),
}


def _expand(word: str, env: Mapping[str, str]) -> str | None:
    """``word`` with ``$VAR`` / ``${VAR}`` and a leading ``~`` expanded; ``None`` when a
    variable is unset or something else dynamic is left (then nothing can be told)."""
    missing = False

    def one(match: re.Match[str]) -> str:
        nonlocal missing
        name = match.group(1) or match.group(2)
        if name not in env:
            missing = True
            return ""
        return env[name]

    expanded = _VARIABLE.sub(one, word)
    if missing or "$" in expanded or "`" in expanded:
        return None
    if expanded.startswith("~"):
        home = env.get("HOME")
        head, sep, rest = expanded.partition("/")
        if head != "~" or not home:
            return None
        expanded = home + sep + rest
    return expanded


def _first_command(command: str) -> list[str] | None:
    """The words of the first simple command (shell quoting removed), or ``None``."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # unbalanced quotes: the shell will say so when it runs
        return None
    first: list[str] = []
    for word in words:
        if word in _OPERATORS or _REDIRECT.match(word):
            break
        first.append(word)
    while first and _ASSIGNMENT.match(first[0]):
        first.pop(0)
    return first or None


def _interpreter_script(kind: str, args: list[str]) -> str | None:
    """The script argument an interpreter is given, or ``None`` (``-c``, ``-m``, stdin)."""
    takes_value = _WITH_VALUE[kind]
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _NO_SCRIPT[kind] or arg == "-":
            return None
        if arg == "--":
            continue
        if arg.startswith("-") or (kind == "shell" and arg.startswith("+")):
            skip = arg in takes_value
            continue
        return arg
    return None


def script_path(command: str, *, env: Mapping[str, str]) -> str | None:
    """The script or program path ``command`` runs first, expanded, as written (relative paths
    stay relative); ``None`` when the command names none that can be checked."""
    if _SINGLE_QUOTED_DOLLAR.search(command):
        return None  # '$X' is literal to the shell: not expanded here either way
    words = _first_command(command)
    if words is None:
        return None
    program = words[0]
    name = os.path.basename(program)
    if name == "env":  # env [NAME=value ...] program ...
        rest = [w for w in words[1:] if not _ASSIGNMENT.match(w)]
        if not rest or rest[0].startswith("-"):
            return None
        words, program, name = rest, rest[0], os.path.basename(rest[0])
    kind = (
        "python"
        if _PYTHON.match(name)
        else "shell"
        if name in _SHELLS
        else "other"
        if name in _OTHERS
        else None
    )
    if kind is not None:
        found = _interpreter_script(kind, words[1:])
        return None if found is None else _expand(found, env)
    if "/" not in program and not program.startswith("~"):
        return None  # a program found on PATH when the hook runs
    return _expand(program, env)


def script_problem(
    command: str, *, cwd: str | os.PathLike[str], env: Mapping[str, str]
) -> str | None:
    """Why ``command`` cannot run the script it names (it does not exist, is a directory, or a
    program that is not executable), or ``None`` when it can or nothing can be told."""
    written = script_path(command, env=env)
    if written is None:
        return None
    path = Path(written)
    if not path.is_absolute():
        path = Path(cwd) / path
    words = _first_command(command) or [""]
    as_program = written == _expand(words[0], env)
    if not path.exists():
        shown = written if path.as_posix() == written else f"{written} ({path})"
        return f"the script {shown} does not exist"
    if path.is_dir():
        return f"the script {written} is a directory"
    if as_program and not os.access(path, os.X_OK):
        return f"the script {written} is not executable (chmod +x {written})"
    return None
