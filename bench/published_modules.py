"""Run the test suites of published Amplifier hook modules on amplifier-core 2.0.2 and on ours.

Given a directory whose subdirectories are module checkouts (each with a ``pyproject.toml``
and a ``tests/`` directory), this builds, per module, two virtual environments:

- ``peer``: ``amplifier-core==2.0.2`` from PyPI, then the module with ``--no-deps`` and its
  declared third-party dependencies;
- ``ours``: this checkout's ``core/`` and ``util/`` (editable), then the module the same way.

Both get the same pytest and pytest-asyncio. The module's suite then runs in each, from the
checkout, with ``--junitxml``; the per-test outcomes are compared and a per-module table is
printed: tests passing on 2.0.2, passing on ours, lost (pass on 2.0.2, not on ours) and gained.
Every lost test is listed after the table. Nothing but PyPI is needed once the checkouts exist:
``amplifier-core`` requirements that point at git are dropped, the kernel under test is the
one installed in the environment.

Exit status: 0 when no module loses a test, 1 when one does, 2 when a module could not be
measured (an environment could not be built or its suite did not run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import render_table

__all__ = [
    "KERNELS",
    "ModuleRun",
    "Outcomes",
    "compare",
    "find_checkouts",
    "main",
    "read_junit",
    "third_party_requirements",
]

REPO = Path(__file__).resolve().parent.parent
PEER_REQUIREMENT = "amplifier-core==2.0.2"
KERNELS = ("peer", "ours")
TEST_TOOLS = ("pytest", "pytest-asyncio")
# Development tools some modules list beside their test dependencies; no test imports them.
_NOT_FOR_TESTS = {"ruff", "pyright", "mypy", "black", "isort", "pre-commit", "build", "twine"}
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
PIP_TIMEOUT_S = 900.0
CHECKOUTS_VARIABLE = "PUBLISHED_MODULES_DIR"

Outcomes = dict[str, str]
"""Test id (``classname::name`` as junitxml writes them) to passed, failed, error or skipped."""


@dataclass
class ModuleRun:
    """What one module's suite did on both kernels."""

    name: str
    requirements: list[str] = field(default_factory=list)
    outcomes: dict[str, Outcomes] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def passing(self, kernel: str) -> set[str]:
        return {test for test, what in self.outcomes.get(kernel, {}).items() if what == "passed"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def third_party_requirements(pyproject: Path) -> list[str]:
    """The module's declared requirements its tests may need, without any amplifier package.

    Taken from ``project.dependencies``, every ``project.optional-dependencies`` extra and the
    ``dev``/``test`` dependency groups; requirements naming ``amplifier-*`` distributions (the
    kernel is the one under test), URL requirements and lint or type-check tools are dropped.
    """
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    project = data.get("project", {})
    found: list[str] = list(project.get("dependencies") or [])
    for extra in (project.get("optional-dependencies") or {}).values():
        found.extend(extra)
    groups = data.get("dependency-groups") or {}
    for group in ("dev", "test", "tests"):
        found.extend(item for item in groups.get(group, []) if isinstance(item, str))
    kept: list[str] = []
    for requirement in found:
        match = _NAME.match(requirement)
        if match is None or "://" in requirement:
            continue
        name = _canonical(match.group(1))
        if name.startswith("amplifier-") or name in _NOT_FOR_TESTS:
            continue
        if requirement not in kept:
            kept.append(requirement)
    return kept


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _tail(text: str, count: int = 4) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:]) or "(no output)"


def _run(
    command: Sequence[str],
    cwd: Path | None = None,
    timeout: float = PIP_TIMEOUT_S,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _pip(python: Path, *args: str) -> str | None:
    """Run pip in the environment of ``python``; why it failed, or None."""
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *args]
    try:
        done = _run(command)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"pip install {' '.join(args)} failed: {err}"
    if done.returncode != 0:
        return f"pip install {' '.join(args)} failed: {_tail(done.stderr + done.stdout)}"
    return None


def _kernel_requirements(kernel: str) -> list[str]:
    if kernel == "peer":
        return [PEER_REQUIREMENT]
    # The code-free ``amplifier-core`` distribution stands for this kernel, as users install it.
    return [
        "-e",
        str(REPO / "util"),
        "-e",
        str(REPO / "core"),
        str(REPO / "compat" / "amplifier-core-dist"),
    ]


