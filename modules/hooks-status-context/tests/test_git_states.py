"""Real repositories in every state the block must describe, and every way git can fail."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_status_context import (
    CLOSE_TAG,
    OPEN_TAG,
    StatusContextHook,
    parse_config,
)


async def block_for(path: Path, **config: Any) -> str:
    hook = StatusContextHook(parse_config({"working_dir": str(path), **config}))
    return await hook.block()


def section(text: str, title: str) -> list[str]:
    """The lines under the line that starts with ``title``, up to the next section."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    body = []
    for line in lines[start + 1 :]:
        if line == CLOSE_TAG or line.startswith("Recent commits"):
            break
        body.append(line)
    return body


async def test_a_repository_with_staged_unstaged_and_untracked_files(repo: Any) -> None:
    repo.git("checkout", "-q", "-b", "feature/login")
    repo.write("src/app.py", "changed\n")
    repo.write("src/staged.py", "new\n")
    repo.git("add", "src/staged.py")
    repo.write("notes.txt", "todo\n")
    text = await block_for(repo.path)

    assert text.startswith(OPEN_TAG + "\n")
    assert text.endswith("\n" + CLOSE_TAG)
    assert f"Working directory: {repo.path}" in text
    assert f"Git repository: yes, root {repo.path}" in text
    assert "Current branch: feature/login\n" in text
    assert "Main branch: main\n" in text
    assert "Status (3 paths;" in text
    assert section(text, "Status") == [" M src/app.py", "A  src/staged.py", "?? notes.txt"]
    commits = section(text, "Recent commits:")
    assert [line.split(" ", 1)[1] for line in commits] == ["second commit", "first commit"]
    assert all(len(line.split(" ", 1)[0]) >= 7 for line in commits)
    assert f"Today's date: {time.strftime('%Y-%m-%d')}" in text
    assert "Platform: " in text


async def test_clean_repository_and_a_subdirectory_as_working_dir(repo: Any) -> None:
    text = await block_for(repo.path / "src")
    assert f"Working directory: {repo.path / 'src'}" in text
    assert f"Git repository: yes, root {repo.path}" in text
    assert "Status: clean" in text


async def test_detached_head_names_the_commit(repo: Any) -> None:
    first = repo.git("rev-parse", "--short", "HEAD~1").strip()
    repo.git("checkout", "-q", "--detach", "HEAD~1")
    text = await block_for(repo.path)
    assert f"Current branch: none, HEAD is detached at {first}" in text
    assert section(text, "Recent commits:")[0].startswith(first + " first commit")


async def test_a_repository_without_commits(tmp_path: Path, new_repo: Any) -> None:
    fresh = new_repo(tmp_path / "fresh")
    fresh.write("hello.txt")
    text = await block_for(fresh.path)
    assert "Current branch: main (no commits yet)" in text
    assert "Recent commits: none yet" in text
    assert "?? hello.txt" in text


@pytest.mark.parametrize("name", ["master", "trunk"])
async def test_main_branch_is_found_by_its_usual_names(
    tmp_path: Path, new_repo: Any, name: str
) -> None:
    made = new_repo(tmp_path / "r", branch=name)
    made.commit("one", "a.txt")
    made.git("checkout", "-q", "-b", "topic")
    text = await block_for(made.path)
    assert "Current branch: topic" in text
    assert f"Main branch: {name}\n" in text


async def test_main_branch_follows_origin_head_and_tracking_is_shown(
    tmp_path: Path, new_repo: Any
) -> None:
    upstream = new_repo(tmp_path / "upstream", branch="develop")
    upstream.commit("base", "a.txt")
    clone_path = tmp_path / "clone"
    upstream.git("clone", "-q", str(upstream.path), str(clone_path))
    clone = type(upstream)(clone_path)
    clone.git("branch", "-q", "-m", "develop", "work")  # no local main, master or trunk
    clone.git("branch", "-q", "--set-upstream-to=origin/develop")
    clone.commit("local one", "b.txt")
    clone.commit("local two", "c.txt")
    text = await block_for(clone.path)
    assert "Main branch: develop\n" in text
    assert "Current branch: work (2 ahead, 0 behind origin/develop)" in text


async def test_no_main_branch_says_so(tmp_path: Path, new_repo: Any) -> None:
    made = new_repo(tmp_path / "r", branch="feature")
    made.commit("one", "a.txt")
    text = await block_for(made.path)
    assert "Main branch: unknown (no main, master or trunk)" in text


async def test_outside_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    text = await block_for(plain)
    assert "Git repository: no (the working directory is not inside a git repository)" in text
    assert "Current branch" not in text
    assert f"Working directory: {plain}" in text


async def test_a_working_directory_that_does_not_exist(tmp_path: Path) -> None:
    text = await block_for(tmp_path / "gone")
    assert f"Working directory: {tmp_path / 'gone'} (does not exist)" in text
    assert "Git: failed (the working directory does not exist)" in text


