"""Claude Code plugins and marketplaces, installed as Claude Code's plugin reference lays them
out (copied from ``fixtures/claude-plugins``, never edited), run with ``CLAUDE_PLUGIN_ROOT``
in their environment and their command text; broken ones name the plugin, the file, the line
and the key path."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative import HooksConfigError, find_sources, parse_config
from amplifier_module_hooks_declarative.formats.claude_code.plugins import (
    discover_plugins,
    plugin_data_dir,
)
from amplifier_module_hooks_declarative.survey import survey_sources
from amplifier_module_hooks_declarative.trust import trust_project
from amplifier_module_hooks_declarative.variables import substitute

from .support import claude_plugin, emitted, mounted

FIXTURES = Path(__file__).parent / "fixtures" / "claude-plugins"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / "victim").mkdir(parents=True)
    return path.resolve()


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """Where plugins are installed: a path with a space, as macOS's Application Support."""
    path = tmp_path / "plugin cache"
    for name in ("security-guard", "acme-marketplace"):
        shutil.copytree(FIXTURES / name, path / name)
    return path.resolve()


def needs_node() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed; the prompt-context plugin's hook is a Node script")


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}, "session_id": "s-1"}


async def denies_rm_rf(project: Path, config: dict[str, Any]) -> bool:
    """Whether the module mounted with ``config`` in ``project`` denies ``rm -rf victim``."""
    result = await emitted(project, "tool:pre", bash("rm -rf victim"), config=config)
    return result.action == "deny"


async def test_the_guard_plugin_denies_rm_rf_with_its_reason(project: Path, cache: Path) -> None:
    coordinator, cleanup = await mounted(project, {"plugins": [str(cache / "security-guard")]})
    try:
        denied = await coordinator.hooks.emit("tool:pre", bash("rm -rf victim"))
        allowed = await coordinator.hooks.emit("tool:pre", bash("ls victim"))
    finally:
        await cleanup()
    assert denied.action == "deny"
    assert denied.reason == "security-guard: rm -rf is blocked; delete specific files instead"
    assert denied.source == "plugin security-guard: hooks/hooks.json:hooks.PreToolUse[0].hooks[0]"
    assert allowed.action == "continue"


def test_plugin_sources_are_labelled_by_plugin_and_file(project: Path, cache: Path) -> None:
    settings = parse_config(
        {"include_user": False, "plugins": [str(cache / "security-guard"), str(cache)]}
    )
    found = find_sources(settings, project_dir=project, user_dir=project)
    # the cache is a directory of plugins: the guard is one (the marketplace is not), and a
    # plugin reached twice is read once
    sources = [s for s in found if s.kind == "plugin"]
    assert [s.label for s in sources] == ["plugin security-guard: hooks/hooks.json"]
    (guard,) = sources
    assert dict(guard.variables) == {
        "CLAUDE_PLUGIN_ROOT": str(cache / "security-guard"),
        "CLAUDE_PLUGIN_DATA": str(plugin_data_dir("security-guard")),
    }


def test_a_marketplace_lists_its_plugins_in_order(project: Path, cache: Path) -> None:
    settings = parse_config({"plugins": [str(cache / "acme-marketplace")]})
    plugins = discover_plugins(settings, project_dir=project)
    assert [(p.id, p.skipped) for p in plugins] == [
        ("prompt-context@acme-tools", None),
        ("edit-formatter@acme-tools", None),
    ]
    context, formatter = plugins
    assert [f.label for f in context.files] == [
        "plugin prompt-context@acme-tools: .claude-plugin/plugin.json"  # hooks inline
    ]
    assert [f.label for f in formatter.files] == [
        "plugin edit-formatter@acme-tools: hooks/hooks.json"
    ]


def test_command_text_gets_the_plugin_root_quoted_either_way(project: Path, cache: Path) -> None:
    settings = parse_config({"include_user": False, "plugins": [str(cache / "acme-marketplace")]})
    survey = survey_sources(settings, project_dir=project, user_dir=project)
    commands = {hook.source: hook.detail for hook in survey.hooks}
    root = cache / "acme-marketplace" / "plugins"
    assert commands == {
        "plugin prompt-context@acme-tools: .claude-plugin/plugin.json": (
            f'node "{root}/prompt-context"/scripts/context.js'
        ),
        "plugin edit-formatter@acme-tools: hooks/hooks.json": (
            f'python3 "{root}/edit-formatter/scripts/format.py"'
        ),
    }


