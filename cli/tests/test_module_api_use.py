"""The command line uses only what a module publishes: names in the package's ``__all__``,
imported from the package itself, never a submodule or an underscore name. A package imported
whole (``import amplifier_module_x as x``) is held to the same: every ``x.name`` the file
reads is in its ``__all__``."""

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


def attribute_uses() -> list[tuple[str, int, str, str]]:
    """``(file, line, module, name)`` of every ``alias.name`` read in a file that imports an
    ``amplifier_module_*`` package whole as ``alias``."""
    found = []
    for path in sorted(SOURCES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {
            alias.asname or alias.name: alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
            if alias.name.startswith("amplifier_module_") and "." not in alias.name
        }
        found.extend(
            (path.name, node.lineno, aliases[node.value.id], node.attr)
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        )
    return found


def test_hooks_declarative_is_imported_whole_and_read_by_its_public_names() -> None:
    used = {(module, name) for _, _, module, name in attribute_uses()}
    assert ("amplifier_module_hooks_declarative", "survey_sources") in used


def test_every_name_read_from_a_whole_module_is_in_its_all() -> None:
    problems = [
        f"{file}:{line}: {module}.{name} is not in its __all__"
        for file, line, module, name in attribute_uses()
        if name not in importlib.import_module(module).__all__
    ]
    assert problems == []
