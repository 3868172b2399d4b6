"""``amplifier-hooks validate`` finds each module config mistake before a run: the module's
``config_schema`` checks the bundle's config unmounted, and the message is located in the bundle
file (line and key path); ``--mount`` also catches what only mounting shows."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .test_cli import invoke, no_traceback, write


@pytest.mark.parametrize(
    ("hooks", "expected"),
    [
        (
            "- module: hooks-logging\n  config:\n    colour: red\n",
            ":6: hooks[0].config.colour: unknown key 'colour'; expected one of: path, level",
        ),
        (
            "- module: hooks-redaction\n  config:\n    events: 7\n",
            ":6: hooks[0].config.events: expected a list, got int 7",
        ),
        (
            "- module: hooks-status-context\n  config:\n    git_include_commits: three\n",
            ":6: hooks[0].config.git_include_commits: expected an integer, got str 'three'",
        ),
        (
            "- module: hooks-approval\n  config:\n    rules: {bash: ask}\n",
            ":6: hooks[0].config.rules: expected a list, got a mapping",
        ),
        (
            "- module: hooks-todo-reminder\n  config:\n    event: provider:requets\n",
            ":6: hooks[0].config.event: expected an event of the kernel, got 'provider:requets'; "
            "did you mean 'provider:request'?",
        ),
    ],
)
def test_a_module_config_mistake_is_located_in_the_bundle(
    tmp_path: Path, hooks: str, expected: str
) -> None:
    text = "bundle:\n  name: mistakes\nhooks:\n" + textwrap.indent(hooks, "  ")
    bundle = write(tmp_path / "bundle.yaml", text)
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {bundle}{expected}"), line
    no_traceback(result.output)


def test_declarative_hooks_are_checked_unmounted_each_mistake_on_its_line(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n"
        "  - module: hooks-declarative\n"
        "    config:\n"
        "      files: [extra.yaml]\n"
        "      hooks:\n"
        "        PreToolUze:\n"
        "          - type: matcher\n"
        "            match: {tool: 'Bash(', regex: true}\n"
        "            action: block\n"
        "        Stop:\n"
        "          - type: command\n"
        "            command: python hooks/on_stop.py\n",
    )
    write(
        tmp_path / "extra.yaml",
        "hooks:\n  PreToolUse:\n    - type: command\n      command: ./gone.sh\n",
    )
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        f"error: {bundle}:6: hooks[0].config.hooks.PreToolUze: unknown event 'PreToolUze' "
        "(did you mean 'PreToolUse'?); expected a PascalCase name (PreToolUse, PostToolUse, "
        "SessionStart, SessionStop, PromptSubmit, ResponseComplete, Error, Checkpoint, "
        "ModelSwitch, MemoryUpdate), a Claude Code name or a canonical name such as 'tool:pre'",
        f"error: {bundle}:8: hooks[0].config.hooks.PreToolUze[0].match.tool: invalid regular "
        "expression: missing ), unterminated subpattern at position 4",
        f"error: {bundle}:4: hooks[0].config.files[0]: hooks-declarative: {tmp_path / 'extra.yaml'}"
        f":4: hooks.PreToolUse[0].command: the script ./gone.sh ({tmp_path / 'gone.sh'}) does "
        "not exist; the hook would fail on every event",
    ]
    no_traceback(result.output)

    fixed = bundle.read_text().replace("PreToolUze", "PreToolUse").replace("Bash(", "Bash")
    bundle.write_text(fixed)
    (tmp_path / "gone.sh").write_text("#!/bin/sh\n")
    (tmp_path / "gone.sh").chmod(0o755)
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.stderr.splitlines() == [
        f"error: {bundle}:12: hooks[0].config.hooks.Stop[0].command: the script "
        f"hooks/on_stop.py ({tmp_path / 'hooks' / 'on_stop.py'}) does not exist; the hook "
        "would fail on every event",
    ]
    write(tmp_path / "hooks" / "on_stop.py", "print('{}')\n")
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 0, result.output


def test_runtime_module_config_is_checked_too(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "tools:\n  - module: tool-bash\n    config: {timeout: -1}\n"
        "providers:\n  - module: provider-openai\n    config: {max_tokens_param: tokens}\n",
    )
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 1
    assert sorted(result.stderr.splitlines()) == [
        f"error: {bundle}:3: tools[0].config.timeout: expected a number greater than 0, got int -1",
        f"error: {bundle}:6: providers[0].config.max_tokens_param: expected one of "
        "'max_tokens' or 'max_completion_tokens', got str 'tokens'",
    ]


def test_mount_catches_a_module_whose_mount_raises(tmp_path: Path) -> None:
    package = tmp_path / "mods" / "amplifier_module_hooks_fragile"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "def mount(coordinator, config):\n    raise RuntimeError('no database at startup')\n"
    )
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n  - module: hooks-fragile\n    source: ./mods\n",
    )
    assert invoke("validate", str(bundle), cwd=tmp_path).exit_code == 0  # no schema to check
    result = invoke("validate", "--mount", str(bundle), cwd=tmp_path)
    assert result.exit_code == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"error: {bundle}:2: hooks[0].config: module 'hooks-fragile' failed to mount: "
        "RuntimeError: no database at startup"
    ), line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hooks: &h [*h]\n", "bundle.yaml:1: hooks[0]"),
        ("hooks:\n  - " + "[" * 300 + "]" * 300 + "\n", "bundle.yaml:2:"),
        (b"hooks:\n  - module: caf\xe9\n", "bundle.yaml:2: not UTF-8 text"),
    ],
    ids=["alias cycle", "deep nesting", "not UTF-8"],
)
def test_hostile_files_get_a_located_error_never_a_hang(
    tmp_path: Path, text: str | bytes, expected: str
) -> None:
    bundle = tmp_path / "bundle.yaml"
    if isinstance(text, bytes):
        bundle.write_bytes(text)
    else:
        bundle.write_text(text, encoding="utf-8")
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 1
    assert f"{tmp_path / expected}" in result.stderr.splitlines()[0], result.stderr
    no_traceback(result.output)


def test_an_optional_module_that_is_not_installed_is_a_warning(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n  - module: hooks-nowhere\n    optional: true\n  - module: hooks-logging\n",
    )
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert f"warning: {bundle}:2: hooks[0].module: module 'hooks-nowhere' is not installed" in (
        " ".join(result.stderr.split())
    )
    assert "the module is optional: sessions run without it" in " ".join(result.stderr.split())
    bundle.write_text(bundle.read_text().replace("    optional: true\n", ""))
    assert invoke("validate", str(bundle), cwd=tmp_path).exit_code == 1


def test_plugins_are_checked_unmounted_naming_the_plugin_and_its_file(tmp_path: Path) -> None:
    bundle = write(
        tmp_path / "bundle.yaml",
        "hooks:\n"
        "  - module: hooks-declarative\n"
        "    config:\n"
        "      plugins: [plugins/guard, plugins/missing]\n",
    )
    guard = tmp_path / "plugins" / "guard"
    write(guard / ".claude-plugin" / "plugin.json", '{"name": "guard"}\n')
    write(
        guard / "hooks" / "hooks.json",
        '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [\n'
        '  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"}]}]}}\n',
    )
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 1, result.output
    checked, missing = result.stderr.splitlines()
    assert checked.startswith(f"error: {bundle}:4: hooks[0].config.plugins[0]: "), checked
    assert "plugin guard: hooks/hooks.json:2" in checked, checked
    assert "scripts/check.sh" in checked, checked
    assert "does not exist" in checked, checked
    assert missing.startswith(f"error: {bundle}:4: hooks[0].config.plugins[1]: "), missing
    assert "no such directory: plugins/missing" in missing, missing
    no_traceback(result.output)

    write(guard / "scripts" / "check.sh", "#!/bin/sh\nexit 0\n").chmod(0o755)
    bundle.write_text(bundle.read_text().replace(", plugins/missing", ""))
    result = invoke("validate", str(bundle), cwd=tmp_path)
    assert result.exit_code == 0, result.output