@pytest.mark.parametrize(
    "command",
    [
        "printf '%s\\n' ${CLAUDE_PLUGIN_ROOT}/scripts/x.py",
        "printf '%s\\n' \"${CLAUDE_PLUGIN_ROOT}\"/scripts/x.py",
        "printf '%s\\n' \"${CLAUDE_PLUGIN_ROOT}/scripts/x.py\"",
        "printf '%s\\n' $CLAUDE_PLUGIN_ROOT/scripts/x.py",
    ],
)
@pytest.mark.parametrize("root", ["/opt/plugins/guard", '/Users/A B/it\'s "here" $HOME `x`'])
def test_the_substituted_path_is_one_word_for_the_shell(command: str, root: str) -> None:
    text = substitute(command, {"CLAUDE_PLUGIN_ROOT": root}, textual=True)
    ran = subprocess.run(["/bin/sh", "-c", text], capture_output=True, text=True, check=True)
    assert ran.stdout == f"{root}/scripts/x.py\n"
    if " " not in root:  # the very text Claude Code's substitution makes
        assert text == command.replace("${CLAUDE_PLUGIN_ROOT}", root).replace(
            "$CLAUDE_PLUGIN_ROOT", root
        )


def test_single_quotes_keep_what_the_shell_would_keep() -> None:
    values = {"CLAUDE_PLUGIN_ROOT": "/p"}
    assert substitute("echo '${CLAUDE_PLUGIN_ROOT}'", values, textual=True) == "echo '/p'"
    assert substitute("echo '$CLAUDE_PLUGIN_ROOT'", values, textual=True) == (
        "echo '$CLAUDE_PLUGIN_ROOT'"
    )
    assert substitute("echo '${CLAUDE_PLUGIN_ROOT}'", values) == "echo '${CLAUDE_PLUGIN_ROOT}'"
    assert substitute("echo \\$CLAUDE_PLUGIN_ROOT $OTHER", values) == (
        "echo \\$CLAUDE_PLUGIN_ROOT $OTHER"
    )


async def test_a_node_plugin_adds_context_and_sees_its_root(project: Path, cache: Path) -> None:
    needs_node()
    coordinator, cleanup = await mounted(
        project,
        {"plugins": [str(cache / "acme-marketplace")], "disabled_plugins": ["edit-formatter"]},
    )
    try:
        result = await coordinator.hooks.emit("prompt:submit", {"prompt": "start a branch"})
        after = await coordinator.hooks.emit("tool:post", {**bash("ls"), "tool_result": {}})
    finally:
        await cleanup()
    assert result.action == "inject_context"
    assert "ACME convention: name branches feature/<ticket>." in result.context_injection
    [record] = [json.loads(line) for line in (project / ".acme" / "prompts.jsonl").open()]
    assert record == {
        "prompt": "start a branch",
        "plugin_root": str(cache / "acme-marketplace" / "plugins" / "prompt-context"),
    }
    assert after.action == "continue"
    assert not (project / "formatted.txt").exists()  # edit-formatter is disabled


async def test_enabled_plugins_false_in_claude_settings_disables_a_plugin(
    project: Path, cache: Path
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"enabledPlugins": {"edit-formatter@acme-tools": False}})
    )
    settings = parse_config({"plugins": [str(cache / "acme-marketplace")]})
    # an untrusted project's settings cannot switch off the bundle's plugins
    untrusted = {p.id: p.skipped for p in discover_plugins(settings, project_dir=project)}
    assert untrusted == {"prompt-context@acme-tools": None, "edit-formatter@acme-tools": None}
    trust_project(project)
    plugins = {p.id: p.skipped for p in discover_plugins(settings, project_dir=project)}
    assert plugins == {
        "prompt-context@acme-tools": None,
        "edit-formatter@acme-tools": (
            'disabled by "enabledPlugins": {"edit-formatter@acme-tools": false} in '
            ".claude/settings.local.json"
        ),
    }


async def test_the_formatter_runs_after_bash_when_enabled(project: Path, cache: Path) -> None:
    coordinator, cleanup = await mounted(
        project,
        {"plugins": [str(cache / "acme-marketplace")], "disabled_plugins": ["prompt-context"]},
    )
    try:
        await coordinator.hooks.emit("tool:post", {**bash("ls"), "tool_result": {}})
    finally:
        await cleanup()
    assert (project / "formatted.txt").read_text() == "formatted\n"


