"""Reading Cursor's ``hooks.json`` into a :class:`~...document.HooksDocument` whose command hooks
speak ``protocol: cursor``.

The file is ``{"version": 1, "hooks": {"<event>": [{"command": "...", "timeout": 5,
"matcher": "Shell", "failClosed": true}]}}``: ``timeout`` in seconds (default 60),
``failClosed: true`` makes a failing hook block (``on_failure: block``), ``matcher`` (on
``preToolUse``, ``postToolUse``, ``postToolUseFailure``) is a regular expression searched in
Cursor's tool name (``Shell``, ``Read``, ``Write``, ...). The hooks of one event run one
after the other, in the order written. ``.cursor/hooks.json`` commands run in the project
directory; ``~/.cursor/hooks.json`` commands run in ``~/.cursor``, as Cursor runs them (the
command is prefixed with ``cd ~/.cursor &&``).

A ``version`` other than 1, an unknown event, wrong types and ``type: prompt`` hooks are
errors naming file, line and key path; events without a counterpart here (``subagentStart``,
``afterAgentThought``, the Tab events) and unknown keys of a hook are warnings, skipped.
"""

from __future__ import annotations

import logging
import shlex
from typing import Any, Final

from amplifier_hooks_util.config_errors import describe_value

from ...document import EventHooks, HookEntry, HookGroup, HooksDocument
from ...parsing import Parser, foreign_tool_matcher, json_object
from ...specs import CommandHookSpec
from .protocol import CURSOR_EVENTS, CURSOR_TOOLS, user_hooks_dir

__all__ = ["parse_cursor_hooks", "parse_user_cursor_hooks"]

logger = logging.getLogger("amplifier_module_hooks_declarative")

Loc = tuple[str | int, ...]
_HOOK_KEYS: Final = frozenset({"command", "type", "timeout", "matcher", "failClosed", "loop_limit"})
_MATCHER_EVENTS: Final = frozenset({"preToolUse", "postToolUse", "postToolUseFailure"})
_DEFAULT_TIMEOUT_S: Final = 60


def parse_cursor_hooks(text: str, source: str) -> HooksDocument:
    """A project's ``.cursor/hooks.json``: commands run in the project directory."""
    return _parse(text, source, cd=None)


def parse_user_cursor_hooks(text: str, source: str) -> HooksDocument:
    """The user's ``~/.cursor/hooks.json``: commands run in ``~/.cursor``."""
    return _parse(text, source, cd=str(user_hooks_dir()))


def _parse(text: str, source: str, *, cd: str | None) -> HooksDocument:
    read = json_object(text, source, "Cursor hooks.json")
    if read is None:
        return HooksDocument(source, ())
    parser, data = read
    version = data.get("version")
    if version != 1:
        parser.fail(
            ("version",), f"expected 1 (the only hooks.json version), got {describe_value(version)}"
        )
    events = parser.tool_events(
        data.get("hooks"), lambda name, items, loc: _event(parser, name, items, loc, cd)
    )
    parser.raise_problems()
    return HooksDocument(source, tuple(events))


def _event(parser: Parser, name: str, items: Any, loc: Loc, cd: str | None) -> list[EventHooks]:
    if name not in CURSOR_EVENTS:
        parser.unknown_event(name, loc, list(CURSOR_EVENTS), "Cursor hook event")
        return []
    if parser.hook_list(items, loc) is None:
        return []
    events, fixed = CURSOR_EVENTS[name]
    groups = [
        group
        for index, item in enumerate(items)
        if (group := _group(parser, name, item, (*loc, index), fixed, cd)) is not None
    ]
    if not events:
        parser.warn(loc, f"Cursor event {name!r} has no counterpart here; its hooks are skipped")
        return []
    # the name is the steps' alias, which tells the protocol the Cursor event
    return [EventHooks(name, event, tuple(groups), parser.source) for event in events]


def _group(
    parser: Parser, event: str, item: Any, loc: Loc, fixed: str | None, cd: str | None
) -> HookGroup | None:
    entry = _hook(parser, item, loc, cd)
    if entry is None:
        return None
    matcher = fixed
    raw = item.get("matcher")
    if raw is not None and not isinstance(raw, str):
        parser.fail((*loc, "matcher"), f"expected a string, got {describe_value(raw)}")
    elif isinstance(raw, str) and event in _MATCHER_EVENTS:
        matcher = foreign_tool_matcher(raw, CURSOR_TOOLS)
    written = raw if isinstance(raw, str) and matcher != fixed else None
    return HookGroup((entry,), False, matcher, parser.label(loc), written=written)


def _hook(parser: Parser, item: Any, loc: Loc, cd: str | None) -> HookEntry | None:
    if not isinstance(item, dict):
        parser.fail(loc, f"expected a hook {{command, timeout}}, got {describe_value(item)}")
        return None
    kind = item.get("type", "command")
    if kind != "command":
        parser.fail(
            (*loc, "type"),
            f"expected 'command' (prompt hooks are not run here), got {describe_value(kind)}",
        )
        return None
    parser.ignore_unknown_keys(item, loc, _HOOK_KEYS)
    command = parser.command_string(item.get("command"), loc)
    if command is None:
        return None
    timeout = item.get("timeout", _DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        parser.fail(
            (*loc, "timeout"), f"expected seconds greater than 0, got {describe_value(timeout)}"
        )
        return None
    fail_closed = item.get("failClosed", False)
    if not isinstance(fail_closed, bool):
        parser.fail(
            (*loc, "failClosed"), f"expected true or false, got {describe_value(fail_closed)}"
        )
        return None
    spec = CommandHookSpec(
        type="command",
        command=command if cd is None else f"cd {shlex.quote(cd)} && {command}",
        timeout_ms=max(1, round(timeout * 1000)),
        on_failure="block" if fail_closed else "warn",
        protocol="cursor",
    )
    return parser.entry(spec, loc)
