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
