"""Shared fixtures: a test coordinator whose workspace is the test's own directory.

The kernel is imported inside the fixture, so that collecting ``test_upstream_kernel.py`` in
an environment holding amplifier-core 2.0.2 (``nox -s compat``) needs nothing from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from amplifier_core.testing import MockCoordinator


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The session's working directory (resolved, as the module resolves it)."""
    path = tmp_path / "ws"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def coordinator(workspace: Path) -> MockCoordinator:
    """A real coordinator (allow-all approval system) working in ``workspace``."""
    from amplifier_core.testing import create_test_coordinator

    made = create_test_coordinator()
    made.register_capability("session.working_dir", str(workspace))
    return made
