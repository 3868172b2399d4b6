"""What a command hook's process reads and writes: one :class:`CommandProtocol` per
``protocol`` value of a command hook; and the registry of the other tools' hook formats,
:data:`FORMAT_PACKAGES`, from which the protocols and the formats' hooks files both derive.

A protocol says what the process gets on stdin for an event, which variables it gets beside the
session's environment, what exit code 2 means and how its stdout on exit code 0 becomes a
:class:`~.types.Decision`. :mod:`.runners.command` runs the process; each protocol lives in its
own module and is imported the first time a hook asks for it.

The process inherits the session's environment without the variables any tool sets for its
hooks (:mod:`.tool_identity`), so a script that branches on its caller sees only its own
tool's. What a protocol tells its hooks about the tool (Cursor's ``cursor_version``) comes from
the module config: :func:`configured_protocol`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .tool_identity import inherited_environment
from .types import Decision, HookContext

__all__ = [
    "FORMAT_PACKAGES",
    "PROTOCOL_MODULES",
    "PROTOCOL_NAMES",
    "CommandProtocol",
    "command_protocol",
    "configured_protocol",
]


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
    configure: Callable[[Mapping[str, Any]], CommandProtocol] | None = None
    """This protocol as the module config asks (``configure(options)``, options such as
    ``cursor_version``); ``None``: nothing to configure."""
    quiet_failures: bool = False
    """The format's own tool lets a failed hook pass without a word (hook-shell): with the
    default ``on_failure: warn``, a timeout, a process that did not start and stdout that
    ``decision`` cannot read are logged as warnings naming the hook and shown to no one, and
    an exit code other than 0 and 2 is logged and its stdout read as on exit code 0.
    ``on_failure: block`` still blocks."""
    exit_two_blocks: bool = True
    """Exit code 2 is the format's block (``blocked``); ``False``: it is an exit code like any
    other than 0, whose stdout ``decision`` still reads (Cline honours a JSON answer whatever
    the exit code)."""

    def inherit(self, environ: Mapping[str, str]) -> dict[str, str]:
        """What a hook of this protocol inherits of ``environ``: all of it but the variables
        tools set for their hooks (:func:`~.tool_identity.inherited_environment`)."""
        return inherited_environment(environ)


FORMAT_PACKAGES: Final[Mapping[str, str]] = {
    "claude-code": ".formats.claude_code",
    "gemini": ".formats.gemini",
    "cursor": ".formats.cursor",
    "windsurf": ".formats.windsurf",
    "cline": ".formats.cline",
}
"""The registry of the other tools' hook formats, one line each: protocol name -> package.
A format's package defines ``FORMAT`` (:class:`~.source.HookFormat`: the hooks files it reads,
which :mod:`.sources` adds to every session's) and has a ``protocol`` module defining
``PROTOCOL``, imported the first time a hook speaks it."""

PROTOCOL_MODULES: Final[Mapping[str, str]] = {
    "amplifier": ".runners.command",
    **{name: f"{package}.protocol" for name, package in FORMAT_PACKAGES.items()},
    "hook-shell": ".formats.hook_shell.protocol",  # its files are read by .sources
}
"""The module of each protocol; it defines ``PROTOCOL``."""

PROTOCOL_NAMES: Final = tuple(PROTOCOL_MODULES)
"""The values a command hook's ``protocol`` may take."""

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


def configured_protocol(name: str, options: Mapping[str, Any]) -> CommandProtocol:
    """The protocol called ``name`` as ``options`` (the module config's keys) ask.

    :raises KeyError: no such protocol.
    """
    found = command_protocol(name)
    return found if found.configure is None else found.configure(options)
