"""Each module's README says exactly what to install beside it, on this kernel and on
amplifier-core 2.0.2, and the lines work as written.

Statically, for every module: its README's install block has one line per kernel, and each
line names exactly the shared packages of this repository the module needs (``./util`` when
the pyproject depends on amplifier-hooks-util, itself or through ``./redact``;
``./provider-base`` on amplifier-hooks-provider-base) and ``./core`` for this kernel. For
real, for hooks-redaction (whose README once said nothing about ``./util``): each line, run
from the repository's directory in a fresh virtual environment, installs a module that mounts
and redacts.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from amplifier_hooks_testsupport.fresh_venv import install_and_run

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p.parent for p in ROOT.glob("modules/*/pyproject.toml"))
OURS = "# on this repository's kernel"
THEIRS = "# on amplifier-core 2.0.2"


def _install_lines(module: Path) -> dict[str, list[str]]:
    """``{kernel comment: pip arguments}`` of the README's install block."""
    text = (module / "README.md").read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            for marker in (OURS, THEIRS):
                if line.startswith("pip install ") and line.rstrip().endswith(marker):
                    found[marker] = shlex.split(line, comments=True)[2:]
    return found


SHARED = {
    "amplifier-hooks-util": "./util",
    "amplifier-hooks-redact": "./redact",
    "amplifier-hooks-provider-base": "./provider-base",
}
"""The shared packages, by distribution name: their directory in the checkout."""


def _requirements(package: Path) -> list[str]:
    project = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [re.split(r"[\[;<>=! ]", r, maxsplit=1)[0] for r in project.get("dependencies", [])]


def _shared_needed(package: Path) -> set[str]:
    """The shared packages of this repository ``package`` requires, itself or through another
    shared package (redact needs util), as install arguments."""
    direct = {SHARED[n] for n in _requirements(package) if n in SHARED}
    return direct.union(*(_shared_needed(ROOT / path[2:]) for path in direct))


def _shared_named(arguments: list[str]) -> set[str]:
    return {path for path in SHARED.values() for a in arguments if a.split("[")[0] == path}


def _workspace_modules(module: Path) -> list[str]:
    """The other packages of this repository that ``module`` requires (modules and shared
    packages), as install arguments."""
    prefix = "amplifier-module-"
    names = _requirements(module)
    return [SHARED[n] for n in names if n in SHARED] + [
        f"./modules/{n[len(prefix) :]}" for n in names if n.startswith(prefix)
    ]


@pytest.mark.parametrize("module", MODULES, ids=[m.name for m in MODULES])
def test_each_readme_names_what_to_install_on_each_kernel(module: Path) -> None:
    lines = _install_lines(module)
    assert set(lines) == {OURS, THEIRS}, f"{module.name}/README.md: {lines}"
    this = f"./modules/{module.name}"
    ours, theirs = lines[OURS], lines[THEIRS]
    assert this in ours
    assert this in theirs
    assert "./core" in ours
    assert "amplifier-core==2.0.2" in theirs
    assert "./core" not in theirs
    assert _shared_named(ours) == _shared_needed(module)  # the kernel itself needs none
    assert _shared_named(theirs) == _shared_needed(module)
    for needed in _workspace_modules(module):  # not on PyPI: from the checkout, first
        assert ours.index(needed) < ours.index(this), f"{module.name}: {needed} after {this}"
        assert theirs.index(needed) < theirs.index(this), f"{module.name}: {needed} after {this}"


MOUNT_AND_REDACT = """
import asyncio
from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_redaction import mount

async def main():
    coordinator = MockCoordinator()
    await mount(coordinator, {"events": ["tool:post"]})
    result = await coordinator.hooks.emit("tool:post", {
        "tool_name": "bash", "tool_input": {},
        "tool_result": {"output": "ghp_Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o"},
    })
    print(result.data["tool_result"]["output"])

asyncio.run(main())
import os, sys
sys.stdout.flush()
os._exit(0)  # amplifier-core 2.0.2's engine may crash while the interpreter shuts down
"""


@pytest.mark.slow
@pytest.mark.parametrize("kernel", [OURS, THEIRS], ids=["ours", "amplifier-core-2.0.2"])
def test_the_redaction_readme_lines_install_a_working_module(kernel: str, tmp_path: Path) -> None:
    arguments = _install_lines(ROOT / "modules" / "hooks-redaction")[kernel]
    done = install_and_run(tmp_path, arguments, MOUNT_AND_REDACT, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "[REDACTED:github_token]"
