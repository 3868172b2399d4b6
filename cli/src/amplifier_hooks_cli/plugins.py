"""Plugins of the command line: loaded from entry points when it runs, never fatally.

:func:`entry_point_plugins` gathers every object the ``amplifier_hooks.cli`` entry points
name into :class:`Plugins`; :meth:`Plugins.add_commands` asks each plugin for its commands. A
plugin that cannot be imported, whose ``register_commands`` raises, or that takes a name
already in use costs only its own commands: each such problem is one line naming the plugin
(its entry point and distribution) and the cause, and the command line goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import click
import pluggy

from .hookspecs import ENTRY_POINT_GROUP, PROJECT, CommandSpecs

__all__ = ["Plugins", "entry_point_plugins", "plugin_manager"]


def plugin_manager() -> pluggy.PluginManager:
    """An empty plugin manager that knows the command line's hook specifications."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(CommandSpecs)
    return manager


def _one_line(err: BaseException) -> str:
    return f"{type(err).__name__}: {' '.join(str(err).split())}"


@dataclass(slots=True)
class Plugins:
    """The plugins of one run of the command line, and what went wrong with them."""

    manager: pluggy.PluginManager = field(default_factory=plugin_manager)
    labels: dict[str, str] = field(default_factory=dict)
    """Plugin name -> how messages name it (its entry point and distribution)."""
    problems: list[str] = field(default_factory=list)

    def register(self, plugin: object, name: str, label: str | None = None) -> None:
        """Add ``plugin`` under ``name``; a plugin pluggy refuses is reported, not raised."""
        self.labels[name] = label or f"plugin {name!r}"
        try:
            self.manager.register(plugin, name=name)
        except Exception as err:  # a hook implementation that does not match the specs
            self.problems.append(f"{self.labels[name]} is not a valid plugin: {_one_line(err)}")

    def add_commands(self, cli: click.Group) -> None:
        """Let every plugin add its commands to ``cli``, one plugin at a time."""
        for impl in self.manager.hook.register_commands.get_hookimpls():
            label = self.labels.get(impl.plugin_name, f"plugin {impl.plugin_name!r}")
            before = dict(cli.commands)
            arguments = {"cli": cli}
            try:
                impl.function(**{k: v for k, v in arguments.items() if k in impl.argnames})
            except Exception as err:
                cli.commands.clear()
                cli.commands.update(before)  # none of a failed plugin's commands
                self.problems.append(f"{label}: register_commands failed: {_one_line(err)}")
                continue
            for command, taken in before.items():
                if cli.commands.get(command) is not taken:
                    cli.commands[command] = taken
                    self.problems.append(
                        f"{label}: the command name {command!r} is taken; its command is left out"
                    )


def entry_point_plugins(group: str = ENTRY_POINT_GROUP) -> Plugins:
    """:class:`Plugins` holding every plugin installed under the entry-point ``group``.

    A plugin that does not import is left out and reported in :attr:`Plugins.problems`.
    """
    import importlib_metadata

    plugins = Plugins()
    for entry_point in sorted(importlib_metadata.entry_points(group=group), key=lambda e: e.name):
        label = f"plugin entry point '{entry_point.name} = {entry_point.value}'"
        dist = entry_point.dist
        if dist is not None:
            label += f" (distribution {dist.name} {dist.version})"
        try:
            plugin = entry_point.load()
        except Exception as err:
            plugins.problems.append(f"{label} does not load: {_one_line(err)}")
            continue
        plugins.register(plugin, entry_point.name, label)
    return plugins
