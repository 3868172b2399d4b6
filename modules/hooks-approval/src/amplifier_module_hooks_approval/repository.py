"""A git command a rule would allow, judged with the repository it runs in.

The session's shell runs an allowed ``git status`` or ``git diff`` with its own environment,
which this module does not set; and the repository's configuration (``.git/config`` and every
file it includes, a tracked ``.gitconfig`` among them) can make those commands run a program
of the project's: ``core.fsmonitor``, a clean filter, a diff driver, a pager... So before a
git command is allowed without a question, the configuration git would read in the workspace
is listed (:func:`amplifier_hooks_util.git_config.git_environment_async`, the same listing that
contains the git the product and its hooks run): any key of the project's (``local`` or
``worktree`` scope, included files too) that names a program, and any executable hook in the
repository's hooks directory (``post-index-change`` runs when ``git status`` refreshes the
index), makes the command asked instead, the prompt naming each key with the file it comes
from. The user's own configuration (system, global) is the user's and asks nothing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from amplifier_hooks_util.git_config import git_environment_async

from .invocation import Invocation

__all__ = ["git_risks", "runs_git"]

_TIMEOUT: Final = 5.0


def runs_git(runs: Sequence[Invocation]) -> bool:
    """Whether one of the programs a command runs is git."""
    return any(run.name == "git" for run in runs)


async def git_risks(workspace: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """What in the repository at ``workspace`` would make git run a program of the project's,
    one phrase each (empty: nothing)."""
    env = dict(os.environ if environ is None else environ)
    if not _is_directory(workspace):
        return []
    _, overrides = await git_environment_async(env, workspace)
    risks = [
        f"{key} (from {origin.removeprefix('file:') or 'the repository'})"
        for key, origin in overrides.neutralised
    ]
    risks += [f"the hook {name}" for name in await _active_hooks(workspace, env)]
    return risks


async def _active_hooks(workspace: str, env: Mapping[str, str]) -> list[str]:
    """The executable hooks (not ``*.sample``) of the repository's hooks directory."""
    try:
        process = await asyncio.create_subprocess_exec(
            "git",
            "rev-parse",
            "--git-path",
            "hooks",
            cwd=workspace,
            env={**env, "GIT_OPTIONAL_LOCKS": "0"},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        stdout, _ = await asyncio.wait_for(process.communicate(), _TIMEOUT)
    except (OSError, TimeoutError):
        return []
    if process.returncode != 0:
        return []
    return _executables(Path(workspace), Path(workspace, stdout.decode("utf-8", "replace").strip()))


def _is_directory(workspace: str) -> bool:
    return bool(workspace) and os.path.isdir(workspace)


def _executables(workspace: Path, hooks: Path) -> list[str]:
    try:
        entries = sorted(hooks.iterdir())
    except OSError:
        return []
    found: list[str] = []
    for entry in entries:
        if entry.name.endswith(".sample") or not entry.is_file():
            continue
        if os.access(entry, os.X_OK):
            found.append(
                str(entry.relative_to(workspace)) if entry.is_relative_to(workspace) else str(entry)
            )
    return found