def test_manifest_hooks_paths_add_to_the_default_file(tmp_path: Path, project: Path) -> None:
    plugin = tmp_path / "extra"
    shutil.copytree(FIXTURES / "security-guard", plugin)
    (plugin / "config").mkdir()
    shutil.copy(plugin / "hooks" / "hooks.json", plugin / "config" / "more.json")
    manifest = {"name": "extra-guard", "hooks": ["./config/more.json", "./hooks/hooks.json"]}
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    [found] = discover_plugins(parse_config({"plugins": [str(plugin)]}), project_dir=project)
    assert [f.label for f in found.files] == [
        "plugin extra-guard: hooks/hooks.json",
        "plugin extra-guard: config/more.json",
    ]


async def test_an_unknown_key_in_a_plugin_is_a_warning_naming_plugin_file_line_and_key(
    project: Path, cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks_json = cache / "security-guard" / "hooks" / "hooks.json"
    hooks_json.write_text(hooks_json.read_text().replace('"timeout": 10', '"timout": 10'))
    with caplog.at_level(logging.WARNING):
        assert await denies_rm_rf(project, {"plugins": [str(cache / "security-guard")]})
    assert (
        "hooks-declarative: plugin security-guard: hooks/hooks.json:11: "
        "hooks.PreToolUse[0].hooks[0].timout: unknown key 'timout'"
    ) in caplog.text


async def test_a_wrong_value_in_a_plugin_still_fails_the_mount_naming_plugin_file_and_line(
    project: Path, cache: Path
) -> None:
    hooks_json = cache / "security-guard" / "hooks" / "hooks.json"
    hooks_json.write_text(hooks_json.read_text().replace('"timeout": 10', '"timeout": "ten"'))
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project, {"plugins": [str(cache / "security-guard")]})
    text = str(caught.value)
    where = "plugin security-guard: hooks/hooks.json:11: hooks.PreToolUse[0].hooks[0].timeout"
    assert where in text
    assert "disabled_plugins: ['security-guard']" in text


def _plugin(root: Path, name: str, hooks: dict[str, Any]) -> Path:
    claude_plugin(root / name)
    (root / name / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2))
    return root / name


def _command(command: str, **keys: Any) -> dict[str, Any]:
    hook = {"type": "command", "command": command, **keys}
    return {"PostToolUse": [{"matcher": "Bash", "hooks": [hook]}]}


async def test_every_refused_plugin_is_named_in_one_error_suggesting_disabled_plugins(
    project: Path, tmp_path: Path
) -> None:
    plugins = tmp_path / "plugins"
    ran = tmp_path / "good-ran"
    _plugin(plugins, "good", _command(f"touch '{ran}'"))
    _plugin(plugins, "bad-one", _command("true", timeout=-1))
    _plugin(plugins, "bad-two", _command("true", **{"async": "yes"}))
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project, {"plugins": [str(plugins)]})
    text = str(caught.value)
    assert "plugin bad-one: hooks/hooks.json:" in text
    assert "hooks.PostToolUse[0].hooks[0].timeout: expected a number of seconds" in text
    assert "plugin bad-two: hooks/hooks.json:" in text
    assert "hooks.PostToolUse[0].hooks[0].async: expected true or false" in text
    assert "2 plugin(s) refused: 'bad-one', 'bad-two'" in text
    assert "disabled_plugins: ['bad-one', 'bad-two']" in text
    coordinator, cleanup = await mounted(
        project, {"plugins": [str(plugins)], "disabled_plugins": ["bad-one", "bad-two"]}
    )
    try:
        data = {**bash("ls"), "tool_result": {"success": True, "output": ""}}
        await coordinator.hooks.emit("tool:post", data)
    finally:
        await cleanup()
    assert ran.exists()


