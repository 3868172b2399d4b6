"""Every package ships the project's MIT licence, word for word, and says so in its metadata."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent for p in ROOT.glob("*/pyproject.toml")) + sorted(
    p.parent for p in ROOT.glob("modules/*/pyproject.toml")
)


def test_the_root_licence_is_mit() -> None:
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_package_carries_the_root_licence_in_its_sdist(package: Path) -> None:
    licence = package / "LICENSE"
    assert licence.is_file(), f"{licence} is missing"
    assert not licence.is_symlink(), f"{licence} is a link: an sdist would carry a dangling one"
    assert licence.read_text() == (ROOT / "LICENSE").read_text(), (
        f"{licence} differs from ./LICENSE"
    )
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    assert project.get("license") == "MIT", f"{package / 'pyproject.toml'}: license is not MIT"
