"""``amplifier-hooks``: the command line of amplifier-hooks.

::

    amplifier-hooks run --bundle B --prompt TEXT [--prompt TEXT ...] [--script FILE]
                        [--workspace DIR] [--approve | --deny | --ask] [--resume CHECKPOINT]
                                          a session: turns, tool calls, what the hooks did
    amplifier-hooks demo                  the reference hooks in an offline session
    amplifier-hooks modules [--json]      installed modules, their distributions, import errors
    amplifier-hooks validate BUNDLE [--show | --json]
                                          check a bundle file (--show: as composed)
    amplifier-hooks install BUNDLE        pip-install every module source the bundle names
    amplifier-hooks trust [PATH]          let a project run the hook files it brings
                                          (--list [--json]: the trusted projects)
    amplifier-hooks hooks list [--bundle B] [--project DIR] [--json]
                                          every declarative hook found, and what is skipped
    amplifier-hooks emit EVENT --bundle B --data JSON [--json]
                                          fire one event through a bundle's hooks; the exit
                                          code is the decision (3 deny, 4 ask, 5 a hook failed)
    amplifier-hooks replay LOG --bundle B [--compare B2] [--fail-on-diff] [--json]
                                          a recorded session through a bundle's hooks
    amplifier-hooks events [--json]       the event catalogue
    amplifier-hooks logs show|tail [TARGET] [--workspace DIR] [--bundle B]
                                          read hooks-logging's event logs

Installed packages add commands through the ``amplifier_hooks.cli`` entry points (see
:mod:`amplifier_hooks_cli.hookspecs`); they are loaded when the command line runs, and one
that is broken is reported in one line without taking the others down.

Every error is reported as one line per problem, naming the file, line and key path where
they are known, with a non-zero exit code (1 for a failure, 2 for a bad command line, 130
when interrupted); ``-v`` adds debug logs and lets tracebacks through. ``NO_COLOR`` (any
non-empty value) turns off every style escape.
"""

from __future__ import annotations

from collections.abc import Callable

import click
from rich.markup import escape

from . import output
from .commands import BUILTIN_COMMANDS
from .plugins import Plugins, entry_point_plugins

__all__ = ["CommandLine", "build_cli", "main"]


class CommandLine(click.Group):
    """The ``amplifier-hooks`` group: the built-in commands, then the plugins' on first use."""

    def __init__(self, plugins: Callable[[], Plugins], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._plugins = plugins
        self._loaded = False

    def _load_plugins(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        plugins = self._plugins()
        plugins.add_commands(self)
        errors = output.make_console(stderr=True)
        for line in plugins.problems:
            errors.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugins()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            self._load_plugins()
        return super().get_command(ctx, cmd_name)


def _callback(verbose: bool) -> None:
    """Hooks for AI-agent sessions: run, inspect, validate and fire them."""
    restore = output.setup(verbose=verbose)
    click.get_current_context().call_on_close(restore)


def build_cli(plugins: Callable[[], Plugins] = entry_point_plugins) -> CommandLine:
    """The command line, with the plugins ``plugins()`` returns when it first needs them."""
    group = CommandLine(
        plugins,
        name="amplifier-hooks",
        callback=_callback,
        help=_callback.__doc__,
        context_settings={"help_option_names": ["-h", "--help"]},
        params=[
            click.Option(
                ["-v", "--verbose"], is_flag=True, help="Debug logs, and tracebacks on errors."
            )
        ],
    )
    group = click.version_option(package_name="amplifier-hooks")(group)
    for command in BUILTIN_COMMANDS:
        group.add_command(command)
    return group


main = build_cli()
"""The ``amplifier-hooks`` console script."""
