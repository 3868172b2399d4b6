"""Whole sessions across kernels: Amplifier's runtime modules on ours, ours on 2.0.2.

Each test runs ``scenario.py`` with an interpreter named by an environment variable (the
``compat`` nox sessions build both environments):

- ``AMPLIFIER_MODULES_PYTHON``: our kernel and hook modules, with Amplifier's loop-basic,
  context-simple, provider-mock, tool-bash and tool-filesystem installed from
  ``../shared/upstream/`` (or from the requirements in ``AMPLIFIER_MODULES_REQUIREMENTS``);
- ``AMPLIFIER_CORE_202_PYTHON``: amplifier-core 2.0.2 from PyPI, with our runtime and hook
  modules.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

SCENARIO = Path(__file__).with_name("scenario.py")
EVERY_TURN = [
    "session:start",
    "prompt:submit",
    "provider:request",
    "provider:response",
    "tool:pre",
    "prompt:complete",
    "orchestrator:complete",
    "session:end",
]


def _run(python: str, kind: str, workdir: Path) -> dict[str, Any]:
    done = subprocess.run(
        [python, str(SCENARIO), kind, str(workdir)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=workdir,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.mark.skipif(
    not os.environ.get("AMPLIFIER_MODULES_PYTHON"),
    reason="set AMPLIFIER_MODULES_PYTHON (nox -s compat) to run Amplifier's modules on our kernel",
)
def test_amplifier_runtime_modules_on_our_kernel(tmp_path: Path) -> None:
    report = _run(os.environ["AMPLIFIER_MODULES_PYTHON"], "amplifier", tmp_path)

    assert report["mounted"]["orchestrator"] == "amplifier_module_loop_basic"
    assert report["mounted"]["context"] == "amplifier_module_context_simple"
    assert report["mounted"]["providers"] == ["mock"]
    assert {"bash", "read_file", "write_file"} <= set(report["mounted"]["tools"])
    for event in EVERY_TURN:
        assert event in report["events"], event
    assert "read" in report["tool_pre"]
    # the deny was honoured: the denied call never reached a tool (no tool:post / tool:error)
    assert "tool:post" not in report["events"]
    assert "tool:error" not in report["events"]
    assert all(report["answers"])
    assert report["handlers_left"] == {}


@pytest.mark.skipif(
    not os.environ.get("AMPLIFIER_CORE_202_PYTHON"),
    reason="set AMPLIFIER_CORE_202_PYTHON (nox -s compat) to run our modules on amplifier-core",
)
def test_our_runtime_modules_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    report = _run(os.environ["AMPLIFIER_CORE_202_PYTHON"], "ours", tmp_path)

    assert report["mounted"]["orchestrator"].startswith("amplifier_module_loop_session")
    assert report["mounted"]["context"].startswith("amplifier_module_context_simple")
    assert report["mounted"]["providers"] == ["scripted"]
    assert {"bash", "read_file", "write_file", "edit_file", "todo"} <= set(
        report["mounted"]["tools"]
    )
    for event in EVERY_TURN:
        assert event in report["events"], event
    assert report["tool_pre"][:2] == ["bash", "write_file"]
    assert report["victim_exists"], "the denied rm -rf ran"
    assert report["out_txt"] == "hi"
    assert report["answers"] == ["first turn done", "second turn done"]
    assert report["handlers_left"] == {}
