"""The docs' shell commands, checked in seconds; ``nox -s build`` runs them all as printed
(``tests/packaging/doc_commands.py``), minutes of installs.

- every command the check does not run is still printed, with its reason;
- the build session runs the check;
- each ``pip install ./...`` line of the docs, read as printed, installs every package of this
  workspace that the packages it names require (with the extras it asks for): the README's
  Quick start once left out ``./redact`` and pip stopped after minutes with ``No matching
  distribution found for amplifier-hooks-redact``.
"""

from __future__ import annotations

import glob
import re
import shlex
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from amplifier_hooks_testsupport.load import load_file

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    return load_file(ROOT / "tests" / "packaging" / "doc_commands.py", "doc_commands")


doc_commands = _load()
LINES: list[tuple[str, str]] = [
    line for doc in doc_commands.DOCS for line in doc_commands.commands(doc)
]


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _project(directory: Path) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((directory / "pyproject.toml").read_text("utf-8"))[
        "project"
    ]
    return project


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None, requirement
    return _name(match.group())


WORKSPACE = {
    _name(_project(p.parent)["name"]): p.parent
    for p in ROOT.glob("**/pyproject.toml")
    if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    and "name" in tomllib.loads(p.read_text("utf-8")).get("project", {})
}


def test_every_command_not_run_is_still_printed_with_its_reason() -> None:
    doc_commands.check_exceptions(LINES)
    assert all(reason.strip() for reason in doc_commands.EXCEPTIONS.values())


def test_the_build_session_runs_every_doc_command() -> None:
    noxfile = (ROOT / "noxfile.py").read_text("utf-8")
    build = noxfile[noxfile.index("def build(") :]
    assert '"doc_commands.py"' in build


def _needs(directory: Path, extras: set[str]) -> set[str]:
    """The workspace distributions ``directory``'s package requires with ``extras``."""
    project = _project(directory)
    requirements = list(project.get("dependencies", []))
    for extra in extras:
        requirements += project.get("optional-dependencies", {}).get(extra, [])
    return {n for n in map(_requirement_name, requirements) if n in WORKSPACE}


CHECKOUT_INSTALLS = [
    pytest.param(command, id=where)
    for where, command in LINES
    if shlex.split(command, comments=True)[:2] == ["pip", "install"]
    and any(word.startswith("./") for word in shlex.split(command, comments=True))
]


def test_the_docs_install_from_a_checkout() -> None:
    assert len(CHECKOUT_INSTALLS) >= 2  # the Quick start's and Installing's


@pytest.mark.parametrize("command", CHECKOUT_INSTALLS)
def test_a_checkout_install_names_every_workspace_package_it_needs(command: str) -> None:
    named: dict[str, set[str]] = {}
    for word in shlex.split(command, comments=True)[2:]:
        path, _, extras = word.partition("[")
        for found in sorted(glob.glob(path, root_dir=ROOT)):  # the shell expands modules/*
            directory = ROOT / found
            if (directory / "pyproject.toml").exists():
                wanted = set(extras.rstrip("]").split(",")) - {""}
                named[_name(_project(directory)["name"])] = wanted
    assert named, command
    missing = {
        need: name
        for name, extras in named.items()
        for need in _needs(WORKSPACE[name], extras)
        if need not in named
    }
    assert not missing, f"`{command}` lacks (needed by): {missing}"