async def test_an_async_plugin_hook_runs_in_the_background_without_holding_the_event(
    project: Path, tmp_path: Path
) -> None:
    """``"async": true`` (Claude Code's documented key): the hook starts, the event goes on
    without waiting for it, and the hook finishes on its own."""
    gate, done = tmp_path / "gate", tmp_path / "done"
    script = f"while [ ! -e '{gate}' ]; do sleep 0.02; done; touch '{done}'; exit 2"
    _plugin(tmp_path / "plugins", "notifier", _command(script, **{"async": True}))
    coordinator, cleanup = await mounted(project, {"plugins": [str(tmp_path / "plugins")]})
    try:
        data = {**bash("ls"), "tool_result": {"success": True, "output": ""}}
        result = await coordinator.hooks.emit("tool:post", data)
        assert result.action == "continue"
        assert not done.exists()  # the hook is still waiting on its gate: nothing waited for it
        gate.touch()
    finally:
        await cleanup()  # cleanup gives running async hooks their grace to finish
    assert done.exists()


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            '{\n  "name": "security-guard",\n  "hooks": "../elsewhere.json"\n}\n',
            "plugin security-guard: .claude-plugin/plugin.json:3: hooks: '../elsewhere.json' is "
            "outside the plugin",
        ),
        (
            '{\n  "name": "security-guard",\n  "hooks": ["./nope.json"]\n}\n',
            "plugin security-guard: .claude-plugin/plugin.json:3: hooks[0]: no such hooks file: "
            "./nope.json",
        ),
        (
            '{\n  "name": "security-guard",\n  "hooks": 7\n}\n',
            "plugin security-guard: .claude-plugin/plugin.json:3: hooks: expected hooks inline",
        ),
        ('{"name": "security-guard",\n', "plugin security-guard: .claude-plugin/plugin.json:2: "),
    ],
)
async def test_a_broken_manifest_names_the_plugin_line_and_key(
    project: Path, cache: Path, manifest: str, expected: str
) -> None:
    (cache / "security-guard" / ".claude-plugin" / "plugin.json").write_text(manifest)
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project, {"plugins": [str(cache / "security-guard")]})
    assert str(caught.value).startswith(f"hooks-declarative: {expected}")


async def test_a_missing_script_is_an_error_of_the_plugin(project: Path, cache: Path) -> None:
    (cache / "security-guard" / "scripts" / "guard.py").unlink()
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project, {"plugins": [str(cache / "security-guard")]})
    message = str(caught.value)
    assert message.startswith(
        "hooks-declarative: plugin security-guard: hooks/hooks.json:10: "
        "hooks.PreToolUse[0].hooks[0].command: "
    )
    assert "guard.py" in message


async def test_a_plugin_path_that_does_not_exist_names_the_config_key(project: Path) -> None:
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project, {"plugins": ["plugins/nothing-here"]})
    assert str(caught.value) == (
        "hooks-declarative: config: plugins[0]: no such directory: plugins/nothing-here "
        f"({project / 'plugins' / 'nothing-here'})"
    )


def test_remote_marketplace_sources_are_skipped_with_a_note(project: Path, cache: Path) -> None:
    market = cache / "acme-marketplace" / ".claude-plugin" / "marketplace.json"
    data = json.loads(market.read_text())
    data["plugins"].append(
        {"name": "remote-one", "source": {"source": "github", "repo": "acme/remote-one"}}
    )
    market.write_text(json.dumps(data, indent=2))
    settings = parse_config({"include_user": False, "plugins": [str(cache / "acme-marketplace")]})
    survey = survey_sources(settings, project_dir=project, user_dir=project)
    [skipped] = survey.skipped
    assert skipped.what.startswith("plugin remote-one@acme-tools ")
    assert skipped.reason.startswith(
        "its source is github (.claude-plugin/marketplace.json: plugins[2].source)"
    )
    assert not skipped.fatal


def test_relative_plugin_paths_follow_the_project_dir(project: Path) -> None:
    shutil.copytree(FIXTURES / "security-guard", project / "tools" / "security-guard")
    [plugin] = discover_plugins(
        parse_config({"plugins": ["tools/security-guard"]}), project_dir=project
    )
    assert plugin.root == project / "tools" / "security-guard"
    assert plugin.error is None


