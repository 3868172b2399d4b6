"""Claude Code's permission-rule syntax, as a hook's ``if`` uses it: ``Tool`` or
``Tool(specifier)``, matched against one tool call.

* The tool is a name of Claude Code's or ours (``Bash`` = ``bash``, ``Edit`` = ``edit_file``),
  an MCP tool (``mcp__server__tool``), a whole MCP server (``mcp__server`` or
  ``mcp__server__*``), or ``*``. ``Tool`` alone, ``Tool()`` and ``Tool(*)`` accept every call
  of the tool.
* ``Bash(specifier)``: a glob on the command, ``*`` matching any text (spaces and ``/`` too);
  ``git push *`` also accepts ``git push`` alone, and the older ``git push:*`` means the same.
  A compound command is split into its simple commands as bash would
  (:func:`amplifier_hooks_util.shell.scan_command`: ``&&``, ``||``, ``;``, ``|``, ``&``, new
  lines, ``$(...)``, backticks), each taken after quote removal and without leading
  ``NAME=value`` assignments; the rule accepts the call when the whole command or any simple
  command matches, so ``echo hi && git push origin main`` matches ``Bash(git push *)``.
* File tools (``Read``, ``Edit``, ``Write``, ``MultiEdit``, ``NotebookEdit``, ``Glob``,
  ``Grep``, ``LS``): a gitignore-style path pattern on the call's path argument: ``//abs``
  is the absolute ``/abs``, ``~/x`` is in the home directory, ``/x`` and ``./x`` and ``x/y``
  are relative to the project directory, and a pattern without ``/`` matches a name at any
  depth (``*.ts``); ``**`` spans directories (:func:`~.patterns.compile_arg_pattern`).
* ``WebFetch(domain:example.com)``: the URL's host is the domain or one of its subdomains.
* Any other tool: a glob on each of the call's string arguments.

:func:`compile_permission_rule` raises :class:`ValueError` naming what is wrong with a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from typing import Any, Final
from urllib.parse import urlsplit

from amplifier_hooks_util.shell import canonical, scan_command

from .patterns import compile_arg_pattern, tool_names

__all__ = ["PermissionRule", "bash_subcommands", "compile_permission_rule"]

PermissionRule = Callable[[str, Mapping[str, Any], str], bool]
"""A compiled rule: ``rule(tool_name, tool_input, project_dir) -> bool``."""

_RULE: Final = re.compile(r"^\s*([A-Za-z0-9_*.-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_ASSIGNMENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
_PATH_TOOLS: Final = frozenset(
    {"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep", "LS"}
)
_PATH_KEYS: Final = ("file_path", "path", "notebook_path")


def bash_subcommands(command: str) -> tuple[str, ...]:
    """The simple commands of ``command`` after quote removal, leading assignments dropped,
    and the whole command itself (first) unless a new line separates its commands (its words
    joined by spaces would read two lines, ``git`` and ``push``, as one ``git push``)."""
    scan = scan_command(command)
    found = [] if "newline" in scan.operators else [scan.canonical]
    for segment in scan.segments:
        text = canonical(segment)
        while (stripped := _ASSIGNMENT.sub("", text, count=1)) != text:
            text = stripped
        found.append(text)
    return tuple(dict.fromkeys(part for part in found if part))


def _command_glob(specifier: str) -> Callable[[str], bool]:
    pattern = specifier.strip()
    if pattern.endswith(":*"):  # the older prefix form: ``npm run test:*``
        pattern = pattern[:-2].rstrip() + " *"
    escaped = pattern.replace("[", "[[]")  # ``*`` is the only wildcard of the rule syntax
    bare = escaped[:-2] if escaped.endswith(" *") else None

    def test(command: str) -> bool:
        return fnmatchcase(command, escaped) or (bare is not None and command == bare)

    return test


def _tool_test(tool: str) -> Callable[[str], bool]:
    if tool == "*":
        return lambda name: True
    if tool.startswith("mcp__") and (tool.endswith("__*") or tool.count("__") == 1):
        server = tool.removesuffix("__*")
        prefix = server + "__"
        return lambda name: any(n == server or n.startswith(prefix) for n in tool_names(name))
    if "*" in tool:
        return lambda name: any(fnmatchcase(n, tool) for n in tool_names(name))
    return lambda name: tool in tool_names(name)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def _path_pattern(specifier: str) -> str:
    if specifier.startswith("//"):
        return specifier[1:]
    if specifier.startswith("./"):
        return specifier[2:]
    if specifier.startswith("/"):
        return specifier[1:]
    return specifier


def compile_permission_rule(rule: str) -> PermissionRule:
    """The test of one rule (see the module docstring).

    :raises ValueError: not a rule: no tool name, unbalanced parentheses.
    """
    match = _RULE.match(rule) if isinstance(rule, str) else None
    if match is None:
        raise ValueError(
            f"{rule!r} is not a permission rule; expected Tool or Tool(specifier), such as "
            "'Bash(git push *)', 'Edit(src/**)' or 'mcp__server__tool'"
        )
    tool, specifier = match.group(1), match.group(2)
    tool_ok = _tool_test(tool)
    spec = (specifier or "").strip()
    if spec in ("", "*"):
        return lambda name, args, project: tool_ok(name)
    names = set(tool_names(tool))
    if "Bash" in names:
        glob = _command_glob(spec)

        def bash(name: str, args: Mapping[str, Any], project: str) -> bool:
            command = args.get("command")
            if not tool_ok(name) or not isinstance(command, str):
                return False
            return any(glob(part) for part in bash_subcommands(command))

        return bash
    if names & _PATH_TOOLS:
        path_test = compile_arg_pattern("file_path", _path_pattern(spec))

        def path(name: str, args: Mapping[str, Any], project: str) -> bool:
            if not tool_ok(name):
                return False
            values = [args[key] for key in _PATH_KEYS if key in args]
            return any(path_test(value, project) for value in values)

        return path
    if "WebFetch" in names and spec.startswith("domain:"):
        domain = spec.removeprefix("domain:").strip().lower()

        def fetch(name: str, args: Mapping[str, Any], project: str) -> bool:
            url = args.get("url")
            if not tool_ok(name) or not isinstance(url, str):
                return False
            host = (urlsplit(url).hostname or "").lower()
            return host == domain or host.endswith("." + domain)

        return fetch

    def other(name: str, args: Mapping[str, Any], project: str) -> bool:
        return tool_ok(name) and any(fnmatchcase(text, spec) for text in _strings(dict(args)))

    return other
