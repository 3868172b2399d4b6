"""Reading GitHub Copilot's hooks files (``.github/hooks/*.json``, ``~/.copilot/hooks/*.json``)
into a :class:`~...document.HooksDocument` whose command hooks speak ``protocol: copilot``.

A file is ``{"version": 1, "hooks": {"<event>": [<hook>, ...]}}`` (``version`` may be left
out; another value is an error). The event key says the dialect (:mod:`.protocol`):

* Copilot CLI / coding agent, camelCase (``preToolUse``): a hook is ``{"type": "command",
  "bash": ..., "powershell": ..., "cwd": ..., "env": {...}, "timeoutSec": 30, "matcher":
  ...}``; ``bash`` runs with bash, else ``powershell`` with PowerShell; ``cwd`` is relative to
  the project; ``env`` values may name variables (``$HOME``, ``${HOME}``), expanded when the
  file is read; ``matcher`` (optional) is a regular expression that must match the whole
  tool name (``bash``, ``create``, ``edit``, ``view``). ``type: "prompt"`` hooks (text typed
  into a new interactive session) have no counterpart here: skipped with a warning.
* VS Code, PascalCase (``PreToolUse``): ``{"type": "command", "command": ..., "linux": ...,
  "osx": ..., "windows": ..., "cwd": ..., "env": {...}, "timeout": 30}``, the platform's
  command first; a Claude-shaped matcher group ``{"matcher": ..., "hooks": [...]}`` is read
  too, its matcher Claude Code's rule on VS Code's tool names.

The hooks of one event run one after the other, in the order written; the default timeout is
30 seconds. Unknown keys of a hook are warnings; wrong types, an unknown event and a hook
without a command are errors naming file, line and key path.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from collections.abc import Mapping
from functools import partial
from typing import Any, Final

from amplifier_hooks_util.config_errors import describe_value

from ...document import EventHooks, HookEntry, HookGroup, HooksDocument, Step
from ...mapping import CLAUDE_EVENTS
from ...parsing import Parser, json_object
from ...specs import CommandHookSpec
from ...tool_matchers import MatchRule, translated_matcher
from .protocol import CLI_EVENTS, CLI_TOOLS, VSCODE_TOOLS

__all__ = ["VSCODE_EVENTS", "parse_copilot_hooks"]

logger = logging.getLogger("amplifier_module_hooks_declarative")

Loc = tuple[str | int, ...]

VSCODE_EVENTS: Final = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "SessionStart",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
)
"""VS Code's hook events (each mapped as Claude Code's of the same name)."""

_CLI_KEYS: Final = frozenset(
    {"type", "bash", "powershell", "cwd", "env", "timeoutSec", "matcher", "comment"}
)
_VSCODE_KEYS: Final = frozenset(
    {"type", "command", "windows", "linux", "osx", "cwd", "env", "timeout", "matcher"}
)
_CLI_MATCHED: Final = frozenset({"preToolUse", "postToolUse", "permissionRequest"})
_DEFAULT_TIMEOUT_S: Final = 30


def _names(tools: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    return {ours: (theirs,) for ours, theirs in tools.items()}


def parse_copilot_hooks(text: str, source: str) -> HooksDocument:
    """One Copilot hooks file.

    :raises HooksConfigError: invalid JSON or hooks, with line and key path.
    """
    read = json_object(text, source, "GitHub Copilot hooks file")
    if read is None:
        return HooksDocument(source, ())
    parser, data = read
    version = data.get("version", 1)
    if version != 1:
        parser.fail(("version",), f"expected 1, got {describe_value(version)}")
    events = parser.tool_events(data.get("hooks"), partial(_event, parser))
    parser.raise_problems()
    return HooksDocument(source, tuple(events))


def _event(parser: Parser, name: str, items: Any, loc: Loc) -> list[EventHooks]:
    cli = name[:1].islower()
    event = CLI_EVENTS.get(name) if cli else CLAUDE_EVENTS.get(name)
    if event is None or (not cli and name not in VSCODE_EVENTS):
        parser.unknown_event(name, loc, [*CLI_EVENTS, *VSCODE_EVENTS], "GitHub Copilot hook event")
        return []
    if parser.hook_list(items, loc) is None:
        return []
    steps: list[Step] = []
    for index, item in enumerate(items):
        here = (*loc, index)
        if not cli and isinstance(item, dict) and "hooks" in item:
            steps.extend(_vscode_group(parser, name, item, here))
            continue
        step = _hook(parser, name, item, here, cli=cli)
        if step is not None:
            steps.append(step)
    found = [EventHooks(name, event, tuple(steps), parser.source)]
    if name in ("sessionStart", "SessionStart"):  # a new session or a resumed one
        found.append(EventHooks(name, "session:resume", tuple(steps), parser.source))
    return found


def _vscode_group(parser: Parser, event: str, item: dict[str, Any], loc: Loc) -> list[Step]:
    hooks = parser.hook_list(item.get("hooks"), (*loc, "hooks"))
    if hooks is None:
        return []
    raw = item.get("matcher")
    if raw is not None and not isinstance(raw, str):
        parser.fail((*loc, "matcher"), f"expected a string, got {describe_value(raw)}")
        return []
    matcher = None
    if isinstance(raw, str) and event in ("PreToolUse", "PostToolUse"):
        matcher = translated_matcher(raw, _names(VSCODE_TOOLS), "claude")
    entries = [
        entry
        for index, hook in enumerate(hooks)
        if (entry := _entry(parser, hook, (*loc, "hooks", index), cli=False)) is not None
    ]
    if not entries:
        return []
    written = raw if matcher is not None else None
    return [HookGroup(tuple(entries), False, matcher, parser.label(loc), written=written)]


def _hook(parser: Parser, event: str, item: Any, loc: Loc, *, cli: bool) -> Step | None:
    entry = _entry(parser, item, loc, cli=cli)
    if entry is None:
        return None
    raw = item.get("matcher")
    if raw is None:
        return entry
    if not isinstance(raw, str):
        parser.fail((*loc, "matcher"), f"expected a string, got {describe_value(raw)}")
        return None
    rule: MatchRule = "full" if cli else "claude"
    tools = CLI_TOOLS if cli else VSCODE_TOOLS
    if event not in (_CLI_MATCHED if cli else {"PreToolUse", "PostToolUse"}):
        return entry
    matcher = translated_matcher(raw, _names(tools), rule)
    return HookGroup((entry,), False, matcher, parser.label(loc), written=raw)


def _timeout(parser: Parser, item: dict[str, Any], key: str, loc: Loc) -> int | None:
    timeout = item.get(key, _DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        parser.fail((*loc, key), f"expected seconds greater than 0, got {describe_value(timeout)}")
        return None
    return max(1, round(timeout * 1000))


def _env(parser: Parser, item: dict[str, Any], loc: Loc, *, expand: bool) -> dict[str, str] | None:
    env = item.get("env", {})
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in env.items()
    ):
        parser.fail((*loc, "env"), f"expected names to strings, got {describe_value(env)}")
        return None
    return {k: os.path.expandvars(v) if expand else v for k, v in env.items()}


def _command(
    parser: Parser, item: dict[str, Any], loc: Loc, *, cli: bool
) -> tuple[str, str] | None:
    """The command the hook runs here and its shell."""
    if cli:
        candidates = [("bash", "bash"), ("powershell", "powershell")]
    else:
        platform = "osx" if sys.platform == "darwin" else "linux"
        candidates = [(platform, "sh"), ("command", "sh")]
    for key, shell in candidates:
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            parser.fail((*loc, key), f"expected a non-empty command, got {describe_value(value)}")
            return None
        return value, shell
    wanted = "bash or powershell" if cli else "command"
    parser.fail(loc, f"expected a hook with {wanted}")
    return None


def _entry(parser: Parser, item: Any, loc: Loc, *, cli: bool) -> HookEntry | None:
    if not isinstance(item, dict):
        parser.fail(loc, f"expected a hook object, got {describe_value(item)}")
        return None
    kind = item.get("type", "command")
    if kind == "prompt" and cli:
        parser.warn(loc, "prompt hooks have no counterpart here; skipped")
        return None
    if kind != "command":
        parser.fail((*loc, "type"), f"expected 'command', got {describe_value(kind)}")
        return None
    parser.ignore_unknown_keys(item, loc, _CLI_KEYS if cli else _VSCODE_KEYS)
    found = _command(parser, item, loc, cli=cli)
    timeout = _timeout(parser, item, "timeoutSec" if cli else "timeout", loc)
    env = _env(parser, item, loc, expand=cli)
    cwd = item.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd.strip()):
        parser.fail((*loc, "cwd"), f"expected a directory, got {describe_value(cwd)}")
        return None
    if found is None or timeout is None or env is None:
        return None
    command, shell = found
    if cwd is not None and cwd.strip() not in (".", "./"):
        command = f"cd {shlex.quote(cwd)} && {command}"
    spec = CommandHookSpec.model_validate(
        {
            "type": "command",
            "command": command,
            "timeout_ms": timeout,
            "env": env,
            "protocol": "copilot",
            "shell": shell,
        }
    )
    return parser.entry(spec, loc)
