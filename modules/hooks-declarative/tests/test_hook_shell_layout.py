"""hook-shell's layout: ``.amplifier/hooks/hooks.json`` and ``.amplifier/hooks/<name>/hooks.json``
of the project (and of the user directory), installed as hook-shell's README says (``cp -r``
the hook's directory, ``chmod +x`` its script), run with ``AMPLIFIER_HOOKS_DIR``; the project's
only in a trusted project."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import (
    CommandHookSpec,
    HookGroup,
    HooksConfigError,
    find_sources,
    load_documents,
    mount,
    parse_config,
)
from amplifier_module_hooks_declarative.survey import survey_sources
from amplifier_module_hooks_declarative.trust import trust_project

FIXTURES = Path(__file__).parent / "fixtures" / "hook-shell"

QUICK_START = {  # hook-shell README, "Create Your First Hook"
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo 'Bash command detected' >&2 && exit 0",
                    }
                ],
            }
        ]
    }
}


@pytest.fixture
def user_dir(amplifier_home: Path) -> Path:
    return amplifier_home.resolve()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose path has a space, as many do."""
    path = tmp_path / "my project"
    path.mkdir()
    return path.resolve()


def install(project: Path, name: str = "bash-logger") -> Path:
    """``cp -r examples/hooks/<name> .amplifier/hooks/`` and ``chmod +x`` its script."""
    hooks_dir = project / ".amplifier" / "hooks"
    hooks_dir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(FIXTURES / name, hooks_dir / name)
    for script in (hooks_dir / name).glob("*.sh"):
        script.chmod(0o755)
    return hooks_dir


def write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


def probe(target: str) -> dict[str, Any]:
    """A hook-shell file whose SessionStart hook writes its environment's hook dirs."""
    command = f'printf \'%s|%s\' "$AMPLIFIER_HOOKS_DIR" "$AMPLIFIER_PROJECT_DIR" > {target}'
    return {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}}


async def mounted(project: Path, config: dict[str, Any] | None = None) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, config or {})
    return coordinator, cleanup


def test_the_root_file_comes_first_then_each_directory_in_the_file_systems_order(
    project: Path, user_dir: Path
) -> None:
    hooks_dir = install(project)
    write(hooks_dir / "hooks.json", QUICK_START)
    write(hooks_dir / "auto-formatter" / "hooks.json", QUICK_START)
    (hooks_dir / "scripts-only").mkdir()  # a directory without hooks.json is not a hook
    settings = parse_config({"include_user": False})
    sources = [
        s
        for s in find_sources(settings, project_dir=project, user_dir=user_dir)
        if s.kind == "hook-shell"
    ]
    listed = [p.name for p in hooks_dir.iterdir() if (p / "hooks.json").exists()]
    assert [s.label for s in sources] == [
        ".amplifier/hooks/hooks.json",
        *(f".amplifier/hooks/{name}/hooks.json" for name in listed),
    ]
    assert {dict(s.variables)["AMPLIFIER_HOOKS_DIR"] for s in sources} == {str(hooks_dir)}


async def test_the_bash_logger_logs_each_command_in_a_trusted_project(project: Path) -> None:
    install(project)
    trust_project(project)
    coordinator, cleanup = await mounted(project)
    try:
        for command in ("ls -la", "git status"):
            data = {"tool_name": "bash", "tool_input": {"command": command}, "tool_result": {}}
            result = await coordinator.hooks.emit("tool:post", data)
            assert result.action == "continue"
    finally:
        await cleanup()
    assert (project / "bash-commands.log").read_text() == "ls -la\ngit status\n"


def shell_hook(event: str, command: str) -> dict[str, Any]:
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    return {"hooks": {event: [group]}}


async def test_the_first_injected_context_ends_the_later_hook_shell_groups(
    project: Path, user_dir: Path
) -> None:
    """hook-shell's bridge returns the first injection: the later hook-shell groups do not
    run; a Claude Code settings hook of the same event still does."""
    hooks_dir = project / ".amplifier" / "hooks"
    inject = """cat > /dev/null; echo '{"contextInjection": "lint: 2 issues"}'"""
    write(hooks_dir / "a-linter" / "hooks.json", shell_hook("PostToolUse", inject))
    later = 'cat > /dev/null; echo later > "$CLAUDE_PROJECT_DIR/later.txt"'
    write(hooks_dir / "b-logger" / "hooks.json", shell_hook("PostToolUse", later))
    claude = 'cat > /dev/null; echo claude > "$CLAUDE_PROJECT_DIR/claude.txt"'
    write(project / ".claude" / "settings.json", shell_hook("PostToolUse", claude))
    trust_project(project)
    coordinator, cleanup = await mounted(project, {"include_user": False})
    try:
        data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_result": {}}
        result = await coordinator.hooks.emit("tool:post", data)
    finally:
        await cleanup()
    assert result.action == "inject_context"
    assert "lint: 2 issues" in (result.context_injection or "")
    assert not (project / "later.txt").exists()
    assert (project / "claude.txt").read_text() == "claude\n"


async def test_commands_get_the_hooks_dir_and_the_project_dir(
    project: Path, user_dir: Path
) -> None:
    hooks_dir = project / ".amplifier" / "hooks"
    write(hooks_dir / "env-probe" / "hooks.json", probe('"$CLAUDE_PROJECT_DIR/seen.txt"'))
    write(user_dir / "hooks" / "mine" / "hooks.json", probe('"$CLAUDE_PROJECT_DIR/user.txt"'))
    trust_project(project)
    coordinator, cleanup = await mounted(project)
    try:
        await coordinator.hooks.emit("session:start", {"session_id": "s-1"})
    finally:
        await cleanup()
    assert (project / "seen.txt").read_text() == f"{hooks_dir}|{project}"
    assert (project / "user.txt").read_text() == f"{user_dir / 'hooks'}|{project}"


