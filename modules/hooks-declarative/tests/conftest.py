"""Fixtures every test of the module gets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from amplifier_hooks_testsupport.environment import own_home, python_first_on_path, working_dir

from .support import HttpEndpoint


@pytest.fixture(autouse=True)
def _python3_is_this_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` in a hook command (and inside the bash scripts) is the test interpreter:
    the packages it imports are there, and no slow shim stands in front of it."""
    python_first_on_path(monkeypatch)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of the test's own (``$HOME``, no ``AMPLIFIER_HOME``), so that no test
    reads the machine's ``~/.amplifier``, ``~/.claude`` or other tools' user files."""
    return own_home(tmp_path, monkeypatch)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory (resolved, as the module resolves it)."""
    return working_dir(tmp_path, "project")


@pytest.fixture
def endpoint() -> Iterator[HttpEndpoint]:
    """A loopback HTTP hook endpoint, closed after the test."""
    found = HttpEndpoint()
    yield found
    found.close()
