"""A mount looks for mypy's daemon without importing mypy (its compiled package costs about
30 ms to import), and finds it exactly where an import would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_PROBE = """
import asyncio, importlib.util, json, sys
import amplifier_module_hooks_python_check as check
from amplifier_module_hooks_python_check.daemon import daemon_available

class Registry:
    def register(self, event, handler, priority=0, name=None):
        return lambda: None

class Coordinator:
    hooks = Registry()
    def get_capability(self, name):  # a folder that is not there: no daemon is started
        return sys.argv[1] if name == "session.working_dir" else None

found = daemon_available()
loaded = sorted(sys.modules)
asyncio.run(check.mount(Coordinator(), {"mypy_daemon": True}))
mounted = sorted(sys.modules)
print(json.dumps({"found": found, "loaded": loaded, "mounted": mounted}))
"""


def _run(code: str, path: Path | None = None, *argv: str) -> dict[str, object]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
        cwd=path or Path.cwd(),
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_daemon_check_and_the_mount_import_no_mypy(tmp_path: Path) -> None:
    result = _run(_PROBE, None, str(tmp_path / "absent"))
    assert result["found"] is True  # mypy is installed here
    for key in ("loaded", "mounted"):
        modules = result[key]
        assert isinstance(modules, list)
        assert [m for m in modules if m == "mypy" or m.startswith("mypy.")] == [], key


def _fake_mypy(root: Path, *, dmypy: bool, client: bool) -> None:
    package = root / "mypy"
    package.mkdir()
    (package / "__init__.py").write_text("raise SystemExit('the check imported mypy')\n")
    if dmypy:
        (package / "dmypy").mkdir()
        (package / "dmypy" / "__init__.py").write_text("raise SystemExit('imported')\n")
        if client:
            (package / "dmypy" / "client.py").write_text("")


_CHECK = """
import json
from amplifier_module_hooks_python_check.daemon import daemon_available
print(json.dumps({"found": daemon_available()}))
"""


@pytest.mark.parametrize(
    ("dmypy", "client", "expected"),
    [(False, False, False), (True, False, False), (True, True, True)],
)
def test_the_daemon_is_found_where_an_import_finds_it(
    tmp_path: Path, dmypy: bool, client: bool, expected: bool
) -> None:
    _fake_mypy(tmp_path, dmypy=dmypy, client=client)
    assert _run(_CHECK, tmp_path)["found"] is expected


def test_the_installed_daemon_is_found_as_find_spec_finds_it() -> None:
    code = _CHECK.replace(
        'print(json.dumps({"found": daemon_available()}))',
        "import importlib.util\n"
        "found = daemon_available()\n"
        'print(json.dumps({"found": found == (importlib.util.find_spec("mypy.dmypy.client")'
        " is not None)}))",
    )
    assert _run(code)["found"] is True
