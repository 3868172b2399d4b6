"""Hooks files in Claude Code's settings shape that another tool reads by its own rules
(Codex's ``.codex/hooks.json``, Factory Droid's ``.factory/hooks.json``).

:func:`read_claude_shaped` reads the file as Claude Code's settings are read (the same keys,
the same problems with file, line and key path, one unknown key costing only its own hook),
then makes it the other tool's: its command hooks speak that tool's ``protocol``, get
its default timeout when they give none, and its tool matchers are translated from its tool
names to ours (:func:`~.tool_matchers.translated_matcher`); on the events where the tool
ignores a matcher, the matcher is dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any

from .document import EventHooks, HookEntry, HookGroup, HooksDocument, Step
from .mapping import CLAUDE_EVENTS
from .parsing import json_object
from .specs import CommandHookSpec
from .tool_matchers import translated_matcher

__all__ = ["ClaudeShape", "read_claude_shaped"]

_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})


@dataclasses.dataclass(frozen=True, slots=True)
class ClaudeShape:
    """What makes a Claude-shaped file another tool's."""

    protocol: str
    """The protocol its command hooks speak (``codex``)."""
    tool_names: Mapping[str, tuple[str, ...]]
    """Our tool name -> the names the tool's matchers see it under."""
    default_timeout_s: float
    """A command hook's timeout when it gives none."""
    matcherless: Collection[str] = ()
    """Events whose matcher the tool ignores (the hooks run for every occurrence)."""
    bare_events: bool = False
    """The file may key its events at the top level, without ``hooks`` (Droid's
    ``hooks.json``): read so when it has no ``hooks`` key and a key that is an event."""


def _raw_at(data: Any, loc: tuple[str | int, ...]) -> Any:
    for key in loc:
        if isinstance(data, dict) and isinstance(key, str):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return None
    return data


def _entry(entry: HookEntry, raw: Any, shape: ClaudeShape) -> HookEntry:
    spec = entry.spec
    if not isinstance(spec, CommandHookSpec) or spec.protocol != "claude-code":
        return entry
    update: dict[str, Any] = {"protocol": shape.protocol}
    written = _raw_at(raw, entry.loc)
    if isinstance(written, dict) and "timeout" not in written:
        update["timeout_ms"] = max(1, round(shape.default_timeout_s * 1000))
    return dataclasses.replace(entry, spec=spec.model_copy(update=update))


def _step(step: Step, block: EventHooks, raw: Any, shape: ClaudeShape) -> Step:
    if not isinstance(step, HookGroup):
        return _entry(step, raw, shape)
    hooks = tuple(_entry(entry, raw, shape) for entry in step.hooks)
    matcher, written = step.matcher, step.written
    if block.name in shape.matcherless:
        matcher, written = None, None
    elif block.name in _TOOL_EVENTS and matcher is not None:
        matcher, written = translated_matcher(matcher, shape.tool_names, "claude"), matcher
    return dataclasses.replace(step, hooks=hooks, matcher=matcher, written=written)


def read_claude_shaped(text: str, source: str, what: str, shape: ClaudeShape) -> HooksDocument:
    """The hooks of a Claude-shaped file, as ``shape``'s tool runs them (``what`` names the
    format in errors).

    :raises HooksConfigError: invalid JSON or hooks, every problem with its line and key path.
    """
    read = json_object(text, source, what)
    if read is None:
        return HooksDocument(source, ())
    parser, raw = read
    bare = shape.bare_events and "hooks" not in raw and any(k in CLAUDE_EVENTS for k in raw)
    if bare:
        blocks = parser.event_map(raw, (), claude=True)
    else:
        blocks = parser.event_map(raw.get("hooks"), ("hooks",), claude=True)
    parser.raise_problems()
    events = tuple(
        dataclasses.replace(block, steps=tuple(_step(s, block, raw, shape) for s in block.steps))
        for block in blocks
    )
    return HooksDocument(source, events)
