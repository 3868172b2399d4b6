"""Every test of the workspace gets its own state directory (``AMPLIFIER_HOME``), so sessions
run by tests never write logs, audit records or checkpoints into the user's ``~/.amplifier``,
and trusts no project unless it says so (no ``AMPLIFIER_TRUST_PROJECT`` from the machine)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def amplifier_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh, empty state directory for this test, exported as ``AMPLIFIER_HOME``."""
    path = tmp_path_factory.mktemp("amplifier-home")
    monkeypatch.setenv("AMPLIFIER_HOME", str(path))
    monkeypatch.delenv("AMPLIFIER_TRUST_PROJECT", raising=False)
    return path
