"""Fixtures every test of the module gets."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _python3_is_this_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` in a hook command (and inside the bash scripts) is the test interpreter:
    the packages it imports are there, and no slow shim stands in front of it."""
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of the test's own (``$HOME``, no ``AMPLIFIER_HOME``), so that no test
    reads the machine's ``~/.amplifier``, ``~/.claude`` or other tools' user files."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("AMPLIFIER_HOME", raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory (resolved, as the module resolves it)."""
    path = tmp_path / "project"
    path.mkdir()
    return path.resolve()
