"""The ``hook_event_name`` of an event in a format that names a child session's stop
``SubagentStop`` (Claude Code, Factory Droid and Codex)."""

from __future__ import annotations

from collections.abc import Mapping

from ...types import HookContext

__all__ = ["hook_event_name"]


def hook_event_name(ctx: HookContext, names: Mapping[str, str]) -> str:
    """The name ``names`` gives ``ctx``'s event, ``SubagentStop`` where that is ``Stop`` and the
    session is a child (or the hook was declared under ``SubagentStop``); an event ``names``
    lacks keeps the name the hook was declared under, else its own."""
    name = names.get(ctx.event)
    if name is None:
        return ctx.alias or ctx.event
    if name == "Stop" and (ctx.alias == "SubagentStop" or ctx.data.get("parent_id")):
        return "SubagentStop"
    return name
