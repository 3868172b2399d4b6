"""Developer sessions for the workspace: tests, per-package tests, lint, types, bench, demo.

``nox`` with no arguments runs tests, lint, types and compat: the whole check that CI runs.
Packages are found, not listed: ``core/`` plus every ``modules/*/pyproject.toml``.
"""

from __future__ import annotations

from pathlib import Path

import nox

ROOT = Path(__file__).parent
CORE = ROOT / "core"
UTIL = ROOT / "util"
CLI = ROOT / "cli"
MODULES = sorted(p.parent for p in ROOT.glob("modules/*/pyproject.toml"))
PACKAGES = [CORE, *(p for p in (UTIL, CLI) if (p / "pyproject.toml").exists()), *MODULES]
TEST_TOOLS = ["pytest>=8", "pytest-asyncio>=0.23", "hypothesis>=6.100", "ruff>=0.6", "mypy>=1.10"]

nox.options.sessions = ["tests", "lint", "types", "compat"]
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_missing_interpreters = False


def _install_workspace(session: nox.Session) -> None:
    """Install the kernel and every module editable, with the test tools."""
    editable: list[str] = []
    for package in PACKAGES:
        editable += ["-e", str(package)]
    session.install(*TEST_TOOLS, *editable)


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite: kernel, every module, and the integration tests."""
    _install_workspace(session)
    session.run("pytest", *(session.posargs or ["-q"]))


@nox.session(name="package")
@nox.parametrize("package", [p.name for p in PACKAGES], ids=[p.name for p in PACKAGES])
def package_tests(session: nox.Session, package: str) -> None:
    """One package's own tests, with only the kernel and that package installed."""
    path = ROOT / ("core" if package == "core" else f"modules/{package}")
    install = ["-e", str(CORE)] + ([] if path == CORE else ["-e", str(path)])
    session.install(*TEST_TOOLS, *install)
    session.run("pytest", "-q", "--rootdir", str(ROOT), str(path / "tests"), *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def types(session: nox.Session) -> None:
    """mypy --strict over the kernel, every module and the benchmarks."""
    _install_workspace(session)
    session.install("types-PyYAML", "nox", "pluggy")
    targets = [str(p / "src") for p in PACKAGES] + ["bench", "noxfile.py"]
    session.run("mypy", "--strict", *targets)


@nox.session
def compat(session: nox.Session) -> None:
    """Every module on amplifier-core 2.0.2 from PyPI, in this session's own environment.

    Each module's ``tests/test_upstream*.py`` runs its module on the upstream kernel through
    the interpreter named by ``AMPLIFIER_CORE_202_PYTHON``; our kernel is not installed here.
    """
    files = sorted(str(p) for p in ROOT.glob("modules/*/tests/test_upstream*.py"))
    if not files:
        session.error("no modules/*/tests/test_upstream*.py found")
    session.install("amplifier-core==2.0.2", "pytest>=8", "pytest-asyncio>=0.23", "ruff>=0.6")
    session.install("-e", str(UTIL) + "[http]")
    for module in MODULES:
        session.install("-e", str(module))
    python = str(Path(session.bin) / "python")
    session.run("pytest", "-q", *files, env={"AMPLIFIER_CORE_202_PYTHON": python})


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks against pluggy and amplifier-core 2.0.2 (in its own virtual environment)."""
    _install_workspace(session)
    session.install("pluggy")
    for script in sorted((ROOT / "bench").glob("*.py")):
        if not script.name.startswith("_"):
            session.run("python", str(script), *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    """An offline agent session with the reference hooks firing."""
    _install_workspace(session)
    session.run("amplifier-hooks", "demo", *session.posargs)
