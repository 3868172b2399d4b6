"""Fixtures of the whole-session tests: a workspace, and a home of the test's own.

Hook modules read user-level files (``~/.amplifier/hooks.yaml``, ``~/.claude``); every test
here gets an empty home, so nothing of the machine's changes what a session does.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ``$HOME`` (no ``AMPLIFIER_HOME``)."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("AMPLIFIER_HOME", raising=False)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The session's working directory (resolved, as the modules resolve it)."""
    path = tmp_path / "ws"
    path.mkdir()
    return path.resolve()
