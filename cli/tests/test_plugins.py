"""Commands from plugins: added when the command line needs them, a broken one costs only itself.

Every test builds its own plugins in process (or reads a test-only entry-point group from a
distribution it writes), never the plugins installed on the machine.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import click
import pytest
from amplifier_hooks_cli.hookspecs import hookimpl
from amplifier_hooks_cli.main import build_cli
from amplifier_hooks_cli.plugins import Plugins, entry_point_plugins
from click.testing import CliRunner, Result

TEST_GROUP = "amplifier_hooks.cli.tests"


def hello_plugin() -> SimpleNamespace:
    @hookimpl
    def register_commands(cli: click.Group) -> None:
        @cli.command()
        @click.argument("name")
        def hello(name: str) -> None:
            """Greet NAME."""
            click.echo(f"hello {name}")

    return SimpleNamespace(register_commands=register_commands)


def failing_plugin() -> SimpleNamespace:
    @hookimpl
    def register_commands(cli: click.Group) -> None:
        @cli.command()
        def half() -> None:
            """Added before the plugin fails."""

        raise RuntimeError("the plugin's config file is missing")

    return SimpleNamespace(register_commands=register_commands)


def greedy_plugin() -> SimpleNamespace:
    @hookimpl
    def register_commands(cli: click.Group) -> None:
        @cli.command(name="run")
        def hijack() -> None:
            click.echo("not the real run")

        @cli.command()
        def extra() -> None:
            click.echo("extra ran")

    return SimpleNamespace(register_commands=register_commands)


def plugins_of(**named: object) -> Plugins:
    plugins = Plugins()
    for name, plugin in named.items():
        plugins.register(plugin, name)
    return plugins


def invoke(cli: click.Group, *args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env={"COLUMNS": "200"})


def test_a_plugin_command_is_listed_and_runs() -> None:
    cli = build_cli(lambda: plugins_of(hello=hello_plugin()))
    listed = invoke(cli, "--help")
    assert listed.exit_code == 0
    assert "hello" in listed.stdout
    assert "Greet NAME." in listed.stdout
    ran = invoke(cli, "hello", "world")
    assert (ran.exit_code, ran.stdout, ran.stderr) == (0, "hello world\n", "")


def test_plugins_are_not_loaded_for_a_built_in_command() -> None:
    calls: list[str] = []

    def plugins() -> Plugins:
        calls.append("loaded")
        return plugins_of(hello=hello_plugin())

    cli = build_cli(plugins)
    assert invoke(cli, "events").exit_code == 0
    assert calls == []
    assert invoke(cli, "hello", "x").stdout == "hello x\n"
    assert calls == ["loaded"]


def test_a_plugin_that_fails_to_register_costs_only_its_own_commands() -> None:
    cli = build_cli(lambda: plugins_of(broken=failing_plugin(), hello=hello_plugin()))
    result = invoke(cli, "--help")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "warning: plugin 'broken': register_commands failed: RuntimeError: the plugin's config "
        "file is missing"
    ]
    assert "hello" in result.stdout
    assert "half" not in result.stdout
    assert invoke(cli, "hello", "again").stdout == "hello again\n"


def test_a_plugin_cannot_take_a_built_in_name() -> None:
    cli = build_cli(lambda: plugins_of(greedy=greedy_plugin()))
    result = invoke(cli, "extra")
    assert result.stdout == "extra ran\n"
    assert result.stderr.splitlines() == [
        "warning: plugin 'greedy': the command name 'run' is taken; its command is left out"
    ]
    run = invoke(cli, "run", "--prompt", "hi")
    assert run.exit_code == 2
    assert "no model to talk to" in run.stderr  # the built-in run answered


def test_a_plugin_with_a_wrong_hook_signature_is_refused() -> None:
    @hookimpl
    def register_commands(cli: click.Group, colour: str) -> None:
        raise AssertionError("never called")

    cli = build_cli(lambda: plugins_of(odd=SimpleNamespace(register_commands=register_commands)))
    result = invoke(cli, "--help")
    assert result.exit_code == 0
    [line] = result.stderr.splitlines()
    assert line.startswith("warning: plugin 'odd' is not a valid plugin: PluginValidationError:")
    assert "colour" in line


def _distribution(site: Path, entry_points: str) -> None:
    package = site / "cli_plugins_under_test"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "good.py").write_text(
        textwrap.dedent(
            """
            import click
            from amplifier_hooks_cli.hookspecs import hookimpl

            @hookimpl
            def register_commands(cli):
                @cli.command()
                def good():
                    click.echo("good plugin ran")
            """
        )
    )
    (package / "broken.py").write_text("import os\nimport not_a_module_anywhere\n")
    dist = site / "cli_plugins_under_test-1.2.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: cli-plugins-under-test\nVersion: 1.2.0\n"
    )
    (dist / "entry_points.txt").write_text(f"[{TEST_GROUP}]\n{entry_points}")


def test_a_plugin_that_does_not_import_is_named_with_its_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _distribution(
        tmp_path,
        "broken = cli_plugins_under_test.broken\ngood = cli_plugins_under_test.good\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cli = build_cli(lambda: entry_point_plugins(TEST_GROUP))
    result = invoke(cli, "good")
    assert result.exit_code == 0
    assert result.stdout == "good plugin ran\n"
    assert result.stderr.splitlines() == [
        "warning: plugin entry point 'broken = cli_plugins_under_test.broken' (distribution "
        "cli-plugins-under-test 1.2.0) does not load: ModuleNotFoundError: No module named "
        "'not_a_module_anywhere'"
    ]
    assert invoke(cli, "events").exit_code == 0  # the built-ins are untouched
