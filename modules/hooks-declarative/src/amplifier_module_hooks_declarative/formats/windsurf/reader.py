"""Reading Windsurf's ``hooks.json`` into a :class:`~...document.HooksDocument` whose command
hooks speak ``protocol: windsurf``.

The file is ``{"hooks": {"<event>": [{"command": "...", "show_output": true,
"working_directory": "...", "powershell": "..."}]}}``. An event's hooks run one after the
other, in the order written. ``command`` runs in the workspace root, or in
``working_directory`` (relative to the workspace root) when it is given: the command is run as
``cd <working_directory> && <command>``. ``powershell`` is the command Cascade runs on
Windows; here (a POSIX shell) it is not run, and a hook with only ``powershell`` is skipped
with a warning. ``show_output`` is accepted: Cascade shows the hook's output in its panel;
here the output is logged.

Keys Windsurf does not document (top-level ``version``, a hook's ``timeout``) and events this
module does not know are warnings naming file, line and key path, never errors: a newer
Windsurf's file still loads, and its known hooks still guard. Wrong types (``hooks`` not an
object, a hook without a command string) are errors naming file, line and key path.
Windsurf documents no timeout; each hook gets :data:`DEFAULT_TIMEOUT_S`.
"""

from __future__ import annotations

import logging
import shlex
from functools import partial
from typing import Any, Final

from amplifier_hooks_util.config_errors import describe_value

from ...document import EventHooks, HookEntry, HookGroup, HooksDocument
from ...parsing import Parser, json_object
from ...specs import CommandHookSpec
from .protocol import WINDSURF_EVENTS

__all__ = ["DEFAULT_TIMEOUT_S", "parse_windsurf_hooks"]

logger = logging.getLogger("amplifier_module_hooks_declarative")

Loc = tuple[str | int, ...]
_HOOK_KEYS: Final = frozenset({"command", "powershell", "show_output", "working_directory"})
DEFAULT_TIMEOUT_S: Final = 60
"""The time a Windsurf hook may take here, in seconds (Windsurf documents none)."""


def parse_windsurf_hooks(text: str, source: str) -> HooksDocument:
    """A Windsurf ``hooks.json`` (system, user or workspace level: they read alike).

    :raises HooksConfigError: invalid JSON or hooks, with line and key path.
    """
    read = json_object(text, source, "Windsurf hooks.json")
    if read is None:
        return HooksDocument(source, ())
    parser, data = read
    for key in data:
        if key != "hooks":
            parser.warn((str(key),), f"key {key!r} is not read by Windsurf's hooks; ignored")
    events = parser.tool_events(data.get("hooks"), partial(_event, parser))
    parser.raise_problems()
    return HooksDocument(source, tuple(events))


def _event(parser: Parser, name: str, items: Any, loc: Loc) -> list[EventHooks]:
    if name not in WINDSURF_EVENTS:
        parser.warn(
            loc,
            f"unknown Windsurf hook event {name!r}; its hooks are skipped (known: "
            f"{', '.join(WINDSURF_EVENTS)})",
        )
        return []
    if parser.hook_list(items, loc) is None:
        return []
    events, matcher = WINDSURF_EVENTS[name]
    entries = [
        entry
        for index, item in enumerate(items)
        if (entry := _hook(parser, item, (*loc, index))) is not None
    ]
    if not events:
        parser.warn(loc, f"Windsurf event {name!r} has no counterpart here; its hooks never run")
        return []
    if not entries:
        return []
    groups = tuple(
        HookGroup((entry,), False, matcher, entry.label, written=None) for entry in entries
    )
    # the name is the steps' alias, which tells the protocol the Cascade event
    return [EventHooks(name, event, groups, parser.source) for event in events]


def _hook(parser: Parser, item: Any, loc: Loc) -> HookEntry | None:
    if not isinstance(item, dict):
        parser.fail(loc, f"expected a hook {{command, show_output}}, got {describe_value(item)}")
        return None
    parser.ignore_unknown_keys(item, loc, _HOOK_KEYS)
    for key in ("command", "powershell", "working_directory"):
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            parser.fail((*loc, key), f"expected a string, got {describe_value(value)}")
            return None
    shown = item.get("show_output")
    if shown is not None and not isinstance(shown, bool):
        parser.fail((*loc, "show_output"), f"expected true or false, got {describe_value(shown)}")
        return None
    written = item.get("command")
    if (not written or not written.strip()) and item.get("powershell"):
        parser.warn(loc, "only a powershell command (Windows): not run on this system")
        return None
    command = parser.command_string(written, loc)
    if command is None:
        return None
    directory = item.get("working_directory")
    if directory:
        command = f"cd {shlex.quote(directory)} && {command}"
    spec = CommandHookSpec(
        type="command",
        command=command,
        timeout_ms=DEFAULT_TIMEOUT_S * 1000,
        protocol="windsurf",
    )
    return parser.entry(spec, loc)