def test_hooks_without_a_counterpart_are_listed_as_skipped(project: Path, cache: Path) -> None:
    hooks_json = cache / "security-guard" / "hooks" / "hooks.json"
    data = json.loads(hooks_json.read_text())
    data["hooks"]["TeammateIdle"] = [{"hooks": [{"type": "command", "command": "true"}]}]
    hooks_json.write_text(json.dumps(data, indent=2))
    settings = parse_config({"include_user": False, "plugins": [str(cache / "security-guard")]})
    survey = survey_sources(settings, project_dir=project, user_dir=project)
    assert [(h.name, h.event) for h in survey.hooks] == [("PreToolUse", "tool:pre")]
    [skipped] = survey.skipped
    assert skipped.what == "plugin security-guard: hooks/hooks.json"
    assert "TeammateIdle" in skipped.reason
    assert "skipped" in skipped.reason


async def test_a_plugin_inside_the_project_runs_only_in_a_trusted_project(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(FIXTURES / "security-guard", project / "plugins" / "security-guard")
    config = {"plugins": ["plugins/security-guard"]}

    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        assert not await denies_rm_rf(
            project, config
        )  # a checkout's own plugin does not run untrusted
    assert "plugin security-guard" in caplog.text
    assert "not trusted" in caplog.text

    caplog.clear()
    trust_project(project)  # the project's hook files only: the plugin is not covered
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        assert not await denies_rm_rf(project, config)
    assert "plugins/security-guard in project" in caplog.text
    assert "--include plugins/security-guard" in caplog.text

    trust_project(project, include=["plugins/security-guard"])
    assert await denies_rm_rf(project, config)


async def test_a_trusted_plugin_inside_the_project_that_changes_stops_running(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The attack: a pull after the user trusted the checkout swaps the plugin's script."""
    plugin = project / "plugins" / "security-guard"
    shutil.copytree(FIXTURES / "security-guard", plugin)
    trust_project(project, include=["plugins/security-guard"])
    trust_project(project)  # trusting again keeps the plugin covered
    marker = project / "exfiltrated"
    (plugin / "scripts" / "guard.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('secrets')\n"
    )
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project, {"plugins": ["plugins/security-guard"]})
    assert "plugins/security-guard/scripts/guard.py" in str(caught.value)
    assert "changed since you trusted it" in str(caught.value)
    assert "amplifier-hooks trust" in str(caught.value)
    config = {"plugins": ["plugins/security-guard"], "strict": False}
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        coordinator, cleanup = await mounted(project, config)
        try:
            await coordinator.hooks.emit("tool:pre", bash("ls"))
        finally:
            await cleanup()
    assert not marker.exists()
    assert "plugins/security-guard/scripts/guard.py" in caplog.text
    assert "changed since you trusted it" in caplog.text


def test_a_manifest_that_is_not_utf8_is_an_error_naming_the_plugin(
    project: Path, tmp_path: Path
) -> None:
    plugin = tmp_path / "broken-plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_bytes(b'{"name": "caf\xe9"}\n')
    settings = parse_config({"plugins": [str(plugin)]})
    [found] = discover_plugins(settings, project_dir=project)
    assert found.error is not None
    assert "plugin broken-plugin: .claude-plugin/plugin.json:1: not UTF-8 text" in str(found.error)


def test_a_symlinked_plugin_in_a_directory_of_plugins_reads_its_own_files(
    project: Path, tmp_path: Path, cache: Path
) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "guard").symlink_to(cache / "security-guard", target_is_directory=True)
    settings = parse_config({"plugins": [str(shelf)]})
    [found] = discover_plugins(settings, project_dir=project)
    assert found.error is None, found.error
    assert found.root == (cache / "security-guard").resolve()
    assert found.files


async def test_a_plugin_path_in_the_project_that_links_outside_is_still_the_projects(
    project: Path, tmp_path: Path
) -> None:
    """The attack: the checkout's plugins/guard is a link to a directory outside it, so that
    the resolved plugin no longer looks like project content; its hook writes a file."""
    outside = tmp_path / "elsewhere" / "guard"
    shutil.copytree(FIXTURES / "security-guard", outside)
    marker = tmp_path / "exfiltrated"
    (outside / "scripts" / "guard.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('secrets')\n"
    )
    (project / "plugins").mkdir()
    (project / "plugins" / "guard").symlink_to(outside)
    coordinator, cleanup = await mounted(project, {"plugins": ["plugins/guard"]})
    try:
        await coordinator.hooks.emit("tool:pre", bash("ls"))
    finally:
        await cleanup()
    assert not marker.exists()


