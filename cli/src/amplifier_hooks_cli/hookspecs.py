"""The hooks through which installed packages add to the ``amplifier-hooks`` command line.

A package contributes commands with a module (or any object) holding a ``register_commands``
implementation, declared under the ``amplifier_hooks.cli`` entry-point group::

    # my_package/cli_plugin.py
    import click
    from amplifier_hooks_cli.hookspecs import hookimpl

    @hookimpl
    def register_commands(cli: click.Group) -> None:
        @cli.command()
        def hello() -> None:
            click.echo("hello")

    # pyproject.toml
    [project.entry-points."amplifier_hooks.cli"]
    my-package = "my_package.cli_plugin"
"""

from __future__ import annotations

from typing import Final

import click
import pluggy

__all__ = ["ENTRY_POINT_GROUP", "PROJECT", "CommandSpecs", "hookimpl", "hookspec"]

PROJECT: Final = "amplifier_hooks"
"""The pluggy project name: implementations are marked with :data:`hookimpl`."""
ENTRY_POINT_GROUP: Final = "amplifier_hooks.cli"
"""The entry-point group the command line loads its plugins from."""

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class CommandSpecs:
    """The hook specifications of the command line."""

    @hookspec
    def register_commands(self, cli: click.Group) -> None:
        """Add commands (or groups of commands) to ``cli``, the ``amplifier-hooks`` group.

        A name already taken, by a built-in command or another plugin, is refused and
        reported; the plugin's other commands are kept.
        """
