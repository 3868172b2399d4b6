"""Patterns on tool arguments: command globs, path globs, regexes, and the file a path names.

Every pattern must match the *whole* text (a regex is matched with ``fullmatch``: write
``.*`` where you mean "anything"); matching is case-sensitive.

* A **command glob** is an ``fnmatch`` pattern: ``*`` matches anything, spaces and slashes
  included (``git log *`` matches ``git log --oneline src/``), ``?`` one character, ``[...]``
  a set.
* A **path glob** follows ``.gitignore`` habits: ``*`` and ``?`` stay inside one path
  component, ``**`` crosses directories (``src/**`` is everything under ``src``,
  ``**/*.py`` every Python file, ``**`` every file in the workspace); a pattern without
  ``/`` or ``**`` matches the file name in any directory (``.env``, ``*.pem``); a pattern
  starting with ``/`` or ``~`` matches the absolute path; any other pattern matches the path
  relative to the workspace, so it never matches a file outside it.
* A **path regex** matches the workspace-relative path (for a file inside the workspace) or
  the absolute path.

:func:`resolve_target` turns the path a tool was given into those forms: relative paths
start at the workspace, ``~`` is expanded, ``..`` is resolved and symlinks are followed, so
``src/../../etc/passwd`` or a link out of the workspace is judged by where it really points.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "PathPattern",
    "Target",
    "compile_command_glob",
    "compile_path_glob",
    "compile_path_regex",
    "compile_regex",
    "resolve_target",
]

_RELATIVE: Final = "relative"
_ABSOLUTE: Final = "absolute"
_NAME: Final = "name"


@dataclass(frozen=True, slots=True)
class Target:
    """A file a tool will touch: as given, absolute (resolved), and relative to the workspace.

    ``relative`` is ``None`` when the file is outside the workspace.
    """

    given: str
    absolute: str
    relative: str | None

    @property
    def name(self) -> str:
        return os.path.basename(self.absolute)

    @property
    def shown(self) -> str:
        """The path a person should read: relative inside the workspace, else absolute."""
        return self.relative if self.relative is not None else self.absolute


def resolve_target(path: str, workspace: str) -> Target:
    """Where ``path`` (as a tool received it) really points, seen from ``workspace``.

    ``workspace`` must be an absolute, resolved directory path.
    """
    expanded = os.path.expanduser(path)
    joined = expanded if os.path.isabs(expanded) else os.path.join(workspace, expanded)
    absolute = os.path.realpath(joined)
    relative: str | None = None
    prefix = workspace.rstrip(os.sep) + os.sep
    if absolute == workspace:
        relative = "."
    elif absolute.startswith(prefix):
        relative = absolute[len(prefix) :]
    return Target(given=path, absolute=absolute, relative=relative)


def compile_command_glob(pattern: str) -> re.Pattern[str]:
    """An ``fnmatch`` glob as a regex matching the whole command."""
    return re.compile(fnmatch.translate(pattern))


def compile_regex(pattern: str) -> re.Pattern[str]:
    """A user regex; raises ValueError naming the pattern when it does not compile."""
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"not a valid regular expression ({err}): {pattern!r}") from err


def _translate_path_glob(pattern: str) -> str:
    """``.gitignore``-style glob to a regex body (``*`` within a component, ``**`` across)."""
    out: list[str] = []
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == size:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            close = pattern.find("]", i + 2 if pattern.startswith("[!", i) else i + 1)
            if close < 0:
                out.append(re.escape(char))
                i += 1
                continue
            body = pattern[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class PathPattern:
    """A compiled path glob or regex, and which form of the path it is matched against."""

    source: str
    regex: re.Pattern[str]
    against: str  # "name", "absolute", "relative" or "either" (regexes)

    def matches(self, target: Target) -> bool:
        if self.against == _NAME:
            return self.regex.fullmatch(target.name) is not None
        if self.against == _ABSOLUTE:
            return self.regex.fullmatch(target.absolute) is not None
        if target.relative is not None and self.regex.fullmatch(target.relative) is not None:
            return True
        return self.against != _RELATIVE and self.regex.fullmatch(target.absolute) is not None


def compile_path_glob(pattern: str) -> PathPattern:
    """A path glob (see the module docstring); raises ValueError for an empty pattern."""
    if not pattern.strip():
        raise ValueError("a path glob must not be empty")
    if pattern.startswith("~"):
        expanded = os.path.expanduser(pattern)
        return PathPattern(pattern, re.compile(_translate_path_glob(expanded)), _ABSOLUTE)
    if pattern.startswith("/"):
        return PathPattern(pattern, re.compile(_translate_path_glob(pattern)), _ABSOLUTE)
    body = pattern.removeprefix("./")
    if "/" not in body.rstrip("/") and "**" not in body:
        return PathPattern(pattern, re.compile(_translate_path_glob(body.rstrip("/"))), _NAME)
    return PathPattern(pattern, re.compile(_translate_path_glob(body)), _RELATIVE)


def compile_path_regex(pattern: str) -> PathPattern:
    """A path regex, matched against the relative path inside the workspace or the absolute."""
    return PathPattern(pattern, compile_regex(pattern), "either")
