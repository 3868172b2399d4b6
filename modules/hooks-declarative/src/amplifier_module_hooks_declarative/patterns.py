"""Matcher rules: the patterns of a matcher hook's ``match`` block and of a ``matcher`` string.

A matcher hook (:mod:`.runners.matcher`) runs the rules read here; the parsers and the
dispatcher compile ``matcher`` strings with them.

How a ``match`` block is read:

* ``tool``: a glob on the tool name (``Bash``, ``mcp__*``), with ``|`` between alternatives
  (``Write|Edit``); empty or ``*`` matches every tool; without ``tool`` the rule also applies
  to events that have no tool. Names are case-sensitive, and each tool is known by its own name
  and by its Claude Code name (:data:`CLAUDE_TOOL_NAMES`): ``Bash`` matches ``bash``, ``Write``
  matches ``write_file``.
* ``args``: argument name -> glob. Every listed argument must match. Path arguments (``path``,
  ``file_path``, ``notebook_path``, ``*_path``, ``dir``, ``directory``, ``cwd``) are matched as
  paths: ``*`` stays inside one directory, ``**`` spans any number of them, a pattern without
  ``/`` matches the last component at any depth (``.env*`` is ``**/.env*``), ``~`` is the home
  directory, and an absolute path inside the project also matches project-relative patterns.
  Other arguments are matched as whole strings (``rm *`` matches ``rm -rf build``; ``*`` also
  matches ``/``). ``path`` and ``file_path`` name the same argument. A list value matches when
  one of its items matches. For events without a tool the keys are looked up in the event data
  (``prompt`` at ``PromptSubmit``).
* ``regex: true``: ``tool`` and every ``args`` value are regular expressions, searched (not
  anchored) in the name and the argument text.

Claude Code's own ``matcher`` strings (in a ``hooks`` block of ``.claude/settings.json``) follow
Claude Code's rule instead, see :func:`compile_claude_matcher`.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from typing import Any, Final

from amplifier_hooks_util.deep import dumps

__all__ = [
    "CLAUDE_TOOL_NAMES",
    "NameMatcher",
    "compile_arg_pattern",
    "compile_claude_matcher",
    "compile_tool_pattern",
    "is_path_key",
    "lookup_arg",
    "path_glob_regex",
    "tool_names",
]

#: Our tool names -> the Claude Code tool names a rule may use for them.
CLAUDE_TOOL_NAMES: Final[dict[str, tuple[str, ...]]] = {
    "bash": ("Bash",),
    "read_file": ("Read",),
    "write_file": ("Write",),
    "edit_file": ("Edit", "MultiEdit"),
    "todo": ("TodoWrite",),
    "glob": ("Glob",),
    "grep": ("Grep",),
    "web_fetch": ("WebFetch",),
    "web_search": ("WebSearch",),
    "task": ("Task",),
}

_OUR_NAMES: Final[dict[str, tuple[str, ...]]] = {}
for _ours, _theirs in CLAUDE_TOOL_NAMES.items():
    for _name in _theirs:
        _OUR_NAMES[_name] = (*_OUR_NAMES.get(_name, ()), _ours)

_ARG_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "path": ("path", "file_path"),
    "file_path": ("file_path", "path"),
}
_PATH_KEYS: Final = frozenset(
    {"path", "file_path", "notebook_path", "paths", "dir", "directory", "cwd", "filename"}
)
_CLAUDE_SIMPLE: Final = re.compile(r"[A-Za-z0-9_|]+")

NameMatcher = Callable[[str], bool]
"""A compiled tool-name rule: ``matcher(tool_name) -> bool``."""

_ArgTest = Callable[[Any, str], bool]


def tool_names(tool: str) -> tuple[str, ...]:
    """``tool`` and its other names: ``bash`` -> ``("bash", "Bash")``, ``Write`` ->
    ``("Write", "write_file")``."""
    return (tool, *CLAUDE_TOOL_NAMES.get(tool, ()), *_OUR_NAMES.get(tool, ()))


def _always(tool: str) -> bool:
    return True


_MEMO_LIMIT: Final = 512


def _memoized(test: NameMatcher) -> NameMatcher:
    """``test`` remembered per tool name: a session uses a handful of tools, each many times."""
    memo: dict[str, bool] = {}

    def matcher(tool: str) -> bool:
        found = memo.get(tool)
        if found is None:
            found = test(tool)
            if len(memo) < _MEMO_LIMIT:
                memo[tool] = found
        return found

    return matcher


def compile_tool_pattern(pattern: str, *, regex: bool = False) -> NameMatcher:
    """A tool-name rule of a matcher hook: globs with ``|`` alternatives, or a regex.

    :raises re.error: ``regex`` is set and ``pattern`` is not a valid regular expression.
    """
    if regex:
        compiled = re.compile(pattern)
        return _memoized(lambda tool: any(compiled.search(name) for name in tool_names(tool)))
    alternatives = [part.strip() for part in pattern.split("|")]
    if not pattern.strip() or "*" in alternatives:
        return _always
    return _memoized(
        lambda tool: any(
            fnmatchcase(name, alt) for name in tool_names(tool) for alt in alternatives
        )
    )


def compile_claude_matcher(matcher: str | None) -> NameMatcher:
    """Claude Code's ``matcher``: empty, missing or ``*`` matches every tool; a string of
    letters, digits, ``_`` and ``|`` lists exact names; anything else is a regular expression,
    searched in the name (``Notebook.*``, ``mcp__memory__.*``).

    :raises re.error: the matcher is meant as a regular expression but is not a valid one.
    """
    if matcher is None or matcher.strip() in ("", "*"):
        return _always
    if _CLAUDE_SIMPLE.fullmatch(matcher):
        wanted = frozenset(part for part in matcher.split("|") if part)
        return _memoized(lambda tool: any(name in wanted for name in tool_names(tool)))
    compiled = re.compile(matcher)
    return _memoized(lambda tool: any(compiled.search(name) for name in tool_names(tool)))


def is_path_key(key: str) -> bool:
    """True for argument names whose values are file system paths."""
    return key in _PATH_KEYS or key.endswith(("_path", "_dir", "_file"))


def path_glob_regex(pattern: str) -> re.Pattern[str]:
    """The regular expression of a path glob (``*``, ``?``, ``[...]`` within one component,
    ``**`` across components), matched against a whole normalised path."""
    pattern = os.path.expanduser(pattern)
    if "/" not in pattern:
        pattern = f"**/{pattern}"
    segments = pattern.split("/")
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(".*" if last else "(?:[^/]*/)*")
            continue
        parts.append(_segment_regex(segment))
        if not last:
            parts.append("/")
    return re.compile("".join(parts), re.DOTALL)


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        char = segment[i]
        i += 1
        if char == "*":
            while i < n and segment[i] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = i
            if end < n and segment[end] in "!^":
                end += 1
            if end < n and segment[end] == "]":
                end += 1
            while end < n and segment[end] != "]":
                end += 1
            if end >= n:
                out.append(re.escape(char))
                continue
            body = re.sub(r"([&~|\[])", r"\\\1", segment[i:end].replace("\\", "\\\\"))
            i = end + 1
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append(f"(?!/)[{body}]")
        else:
            out.append(re.escape(char))
    return "".join(out)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return dumps(value, sort_keys=True)  # any depth: nested data is matched as its JSON
    except (TypeError, ValueError):
        return str(value)


def _items(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list | tuple) else (value,)


def compile_arg_pattern(key: str, pattern: str, *, regex: bool = False) -> _ArgTest:
    """``test(value, project_dir) -> bool`` for one ``args`` entry (see the module docstring).

    :raises re.error: ``regex`` is set and ``pattern`` is not a valid regular expression.
    """
    if regex:
        compiled = re.compile(pattern)
        return lambda value, project: any(compiled.search(_text(v)) for v in _items(value))
    if is_path_key(key):
        path_regex = path_glob_regex(pattern)
        anchored = posixpath.isabs(os.path.expanduser(pattern))

        def test_path(value: Any, project: str) -> bool:
            return any(
                path_regex.fullmatch(candidate)
                for item in _items(value)
                if isinstance(item, str) and item
                for candidate in _path_candidates(item, project, anchored)
            )

        return test_path
    return lambda value, project: any(fnmatchcase(_text(v), pattern) for v in _items(value))


def _path_candidates(value: str, project: str, absolute_pattern: bool) -> list[str]:
    path = posixpath.normpath(os.path.expanduser(value))
    candidates = [path]
    if project:
        root = posixpath.normpath(project)
        if posixpath.isabs(path):
            if not absolute_pattern and (path + "/").startswith(root.rstrip("/") + "/"):
                candidates.append(posixpath.relpath(path, root))
        elif absolute_pattern:
            candidates.append(posixpath.normpath(posixpath.join(root, path)))
    return candidates


def lookup_arg(values: Mapping[str, Any], key: str) -> tuple[bool, Any]:
    """``(found, value)`` of the argument ``key`` in ``values``, under any of its names."""
    for name in _ARG_ALIASES.get(key, (key,)):
        if name in values:
            return True, values[name]
    return False, None
