"""Sources: user, project (Claude Code settings and .amplifier/hooks.yaml), bundle files and
inline config add up in that order, each hook labelled with where it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import (
    HookGroup,
    HooksConfigError,
    HooksDocument,
    find_sources,
    load_documents,
    parse_config,
)
from amplifier_module_hooks_declarative.discovery import (
    display_path,
    resolve_project_dir,
    resolve_user_dir,
)
from amplifier_module_hooks_declarative.trust import trust_project


def rule(tool: str) -> str:
    return f"    - {{type: matcher, match: {{tool: {tool}}}, action: block, message: {tool}}}\n"


def hooks_file(path: Path, *tools: str, event: str = "PreToolUse") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"hooks:\n  {event}:\n" + "".join(rule(t) for t in tools))
    return path


def claude_settings(path: Path, command: str, *, script: bool = True) -> Path:
    """Claude Code settings running ``command``; with ``script``, the script it names is
    created (executable) in the project directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if script and command.startswith("./"):
        made = path.parent.parent / command[2:]
        made.write_text("#!/bin/sh\nexit 0\n")
        made.chmod(0o755)
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
    }
    path.write_text(json.dumps({"permissions": {}, "hooks": hooks}, indent=2))
    return path


def labels(documents: list[HooksDocument]) -> list[str]:
    found: list[str] = []
    for document in documents:
        for block in document.events:
            for step in block.steps:
                found.extend(
                    e.label for e in (step.hooks if isinstance(step, HookGroup) else (step,))
                )
    return found


def test_all_sources_add_up_in_order_with_labels(home: Path, project: Path) -> None:
    hooks_file(home / ".amplifier" / "hooks.yaml", "UserA", "UserB")
    claude_settings(project / ".claude" / "settings.json", "./shared.sh")
    claude_settings(project / ".claude" / "settings.local.json", "./mine.sh")
    hooks_file(project / ".amplifier" / "hooks.yaml", "Project")
    hooks_file(project / "hooks" / "extra.yaml", "Extra")
    outside = hooks_file(home / "elsewhere.yaml", "Outside")
    settings = parse_config(
        {
            "files": ["hooks/extra.yaml", "~/elsewhere.yaml"],
            "hooks": {
                "PreToolUse": [{"type": "matcher", "match": {"tool": "Inline"}, "action": "ask"}]
            },
        }
    )
    user_dir = resolve_user_dir(settings)
    assert user_dir == home / ".amplifier"
    trust_project(project)
    documents = load_documents(settings, project_dir=project, user_dir=user_dir)
    assert labels(documents) == [
        "~/.amplifier/hooks.yaml:hooks.PreToolUse[0]",
        "~/.amplifier/hooks.yaml:hooks.PreToolUse[1]",
        ".claude/settings.json:hooks.PreToolUse[0].hooks[0]",
        ".claude/settings.local.json:hooks.PreToolUse[0].hooks[0]",
        ".amplifier/hooks.yaml:hooks.PreToolUse[0]",
        "hooks/extra.yaml:hooks.PreToolUse[0]",
        "~/elsewhere.yaml:hooks.PreToolUse[0]",
        "config:hooks.PreToolUse[0]",
    ]
    assert outside.is_file()


def test_include_switches(home: Path, project: Path) -> None:
    hooks_file(home / ".amplifier" / "hooks.yaml", "User")
    claude_settings(project / ".claude" / "settings.json", "./cc.sh")
    hooks_file(project / ".amplifier" / "hooks.yaml", "Project")

    def kinds(**raw: object) -> list[str]:
        settings = parse_config(raw)
        found = find_sources(settings, project_dir=project, user_dir=resolve_user_dir(settings))
        return [source.kind for source in found]

    windsurf = ["system-windsurf-hooks", "user-windsurf-hooks"]
    user = [
        "user",
        "user-gemini-settings",
        "user-cursor-hooks",
        "user-codex-hooks",
        "user-factory-hooks",
        *windsurf,
        *["user-cline-hook"] * 9,
    ]
    brought = [
        "claude-settings",
        "claude-settings",
        "gemini-settings",
        "cursor-hooks",
        "codex-hooks",
        "factory-hooks",
        "windsurf-hooks",
        *["cline-hook"] * 9,
        "project",
    ]
    assert kinds() == [*user, *brought]
    assert kinds(include_user=False) == brought
    assert kinds(include_project=False) == user
    assert kinds(claude_code=False) == [*user, *brought[2:]]
    assert kinds(
        gemini=False, cursor=False, codex=False, factory=False, windsurf=False, cline=False
    ) == [
        "user",
        "claude-settings",
        "claude-settings",
        "project",
    ]
    assert kinds(include_user=False, include_project=False, hooks={}) == ["config"]
    settings = parse_config({"claude_code": False, "include_user": False})
    trust_project(project)
    documents = load_documents(settings, project_dir=project, user_dir=home)
    assert labels(documents) == [".amplifier/hooks.yaml:hooks.PreToolUse[0]"]


