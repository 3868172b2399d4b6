"""The command line uses only what a module publishes: names in the package's ``__all__``,
imported from the package itself, never a submodule or an underscore name."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[1] / "src" / "amplifier_hooks_cli"


def module_imports() -> list[tuple[str, int, str, list[str]]]:
    """``(file, line, module, names)`` of every import of an ``amplifier_module_*`` package."""
    found = []
    for path in sorted(SOURCES.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [alias.name for alias in node.names]
                found.append((path.name, node.lineno, node.module, names))
            elif isinstance(node, ast.Import):
                found.extend((path.name, node.lineno, a.name, []) for a in node.names)
    return [f for f in found if f[2].startswith("amplifier_module_")]


def test_the_command_line_imports_modules_at_all() -> None:
    modules = {module for _, _, module, _ in module_imports()}
    assert {"amplifier_module_loop_session", "amplifier_module_hooks_logging"} <= modules


def test_every_name_imported_from_a_module_is_in_its_all() -> None:
    problems = []
    for file, line, module, names in module_imports():
        where = f"{file}:{line}: {module}"
        if "." in module:
            problems.append(f"{where}: a submodule; import from the package")
            continue
        public = set(importlib.import_module(module).__all__)
        problems.extend(f"{where}: {n!r} is not in its __all__" for n in names if n not in public)
    assert problems == []