async def test_git_missing_from_path(
    repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    text = await block_for(repo.path)
    assert "Git: not available (executable 'git' not found); " in text
    assert "branch, status and commits are unknown" in text
    assert f"Working directory: {repo.path}" in text
    assert "Today's date: " in text


async def test_git_path_that_does_not_exist(repo: Any, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "git"
    text = await block_for(repo.path, git_path=str(missing))
    assert f"Git: not available (executable '{missing}' not found)" in text


async def test_git_path_that_is_not_executable(repo: Any, tmp_path: Path) -> None:
    plain = tmp_path / "git-not-executable"
    plain.write_text("#!/bin/sh\n")
    text = await block_for(repo.path, git_path=str(plain))
    assert f"Git: not available (executable '{plain}' cannot run: Permission denied)" in text


async def test_a_corrupt_head_is_reported_as_broken(repo: Any) -> None:
    (repo.path / ".git" / "HEAD").write_text("garbage\n")
    text = await block_for(repo.path)
    assert f"Git repository: broken ({repo.path / '.git'}: fatal: not a git repository" in text
    assert "branch, status and commits are unknown" in text


async def test_a_broken_repository_inside_a_good_one(repo: Any, new_repo: Any) -> None:
    inner = new_repo(repo.path / "inner")
    inner.commit("inner commit", "x.txt")
    (inner.path / ".git" / "HEAD").write_text("nonsense\n")
    text = await block_for(inner.path)
    assert f"Git repository: broken ({inner.path / '.git'}: git cannot read it" in text
    assert f"reports {repo.path} instead" in text


async def test_a_corrupt_index_is_shown_as_an_unknown_status(repo: Any) -> None:
    (repo.path / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x09garbage")
    text = await block_for(repo.path)
    assert "Git repository: yes" in text
    assert "Status: unknown (git status: fatal: .git/index: index file smaller than expected)" in (
        text
    )
    assert "Recent commits:" in text  # git log does not need the index


async def test_a_slow_git_is_killed_with_its_children(
    repo: Any, tmp_path: Path, make_script: Any
) -> None:
    pid_file = tmp_path / "sleeper.pid"
    slow = make_script(tmp_path / "slow" / "git", f'sleep 30 &\necho $! > "{pid_file}"\nwait\n')
    started = time.monotonic()
    text = await block_for(repo.path, git_path=str(slow), git_timeout=0.3)
    elapsed = time.monotonic() - started
    assert "Git: failed (git rev-parse: no answer within 0.3 s)" in text
    assert elapsed < 20  # the fake git sleeps 30 s: it was stopped, not waited for
    pid = int(pid_file.read_text())
    assert gone_within(pid, 5.0), "the grandchild of the timed-out git is still running"


def gone_within(pid: int, seconds: float) -> bool:
    """True once ``pid`` is dead (or a zombie), False if it still runs after ``seconds``."""
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead, only not yet reaped by its new parent
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_a_timeout_on_the_parallel_calls_keeps_what_answered(
    repo: Any, tmp_path: Path, make_script: Any
) -> None:
    git = shutil.which("git")
    slow_status = make_script(
        tmp_path / "half" / "git",
        f'for a in "$@"; do [ "$a" = status ] && exec sleep 30; done\nexec "{git}" "$@"\n',
    )
    text = await block_for(repo.path, git_path=str(slow_status), git_timeout=0.5)
    assert "Current branch: unknown (git status: no answer within 0.5 s)" in text
    assert "Status: unknown (git status: no answer within 0.5 s)" in text
    assert "Main branch: main" in text
    assert "second commit" in text


async def test_thousands_of_files_with_vendored_folders_and_caps(
    fast_tmp: Path, new_repo: Any
) -> None:
    big = new_repo(fast_tmp / "big")
    for folder in range(30):
        target = big.path / "src" / f"pkg{folder:02d}"
        target.mkdir(parents=True)
        for n in range(100):
            (target / f"mod{n:03d}.py").write_bytes(b"value = 1\n")
    for n in range(200):
        big.write(f"vendor/lib/dep{n:03d}.go", "package dep\n")
    big.write("poetry.lock", "v1\n")
    big.git("add", "-A")
    big.git("commit", "-q", "-m", "three thousand files")
    assert len(big.git("ls-files").splitlines()) == 3201
    for n in range(60):  # tracked files changed
        (big.path / "src" / "pkg07" / f"mod{n:03d}.py").write_text("changed\n")
    for n in range(40):  # new files at the top
        (big.path / f"scratch{n:02d}.txt").write_text("new\n")
    for n in range(300):  # an untracked dependency folder
        big.write(f"node_modules/pkg{n}/index.js", "module.exports = 1\n")
    for n in range(30):  # tracked files changed inside the vendored folder
        big.write(f"vendor/lib/dep{n:03d}.go", "package changed\n")
    for n in range(8):
        big.write(f"logs/run{n}.log", "line\n")
    big.write("poetry.lock", "v2\n")
    hidden_note = (
        "(31 entries in vendored or build folders not shown: node_modules, vendor; "
        "30 of them tracked by git)"
    )

    text = await block_for(big.path)  # default caps: 25 changed, 15 untracked, 40 lines
    listing = section(text, "Status")
    assert "Status (133 paths;" in text
    assert len(listing) == 40
    assert listing[:2] == [" M src/pkg07/mod000.py", " M src/pkg07/mod001.py"]
    assert listing[25] == "... and 35 more changed files"
    assert listing[-2:] == ["... and 30 more entries", hidden_note]
    assert not any(line.startswith(("?? node_modules", " M vendor/")) for line in listing)
    assert len(text.encode()) <= 8192
    assert "three thousand files" in text

    roomy = section(await block_for(big.path, git_status_max_lines=100), "Status")
    assert roomy[26:41] == [f"?? scratch{n:02d}.txt" for n in range(15)]
    assert roomy[41:] == [
        "... and 25 more untracked files",
        " M poetry.lock",
        "?? logs/",
        hidden_note,
    ]


async def test_a_cancelled_request_kills_the_running_git(
    repo: Any, tmp_path: Path, make_script: Any
) -> None:
    pid_file = tmp_path / "git.pid"
    slow = make_script(tmp_path / "hung" / "git", f'echo $$ > "{pid_file}"\nexec sleep 30\n')
    hook = StatusContextHook(
        parse_config({"working_dir": str(repo.path), "git_path": str(slow), "git_timeout": 30})
    )
    task = asyncio.create_task(hook.block())
    for _ in range(250):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    assert alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone_within(pid, 5.0), "the git of a cancelled request is still running"
