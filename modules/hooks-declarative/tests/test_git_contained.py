"""Git a trusted project's hooks run never starts a program the repository's configuration
names, however that configuration changes after ``amplifier-hooks trust``: a tracked
``.gitconfig`` pulled in through ``include.path`` that gains ``core.fsmonitor`` (run by a
guard's ``git status``), a ``.githooks/pre-commit`` under ``core.hooksPath`` that changes (run
by an auto-commit hook's ``git commit``), a filter or a diff driver. Each case first runs the
same git command outside the product and sees the marker written (the route is real), then
runs the hook and sees it not written."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_testsupport.environment import isolated_git

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.trust import trust_project

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolated_git(tmp_path, monkeypatch)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=False, capture_output=True)


def project_with(tmp_path: Path, command: str) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    hook = {"type": "command", "command": command}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    (project / "a.txt").write_text("one\n")
    (project / ".gitconfig").write_text("[user]\n\tname = t\n")
    git(project, "config", "include.path", "../.gitconfig")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "one")
    return project


async def run_hook_twice(project: Path, change: Any, **config: Any) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False, **config})
    event = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "session_id": "s"}
    try:
        first = await coordinator.hooks.emit("tool:pre", event)
        assert first.action == "continue", first
        change()
        return await coordinator.hooks.emit("tool:pre", event)
    finally:
        await cleanup()


def route_is_real(project: Path, marker: Path, *args: str) -> None:
    git(project, *args)
    assert marker.exists(), f"git {' '.join(args)} does not run it: the test would be vacuous"
    marker.unlink()


CHANGES: dict[str, tuple[str, str]] = {
    # name: (what is appended to the tracked .gitconfig, the hook's git command)
    "fsmonitor": ('[core]\n\tfsmonitor = "touch {marker}; true"\n', "status"),
    "clean-filter": ('[filter "x"]\n\tclean = "touch {marker}; cat"\n', "add a.txt"),
    "textconv": ('[diff "x"]\n\ttextconv = "touch {marker}; cat"\n', "diff"),
    "external-diff": ('[diff]\n\texternal = "touch {marker}; true"\n', "diff"),
    "archive-compressor": (
        '[tar "tgz"]\n\tcommand = "touch {marker}; cat"\n',
        "archive --format=tgz -o /dev/null HEAD",
    ),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
async def test_a_tracked_included_gitconfig_that_gains_a_program_does_not_run_it(
    tmp_path: Path, name: str
) -> None:
    added, command = CHANGES[name]
    project = project_with(tmp_path, f"git {command} >/dev/null 2>&1; exit 0")
    (project / ".gitattributes").write_text("*.txt filter=x diff=x\n")
    trust_project(project)
    marker = tmp_path / "marker"

    def change() -> None:  # a git pull brings a new .gitconfig
        with (project / ".gitconfig").open("a") as stream:
            stream.write(added.format(marker=marker))
        (project / "a.txt").write_text("two\n")

    result = await run_hook_twice(project, change)
    assert not marker.exists(), f"{name}: the hook's git ran the repository's program"
    assert result.action == "continue"
    # New content, so that git must read the file again: the hook's own `git add` may have
    # left an index entry that git trusts without running the clean filter.
    (project / "a.txt").write_text("three\n")
    route_is_real(project, marker, *command.split())


async def test_a_changed_pre_commit_under_hooks_path_does_not_run_on_auto_commit(
    tmp_path: Path,
) -> None:
    project = project_with(
        tmp_path, "git add -A >/dev/null 2>&1; git commit -qm auto >/dev/null 2>&1; exit 0"
    )
    hooks = project / ".githooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit").chmod(0o755)
    git(project, "config", "core.hooksPath", ".githooks")
    trust_project(project)
    marker = tmp_path / "marker"

    def change() -> None:
        (hooks / "pre-commit").write_text(f"#!/bin/sh\ntouch {marker}\n")
        (project / "a.txt").write_text("changed\n")

    await run_hook_twice(project, change)
    assert not marker.exists(), "the auto-commit hook ran the project's pre-commit"
    (project / "a.txt").write_text("again\n")
    git(project, "add", "-A")
    route_is_real(project, marker, "commit", "-qm", "by hand")


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
async def test_a_sandboxed_guard_gets_the_same_overrides(tmp_path: Path) -> None:
    """Under ``sandbox: project`` the hook's git runs inside bubblewrap with the overrides in
    its environment: the fsmonitor a tracked ``.gitconfig`` gained does not run there either
    (the marker is in the project, which the sandbox can write)."""
    project = project_with(tmp_path, "git status >/dev/null 2>&1; exit 0")
    trust_project(project)
    marker = project / "marker"

    def change() -> None:
        with (project / ".gitconfig").open("a") as stream:
            stream.write(f'[core]\n\tfsmonitor = "touch {marker}; true"\n')

    result = await run_hook_twice(project, change, sandbox="project")
    assert not marker.exists(), "the sandboxed hook's git ran the repository's fsmonitor"
    assert result.action == "continue", result
    route_is_real(project, marker, "status")


@pytest.mark.parametrize("variable", ["HOME", "XDG_CONFIG_HOME"])
async def test_a_hook_env_that_makes_a_project_file_global_runs_nothing_of_it(
    tmp_path: Path, variable: str
) -> None:
    """A trusted hook's ``env`` points ``HOME`` (or ``XDG_CONFIG_HOME``) into the project, so
    git reads the project's ``.gitconfig`` as its *global* file; a ``git pull`` later gives
    that file ``core.fsmonitor``: the guard's ``git status`` does not run it, and the hook
    refuses (the file is trust surface). Containment alone is proved in
    ``util/tests/test_git_config_reach.py``."""
    project = project_with(tmp_path, "true")
    where = {"HOME": project, "XDG_CONFIG_HOME": project / ".config"}[variable]
    config = {"HOME": project / ".gitconfig", "XDG_CONFIG_HOME": project / ".config/git/config"}
    hook = {
        "type": "command",
        "command": "git status >/dev/null 2>&1; exit 0",
        "env": {variable: str(where)},
    }
    (project / ".amplifier").mkdir()
    (project / ".amplifier" / "hooks.yaml").write_text(
        json.dumps({"hooks": {"PreToolUse": [hook]}})
    )
    target = config[variable]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("[user]\n\tname = t\n")
    trust_project(project)
    marker = tmp_path / "marker"

    def change() -> None:
        with target.open("a") as stream:
            stream.write(f'[core]\n\tfsmonitor = "touch {marker}; true"\n')

    result = await run_hook_twice(project, change)
    assert not marker.exists(), f"the project's file read as global ({variable}) ran"
    # what the hook's env names is trust surface too: the change also revokes trust
    assert result.action == "deny", result
    assert target.relative_to(project).as_posix() in (result.reason or "")
    subprocess.run(  # noqa: ASYNC221
        ["git", "status"], cwd=project, env={**os.environ, variable: str(where)},
        capture_output=True, check=False,
    )  # fmt: skip
    assert marker.exists(), "git reads it as global and runs it: a real route"
