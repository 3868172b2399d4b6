"""Every ```python block of the READMEs and docs runs as written, in a fresh interpreter:

- a block that defines tests (``def test_...``) is a test file: it runs under pytest with only
  the kernel's plugin, in a directory with no pytest configuration, next to the module the same
  page wrote before it (the block that defines ``mount``), saved as the package it imports;
- any other block runs as a script (top-level ``await`` allowed, as in the examples), in the
  repository's directory, with one name given: ``coordinator``, a test coordinator whose session
  works in a fresh directory;
- every run gets its own state directory (``AMPLIFIER_HOME``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "core" / "README.md",
        ROOT / "cli" / "README.md",
        ROOT / "util" / "README.md",
        ROOT / "bundle" / "README.md",
        ROOT / "provider-base" / "README.md",
        ROOT / "testsupport" / "README.md",
        ROOT / "redact" / "README.md",
        *ROOT.glob("modules/*/README.md"),
        *ROOT.glob("docs/*.md"),
    ]
)
RUNNER = """\
import ast, asyncio, sys
from amplifier_core.testing import create_test_coordinator

name, path, workdir = sys.argv[1:4]
coordinator = create_test_coordinator()
coordinator.register_capability("session.working_dir", workdir)
source = open(path, encoding="utf-8").read()
code = compile(source, name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
result = eval(code, {"__name__": "__main__", "coordinator": coordinator})
if asyncio.iscoroutine(result):
    asyncio.run(result)
"""
_IMPORTED = re.compile(r"^(?:from|import) (\w+)", re.M)


def _blocks() -> Iterator[Any]:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        module: str | None = None
        for match in re.finditer(r"```python\n(.*?)```", text, re.S):
            code = match.group(1)
            line = text.count("\n", 0, match.start()) + 2
            name = f"{doc.relative_to(ROOT)}:{line}"
            yield pytest.param(code, name, module, id=name)
            if re.search(r"^async def mount\(", code, re.M):
                module = code


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["AMPLIFIER_HOME"] = str(tmp_path / "state")
    return env


@pytest.mark.parametrize(("code", "where", "module"), list(_blocks()))
def test_python_block_runs_as_written(
    code: str, where: str, module: str | None, tmp_path: Path
) -> None:
    if re.search(r"^(?:async )?def test_", code, re.M):
        imported = [m for m in _IMPORTED.findall(code) if not m.startswith(("amplifier", "pytest"))]
        assert module is not None, f"{where}: a test block needs the module before it"
        assert imported, f"{where}: a test block imports the module it tests"
        (tmp_path / f"{imported[0]}.py").write_text(module, encoding="utf-8")
        (tmp_path / f"test_{imported[0]}.py").write_text(code, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tmp_path.name],
            cwd=tmp_path.parent,
            env={**_env(tmp_path), "PYTHONPATH": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"{where}:\n{done.stdout}\n{done.stderr}"
        assert re.search(r"\b[1-9]\d* passed\b", done.stdout), done.stdout
        return
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    workdir = tmp_path / "work"
    workdir.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, where, str(script), str(workdir)],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"{where}:\n{done.stdout}\n{done.stderr}"
