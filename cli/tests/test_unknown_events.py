"""``validate --mount`` reports a hook module's handler registered for an event that exists
nowhere, located in the bundle, with the register call's file and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

from amplifier_hooks_cli.main import main
from click.testing import CliRunner

TYPO = """\
async def guard(event, data):
    return None

async def mount(coordinator, config):
    coordinator.hooks.register("tool:pree", guard, name="typo-guard")
"""


def test_validate_mount_reports_a_registration_for_no_event(tmp_path: Path) -> None:
    package = tmp_path / "mods" / "hooks-typo" / "amplifier_module_hooks_typo"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(TYPO, encoding="utf-8")
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        textwrap.dedent(
            """\
            bundle: {name: typo}
            hooks:
              - module: hooks-typo
                source: ./mods/hooks-typo
            """
        ),
        encoding="utf-8",
    )
    done = CliRunner().invoke(main, ["validate", "--mount", str(bundle)], env={"COLUMNS": "300"})
    assert done.exit_code == 1, done.output
    text = " ".join(done.output.split())
    assert f"{bundle}:3" in text
    assert "module 'hooks-typo': handler 'typo-guard' is registered for 'tool:pree'" in text
    assert f"{package / '__init__.py'}:5" in text
    assert "did you mean 'tool:pre'" in text