def build_venv(
    venv: Path, kernel: str, module: Path, requirements: list[str], reuse: bool
) -> str | None:
    """Make ``venv`` hold ``kernel``, the module and its requirements; why not, or None."""
    python = _venv_python(venv)
    stamp = venv / ".published-modules.json"
    wanted = {
        "kernel": _kernel_requirements(kernel),
        "module": str(module),
        "requirements": [*TEST_TOOLS, *requirements],
    }
    built = json.loads(stamp.read_text(encoding="utf-8")) if stamp.exists() else None
    if reuse and python.exists() and built == wanted:
        return None
    if venv.exists():
        shutil.rmtree(venv)
    made = _run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    if made.returncode != 0 or not python.exists():
        return f"python -m venv {venv} failed: {_tail(made.stderr + made.stdout)}"
    failed = _pip(python, *_kernel_requirements(kernel), *TEST_TOOLS, *requirements)
    failed = failed or _pip(python, "--no-deps", str(module))
    if failed is None:
        stamp.write_text(json.dumps(wanted), encoding="utf-8")
    return failed


def kernel_identity(python: Path) -> str:
    """Version and location of the ``amplifier_core`` the environment imports."""
    probe = (
        "import importlib.metadata as m, amplifier_core as a\n"
        "print(m.version('amplifier-core'), a.__file__)\n"
    )
    done = _run([str(python), "-I", "-c", probe], timeout=120)
    return done.stdout.strip() if done.returncode == 0 else f"(import failed: {_tail(done.stderr)})"


def read_junit(path: Path) -> Outcomes:
    """Per-test outcomes from a junitxml report."""
    outcomes: Outcomes = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        children = {child.tag for child in case}
        if "error" in children:
            what = "error"
        elif "failure" in children:
            what = "failed"
        elif "skipped" in children:
            what = "skipped"
        else:
            what = "passed"
        # A test with a teardown error appears twice; the worse outcome wins.
        if outcomes.get(test) in (None, "passed", "skipped"):
            outcomes[test] = what
    return outcomes


