"""What a test that runs hooks or sessions sets in its environment, through pytest's
``monkeypatch`` (undone when the test ends): a home of its own, git configured by nothing of the
machine's, and ``python3`` on ``PATH`` being the test's interpreter; and the test's own working
directory. Test folders turn these into
fixtures in their ``conftest.py``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

__all__ = ["isolated_git", "own_home", "python_first_on_path", "working_dir"]


def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``tmp_path / "home"`` as ``$HOME``, with ``AMPLIFIER_HOME`` unset: nothing of
    the machine's ``~/.amplifier``, ``~/.claude`` or other tools' user files is read."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("AMPLIFIER_HOME", raising=False)
    return path


def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``git`` as on a machine of its own: the home of :func:`own_home` (no user
    ``.gitconfig``), no system configuration (``GIT_CONFIG_NOSYSTEM``), none given through the
    environment (``GIT_CONFIG_COUNT`` unset), and an author and committer for commits. Returns
    the home."""
    home = own_home(tmp_path, monkeypatch)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_COUNT", raising=False)
    for name in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{name}_NAME", "t")
        monkeypatch.setenv(f"GIT_{name}_EMAIL", "t@example.invalid")
    return home


def python_first_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` in a hook command is the test interpreter (the packages it imports are
    there, and no slow shim stands in front of it): its directory first on ``PATH``."""
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def working_dir(tmp_path: Path, name: str) -> Path:
    """A new empty directory ``tmp_path / name``, resolved as the modules resolve a session's
    working directory (the temporary directory may sit behind a link)."""
    path = tmp_path / name
    path.mkdir()
    return path.resolve()