def test_missing_default_files_are_simply_absent(home: Path, project: Path) -> None:
    assert load_documents(parse_config({}), project_dir=project, user_dir=home / "none") == []


def test_a_missing_listed_file_is_an_error(home: Path, project: Path) -> None:
    settings = parse_config({"files": ["hooks/missing.yaml"]})
    with pytest.raises(HooksConfigError) as caught:
        load_documents(settings, project_dir=project, user_dir=home)
    message = str(caught.value)
    assert message.startswith("hooks-declarative: hooks/missing.yaml: no such file (")
    assert str(project / "hooks" / "missing.yaml") in message


def test_an_invalid_user_file_names_it_with_line_and_key_path(home: Path, project: Path) -> None:
    path = home / ".amplifier" / "hooks.yaml"
    path.parent.mkdir()
    path.write_text(
        "hooks:\n  PreToolUse:\n    - type: matcher\n      match: {}\n      action: halt\n"
    )
    with pytest.raises(HooksConfigError) as caught:
        load_documents(parse_config({}), project_dir=project, user_dir=path.parent)
    assert str(caught.value) == (
        "hooks-declarative: ~/.amplifier/hooks.yaml:5: hooks.PreToolUse[0].action: expected one "
        "of 'block', 'allow' or 'ask', got str 'halt'"
    )


def test_unreadable_bytes_are_reported_with_their_line(home: Path, project: Path) -> None:
    path = project / ".amplifier" / "hooks.yaml"
    path.parent.mkdir()
    path.write_bytes(b"hooks:\n  PreToolUse: []\n# caf\xe9\n")
    trust_project(project)
    with pytest.raises(HooksConfigError) as caught:
        load_documents(
            parse_config({"include_user": False, "strict": True}),
            project_dir=project,
            user_dir=home,
        )
    assert str(caught.value).startswith(
        "hooks-declarative: .amplifier/hooks.yaml:3: not UTF-8 text: byte 0xe9 (fix it, then run "
        f"`amplifier-hooks trust {project}`"
    )


