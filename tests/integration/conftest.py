"""Fixtures of the whole-session tests: a workspace, and a home of the test's own.

Hook modules read user-level files (``~/.amplifier/hooks.yaml``, ``~/.claude``); every test
here gets an empty home, so nothing of the machine's changes what a session does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from amplifier_hooks_testsupport.environment import own_home, python_first_on_path, working_dir


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$HOME`` (no ``AMPLIFIER_HOME``)."""
    return own_home(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The session's working directory (resolved, as the modules resolve it)."""
    return working_dir(tmp_path, "ws")


@pytest.fixture
def python3_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` in a hook command is the test interpreter (the packages it imports are
    there): its directory first on ``PATH``."""
    python_first_on_path(monkeypatch)


@pytest.fixture
def victim_file(workspace: Path) -> Path:
    """``victim/data.txt`` in the workspace, holding ``keep me``: what a denied command would
    have deleted."""
    path = workspace / "victim" / "data.txt"
    path.parent.mkdir()
    path.write_text("keep me")
    return path