async def test_a_project_that_is_a_plugin_covers_every_hooks_file_its_manifest_names(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``plugins: [.]``: the manifest names a second hooks file outside hooks/; once trusted, a
    change to that file (or the script it runs) stops the plugin."""
    shutil.copytree(FIXTURES / "security-guard", project, dirs_exist_ok=True)
    manifest = project / ".claude-plugin" / "plugin.json"
    extra = project / "config" / "extra.json"
    extra.parent.mkdir()
    extra.write_text(json.dumps({"hooks": {}}))
    manifest.write_text(json.dumps({"name": "security-guard", "hooks": "./config/extra.json"}))
    config = {"plugins": ["."]}

    assert not await denies_rm_rf(project, config)
    trust_project(project, include=["hooks", "config/extra.json"])  # hooks/ holds hooks.json
    assert await denies_rm_rf(project, config)
    extra.write_text(json.dumps({"hooks": {"Stop": []}}))
    with pytest.raises(HooksConfigError, match=r"config/extra\.json"):
        await denies_rm_rf(project, config)
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        assert not await denies_rm_rf(project, {**config, "strict": False})
    assert "config/extra.json" in caplog.text


async def test_a_plugin_path_through_a_link_and_dot_dot_covers_what_runs(project: Path) -> None:
    """``vendor/../plugins/guard`` where ``vendor`` links to ``deep/x``: what runs is
    deep/plugins/guard, so that is what the record must cover, not plugins/guard."""
    (project / "deep" / "x").mkdir(parents=True)
    shutil.copytree(FIXTURES / "security-guard", project / "deep" / "plugins" / "guard")
    (project / "plugins" / "guard").mkdir(parents=True)  # a decoy the literal path names
    (project / "vendor").symlink_to(project / "deep" / "x")
    config = {"plugins": ["vendor/../plugins/guard"]}
    [source] = [
        s
        for s in find_sources(parse_config(config), project_dir=project, user_dir=project)
        if s.kind == "project-plugin"
    ]
    assert source.covers == project / "deep" / "plugins" / "guard"
    trust_project(project, include=["plugins/guard"])
    assert not await denies_rm_rf(project, config)
    trust_project(project, include=["deep/plugins/guard"])
    assert await denies_rm_rf(project, config)


async def test_a_plugin_keeps_data_in_its_claude_plugin_data_directory_across_sessions(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``${CLAUDE_PLUGIN_DATA}``: ``plugins/data/<id>/`` in the state directory, in the text
    and the environment of the plugin's commands, and still there in the next session."""
    state = tmp_path / "state home"
    monkeypatch.setenv("AMPLIFIER_HOME", str(state))
    script = 'echo run >> "${CLAUDE_PLUGIN_DATA}/runs"; echo "$CLAUDE_PLUGIN_DATA" > "$1"'
    seen = tmp_path / "seen"
    _plugin(tmp_path / "plugins", "counter", _command(f"sh -c '{script}' sh '{seen}'"))
    data = {**bash("ls"), "tool_result": {"success": True, "output": ""}}
    for _session in range(2):
        coordinator, cleanup = await mounted(project, {"plugins": [str(tmp_path / "plugins")]})
        try:
            await coordinator.hooks.emit("tool:post", data)
        finally:
            await cleanup()
    directory = state.resolve() / "plugins" / "data" / "counter"
    assert (directory / "runs").read_text() == "run\nrun\n"
    assert seen.read_text().strip() == str(directory)


async def test_a_plugins_mcp_tool_hook_without_its_server_warns_and_its_other_hooks_run(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ran = tmp_path / "ran"
    mcp = {"type": "mcp_tool", "server": "audit", "tool": "record"}
    hooks = {
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [mcp, {"type": "command", "command": f"touch '{ran}'"}]}
        ]
    }
    _plugin(tmp_path / "plugins", "mixed", hooks)
    with caplog.at_level(logging.WARNING):
        coordinator, cleanup = await mounted(project, {"plugins": [str(tmp_path / "plugins")]})
        try:
            data = {**bash("ls"), "tool_result": {"success": True, "output": ""}}
            await coordinator.hooks.emit("tool:post", data)
        finally:
            await cleanup()
    assert ran.exists()
    assert (
        "MCP tool 'record' of server 'audit' is not connected (no tool mcp__audit__record "
        "mounted; MCP servers connected: none); continuing (on_failure: warn)"
    ) in caplog.text
