"""Taking a snapshot of the repository: which git calls run, and what each failure means.

One snapshot costs at most four git processes: ``rev-parse`` first (where the repository and
its git directory are), then ``status --porcelain=v2 --branch -z``, ``log`` and
``for-each-ref`` side by side. Outside a repository, without git, in a broken repository or
when git is too slow, the snapshot says so instead of failing.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .config import StatusContextConfig
from .fingerprint import is_dir
from .gitrun import GitResult, GitRunner
from .listing import StatusListing, StatusPolicy
from .porcelain import MAIN_BRANCH_REFS, BranchInfo, main_branch, parse_status

__all__ = ["GitFacts", "RepoLayout", "find_dot_git", "take_git_facts"]

RepoState = Literal["repo", "none", "broken", "missing", "error"]
_MAX_SUBJECT_CHARS = 120


@dataclass(frozen=True, slots=True)
class RepoLayout:
    """Where a repository lives: its work tree, its git directory and the shared one (the
    same unless this is a linked worktree)."""

    toplevel: Path
    git_dir: Path
    common_dir: Path


@dataclass(frozen=True, slots=True)
class GitFacts:
    """What git said about the working directory; every field the renderer needs.

    ``state``: ``repo`` (a readable repository), ``none`` (not inside one), ``broken`` (a
    ``.git`` is there but git cannot read it), ``missing`` (git cannot be run) or ``error``
    (git failed or timed out). ``detail`` explains the last four. ``watch`` lists the files
    whose change means the snapshot is stale.
    """

    state: RepoState
    detail: str = ""
    layout: RepoLayout | None = None
    branch: BranchInfo | None = None
    branch_error: str = ""
    main_branch: str | None = None
    status: StatusListing | None = None
    status_error: str = ""
    commits: tuple[str, ...] = ()
    commits_error: str = ""
    watch: tuple[str, ...] = field(default=())


def find_dot_git(start: Path) -> Path | None:
    """The nearest ``.git`` (directory or file) at ``start`` or above it."""
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if os.path.lexists(candidate):
            return candidate
    return None


def _why(result: GitResult) -> str:
    return f"{result.command}: {result.reason}"


def _layout(cwd: Path, stdout: str) -> RepoLayout | None:
    lines = stdout.splitlines()
    if len(lines) < 3:
        return None
    git_dir, common_dir, toplevel = (Path(line) for line in lines[:3])
    return RepoLayout(
        toplevel=toplevel.resolve(),
        git_dir=git_dir.resolve(),
        common_dir=(cwd / common_dir).resolve(),
    )


def _watch_list(
    working_dir: Path, layout: RepoLayout | None, branch: BranchInfo | None
) -> tuple[str, ...]:
    paths = [working_dir]
    if layout is not None:
        git, refs = layout.git_dir, layout.common_dir / "refs"
        paths += [layout.toplevel, git / "HEAD", git / "index"]
        if branch is not None and branch.head:
            paths.append(refs / "heads" / branch.head)
        if branch is not None and branch.upstream:
            paths.append(refs / "remotes" / branch.upstream)
    return tuple(dict.fromkeys(str(p) for p in paths))


def _broken_watch(working_dir: Path, dot_git: Path) -> tuple[str, ...]:
    return (str(working_dir), str(dot_git), str(dot_git / "HEAD"))


def _commits(result: GitResult | None) -> tuple[tuple[str, ...], str]:
    if result is None:
        return (), ""
    if not result.ok:
        return (), _why(result)
    lines = []
    for line in result.stdout.splitlines():
        line = line.strip()
        if line:
            lines.append(line if len(line) <= _MAX_SUBJECT_CHARS else line[:117] + "...")
    return tuple(lines), ""


async def _skip() -> None:
    return None


async def take_git_facts(
    runner: GitRunner, working_dir: Path, config: StatusContextConfig, policy: StatusPolicy
) -> GitFacts:
    """Ask git about ``working_dir``; every failure becomes a state with a detail."""
    if not is_dir(working_dir):
        missing = "the working directory does not exist"
        return GitFacts("error", missing, watch=(str(working_dir),))
    where = await runner.run(
        working_dir, "rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"
    )
    dot_git = find_dot_git(working_dir)
    if where.outcome == "missing":
        return GitFacts("missing", where.reason, watch=(str(working_dir),))
    if where.outcome == "timeout":
        return GitFacts("error", _why(where), watch=(str(working_dir),))
    layout = _layout(working_dir, where.stdout) if where.ok else None
    if layout is None:
        if dot_git is not None:
            return GitFacts(
                "broken", f"{dot_git}: {where.reason}", watch=_broken_watch(working_dir, dot_git)
            )
        if "not a git repository" in where.reason:
            return GitFacts("none", watch=(str(working_dir),))
        return GitFacts("error", _why(where), watch=(str(working_dir),))
    if dot_git is not None and dot_git.parent.resolve() != layout.toplevel:
        nearer = dot_git.parent.resolve()
        if layout.toplevel in nearer.parents:  # git skipped a .git it could not read
            return GitFacts(
                "broken",
                f"{dot_git}: git cannot read it and reports {layout.toplevel} instead",
                watch=_broken_watch(working_dir, dot_git),
            )

    want_branch = config.git_include_branch or config.git_include_status
    listed = config.git_include_status and config.git_status_include_untracked
    untracked = "normal" if listed else "no"
    status_call = (
        runner.run(
            working_dir,
            "status",
            "--porcelain=v2",
            "--branch",
            "-z",
            f"--untracked-files={untracked}",
        )
        if want_branch
        else _skip()
    )
    log_call = (
        runner.run(
            working_dir,
            "log",
            f"-n{config.git_include_commits}",
            "--no-decorate",
            "--no-show-signature",
            "--format=%h %s",
        )
        if config.git_include_commits
        else _skip()
    )
    refs_call = (
        runner.run(working_dir, "for-each-ref", "--format=%(refname) %(symref)", *MAIN_BRANCH_REFS)
        if config.git_include_main_branch
        else _skip()
    )
    status, log, refs = await asyncio.gather(status_call, log_call, refs_call)

    branch: BranchInfo | None = None
    listing: StatusListing | None = None
    branch_error = status_error = ""
    if status is not None:
        if status.ok:
            branch, entries = parse_status(status.stdout)
            if config.git_include_status:
                listing = policy.listing(entries)
        else:
            branch_error = status_error = _why(status)
    commits, commits_error = _commits(log)
    if branch is not None and branch.oid is None:
        commits, commits_error = (), ""  # no commits yet: git log has nothing to say
    main = main_branch(refs.stdout) if refs is not None and refs.ok else None
    return GitFacts(
        "repo",
        layout=layout,
        branch=branch,
        branch_error=branch_error,
        main_branch=main,
        status=listing,
        status_error=status_error,
        commits=commits,
        commits_error=commits_error,
        watch=_watch_list(working_dir, layout, branch),
    )
