"""Path patterns for the status listing: which entries are hidden, which are capped.

A pattern without ``/`` matches any path component, at any depth: ``node_modules`` matches
``node_modules/`` and ``web/node_modules/x.js``; ``*.lock`` matches ``a/b/poetry.lock``.
A pattern with ``/`` matches the path from the repository root: the path itself, anything under
it (``docs/build`` matches ``docs/build/x.html``), or as a glob (``docs/*.pdf``).
A trailing ``/`` or ``/**`` (the upstream module's form, ``node_modules/**``) is ignored.
Matching is case-sensitive, like git on Linux.
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

__all__ = ["PathMatcher"]

_GLOB_CHARS = frozenset("*?[")


def _normalized(pattern: str) -> str:
    pattern = pattern.strip()
    while pattern.endswith(("/**", "/")) and len(pattern) > 1:
        pattern = pattern.removesuffix("/**").removesuffix("/")
    return pattern.removeprefix("./").removeprefix("/")


class PathMatcher:
    """Matches repository-relative paths against a fixed list of patterns."""

    __slots__ = ("_name_globs", "_names", "_path_globs", "_paths")

    def __init__(self, patterns: Iterable[str]) -> None:
        self._names: set[str] = set()
        self._name_globs: list[str] = []
        self._paths: list[str] = []
        self._path_globs: list[str] = []
        for raw in patterns:
            pattern = _normalized(raw)
            if not pattern:
                continue
            glob = any(char in _GLOB_CHARS for char in pattern)
            if "/" in pattern:
                (self._path_globs if glob else self._paths).append(pattern)
            elif glob:
                self._name_globs.append(pattern)
            else:
                self._names.add(pattern)

    def __bool__(self) -> bool:
        return bool(self._names or self._name_globs or self._paths or self._path_globs)

    def match(self, path: str) -> str | None:
        """The label of the first pattern that matches ``path`` (the matched folder or
        pattern), or ``None``."""
        path = path.rstrip("/")
        parts = path.split("/")
        names = self._names
        for part in parts:
            if part in names:
                return part
        for glob in self._name_globs:
            for part in parts:
                if fnmatchcase(part, glob):
                    return glob
        for prefix in self._paths:
            if path == prefix or path.startswith(prefix + "/"):
                return prefix
        for glob in self._path_globs:
            if fnmatchcase(path, glob) or fnmatchcase(path, glob + "/*"):
                return glob
        return None
