"""The README's install lines as ``nox -s build`` reads them (that session runs them)."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent
README = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")


def _script() -> ModuleType:
    if str(HERE) not in sys.path:  # as when run as a script: doc_commands lies beside it
        sys.path.insert(0, str(HERE))
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


def test_a_command_the_docs_say_exits_non_zero_is_held_to_that_status() -> None:
    import doc_commands

    denied = next(c for c in QUICKSTART.quick_start(README) if "emit tool:pre" in c)
    assert doc_commands.expected_exit(denied) == 3
    assert doc_commands.expected_exit("amplifier-hooks events") == 0
    assert doc_commands.expected_exit("echo '# exits 3'") == 0
    assert doc_commands.shell_lines("true") == ["true"]
    lines = doc_commands.shell_lines("false   # exits 1: as printed")
    assert lines[:2] == ["set +e", "false   # exits 1: as printed"]
