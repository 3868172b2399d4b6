"""No module asks which kernel it is mounted on; the kernel adapter does.

A module runs on this repository's kernel and on amplifier-core 2.0.2. What differs between
them is answered in one place, ``amplifier_hooks_util.kernel.Kernel`` (resolved once at
mount). A module that probes the registry or the coordinator for an attribute only one of the
two kernels has (``getattr(registry, "handlers_for", None)``, ``hasattr(coordinator,
"reset_turn")``), or passes this kernel's own keyword (``get_capability(name, watch=...)``),
decides the same question again on its own. Every such probe in the shipped sources of
``modules/*/src`` and ``cli/src`` fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]

KERNEL_ONLY: Final = frozenset(
    {
        "handlers_for",  # the registry lists a handler chain (this kernel)
        "add_observer",  # handler runs are reported (this kernel)
        "take_ephemeral",  # the coordinator queues ephemeral injections (this kernel)
        "reset_turn",  # the coordinator counts per turn (this kernel)
        "_none_is_continue",
    }
)
KERNEL_ONLY_KEYWORDS: Final = {"get_capability": frozenset({"watch"})}


def _sources() -> Iterator[Path]:
    for top in [*sorted(ROOT.glob("modules/*/src")), ROOT / "cli" / "src"]:
        yield from sorted(top.rglob("*.py"))


def _probes(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name in {"getattr", "hasattr"} and len(node.args) >= 2:
            attribute = node.args[1]
            if isinstance(attribute, ast.Constant) and attribute.value in KERNEL_ONLY:
                yield node.lineno, f"{name}(..., {attribute.value!r})"
        for keyword in node.keywords:
            if keyword.arg in KERNEL_ONLY_KEYWORDS.get(str(name), ()):
                yield node.lineno, f"{name}(..., {keyword.arg}=...)"


def test_no_module_probes_the_kernel() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {probe}"
        for path in _sources()
        for line, probe in _probes(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    ]
    assert not found, "ask amplifier_hooks_util.kernel.Kernel instead:\n" + "\n".join(found)


def test_the_check_sees_each_spelling_of_a_probe() -> None:
    source = (
        "a = getattr(registry, 'handlers_for', None)\n"
        "b = hasattr(coordinator, 'reset_turn')\n"
        "c = coordinator.get_capability('x', watch=f)\n"
        "d = getattr(registry, 'register', None)\n"
    )
    assert [line for line, _ in _probes(ast.parse(source))] == [1, 2, 3]
