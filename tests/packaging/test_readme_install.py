"""The README's install lines as ``nox -s build`` reads them (that session runs them)."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent
README = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("quickstart", HERE / "quickstart_from_wheels.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


QUICKSTART = _script()


def test_the_quick_start_makes_a_venv_installs_once_and_runs_the_cli() -> None:
    commands = QUICKSTART.quick_start(README)
    assert commands[0].startswith("python3 -m venv ")
    installs = [c for c in commands if c.startswith("pip install ")]
    assert len(installs) == 1
    assert "./cli[all]" in shlex.split(installs[0], comments=True)
    rest = [c for c in commands[1:] if c not in installs]
    assert "amplifier-hooks demo" in [c.split("#", 1)[0].strip() for c in rest], rest
    assert not [c for c in commands if c.endswith("\\")]  # continuation lines are joined


def test_the_from_wheels_line_installs_the_all_extra_from_dist_alone() -> None:
    words = shlex.split(QUICKSTART.wheels_install(README))
    assert words[:2] == ["pip", "install"]
    assert "--no-index" in words
    assert words[words.index("--find-links") + 1] == "dist"
    assert words[-1] == "amplifier-hooks[all]"


def test_a_readme_without_the_no_index_flag_is_refused() -> None:
    changed = README.replace("--no-index --find-links dist", "--find-links dist")
    with pytest.raises(QUICKSTART.Failed, match="--no-index --find-links dist"):
        QUICKSTART.wheels_install(changed)
