"""``validate`` on a bundle made of includes: each mistake is located in the file that wrote
it, and ``--show`` prints the composed bundle."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import yaml
from amplifier_hooks_cli.main import main
from click.testing import CliRunner, Result

LOADER_ENV = ("AMPLIFIER_MODULES_ALLOW", "AMPLIFIER_MODULES_DENY", "AMPLIFIER_MODULES_STRICT")
WIDE: dict[str, str | None] = {"COLUMNS": "200", **dict.fromkeys(LOADER_ENV)}


def invoke(*args: str, cwd: Path) -> Result:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), env=WIDE, catch_exceptions=False)
    finally:
        os.chdir(previous)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_a_config_mistake_in_an_included_file_is_located_there(tmp_path: Path) -> None:
    base = write(
        tmp_path / "behaviors" / "base.yaml",
        """
        bundle: {name: base}
        hooks:
          - module: hooks-logging
          - module: hooks-approval
            config:
              rules: {bash: ask}
        """,
    )
    top = write(
        tmp_path / "bundle.yaml",
        """
        bundle: {name: top}
        includes:
          - bundle: ./behaviors/base.yaml
        hooks:
          - module: hooks-approval
            config:
              default_action: deny
          - module: hooks-todo-reminder
            config:
              event: provider:requets
        """,
    )
    result = invoke("validate", "bundle.yaml", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    lines = result.stderr.splitlines()
    assert (
        f"error: {base.resolve()}:6: hooks[1].config.rules: expected a list, got a mapping" in lines
    )
    assert any(
        line.startswith("error: bundle.yaml:10: hooks[1].config.event: expected an event")
        for line in lines
    ), lines
    assert top.is_file()


def test_show_prints_the_composed_bundle_and_where_each_entry_was_written(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "behaviors" / "base.yaml",
        """
        bundle: {name: base}
        session:
          injection_size_limit: 100
        hooks:
          - module: hooks-logging
            config: {level: info}
        """,
    )
    write(
        tmp_path / "bundle.yaml",
        """
        bundle: {name: top}
        includes:
          - ./behaviors/base.yaml
        session:
          injection_budget_per_turn: 10
        hooks:
          - module: hooks-logging
            config: {level: debug}
        """,
    )
    result = invoke("validate", "--show", "bundle.yaml", cwd=tmp_path)
    shown = yaml.safe_load(result.stdout.split("\n# composed from")[0])
    assert shown["session"] == {"injection_size_limit": 100, "injection_budget_per_turn": 10}
    assert shown["hooks"] == [{"module": "hooks-logging", "config": {"level": "debug"}}]
    base = (tmp_path / "behaviors" / "base.yaml").resolve()
    assert f"# composed from: {base}, bundle.yaml" in result.stdout
    assert (
        f"# hooks.hooks-logging: {base}:5, {(tmp_path / 'bundle.yaml').resolve()}:7"
        in result.stdout
    )


def test_a_missing_git_source_names_the_install_command_unless_optional(tmp_path: Path) -> None:
    source = f"git+{(tmp_path / 'repo').as_uri()}@v1#subdirectory=modules/hooks-far"
    write(
        tmp_path / "behaviors" / "far.yaml",
        f"hooks:\n  - module: hooks-far\n    source: {source}\n",
    )
    write(tmp_path / "bundle.yaml", "includes:\n  - ./behaviors/far.yaml\n")
    result = invoke("validate", "bundle.yaml", cwd=tmp_path)
    assert result.exit_code == 1
    far = (tmp_path / "behaviors" / "far.yaml").resolve()
    assert result.stderr.splitlines() == [
        f"error: {far}:2: hooks[0].module: module 'hooks-far' is not installed from its "
        f"source {source}",
        "error: install the missing sources with: amplifier-hooks install bundle.yaml",
    ]
    write(
        tmp_path / "bundle.yaml",
        "includes:\n  - ./behaviors/far.yaml\nhooks:\n  - module: hooks-far\n    optional: true\n",
    )
    result = invoke("validate", "bundle.yaml", cwd=tmp_path)
    assert "install the missing sources" not in result.stderr
    assert "the module is optional: sessions run without it" in " ".join(result.stderr.split())


def test_emit_runs_an_included_module_with_the_including_files_config(tmp_path: Path) -> None:
    write(
        tmp_path / "behaviors" / "mods" / "amplifier_module_hooks_deny" / "__init__.py",
        """
        from amplifier_core import HookResult


        async def mount(coordinator, config):
            async def handler(event, data):
                return HookResult(action="deny", reason=config["reason"])

            return coordinator.hooks.register("tool:pre", handler, name="hooks-deny")
        """,
    )
    write(
        tmp_path / "behaviors" / "deny.yaml",
        "hooks:\n  - module: hooks-deny\n    source: ./mods\n    config: {reason: behavior}\n",
    )
    write(
        tmp_path / "bundle.yaml",
        "includes:\n  - bundle: ./behaviors/deny.yaml\n"
        "hooks:\n  - module: hooks-deny\n    config: {reason: overridden}\n",
    )
    data = '{"tool_name": "bash", "tool_input": {"command": "ls"}}'
    result = invoke("emit", "tool:pre", "--bundle", "bundle.yaml", "--data", data, cwd=tmp_path)
    assert result.exit_code == 3, result.output  # the included hook denied
    assert '"reason": "overridden"' in result.stdout
    assert '"action": "deny"' in result.stdout
