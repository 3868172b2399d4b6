"""An allowed git command in a repository whose own configuration names a program git would run
(directly, or in a tracked file pulled in through ``include.path``) is asked, never allowed:
the session's shell runs it with an environment this module does not set. The user's own
configuration, and a repository without such keys, leave the built-in rules alone."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_testsupport.environment import isolated_git
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_module_hooks_approval import mount

from .support import bash

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

KEYS = (
    "core.fsmonitor",
    "core.hooksPath",
    "core.pager",
    "pager.status",
    "diff.external",
    "diff.{d}.textconv",
    "diff.{d}.command",
    "filter.{d}.clean",
    "filter.{d}.process",
    "credential.helper",
    "gpg.program",
    "core.sshCommand",
    "merge.{d}.driver",
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolated_git(tmp_path, monkeypatch)


async def decide(coordinator: Any, command: str) -> Any:
    cleanup = await mount(coordinator, {})
    try:
        return await coordinator.hooks.emit("tool:pre", bash(command))
    finally:
        cleanup()


def repository(workspace: Path) -> None:
    git(workspace, "init", "-q")
    (workspace / ".gitconfig").write_text("[user]\n\tname = x\n")
    git(workspace, "config", "include.path", "../.gitconfig")


async def test_a_clean_repository_is_still_read_without_asking(
    coordinator: Any, workspace: Path
) -> None:
    repository(workspace)
    result = await decide(coordinator, "git status")
    assert result.action == "continue", result


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    key=st.sampled_from(KEYS),
    driver=st.from_regex(r"[a-zA-Z][a-zA-Z0-9_-]{0,7}", fullmatch=True),
    tracked=st.booleans(),
    command=st.sampled_from(["git status", "git diff", "git log", "git show"]),
)
async def test_a_program_the_repository_names_makes_git_ask(
    coordinator: Any,
    tmp_path_factory: pytest.TempPathFactory,
    key: str,
    driver: str,
    tracked: bool,
    command: str,
) -> None:
    workspace = tmp_path_factory.mktemp("ws")
    coordinator.register_capability("session.working_dir", str(workspace))
    repository(workspace)
    name = key.format(d=driver)
    if tracked:  # a tracked file the repository's config includes gained the key
        section, _, variable = name.rpartition(".")
        head, _, sub = section.partition(".")
        header = f'[{head} "{sub}"]' if sub else f"[{head}]"
        with (workspace / ".gitconfig").open("a") as stream:
            stream.write(f"{header}\n\t{variable} = touch marker\n")
    else:
        git(workspace, "config", name, "touch marker")
    result = await decide(coordinator, command)
    assert result.action == "ask_user", (name, tracked, result)
    assert name.split(".")[-1].lower() in result.approval_prompt.lower()
    where = ".gitconfig" if tracked else ".git/config"
    assert where in result.approval_prompt
    assert not (workspace / "marker").exists()


async def test_an_executable_hook_of_the_repository_makes_git_ask(
    coordinator: Any, workspace: Path
) -> None:
    repository(workspace)
    hook = workspace / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\ntouch marker\n")
    hook.chmod(0o755)
    result = await decide(coordinator, "git status")
    assert result.action == "ask_user"
    assert "post-index-change" in result.approval_prompt


async def test_the_users_own_configuration_asks_nothing(coordinator: Any, workspace: Path) -> None:
    repository(workspace)
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text("[core]\n\tpager = less -R\n[credential]\n\thelper = store\n")
    result = await decide(coordinator, "git log")
    assert result.action == "continue", result
