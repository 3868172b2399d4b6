"""Real git repositories made per test, fake git executables, and a small coordinator."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry

REAL_GIT = shutil.which("git") or "git"


ISOLATED = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's git config never changes what a test sees."""
    for name, value in ISOLATED.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)


class Repo:
    """A git repository in a temporary directory, driven by the real git."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        done = subprocess.run(
            [REAL_GIT, "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
            cwd=self.path,
            env={**os.environ, **ISOLATED},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout

    def write(self, relative: str, text: str = "x\n") -> Path:
        target = self.path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        return target

    def commit(self, message: str, *files: str) -> None:
        for name in files:
            self.write(name, f"{name}: {message}\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)


def make_repo(path: Path, branch: str = "main") -> Repo:
    path.mkdir(parents=True, exist_ok=True)
    repo = Repo(path)
    repo.git("init", "-q", "-b", branch)
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A repository on ``main`` with two commits."""
    made = make_repo(tmp_path / "repo")
    made.commit("first commit", "README.md", "src/app.py")
    made.commit("second commit", "src/util.py")
    return made


def script(path: Path, body: str) -> Path:
    """An executable shell script at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


class CountingGit:
    """A ``git`` wrapper that appends each invocation to a log, then runs the real git.

    ``calls`` leaves out the configuration listed before a call
    (:mod:`amplifier_hooks_util.git_config`), which reads files only; ``listings`` counts it."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "git-calls.log"
        self.path = script(
            folder / "bin" / "git", f'echo "$*" >> "{self.log}"\nexec "{REAL_GIT}" "$@"\n'
        )

    @property
    def calls(self) -> list[str]:
        return [c for c in self._all() if not c.startswith(_LISTING)]

    @property
    def listings(self) -> int:
        return sum(1 for c in self._all() if c.startswith(_LISTING))

    def _all(self) -> list[str]:
        if not self.log.exists():
            return []
        return self.log.read_text().splitlines()


_LISTING = "config --list --show-scope"


@pytest.fixture
def counting_git(tmp_path: Path) -> CountingGit:
    return CountingGit(tmp_path / "counting")


class Coordinator:
    """The part of a coordinator the module uses: ``hooks``, capabilities, session ids."""

    def __init__(
        self,
        working_dir: str | Path | None = None,
        session_id: str | None = "session-1",
        parent_id: str | None = None,
    ) -> None:
        self.hooks = HookRegistry()
        self.session_id = session_id
        self.parent_id = parent_id
        self._capabilities: dict[str, Any] = {}
        if working_dir is not None:
            self._capabilities["session.working_dir"] = str(working_dir)

    def get_capability(self, name: str) -> Any:
        return self._capabilities.get(name)

    def register_capability(self, name: str, value: Any) -> None:
        self._capabilities[name] = value


@pytest.fixture
def make_coordinator() -> Callable[..., Coordinator]:
    return Coordinator


@pytest.fixture
def fast_tmp(tmp_path: Path) -> Iterator[Path]:
    """A temporary directory in memory (``/dev/shm``) when there is one: creating thousands
    of files there takes a tenth of the time it takes on disk."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="status-context-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def new_repo() -> Callable[..., Repo]:
    """``new_repo(path, branch="main")``: an empty repository."""
    return make_repo


@pytest.fixture(scope="module")
def new_repo_module() -> Callable[..., Repo]:
    """``new_repo`` for module-scoped fixtures."""
    return make_repo


@pytest.fixture
def make_script() -> Callable[[Path, str], Path]:
    return script
