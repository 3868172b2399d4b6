"""The kernel stands alone: ``pip install ./core`` into an empty virtual environment installs
it with its third-party requirements only, and every public name imports and a hook runs.

Statically: core's pyproject requires no package of this repository, and no file of
``amplifier_core`` imports one. For real (slow): the install, from the checkout, in a fresh
virtual environment, then ``import amplifier_core``, each name of ``__all__``, and one emit.
"""

from __future__ import annotations

import ast
import json
import tomllib
from pathlib import Path

import pytest
from amplifier_hooks_testsupport.fresh_venv import install_and_run

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
OURS = ("amplifier_hooks_", "amplifier_module_")

SMOKE = """
import asyncio, importlib.metadata, json
import amplifier_core
from amplifier_core import HookRegistry, HookResult

names = [name for name in amplifier_core.__all__ if getattr(amplifier_core, name) is None]
registry = HookRegistry()
registry.register("tool:pre", lambda event, data: HookResult(action="deny", reason="no"))
result = asyncio.run(registry.emit("tool:pre", {"tool_name": "bash", "tool_input": {}}))
installed = sorted(d.metadata["Name"].lower() for d in importlib.metadata.distributions())
print(json.dumps({"action": result.action, "reason": result.reason, "none": names,
                  "count": len(amplifier_core.__all__), "installed": installed}))
"""


def test_the_kernel_requires_no_package_of_this_repository() -> None:
    project = tomllib.loads((CORE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [r.lower() for r in project["dependencies"]]
    assert [r for r in requirements if r.startswith("amplifier-")] == []
    assert [r for r in requirements if r.startswith("pyyaml")] == []


def _imported(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
    return found


def test_no_kernel_file_imports_another_package_of_this_repository() -> None:
    files = sorted((CORE / "src" / "amplifier_core").rglob("*.py"))
    assert len(files) > 20
    wrong = {
        str(f.relative_to(ROOT)): name
        for f in files
        for name in _imported(f)
        if name.startswith(OURS) or name.split(".")[0] == "yaml"
    }
    assert wrong == {}


@pytest.mark.slow
def test_pip_install_core_alone_gives_a_working_kernel(tmp_path: Path) -> None:
    done = install_and_run(tmp_path, ["./core"], SMOKE, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert (report["action"], report["reason"]) == ("deny", "no")
    assert report["none"] == []
    assert report["count"] > 50
    assert "amplifier-hooks-core" in report["installed"]
    ours = [name for name in report["installed"] if name.startswith("amplifier-")]
    assert ours == ["amplifier-hooks-core"]
    assert "pyyaml" not in report["installed"]
