"""What a newcomer sees when a bundle is wrong: ``run`` names the bundle file, the line and the
key path as ``validate`` does; plain ``validate`` says it did not mount the hook modules and how
to; a YAML indentation mistake comes with its fix."""

from __future__ import annotations

from pathlib import Path

from .test_cli import installed, no_traceback, write

PROVIDER = """\
bundle:
  name: newcomer
providers:
  - module: provider-scripted
    config:
      script: [{text: hello}]
"""

MOUNT_CHECKS_A_PATTERN = """\
import re


async def mount(coordinator, config):
    for index, rule in enumerate(config.get("rules", [])):
        try:
            re.compile(rule["pattern"])
        except re.error as err:
            raise ValueError(
                f"hooks-local-guard: config: rules[{index}].pattern: not a regular "
                f"expression ({err})"
            ) from None
"""


def _local_guard(tmp_path: Path) -> Path:
    package = tmp_path / "guard" / "amplifier_module_hooks_local_guard"
    write(package / "__init__.py", MOUNT_CHECKS_A_PATTERN)
    return package.parent


def test_run_names_the_bundle_line_of_a_wrong_config_key(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        PROVIDER + "hooks:\n  - module: hooks-logging\n    config:\n      levle: info\n",
    )
    done = installed("run", "--bundle", str(bundle), "--prompt", "hi", cwd=tmp_path)
    assert done.returncode == 1
    no_traceback(done.stdout + done.stderr)
    validated = installed("validate", str(bundle), cwd=tmp_path)
    *problems, last = done.stderr.splitlines()
    assert problems == validated.stderr.splitlines()
    assert " ".join(last.split()) == (
        "error: the session stopped before its first turn: the bundle's config has the mistakes "
        f"above (`amplifier-hooks validate {bundle}` checks it)"
    )
    assert done.stderr.splitlines()[0].startswith(
        f"error: {bundle}:10: hooks[0].config.levle: unknown key 'levle' (did you mean 'level'?)"
    )
    assert "config_errors.py" not in done.stderr


def test_run_locates_what_only_mounting_finds_and_validate_says_it_did_not_mount(
    tmp_path: Path,
) -> None:
    source = _local_guard(tmp_path)
    bundle = write(
        tmp_path / "bundle.yaml",
        PROVIDER
        + f"hooks:\n  - module: hooks-local-guard\n    source: {source}\n    config:\n"
        + "      rules:\n        - pattern: ok\n        - pattern: '(unclosed'\n",
    )
    plain = installed("validate", str(bundle), cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert (
        "not checked: mounting the hook modules (it runs their code; some settings are "
        f"checked only then): `amplifier-hooks validate --mount {bundle}` mounts them too"
    ) in " ".join(plain.stderr.split())

    mounted = installed("validate", "--mount", str(bundle), cwd=tmp_path)
    assert mounted.returncode == 1
    assert f"{bundle}:13: hooks[0].config.rules[1].pattern" in mounted.stderr

    done = installed("run", "--bundle", str(bundle), "--prompt", "hi", cwd=tmp_path)
    assert done.returncode == 1
    no_traceback(done.stdout + done.stderr)
    lines = done.stderr.splitlines()
    assert lines[0].startswith("error: session ")
    assert lines[0].endswith(
        "stopped before its first turn: a module the bundle names failed to load"
    )
    assert lines[1].startswith(
        f"error: {bundle}:13: hooks[0].config.rules[1].pattern: module 'hooks-local-guard' failed "
        "to mount: ValueError: hooks-local-guard: config: rules[1].pattern: not a regular "
        "expression (missing ), unterminated subpattern at position 0) (at "
    )
    # validate --mount says the same of it
    assert lines[1] in mounted.stderr.splitlines()
    assert "optional: true" not in done.stderr  # a guard that cannot mount is fixed, not dropped
    assert lines[2] == (
        "error: a guard that cannot mount does not run, so the session does not either: fix "
        f"what is named above (`amplifier-hooks validate --mount {bundle}` checks it)"
    )


def test_a_yaml_indentation_mistake_gets_its_fix(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "bundle:\n  name: t\nhooks:\n  - module: hooks-logging\n     config:\n      level: info\n",
    )
    for command in (["validate", str(bundle)], ["run", "--bundle", str(bundle), "--prompt", "x"]):
        done = installed(*command, cwd=tmp_path)
        assert done.returncode == 1
        assert done.stderr.splitlines() == [
            f"error: invalid bundle {bundle}:5:12: invalid YAML: mapping values are not allowed "
            "here",
            "  hint: line 5 indents 'config:' 5 spaces; to put it in the same entry as "
            "'module:' (line 4), indent it 4 spaces",
        ]