def run_suite(python: Path, module: Path, report: Path, timeout: float) -> str | None:
    """Run the module's suite with ``python``, writing ``report``; why it did not run, or None.

    ``HOME`` is an empty directory beside the report, made afresh for each run, so nothing the
    suite reads or writes under ``~`` leaks between runs or touches the real home. It is not
    under the temporary directory: suites that allow writes to ``/tmp`` would then allow
    ``~`` too.
    """
    if report.exists():
        report.unlink()
    home = report.with_name(f"{report.stem}-home")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env.update({"HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"})
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--junitxml={report}", "-o", "junit_family=xunit1"]
    try:
        done = _run(command, cwd=module, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return f"pytest did not finish in {timeout:.0f} s"
    (report.with_suffix(".log")).write_text(done.stdout + done.stderr, encoding="utf-8")
    if not report.exists():
        output = _tail(done.stdout + done.stderr)
        return f"pytest wrote no report (exit {done.returncode}): {output}"
    return None


def measure(name: str, module: Path, work: Path, reuse: bool, timeout: float) -> ModuleRun:
    """Build both environments for the checkout ``module`` and run its suite in each."""
    run = ModuleRun(name)
    try:
        run.requirements = third_party_requirements(module / "pyproject.toml")
    except (OSError, tomllib.TOMLDecodeError) as err:
        run.problems.append(f"{module / 'pyproject.toml'}: {err}")
        return run
    for kernel in KERNELS:
        venv = work / name / kernel
        print(f"published: {name}: {kernel}: environment", file=sys.stderr)
        failed = build_venv(venv, kernel, module, run.requirements, reuse)
        if failed:
            run.problems.append(f"{kernel}: {failed}")
            continue
        python = _venv_python(venv)
        print(f"published: {name}: {kernel}: {kernel_identity(python)}", file=sys.stderr)
        report = work / name / f"{kernel}.xml"
        failed = run_suite(python, module, report, timeout)
        if failed:
            run.problems.append(f"{kernel}: {failed}")
            continue
        run.outcomes[kernel] = read_junit(report)
    return run


def compare(run: ModuleRun) -> tuple[int, int, list[str], list[str]]:
    """Passing on 2.0.2, passing on ours, the lost tests, the gained tests."""
    peer, ours = run.passing("peer"), run.passing("ours")
    return len(peer), len(ours), sorted(peer - ours), sorted(ours - peer)


def _is_checkout(path: Path) -> bool:
    return (path / "pyproject.toml").is_file() and (path / "tests").is_dir()


def find_checkouts(root: Path, only: Iterable[str] = ()) -> dict[str, Path]:
    """Module checkouts under ``root``, by name: ``root/<repo>`` or ``root/<owner>/<repo>``.

    A checkout keeps its repository's directory name (``amplifier-module-hooks-x``): 2.0.2's
    pytest plugin finds the module under test from that name, so the name is part of the test.
    """
    found: dict[str, Path] = {}
    for path in sorted(p for p in root.iterdir() if p.is_dir()):
        if _is_checkout(path):
            found[path.name] = path
            continue
        for inner in sorted(p for p in path.iterdir() if p.is_dir()):
            if _is_checkout(inner):
                found[f"{path.name}/{inner.name}"] = inner
    wanted = set(only)
    return {name: path for name, path in found.items() if not wanted or name in wanted}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "checkouts",
        type=Path,
        nargs="?",
        default=os.environ.get(CHECKOUTS_VARIABLE) or None,
        help=f"directory of module checkouts (default: ${CHECKOUTS_VARIABLE})",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=REPO / "bench" / ".peers" / "published",
        help="where the environments and reports go",
    )
    parser.add_argument("--only", nargs="*", default=[], help="checkout names to run")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep environments built for the same module and requirements",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per suite run")
    parser.add_argument("--json", type=Path, help="also write every per-test outcome as JSON")
    args = parser.parse_args(argv)

    if args.checkouts is None:
        print(
            f"published: skipped: no directory of module checkouts (give it as the argument "
            f"or in ${CHECKOUTS_VARIABLE}; see bench/README.md)",
            file=sys.stderr,
        )
        return 0
    checkouts = Path(args.checkouts)
    if not checkouts.is_dir():
        print(f"published: {checkouts}: not a directory", file=sys.stderr)
        return 2
    modules = find_checkouts(checkouts, args.only)
    if not modules:
        print(
            f"published: no module checkout (pyproject.toml and tests/) under {checkouts}",
            file=sys.stderr,
        )
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    runs = [
        measure(name, module, args.work, args.reuse, args.timeout)
        for name, module in modules.items()
    ]

    rows: list[list[str]] = []
    totals = [0, 0, 0, 0]
    for run in runs:
        if run.problems:
            rows.append([run.name, "-", "-", "-", "-"])
            continue
        peer, ours, lost, gained = compare(run)
        for index, value in enumerate((peer, ours, len(lost), len(gained))):
            totals[index] += value
        rows.append([run.name, str(peer), str(ours), str(len(lost)), str(len(gained))])
    measured = sum(1 for run in runs if not run.problems)
    losing = sum(1 for run in runs if not run.problems and compare(run)[2])
    rows.append([f"total ({measured} modules)", *(str(value) for value in totals)])
    print(render_table(["module", "pass on 2.0.2", "pass on ours", "lost", "gained"], rows))
    print(
        f"\n{measured - losing} of {measured} modules lose nothing "
        f"({totals[0] - totals[2]} of {totals[0]} tests passing on 2.0.2 pass on ours)"
    )
    for run in runs:
        for problem in run.problems:
            print(f"NOT MEASURED {run.name}: {problem}")
        if not run.problems:
            for test in compare(run)[2]:
                print(f"LOST {run.name}: {test} (ours: {run.outcomes['ours'].get(test, 'absent')})")
    if args.json:
        payload = [
            {
                "module": run.name,
                "requirements": run.requirements,
                "problems": run.problems,
                "outcomes": run.outcomes,
            }
            for run in runs
        ]
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2, sort_keys=True), encoding="utf-8")
    if any(run.problems for run in runs):
        return 2
    return 1 if losing else 0


if __name__ == "__main__":
    sys.exit(main())
