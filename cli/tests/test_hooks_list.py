"""``amplifier-hooks hooks list``: every declarative hook of a real project and bundle (Claude
Code settings, hook-shell directories, plugins and a marketplace), from which file or plugin,
for which event and matcher, and every source or hook left out with the reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.trust import trust_project

from .test_cli import ROOT, invoke

FIXTURES = ROOT / "modules" / "hooks-declarative" / "tests" / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with Claude Code settings and a hook-shell hook, and a broken hook-shell
    file."""
    path = (tmp_path / "project").resolve()
    hooks_dir = path / ".amplifier" / "hooks"
    hooks_dir.mkdir(parents=True)
    shutil.copytree(FIXTURES / "hook-shell" / "bash-logger", hooks_dir / "bash-logger")
    (hooks_dir / "broken").mkdir()
    (hooks_dir / "broken" / "hooks.json").write_text('{"hooks": {"PreToolUze": []}}\n')
    settings = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
            "TeammateIdle": [{"hooks": [{"type": "command", "command": "echo idle"}]}],
        }
    }
    (path / ".claude").mkdir()
    (path / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    return path


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    path = tmp_path / "plugins"
    shutil.copytree(FIXTURES / "claude-plugins", path)
    return path.resolve()


def bundle_file(tmp_path: Path, config: dict[str, Any]) -> Path:
    path = tmp_path / "bundle.yaml"
    entry = {"module": "hooks-declarative", "config": config}
    path.write_text(json.dumps({"bundle": {"name": "listing"}, "hooks": [entry]}, indent=2))
    return path


def listed(*args: str) -> list[dict[str, Any]]:
    result = invoke("hooks", "list", "--json", *args)
    assert result.exit_code == 0, result.output
    data: list[dict[str, Any]] = json.loads(result.output)
    return data


def test_every_hook_and_every_skipped_item_of_a_bundle(
    tmp_path: Path, project: Path, plugins: Path
) -> None:
    trust_project(project)
    config = {
        "plugins": [str(plugins / "security-guard"), str(plugins / "acme-marketplace")],
        "disabled_plugins": ["edit-formatter"],
    }
    bundle = bundle_file(tmp_path, config)
    [survey] = listed("--bundle", str(bundle), "--project", str(project))
    assert survey["module"] == f"{bundle}: hooks[0]"
    assert survey["project_dir"] == str(project)
    rows = [(h["source"], h["name"], h["event"], h["matcher"], h["type"]) for h in survey["hooks"]]
    assert rows == [
        (".claude/settings.json", "UserPromptSubmit", "prompt:submit", None, "command"),
        (
            ".amplifier/hooks/bash-logger/hooks.json",
            "PostToolUse",
            "tool:post",
            "Bash",
            "command",
        ),
        ("plugin security-guard: hooks/hooks.json", "PreToolUse", "tool:pre", "Bash", "command"),
        (
            "plugin prompt-context@acme-tools: .claude-plugin/plugin.json",
            "UserPromptSubmit",
            "prompt:submit",
            None,
            "command",
        ),
    ]
    guard = survey["hooks"][2]
    assert guard["detail"] == f"python3 {plugins}/security-guard/scripts/guard.py"
    assert guard["label"] == "plugin security-guard: hooks/hooks.json:hooks.PreToolUse[0].hooks[0]"
    skipped = {item["what"]: item for item in survey["skipped"]}
    assert set(skipped) == {
        "plugin edit-formatter@acme-tools ("
        + f"{plugins}/acme-marketplace/plugins/edit-formatter)",
        ".claude/settings.json",
        ".amplifier/hooks/broken/hooks.json",
    }
    formatter = skipped[
        f"plugin edit-formatter@acme-tools ({plugins}/acme-marketplace/plugins/edit-formatter)"
    ]
    assert formatter["reason"].startswith("disabled by disabled_plugins ('edit-formatter')")
    assert "TeammateIdle" in skipped[".claude/settings.json"]["reason"]
    broken = skipped[".amplifier/hooks/broken/hooks.json"]
    assert broken["reason"].startswith(
        ".amplifier/hooks/broken/hooks.json:1: hooks.PreToolUze: unknown Claude Code event"
    )
    assert broken["fatal"] is True  # a trusted project's broken file stops a session


def test_the_table_names_sources_events_and_reasons(
    tmp_path: Path, project: Path, plugins: Path
) -> None:
    bundle = bundle_file(tmp_path, {"plugins": [str(plugins / "security-guard")]})
    result = invoke("hooks", "list", "--bundle", str(bundle), "--project", str(project))
    assert result.exit_code == 0, result.output
    text = result.output
    assert "plugin security-guard: hooks/hooks.json" in text
    assert "PreToolUse (tool:pre)" in text
    assert "skipped" in text
    # the project is not trusted: its files are listed as skipped, with the way to trust it
    assert ".amplifier/hooks/bash-logger/hooks.json" in text
    assert "is not trusted" in text


def test_without_a_bundle_the_default_sources_are_listed(project: Path) -> None:
    trust_project(project)
    [survey] = listed("--project", str(project))
    assert survey["module"] == "default sources"
    assert [h["source"] for h in survey["hooks"]] == [
        ".claude/settings.json",
        ".amplifier/hooks/bash-logger/hooks.json",
    ]


def test_a_broken_plugin_is_listed_as_stopping_the_session(
    tmp_path: Path, project: Path, plugins: Path
) -> None:
    (plugins / "security-guard" / ".claude-plugin" / "plugin.json").write_text("{\n  nope\n")
    bundle = bundle_file(tmp_path, {"plugins": [str(plugins / "security-guard")]})
    [survey] = listed("--bundle", str(bundle), "--project", str(project))
    [item] = [s for s in survey["skipped"] if s["what"].startswith("plugin ")]
    assert item["what"] == "plugin security-guard"
    assert item["reason"].startswith(
        "plugin security-guard: .claude-plugin/plugin.json:2: invalid JSON"
    )
    assert item["fatal"] is True
    table = invoke("hooks", "list", "--bundle", str(bundle), "--project", str(project))
    assert "stops the session:" in table.output


def test_a_bundle_without_hook_modules_is_an_error(tmp_path: Path, project: Path) -> None:
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text("bundle: {name: empty}\n")
    result = invoke("hooks", "list", "--bundle", str(bundle), "--project", str(project))
    assert result.exit_code == 1
    assert f"{bundle}: the bundle mounts no hook module" in result.output


def test_a_bundle_without_hooks_declarative_lists_its_other_modules(
    tmp_path: Path, project: Path
) -> None:
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text("hooks:\n  - module: hooks-logging\n")
    result = invoke("hooks", "list", "--bundle", str(bundle), "--project", str(project))
    assert result.exit_code == 0, result.output
    assert "module hooks-logging" in result.output


def test_gemini_extensions_are_listed_and_a_disabled_one_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two extensions as ``gemini extensions install`` lays them out; ``gemini extensions
    disable notify`` switched one off."""
    home = (tmp_path / "home").resolve()
    monkeypatch.setenv("HOME", str(home))
    project = home / "src" / "app"
    project.mkdir(parents=True)
    extensions = home / ".gemini" / "extensions"
    for name, event in (("guard", "BeforeTool"), ("notify", "AfterAgent")):
        root = extensions / name
        (root / "hooks").mkdir(parents=True)
        (root / "gemini-extension.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
        (root / ".gemini-extension-install.json").write_text(
            json.dumps({"source": f"https://github.com/acme/{name}", "type": "git"})
        )
        hook = {"type": "command", "command": "echo ${extensionPath}${/}run"}
        (root / "hooks" / "hooks.json").write_text(
            json.dumps({"hooks": {event: [{"hooks": [hook]}]}})
        )
    (extensions / "extension-enablement.json").write_text(
        json.dumps({"notify": {"overrides": [f"!{home}/*"]}})
    )
    [survey] = listed("--project", str(project))
    [hook] = [h for h in survey["hooks"] if h["source"].startswith("gemini extension")]
    assert hook["source"] == "gemini extension guard: hooks/hooks.json"
    assert (hook["name"], hook["event"]) == ("BeforeTool", "tool:pre")
    assert hook["detail"] == f"echo {extensions / 'guard'}/run"
    assert {
        "what": "gemini extension notify: hooks/hooks.json",
        "reason": f"disabled for {project} by '!{home}/*' in extension-enablement.json",
        "fatal": False,
    } in survey["skipped"]