def test_a_hook_without_timeout_gets_hook_shells_30_seconds(project: Path, user_dir: Path) -> None:
    hooks_dir = install(project)
    timed = json.loads(json.dumps(QUICK_START))
    timed["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 5
    write(hooks_dir / "timed" / "hooks.json", timed)
    trust_project(project)
    settings = parse_config({"include_user": False})
    documents = load_documents(settings, project_dir=project, user_dir=user_dir)
    timeouts = {}
    for document in documents:
        for block in document.events:
            for step in block.steps:
                assert isinstance(step, HookGroup)
                for entry in step.hooks:
                    assert isinstance(entry.spec, CommandHookSpec)
                    timeouts[entry.label] = entry.spec.timeout_ms
    assert timeouts == {
        ".amplifier/hooks/bash-logger/hooks.json:hooks.PostToolUse[0].hooks[0]": 30_000,
        ".amplifier/hooks/timed/hooks.json:hooks.PreToolUse[0].hooks[0]": 5_000,
    }


async def test_an_untrusted_projects_hook_shell_files_do_not_run(
    project: Path, user_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    install(project)
    with caplog.at_level(logging.WARNING):
        coordinator, cleanup = await mounted(project)
    try:
        data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "tool_result": {}}
        await coordinator.hooks.emit("tool:post", data)
    finally:
        await cleanup()
    assert not (project / "bash-commands.log").exists()
    assert ".amplifier/hooks/bash-logger/hooks.json did not run" in caplog.text
    survey = survey_sources(parse_config({}), project_dir=project, user_dir=user_dir)
    assert survey.hooks == ()
    [skipped] = survey.skipped
    assert skipped.what == ".amplifier/hooks/bash-logger/hooks.json"
    assert skipped.reason.startswith(f"project {project} is not trusted")


def test_hook_shell_false_reads_no_hooks_directory(project: Path, user_dir: Path) -> None:
    install(project)
    write(user_dir / "hooks" / "mine" / "hooks.json", QUICK_START)
    settings = parse_config({"hook_shell": False})
    kinds = {s.kind for s in find_sources(settings, project_dir=project, user_dir=user_dir)}
    assert "hook-shell" not in kinds
    assert "user-hook-shell" not in kinds


async def test_a_broken_project_file_stops_the_mount_unless_strict_is_off(
    project: Path, user_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    install(project)
    broken = project / ".amplifier" / "hooks" / "broken" / "hooks.json"
    broken.parent.mkdir()
    broken.write_text(
        '{\n  "hooks": {\n    "PreToolUse": [{"hooks": [{"type": "command"}]}]\n  }\n}\n'
    )
    trust_project(project)
    with pytest.raises(HooksConfigError) as caught:
        await mounted(project)
    assert str(caught.value).startswith(
        "hooks-declarative: .amplifier/hooks/broken/hooks.json:3: "
        "hooks.PreToolUse[0].hooks[0].command: "
    )
    with caplog.at_level(logging.WARNING):
        _, cleanup = await mounted(project, {"strict": False})
    await cleanup()
    assert "hooks-declarative: .amplifier/hooks/broken/hooks.json:3: " in caplog.text
    assert "the hooks of .amplifier/hooks/broken/hooks.json are skipped" in caplog.text
    survey = survey_sources(parse_config({}), project_dir=project, user_dir=user_dir)
    [skipped] = survey.skipped
    assert skipped.what == ".amplifier/hooks/broken/hooks.json"
    assert skipped.fatal
    assert [h.source for h in survey.hooks] == [".amplifier/hooks/bash-logger/hooks.json"]


def test_a_symlinked_hook_directory_is_not_read(
    tmp_path: Path, user_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    project = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere" / "evil"
    elsewhere.mkdir(parents=True)
    (elsewhere / "hooks.json").write_text(json.dumps(QUICK_START))
    hooks_dir = project / ".amplifier" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "evil").symlink_to(elsewhere, target_is_directory=True)
    trust_project(project)
    settings = parse_config({"include_user": False})
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        found = find_sources(settings, project_dir=project.resolve(), user_dir=user_dir)
    assert [s.kind for s in found if "hook-shell" in s.kind] == []
    assert "is a symbolic link; its hooks are not read" in caplog.text


def test_a_hook_shell_group_runs_its_hooks_in_order_unless_it_says_parallel() -> None:
    from amplifier_module_hooks_declarative.formats.hook_shell.reader import parse_hook_shell_file

    hook = {"type": "command", "command": "true"}
    text = json.dumps(
        {"hooks": {"Stop": [{"hooks": [hook, hook]}, {"parallel": True, "hooks": [hook, hook]}]}}
    )
    document = parse_hook_shell_file(text, ".amplifier/hooks/x/hooks.json")
    groups = [s for s in document.events[0].steps if isinstance(s, HookGroup)]
    assert [g.parallel for g in groups] == [False, True]
    # hook-shell's bridge runs the matching groups one after the other and returns at the
    # first deny; Claude Code runs them all at once: a hook-shell group is never joint
    assert [g.joint for g in groups] == [False, False]
