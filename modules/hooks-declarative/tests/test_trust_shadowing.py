"""A module planted in Python's working directory is trusted code.

``python -m`` and ``python -c`` put the working directory first on ``sys.path``: a trusted
guard run as ``python -m tools.guard`` that imports ``json`` loads ``re``, and a ``re.py`` (or a
``re/__init__.py``) added at the project's top level runs instead of the standard library's.
Each case is a real project, a real interpreter and a mounted session: the planted module is
drawn (a standard-library module the guard's imports load, as a file or a package), with the
spelling of the Python run and the moment it appears (before the session, or between two tool
calls). The planted code must not run, the hook refuses naming it, ``trust --check`` names it;
and the same command run directly afterwards does run it: the route is real.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import HooksConfigError, mount
from amplifier_module_hooks_declarative.trust import trust_project, trust_status

from .support import answer_after

PYTHON = sys.executable
GUARD_IMPORTS = "import json, subprocess, argparse"


def _loaded_by_the_guard() -> list[str]:
    """The top-level standard-library modules the guard's imports load that are neither
    builtin nor loaded before it under ``-m`` (what ``runpy`` needs is loaded already)."""
    with tempfile.TemporaryDirectory() as directory:
        probe = Path(directory) / "probe.py"
        probe.write_text(
            "import sys; before = set(sys.modules)\n" + GUARD_IMPORTS + "\n"
            "print(' '.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))\n"
        )
        out = subprocess.run(
            [PYTHON, "-m", "probe"], cwd=directory, capture_output=True, text=True, check=True
        )
    names = set(out.stdout.split()) - set(sys.builtin_module_names)
    found = sorted(n for n in names if n in sys.stdlib_module_names and not n.startswith("_"))
    return found or ["json"]


SHADOWED = _loaded_by_the_guard()
SPELLINGS = [
    f"{PYTHON} -m tools.guard",
    f"{PYTHON} -c 'import tools.guard'",
    f"cd . && {PYTHON} -B -m tools.guard",
    f"{PYTHON} -u -m tools.guard",
]


def project_with_guard(root: Path, command: str) -> Path:
    project = root / "project"
    (project / "tools").mkdir(parents=True)
    (project / "tools" / "__init__.py").write_text("")
    (project / "tools" / "guard.py").write_text(GUARD_IMPORTS + "\n")
    (project / ".claude").mkdir()
    hook = {"type": "command", "command": command}
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    return project


def plant(project: Path, name: str, package: bool, marker: Path) -> str:
    code = f"open({str(marker)!r}, 'w').write('ran')\nraise ImportError\n"  # imports nothing
    if package:
        (project / name).mkdir()
        (project / name / "__init__.py").write_text(code)
        return f"{name}/__init__.py"
    (project / f"{name}.py").write_text(code)
    return f"{name}.py"


async def session_start(project: Path) -> None:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    await cleanup()


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    name=st.sampled_from(SHADOWED),
    package=st.booleans(),
    command=st.sampled_from(SPELLINGS),
    between_calls=st.booleans(),
)
def test_a_module_planted_where_python_imports_first_is_a_change(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    package: bool,
    command: str,
    between_calls: bool,
) -> None:
    root = tmp_path_factory.mktemp("shadow")
    project = project_with_guard(root, command)
    trust_project(project)
    marker = root / "marker"
    planted = ""

    def change() -> None:
        nonlocal planted
        planted = plant(project, name, package, marker)

    if between_calls:
        result = asyncio.run(answer_after(project, change))
        assert result.action == "deny", result
        assert planted in (result.reason or ""), result.reason
    else:
        change()
        with pytest.raises(HooksConfigError, match=planted.replace(".", r"\.")):
            asyncio.run(session_start(project))
    assert not marker.exists(), f"{planted} ran under {command}"
    status = trust_status(project)
    assert not status.trusted
    assert planted in status.why_not()
    subprocess.run(["sh", "-c", command], cwd=project, capture_output=True, check=False)
    assert marker.exists(), f"{planted} is not imported by {command}: the case proves nothing"


def test_a_top_level_module_outside_the_standard_librarys_names_stays_data(
    tmp_path: Path,
) -> None:
    """A directory without ``__init__.py`` cannot shadow a module, and a new directory whose
    name is no module's is not surface: a project's ``test`` data and ``notes`` stay free."""
    project = project_with_guard(tmp_path, f"{PYTHON} -m tools.guard")
    trust_project(project)
    (project / "notes").mkdir()
    (project / "notes" / "todo.txt").write_text("x")
    assert trust_status(project).trusted
