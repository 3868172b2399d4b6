"""What a command hook's process reads and writes: one :class:`CommandProtocol` per
``protocol`` value of a command hook: the module's own (``amplifier``), and one per format of
the registry (:data:`~.registry.FORMATS_GROUP`), defined by the format's module.

A protocol says what the process gets on stdin for an event, which variables it gets beside the
session's environment, what exit code 2 means and how its stdout on exit code 0 becomes a
:class:`~.types.Decision`. :mod:`.runners.command` runs the process. The module's own
(:data:`AMPLIFIER`) is read in :mod:`.amplifier_protocol`; a format's is imported the first
time a hook asks for it: the ``PROTOCOL`` of the format's module, or of the ``protocol`` module
of its package (whose name only the installed entry point tells).

The process inherits the session's environment without the variables any tool sets for its
hooks (:mod:`.tool_identity`), so a script that branches on its caller sees only its own
tool's. What a protocol tells its hooks about the tool (Cursor's ``cursor_version``) comes from
the module config: :func:`configured_protocol`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any, Final

from .amplifier_protocol import amplifier_blocked, amplifier_decision, amplifier_input
from .registry import FORMATS_GROUP, Plugin, find_plugin, plugins
from .tool_identity import inherited_environment
from .types import Decision, HookContext

__all__ = [
    "AMPLIFIER",
    "AMPLIFIER_PROTOCOL",
    "CommandProtocol",
    "command_protocol",
    "configured_protocol",
    "protocol_names",
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


AMPLIFIER_PROTOCOL: Final = "amplifier"
"""The module's own protocol's name (:mod:`.amplifier_protocol`); every other is a format's."""

AMPLIFIER: Final = CommandProtocol(
    name=AMPLIFIER_PROTOCOL,
    stdin=lambda ctx, project_dir: amplifier_input(ctx),
    blocked=amplifier_blocked,
    decision=lambda ctx, stdout, label, project_dir, truncated: amplifier_decision(
        stdout, label=label
    ),
)
"""The module's own protocol, ``amplifier`` (:mod:`.amplifier_protocol`)."""


def protocol_names() -> tuple[str, ...]:
    """The values a command hook's ``protocol`` may take: ``amplifier``, then the name of each
    format of the registry (:data:`~.registry.FORMATS_GROUP`), in its order."""
    return (AMPLIFIER_PROTOCOL, *(plugin.name for plugin in plugins(FORMATS_GROUP)))


def _format_protocol(plugin: Plugin) -> CommandProtocol:
    """The ``PROTOCOL`` of a format's module, or of its ``protocol`` submodule (imported now,
    the first time a hook speaks it)."""
    known = plugin.memo.get("protocol")
    if isinstance(known, CommandProtocol):
        return known
    module = plugin.load()
    found = getattr(module, "PROTOCOL", None)
    if found is None and isinstance(module, ModuleType) and hasattr(module, "__path__"):
        try:
            found = getattr(import_module(f"{module.__name__}.protocol"), "PROTOCOL", None)
        except ImportError as err:
            raise plugin.fail(f"has no protocol module: {err}") from err
    if not isinstance(found, CommandProtocol):
        raise plugin.fail(
            "defines no PROTOCOL (a CommandProtocol), neither itself nor in its protocol module"
        )
    plugin.memo["protocol"] = found
    return found


def command_protocol(name: str) -> CommandProtocol:
    """The protocol called ``name``, its module imported on first use.

    :raises KeyError: no such protocol.
    :raises ~.registry.PluginError: its format cannot be loaded or defines no protocol.
    """
    if name == AMPLIFIER_PROTOCOL:
        return AMPLIFIER
    plugin = find_plugin(FORMATS_GROUP, name)
    if plugin is None:
        raise KeyError(name)
    return _format_protocol(plugin)


def configured_protocol(name: str, options: Mapping[str, Any]) -> CommandProtocol:
    """The protocol called ``name`` as ``options`` (the module config's keys) ask.

    :raises KeyError: no such protocol.
    """
    found = command_protocol(name)
    return found if found.configure is None else found.configure(options)
