"""Gemini CLI extensions, laid out as ``gemini extensions install`` lays them out (the
extension's files with ``.gemini-extension-install.json`` beside them in
``~/.gemini/extensions/<name>/``), run through a mounted module with real processes:
``${extensionPath}`` and the other variables Gemini substitutes, ``extension-enablement.json``
as ``gemini extensions disable`` writes it, ``link`` installs, workspace extensions under the
project's trust, and ``hooks list``."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount, parse_config
from amplifier_module_hooks_declarative.document import HooksConfigError
from amplifier_module_hooks_declarative.formats.gemini.extensions import (
    discover_extensions,
    hydrate,
    is_enabled,
    parse_extension_hooks,
    skipped_extensions,
)
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.survey import survey_sources
from amplifier_module_hooks_declarative.trust import trust_project

GUARD = r"""import json, os, sys
event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
with open(os.path.join(sys.argv[1], "seen.jsonl"), "a") as log:
    log.write(json.dumps({"event": event, "env": {k: v for k, v in os.environ.items()
                          if k.startswith(("GEMINI_", "CLAUDE_", "CURSOR_"))}}) + "\n")
if event["tool_name"] == "run_shell_command" and "--force" in command:
    print(json.dumps({"decision": "deny", "reason": "guard: force pushes are blocked"}))
