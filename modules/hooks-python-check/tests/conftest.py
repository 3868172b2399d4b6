"""Fixtures: a project directory with pinned ruff and mypy settings, and a shared mypy cache.

The settings files make the rules the same whatever ruff or mypy version runs and keep the
machine's user-level configuration out. mypy starts much faster with a warm cache, so every
test shares one cache directory (never the project's own).
"""

from __future__ import annotations

from pathlib import Path

import pytest

RUFF_TOML = 'line-length = 100\n\n[lint]\nselect = ["E", "F"]\n'


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache directory for the whole test run."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.fixture
def mypy_args(mypy_cache: Path) -> list[str]:
    """The default mypy arguments, with the shared cache."""
    return ["--follow-imports=silent", "--cache-dir", str(mypy_cache)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A directory with ``ruff.toml`` (rules E and F) and an empty ``mypy.ini``."""
    (tmp_path / "ruff.toml").write_text(RUFF_TOML, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    return tmp_path
