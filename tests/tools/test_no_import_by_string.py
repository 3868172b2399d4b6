"""No package imports a file of this repository by string.

An ``importlib.import_module("amplifier_module_x.y")`` or ``__import__("...")`` is an import
arrow that neither import-linter (the layers) nor mypy sees. Every call in the shipped sources
(``*/src``) whose module argument is a literal naming a package of this repository, or a
relative one (``".x"``), fails here: import the module by name (``from . import x``), declare an
entry point, or export what is used in the package's ``__all__``.

A literal is a string constant, an f-string (``f"{package}.survey"``), a concatenation with
one, or a name bound at module level to a string constant. A name computed at run time (an
entry point's value, the package a bundle names, a module path given on the command line) is
genuinely dynamic and not flagged. The few literals that are a loading mechanism themselves are
listed in :data:`ALLOWED`, each with why; the list may only shrink (a listed call that is gone
fails too).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
OWN_PREFIXES: Final = ("amplifier_core", "amplifier_hooks_", "amplifier_module_")

ALLOWED: Final[dict[tuple[str, str], str]] = {
    (
        "core/src/amplifier_core/__init__.py",
        "__getattr__",
    ): "amplifier-core 2.0.2's submodules imported on first attribute access (PEP 562), as "
    "2.0.2's package exposes them; the names are listed under TYPE_CHECKING",
    (
        "modules/hooks-status-context/src/amplifier_module_hooks_status_context/__init__.py",
        "__getattr__",
    ): "public names imported on first attribute access (PEP 562) so a mount stays light; "
    "the names are listed under TYPE_CHECKING",
    (
        "modules/loop-session/src/amplifier_module_loop_session/__init__.py",
        "__getattr__",
    ): "public names imported on first attribute access (PEP 562) so a mount stays light; "
    "the names are listed under TYPE_CHECKING",
    (
        "modules/hooks-declarative/src/amplifier_module_hooks_declarative/protocols.py",
        "_format_protocol",
    ): "the protocol submodule of a format's package, whose name only the installed entry "
    "point (amplifier_hooks.formats) tells, imported when a hook first speaks it",
}
"""``(file, enclosing function)``: why its literal import is the loading mechanism itself."""


def _sources() -> Iterator[Path]:
    for path in sorted(ROOT.glob("**/src/**/*.py")):
        parts = path.relative_to(ROOT).parts
        if not any(part.startswith(".") or part == "node_modules" for part in parts):
            yield path


def _is_import_call(node: ast.Call) -> bool:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in {"import_module", "__import__"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level names bound to a string constant."""
    found: dict[str, str] = {}
    for node in tree.body:
        target: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign):
            target = node.target
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
        ):
            found[target.id] = value.value
    return found


def _literal_text(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The module name ``node`` spells with literal parts (``{}`` for a computed part), or
    ``None`` when nothing of it is literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.JoinedStr):
        parts = [
            str(value.value)
            if isinstance(value, ast.Constant)
            else (_literal_text(value.value, constants) or "{}")
            if isinstance(value, ast.FormattedValue)
            else "{}"
            for value in node.values
        ]
        text = "".join(parts)
        return None if text.replace("{}", "") == "" else text
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _literal_text(node.left, constants)
        right = _literal_text(node.right, constants)
        if left is None and right is None:
            return None
        return (left or "{}") + (right or "{}")
    return None


def _names_this_repository(text: str) -> bool:
    return text.startswith((".", "{}.", *OWN_PREFIXES))


def _enclosing(tree: ast.Module) -> dict[ast.AST, str]:
    where: dict[ast.AST, str] = {}
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                where.setdefault(node, function.name)
    return where


def string_imports() -> list[tuple[str, int, str, str]]:
    """``(file, line, function, module text)`` of each import of this repository by a literal."""
    found: list[tuple[str, int, str, str]] = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        constants = _constants(tree)
        where: dict[ast.AST, str] | None = None
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _is_import_call(node) and node.args):
                continue
            text = _literal_text(node.args[0], constants)
            if text is None or not _names_this_repository(text):
                continue
            where = where if where is not None else _enclosing(tree)
            function = where.get(node, "<module>")
            found.append((path.relative_to(ROOT).as_posix(), node.lineno, function, text))
    return found


def test_the_scan_sees_the_shipped_sources() -> None:
    files = {path.relative_to(ROOT).as_posix() for path in _sources()}
    assert "core/src/amplifier_core/loader.py" in files
    assert any(f.startswith("modules/hooks-declarative/src/") for f in files)
    assert any(f.startswith("cli/src/") for f in files)


def test_the_scan_finds_each_spelling_of_a_literal() -> None:
    tree = ast.parse(
        "import importlib\n"
        "PACKAGE = 'amplifier_module_hooks_declarative'\n"
        "importlib.import_module('amplifier_module_hooks_declarative.survey')\n"
        "importlib.import_module(f'{PACKAGE}.config')\n"
        "importlib.import_module(f'{package}.sources')\n"
        "importlib.import_module('.runners.command', __package__)\n"
        "__import__('amplifier_core.hooks')\n"
        "importlib.import_module(PACKAGE + '.managed')\n"
        "importlib.import_module(name)\n"
        "importlib.import_module('hyperscan')\n"
    )
    constants = _constants(tree)
    texts = [
        _literal_text(node.args[0], constants)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _is_import_call(node)
    ]
    flagged = [t for t in texts if t is not None and _names_this_repository(t)]
    assert flagged == [
        "amplifier_module_hooks_declarative.survey",
        "amplifier_module_hooks_declarative.config",
        "{}.sources",
        ".runners.command",
        "amplifier_core.hooks",
        "amplifier_module_hooks_declarative.managed",
    ]


def test_no_file_imports_this_repository_by_string() -> None:
    problems = [
        f"{file}:{line} ({function}): imports {text!r} by string; import it by name, "
        "through an entry point, or use a name of the package's __all__"
        for file, line, function, text in string_imports()
        if (file, function) not in ALLOWED
    ]
    assert problems == []


def test_every_allowed_literal_is_still_there() -> None:
    present = {(file, function) for file, _, function, _ in string_imports()}
    gone = sorted(set(ALLOWED) - present)
    assert gone == [], f"no longer import by string; remove them from ALLOWED: {gone}"
