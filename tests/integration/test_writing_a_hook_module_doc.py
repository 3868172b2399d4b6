"""docs/writing-a-hook-module.md works as written, as a hook author follows it.

Every block of the page whose first line names a file (``# pyproject.toml``) is written to that
file of a new project; then, in a fresh virtual environment holding only this repository's
util and core (non-editable) and pytest:

1. ``pytest tests/test_contract.py`` in the project, nothing of it installed: the contract
   tests find ``src/my_hooks`` through the pyproject's entry point and pass;
2. ``pip install ".[test]"`` (not editable, as the page says) and ``pytest``: every test
   passes, the contract tests on the installed copy, with no warning;
3. a project whose pyproject names no module: the contract tests fail with one line saying
   why, never skip.

On amplifier-core 2.0.2 (``AMPLIFIER_CORE_202_PYTHON``: an environment of its own with
``pip install amplifier-core==2.0.2 pytest pytest-asyncio``) the same tests run from the source
with ``--module-path=src/my_hooks``, as the page says.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from amplifier_core.validation.behavioral import HookBehaviorTests
from amplifier_core.validation.structural import HookStructuralTests

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "writing-a-hook-module.md"
UPSTREAM_PYTHON = os.environ.get("AMPLIFIER_CORE_202_PYTHON", "")

pytestmark = pytest.mark.slow


def _files() -> dict[str, str]:
    """``{relative path: text}`` of every block whose first line is ``# <path>``."""
    found: dict[str, str] = {}
    for block in re.findall(r"```(?:toml|python)\n(.*?)```", DOC.read_text("utf-8"), re.S):
        first = block.partition("\n")[0]
        name = first.removeprefix("# ").split(":", 1)[0].strip()
        if first.startswith("# ") and ("/" in name or name == "pyproject.toml"):
            found[name] = block
    return found


def _project(where: Path) -> Path:
    files = _files()
    assert set(files) >= {
        "pyproject.toml",
        "src/my_hooks/__init__.py",
        "tests/test_my_hooks.py",
        "tests/test_contract.py",
    }, sorted(files)
    for name, text in files.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (where / "src" / "my_hooks" / "py.typed").write_text("", encoding="utf-8")
    return where


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with this repository's util and core, pytest and pytest-asyncio."""
    venv = tmp_path_factory.mktemp("author-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = _run(
        [str(python), "-m", "pip", "install", "-q", str(ROOT / "util"), str(ROOT / "core"),
         "pytest>=8", "pytest-asyncio>=0.23"],
        venv,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return python


CONTRACT_TESTS = sum(
    name.startswith("test_")
    for cls in (HookBehaviorTests, HookStructuralTests)
    for name in dir(cls)
)
"""The tests the page's contract classes inherit from the kernel's."""


def test_contract_tests_run_from_src_without_installing(fresh_python: Path, tmp_path: Path) -> None:
    project = _project(tmp_path / "my-hooks")
    done = _run([str(fresh_python), "-m", "pytest", "-q", "tests/test_contract.py"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(rf"\b{CONTRACT_TESTS} passed\b", done.stdout), done.stdout
    assert "skipped" not in done.stdout


def test_the_package_installs_as_written_and_its_tests_pass(
    fresh_python: Path, tmp_path: Path
) -> None:
    project = _project(tmp_path / "my-hooks")
    done = _run([str(fresh_python), "-m", "pip", "install", "-q", ".[test]"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    done = _run([str(fresh_python), "-m", "pytest", "-q", "-W", "error"], project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(rf"\b{CONTRACT_TESTS + 1} passed\b", done.stdout), done.stdout
    assert "skipped" not in done.stdout
    assert "warning" not in done.stdout.lower()
    # the module is found by its id among the installed entry points
    done = _run(
        [str(fresh_python), "-c", "from importlib.metadata import entry_points; "
         "print(entry_points(group='amplifier.modules')['hooks-my-guard'].value)"],
        project,
    )  # fmt: skip
    assert done.stdout.strip() == "my_hooks:mount", done.stdout + done.stderr


def test_contract_tests_without_a_module_say_why(fresh_python: Path, tmp_path: Path) -> None:
    project = _project(tmp_path / "my-hooks")
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text("utf-8")
    pyproject.write_text(text.replace('hooks-my-guard = "my_hooks:mount"', ""), "utf-8")
    done = _run([str(fresh_python), "-m", "pytest", "-q", "tests/test_contract.py"], project)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped" not in done.stdout
    assert "no module package found from the tests' location" in done.stdout
    assert "--module-path=src/<package>" in done.stdout


@pytest.mark.skipif(
    not UPSTREAM_PYTHON,
    reason="set AMPLIFIER_CORE_202_PYTHON to an environment with amplifier-core==2.0.2, "
    "pytest and pytest-asyncio to run the page's tests on that kernel",
)
def test_the_same_tests_run_on_amplifier_core_202(tmp_path: Path) -> None:
    project = _project(tmp_path / "my-hooks")
    done = _run(
        [UPSTREAM_PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--module-path=src/my_hooks", "tests"],
        project,
        PYTHONPATH=str(project / "src"),
    )  # fmt: skip
    # amplifier-core 2.0.2's engine may crash while the interpreter shuts down, after pytest
    # has reported ("Fatal Python error: PyGILState_Release"): the report is what counts then
    crashed_at_exit = done.returncode < 0 and "Fatal Python error" in done.stderr
    assert done.returncode == 0 or crashed_at_exit, done.stdout + done.stderr
    assert "failed" not in done.stdout
    assert "error" not in done.stdout.lower()
    # the page's tests: the contract classes (2.0.2's may hold more) and its own; none skipped
    found = re.search(r"\b(\d+) passed\b", done.stdout)
    assert found is not None, done.stdout
    assert int(found.group(1)) >= CONTRACT_TESTS + 1, done.stdout
    assert "skipped" not in done.stdout