def test_a_broken_project_file_is_skipped_only_when_strict_is_off(
    home: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks_file(home / ".amplifier" / "hooks.yaml", "User")
    broken = project / ".amplifier" / "hooks.yaml"
    broken.parent.mkdir()
    broken.write_text("hooks:\n  PreToolUse:\n    - type: [1]\n")
    claude_settings(project / ".claude" / "settings.json", "./cc.sh")
    hooks_file(project / "bundle.yaml", "Bundle")
    raw = {"files": ["bundle.yaml"], "hooks": {"Stop": [{"type": "command", "command": "true"}]}}
    trust_project(project)
    with pytest.raises(HooksConfigError, match=r"^hooks-declarative: \.amplifier/hooks\.yaml:3: "):
        load_documents(parse_config(raw), project_dir=project, user_dir=home / ".amplifier")
    settings = parse_config({**raw, "strict": False})
    with caplog.at_level("WARNING", logger="amplifier_module_hooks_declarative"):
        documents = load_documents(settings, project_dir=project, user_dir=home / ".amplifier")
    assert labels(documents) == [
        "~/.amplifier/hooks.yaml:hooks.PreToolUse[0]",
        ".claude/settings.json:hooks.PreToolUse[0].hooks[0]",
        "bundle.yaml:hooks.PreToolUse[0]",
        "config:hooks.Stop[0]",
    ]
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning.startswith("hooks-declarative: .amplifier/hooks.yaml:3: hooks.PreToolUse[0]")
    assert (
        "the hooks of .amplifier/hooks.yaml are skipped and the guard they hold is off" in warning
    )
    assert "strict: false" in warning


@pytest.mark.parametrize("kind", ["user", "file", "config"])
def test_a_broken_source_of_the_user_or_the_bundle_always_fails(
    home: Path, project: Path, kind: str
) -> None:
    bad = "hooks:\n  PreToolUse:\n    - type: [1]\n"
    raw: dict[str, object] = {}
    if kind == "user":
        (home / ".amplifier").mkdir()
        (home / ".amplifier" / "hooks.yaml").write_text(bad)
    elif kind == "file":
        (project / "mine.yaml").write_text(bad)
        raw["files"] = ["mine.yaml"]
    else:
        raw["hooks"] = {"PreToolUse": [{"type": [1]}]}
    with pytest.raises(HooksConfigError, match=r"PreToolUse\[0\]"):
        load_documents(parse_config(raw), project_dir=project, user_dir=home / ".amplifier")


def test_a_command_whose_script_is_missing_is_an_error_with_its_line(
    home: Path, project: Path
) -> None:
    path = home / ".amplifier" / "hooks.yaml"
    path.parent.mkdir()
    path.write_text(
        "hooks:\n"
        "  PreToolUse:\n"
        "    - type: command\n"
        "      command: python ~/.amplifier/hooks/pre_tool.py\n"
        "  Stop:\n"
        '    - {type: command, command: "echo done >> ~/stop.log"}\n'
    )
    with pytest.raises(HooksConfigError) as caught:
        load_documents(parse_config({}), project_dir=project, user_dir=path.parent)
    script = home / ".amplifier" / "hooks" / "pre_tool.py"
    assert str(caught.value) == (
        "hooks-declarative: ~/.amplifier/hooks.yaml:4: hooks.PreToolUse[0].command: the script "
        f"{script} does not exist; the hook would fail on every event"
    )
    script.parent.mkdir()
    script.write_text("print('{}')\n")
    documents = load_documents(parse_config({}), project_dir=project, user_dir=path.parent)
    assert len(labels(documents)) == 2


def test_a_claude_code_script_under_the_project_dir_variable_is_checked(
    home: Path, project: Path
) -> None:
    claude_settings(
        project / ".claude" / "settings.json",
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh',
        script=False,
    )
    settings = parse_config({"include_user": False, "strict": True})
    trust_project(project)
    with pytest.raises(HooksConfigError, match=r"check\.sh does not exist"):
        load_documents(settings, project_dir=project, user_dir=home)
    check = project / ".claude" / "hooks" / "check.sh"
    check.parent.mkdir()
    check.write_text("#!/bin/sh\nexit 0\n")
    trust_project(project)  # a new hook script: trusted anew
    with pytest.raises(HooksConfigError, match=r"check\.sh is not executable \(chmod \+x "):
        load_documents(settings, project_dir=project, user_dir=home)
    check.chmod(0o755)
    assert len(labels(load_documents(settings, project_dir=project, user_dir=home))) == 1


def test_a_json_file_in_files(home: Path, project: Path) -> None:
    path = project / "hooks.json"
    hooks = {"PreToolUse": [{"type": "matcher", "match": {"tool": "Bash"}, "action": "ask"}]}
    path.write_text(json.dumps({"hooks": hooks}))
    settings = parse_config({"include_user": False, "files": ["hooks.json"]})
    assert labels(load_documents(settings, project_dir=project, user_dir=home)) == [
        "hooks.json:hooks.PreToolUse[0]"
    ]


def test_a_file_reached_twice_is_read_once(home: Path) -> None:
    hooks_file(home / ".amplifier" / "hooks.yaml", "Once")
    settings = parse_config({"files": ["~/.amplifier/hooks.yaml"]})
    documents = load_documents(settings, project_dir=home, user_dir=home / ".amplifier")
    assert labels(documents) == ["~/.amplifier/hooks.yaml:hooks.PreToolUse[0]"]  # as user file


def test_user_dir_from_config_then_environment_then_home(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert resolve_user_dir(parse_config({})) == home / ".amplifier"
    monkeypatch.setenv("AMPLIFIER_HOME", str(tmp_path / "amp"))
    assert resolve_user_dir(parse_config({})) == tmp_path / "amp"
    assert resolve_user_dir(parse_config({"user_dir": str(tmp_path / "cfg")})) == tmp_path / "cfg"
    assert resolve_user_dir(parse_config({"user_dir": "~/x"})) == home / "x"


def test_project_dir_from_session_then_config_then_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_dir, config_dir, cwd = (tmp_path / n for n in ("session", "config", "cwd"))
    for path in (session_dir, config_dir, cwd):
        path.mkdir()
    monkeypatch.chdir(cwd)
    coordinator = create_test_coordinator()
    with_dir = parse_config({"project_dir": str(config_dir)})
    assert resolve_project_dir(coordinator, parse_config({})) == cwd
    assert resolve_project_dir(coordinator, with_dir) == config_dir
    coordinator.register_capability("session.working_dir", str(session_dir))
    assert resolve_project_dir(coordinator, with_dir) == session_dir
    assert resolve_project_dir(object(), with_dir) == config_dir  # no capabilities at all


def test_relative_files_follow_the_project_dir(home: Path, project: Path) -> None:
    hooks_file(project / "team" / "hooks.yaml", "Team")
    settings = parse_config({"include_user": False, "files": ["team/hooks.yaml"]})
    (source,) = [
        s for s in find_sources(settings, project_dir=project, user_dir=home) if s.kind == "file"
    ]
    assert source.path == project / "team" / "hooks.yaml"
    assert source.required


def test_display_paths(home: Path, project: Path, tmp_path: Path) -> None:
    assert display_path(project / ".amplifier" / "hooks.yaml", project) == ".amplifier/hooks.yaml"
    assert display_path(home / ".amplifier" / "hooks.yaml", project) == "~/.amplifier/hooks.yaml"
    assert display_path(tmp_path / "x.yaml", project) == (tmp_path / "x.yaml").as_posix()
