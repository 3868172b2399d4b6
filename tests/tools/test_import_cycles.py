"""No two modules of a package import each other, directly or round a longer circle.

import-linter holds the arrows between packages (the layers); this test holds the arrows
inside each package: every ``*/src/<package>`` of the repository is parsed (``ast``, nothing is
imported) and its modules' imports make a graph whose strongly connected components of more
than one module are the circles. Any circle fails, naming its modules and the import lines
that close it.

What counts as an arrow, the strict reading:

* every ``import`` and ``from ... import`` of a module of the same package, wherever it is
  written: at module level, inside a function (an import deferred to dodge a circle is still
  one), and under ``if TYPE_CHECKING:`` (a circle of types is a circle of meaning; a
  :class:`typing.Protocol` or a smaller shared module breaks it);
* ``from . import name`` is an arrow to the submodule ``name`` when there is one, else to the
  package's ``__init__``; ``from .a import b`` an arrow to ``a.b`` when it is a module, else
  to ``a``;
* the implicit import of a parent package (importing ``pkg.a`` runs ``pkg/__init__.py``
  first) is not an arrow: an ``__init__`` that re-exports its submodules would otherwise be
  in a circle with each of them.

Imports by string (``importlib.import_module``) are not seen here; ``test_no_import_by_string``
refuses those.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]


@dataclass
class Graph:
    """One package's modules and the arrows between them, each with where it is written."""

    package: str
    modules: dict[str, Path]
    arrows: dict[str, dict[str, int]] = field(default_factory=dict)
    """module -> {imported module: line of the first such import}."""


def _package_dirs() -> Iterator[Path]:
    for init in sorted(ROOT.glob("**/src/*/__init__.py")):
        parts = init.relative_to(ROOT).parts
        if not any(part.startswith(".") for part in parts):
            yield init.parent


def _module_name(package_dir: Path, path: Path) -> str:
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The module names ``node`` imports, as written (before matching them to files)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    return [f"{source}.{alias.name}" for alias in node.names] + [source]


def _resolve(name: str, modules: dict[str, Path], wanted: str) -> str | None:
    """The module of the package ``name`` is: itself, else its nearest parent (``a.b.name``
    where ``name`` is not a module), when it is of the package."""
    while name and name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in modules and name != wanted else None


def package_graph(package_dir: Path) -> Graph:
    """The import graph of the package in ``package_dir`` (the module docstring's rules)."""
    modules = {_module_name(package_dir, p): p for p in sorted(package_dir.rglob("*.py"))}
    graph = Graph(package_dir.name, modules, {name: {} for name in modules})
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            written = _targets(node, name, is_package)
            if isinstance(node, ast.ImportFrom):  # ``from a import b``: ``a.b`` if a module
                submodules = [t for t in written[:-1] if t in modules]
                written = submodules if len(submodules) == len(written) - 1 else written
            for target in written:
                found = _resolve(target, modules, name)
                if found is not None:
                    graph.arrows[name].setdefault(found, node.lineno)
    return graph


def circles(graph: Graph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in graph.arrows:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph.arrows[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            step = next(pending, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.arrows[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _describe(graph: Graph, circle: frozenset[str]) -> str:
    arrows = [
        f"{graph.modules[a].relative_to(ROOT)}:{line} imports {b}"
        for a in sorted(circle)
        for b, line in sorted(graph.arrows[a].items())
        if b in circle
    ]
    return f"{graph.package}: {' <-> '.join(sorted(circle))} ({'; '.join(arrows)})"


GRAPHS: Final = [package_graph(directory) for directory in _package_dirs()]


def test_every_package_is_read() -> None:
    names = {graph.package for graph in GRAPHS}
    assert {"amplifier_core", "amplifier_hooks_bundle", "amplifier_hooks_cli"} <= names
    assert "amplifier_module_hooks_declarative" in names


def test_the_graph_sees_each_kind_of_arrow(tmp_path: Path) -> None:
    package = tmp_path / "src" / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .a import A\nVERSION = '1'\n")
    (package / "a.py").write_text("from . import VERSION\nA = 1\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n"
    )
    (package / "c.py").write_text("def f():\n    from pkg import b\nC = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "d.py").write_text("from .. import sub\nfrom ..sub import e\n")
    (package / "sub" / "e.py").write_text("import pkg.sub.d\n")
    graph = package_graph(package)
    assert graph.arrows["pkg"] == {"pkg.a": 1}
    assert graph.arrows["pkg.a"] == {"pkg": 1}
    assert graph.arrows["pkg.b"] == {"pkg.c": 3}
    assert graph.arrows["pkg.c"] == {"pkg.b": 2}
    assert graph.arrows["pkg.sub.d"] == {"pkg.sub": 1, "pkg.sub.e": 2}
    assert graph.arrows["pkg.sub.e"] == {"pkg.sub.d": 1}
    assert sorted(sorted(c) for c in circles(graph)) == [
        ["pkg", "pkg.a"],
        ["pkg.b", "pkg.c"],
        ["pkg.sub.d", "pkg.sub.e"],
    ]


@pytest.mark.parametrize("graph", GRAPHS, ids=lambda graph: graph.package)
def test_no_import_circle_inside_a_package(graph: Graph) -> None:
    found = [_describe(graph, c) for c in circles(graph)]
    assert found == [], "break each circle: a smaller shared module, or a Protocol for a type"