"""

HOOKS = {
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "run_shell_command",
                "hooks": [
                    {
                        "name": "force-push-guard",
                        "type": "command",
                        "command": 'python3 "${extensionPath}${/}scripts${/}guard.py" '
                        '"${extensionPath}"',
                        "timeout": 5000,
                    }
                ],
            }
        ]
    }
}


def install(extensions: Path, name: str = "guard", **metadata: Any) -> Path:
    """An extension as ``gemini extensions install https://github.com/acme/<name>`` leaves it
    (a directory with a space, as a home directory may have)."""
    root = extensions / name
    (root / "scripts").mkdir(parents=True)
    (root / "hooks").mkdir()
    (root / "gemini-extension.json").write_text(
        json.dumps({"name": name, "version": "1.2.0", "description": "blocks force pushes"})
    )
    (root / "hooks" / "hooks.json").write_text(json.dumps(HOOKS, indent=2))
    (root / "scripts" / "guard.py").write_text(GUARD)
    (root / "README.md").write_text(f"# {name}\n")
    install_metadata = {
        "source": f"https://github.com/acme/{name}",
        "type": "git",
        "autoUpdate": False,
        **metadata,
    }
    (root / ".gemini-extension-install.json").write_text(json.dumps(install_metadata, indent=2))
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = (tmp_path / "the home").resolve()
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("AMPLIFIER_HOME", raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = (tmp_path / "project").resolve()
    path.mkdir()
    return path


async def push(project: Path, **config: Any) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, config)
    try:
        return await coordinator.hooks.emit(
            "tool:pre",
            {
                "tool_name": "bash",
                "tool_input": {"command": "git push --force origin main"},
                "session_id": "s-1",
            },
        )
    finally:
        await cleanup()


def disable(home: Path, name: str, rule: str) -> None:
    """What ``gemini extensions disable <name> [--scope workspace]`` writes."""
    path = home / ".gemini" / "extensions" / "extension-enablement.json"
    path.write_text(json.dumps({name: {"overrides": [rule]}}, indent=2))


async def test_an_installed_user_extension_denies_with_its_reason(
    home: Path, project: Path
) -> None:
    root = install(home / ".gemini" / "extensions")
    result = await push(project)
    assert result.action == "deny"
    assert result.reason == "guard: force pushes are blocked"
    assert result.source == "gemini extension guard: hooks/hooks.json:hooks.BeforeTool[0].hooks[0]"
    seen = json.loads((root / "seen.jsonl").read_text())
    assert seen["event"]["hook_event_name"] == "BeforeTool"
    assert seen["event"]["tool_input"] == {"command": "git push --force origin main"}
    assert seen["env"]["GEMINI_PROJECT_DIR"] == str(project)
    assert not any(name.startswith("CURSOR_") for name in seen["env"])


async def test_a_disabled_extension_yields_no_hooks(home: Path) -> None:
    project = home / "src" / "app"  # the user scope covers the home directory and below
    project.mkdir(parents=True)
    root = install(home / ".gemini" / "extensions")
    disable(home, "guard", f"!{home}/*")  # gemini extensions disable guard (user scope)
    assert (await push(project)).action == "continue"
    assert not (root / "seen.jsonl").exists()
    assert skipped_extensions(project) == [
        (
            "gemini extension guard: hooks/hooks.json",
            f"disabled for {project} by '!{home}/*' in extension-enablement.json",
        )
    ]
    settings = parse_config({"project_dir": str(project)})
    survey = survey_sources(settings, project_dir=project, user_dir=home / ".amplifier")
    assert not [hook for hook in survey.hooks if "extension" in hook.source]


async def test_disabled_in_one_workspace_only(home: Path, project: Path, tmp_path: Path) -> None:
    install(home / ".gemini" / "extensions")
    disable(home, "guard", f"!{project}/*")  # gemini extensions disable --scope workspace
    assert (await push(project)).action == "continue"
    elsewhere = (tmp_path / "other").resolve()
    elsewhere.mkdir()
    assert (await push(elsewhere)).action == "deny"


def test_the_last_matching_enablement_rule_wins() -> None:
    rules = ["!/home/me/*", "/home/me/work/"]
    assert is_enabled(rules, Path("/home/me/play")) == (False, "!/home/me/*")
    assert is_enabled(rules, Path("/home/me/work")) == (True, "/home/me/work/")
    assert is_enabled(rules, Path("/home/me/work/sub")) == (False, "!/home/me/*")
    assert is_enabled(rules, Path("/srv")) == (True, None)
    assert is_enabled(["!/home/me.x/*"], Path("/home/meAx/p")) == (True, None)  # "." is literal


async def test_hooks_config_enabled_false_turns_extension_hooks_off(
    home: Path, project: Path
) -> None:
    install(home / ".gemini" / "extensions")
    (home / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    assert (await push(project)).action == "continue"


async def test_a_linked_extension_is_read_from_its_source(
    home: Path, project: Path, tmp_path: Path
) -> None:
    source = install(tmp_path / "src")  # gemini extensions link <source>
    linked = home / ".gemini" / "extensions" / "guard"
    linked.mkdir(parents=True)
    (linked / ".gemini-extension-install.json").write_text(
        json.dumps({"source": str(source), "type": "link"})
    )
    assert (await push(project)).action == "deny"
    assert (source / "seen.jsonl").is_file()


async def test_a_workspace_extension_runs_only_under_the_projects_trust(
    home: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    install(project / ".gemini" / "extensions")
    with caplog.at_level(logging.WARNING):
        assert (await push(project)).action == "continue"
    assert "not trusted" in caplog.text
    trust_project(project)  # the project's hook files only: the extension is not covered
    assert (await push(project)).action == "continue"
    trust_project(project, include=[".gemini/extensions/guard"])
    result = await push(project)
    assert result.action == "deny"
    assert result.source.startswith("gemini extension guard (workspace): hooks/hooks.json")


def test_every_variable_gemini_substitutes_and_only_those() -> None:
    text = '{"a": "${extensionPath}${/}x${pathSeparator}y ${workspacePath} ${HOME} ${nope}"}'
    values = {"extensionPath": 'C:\\odd "dir"', "workspacePath": "/w", "/": "/"}
    values["pathSeparator"] = "/"
    assert json.loads(hydrate(text, values)) == {"a": 'C:\\odd "dir"/x/y /w ${HOME} ${nope}'}


def test_a_broken_extension_hooks_file_names_file_line_and_key(tmp_path: Path) -> None:
    text = (
        '{\n  "hooks": {\n'
        '    "BeforeTool": [{"hooks": [{"type": "command", "command": 3}]}]\n  }\n}'
    )
    with pytest.raises(HooksConfigError) as caught:
        parse_extension_hooks(
            text,
            "gemini extension guard: hooks/hooks.json",
            extension_path="/e",
            workspace_path="/w",
        )
    message = str(caught.value)
    assert "gemini extension guard: hooks/hooks.json:3" in message
    assert "hooks.BeforeTool[0].hooks[0].command" in message


def test_extension_hooks_speak_gemini_and_list_with_their_extension(
    home: Path, project: Path
) -> None:
    root = install(home / ".gemini" / "extensions")
    (home / ".gemini" / "extensions" / "notes").mkdir()  # no gemini-extension.json: skipped
    assert [e.name for e in discover_extensions(project)] == ["guard"]
    settings = parse_config({"project_dir": str(project)})
    survey = survey_sources(settings, project_dir=project, user_dir=home / ".amplifier")
    found = [hook for hook in survey.hooks if hook.source.startswith("gemini extension")]
    assert len(found) == 1
    assert found[0].kind == "user-gemini-extension"
    assert found[0].name == "BeforeTool"
    assert found[0].detail == (f'python3 "{root}/scripts/guard.py" "{root}"')
    spec = CommandHookSpec.model_validate(
        {"type": "command", "command": found[0].detail, "protocol": "gemini"}
    )
    assert spec.protocol == "gemini"


async def test_a_workspace_extension_linked_outside_the_project_is_skipped(
    home: Path, project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source = install(tmp_path / "elsewhere")
    linked = project / ".gemini" / "extensions" / "guard"
    linked.mkdir(parents=True)
    (linked / ".gemini-extension-install.json").write_text(
        json.dumps({"source": str(source), "type": "link"})
    )
    trust_project(project, include=[".gemini/extensions/guard"])
    with caplog.at_level(logging.WARNING):
        assert (await push(project)).action == "continue"
    assert "outside the project" in caplog.text
    assert not (source / "seen.jsonl").exists()
