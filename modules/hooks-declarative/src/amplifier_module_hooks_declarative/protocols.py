"""What a command hook's process reads and writes: one :class:`CommandProtocol` per
``protocol`` value of a command hook.

A protocol says what the process gets on stdin for an event, which variables it gets beside
the session's environment, what exit code 2 means and how its stdout on exit code 0 becomes
a :class:`~.types.Decision`. :mod:`.command` runs the process; each protocol lives in its own
module and is imported the first time a hook asks for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .types import Decision, HookContext

__all__ = ["PROTOCOL_MODULES", "CommandProtocol", "command_protocol"]


@dataclass(frozen=True, slots=True)
class CommandProtocol:
    """How one hook format talks to its processes."""

    name: str
    stdin: Callable[[HookContext, str], Mapping[str, Any]]
    """The stdin object for an event: ``stdin(ctx, project_dir)``."""
    blocked: Callable[[HookContext, str, str], Decision]
    """The decision for exit code 2: ``blocked(ctx, stderr, label)``."""
    decision: Callable[[HookContext, str, str, str, bool], Decision | str]
    """The decision in stdout on exit code 0, or what is wrong with it:
    ``decision(ctx, stdout, label, project_dir, truncated)``."""
    environment: Callable[[HookContext, str], Mapping[str, str]] = lambda ctx, project_dir: {}
    """Variables the format's scripts expect beside ``AMPLIFIER_*``: ``environment(ctx,
    project_dir)``."""


PROTOCOL_MODULES: Final[Mapping[str, str]] = {
    "amplifier": ".command",
    "claude-code": ".claude_code",
    "gemini": ".gemini",
    "cursor": ".cursor",
}
"""The module of each protocol; it defines ``PROTOCOL``."""

_loaded: dict[str, CommandProtocol] = {}


def command_protocol(name: str) -> CommandProtocol:
    """The protocol called ``name``, its module imported on first use.

    :raises KeyError: no such protocol.
    """
    found = _loaded.get(name)
    if found is None:
        module = importlib.import_module(PROTOCOL_MODULES[name], __package__)
        found = _loaded[name] = module.PROTOCOL
    return found
