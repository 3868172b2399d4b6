"""Install into a new virtual environment and run a script there, as a user would."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["install_and_run"]


def install_and_run(
    scratch: Path, install: Sequence[str], script: str, *, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``pip install`` ``install`` (run from ``cwd``) into a new venv under ``scratch``, then
    run ``script`` with that venv's Python; returns the script's run.

    :raises AssertionError: the install failed; the message holds pip's output."""
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(scratch)}
    done = subprocess.run(
        [python, "-m", "pip", "install", "-q", *install],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return subprocess.run(
        [python, "-c", script],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
