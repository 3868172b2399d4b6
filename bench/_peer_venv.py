"""Provide the virtual environment that holds a peer release from PyPI (amplifier-core 2.0.2).

The environment lives under ``bench/.peers/<name>-<version>/`` (ignored by git), is created
with ``python -m venv`` and filled with ``pip install <name>==<version>`` the first time it is
needed, and reused afterwards. It is never the project's own environment: the peer and this
checkout both import as ``amplifier_core``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PeerVenv", "ensure_peer_venv", "installed_version", "pip_install"]

PIP_TIMEOUT_S = 600.0
_PIP_INSTALL = ("-m", "pip", "install", "--disable-pip-version-check", "--quiet")


@dataclass(frozen=True)
class PeerVenv:
    """Outcome of :func:`ensure_peer_venv`: an interpreter to run, or why there is none."""

    python: Path | None
    reason: str = ""


def _venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def _run(command: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def _last_lines(text: str, count: int = 3) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:]) or "(no output)"


def installed_version(python: Path, distribution: str) -> str | None:
    """The version of ``distribution`` in the environment of ``python``, or ``None``."""
    probe = (
        "import importlib.metadata as m, sys\n"
        "try:\n"
        f"    print(m.version({distribution!r}))\n"
        "except m.PackageNotFoundError:\n"
        "    sys.exit(3)\n"
    )
    done = _run([str(python), "-I", "-c", probe], timeout=60)
    return done.stdout.strip() if done.returncode == 0 else None


def ensure_peer_venv(venv: Path, distribution: str, version: str) -> PeerVenv:
    """Create ``venv`` and install ``distribution==version`` into it unless already there.

    Progress goes to stderr. Any failure (no network, no ``venv``/``ensurepip`` module, pip
    error) is returned as a reason rather than raised, so the caller can still measure the rest.
    """
    python = _venv_python(venv)
    requirement = f"{distribution}=={version}"
    try:
        if not python.exists():
            print(f"bench: creating {venv} for {requirement} (one time)", file=sys.stderr)
            made = _run([sys.executable, "-m", "venv", str(venv)], timeout=300)
            if made.returncode != 0 or not python.exists():
                return PeerVenv(
                    None,
                    f"'{sys.executable} -m venv {venv}' failed: "
                    f"{_last_lines(made.stderr + made.stdout)}",
                )
        if installed_version(python, distribution) == version:
            return PeerVenv(python)
        print(f"bench: pip install {requirement} into {venv}", file=sys.stderr)
        pip = [str(python), *_PIP_INSTALL, "--retries", "1", "--timeout", "20", requirement]
        installed = _run(pip, timeout=PIP_TIMEOUT_S)
        if installed.returncode != 0:
            return PeerVenv(
                None,
                f"'pip install {requirement}' into {venv} failed (offline?): "
                f"{_last_lines(installed.stderr + installed.stdout)}",
            )
        found = installed_version(python, distribution)
        if found != version:
            return PeerVenv(None, f"{venv} holds {distribution} {found}, not {version}")
    except (OSError, subprocess.TimeoutExpired) as err:
        return PeerVenv(None, f"setting up {venv} for {requirement} failed: {err}")
    return PeerVenv(python)


def pip_install(python: Path, *requirements: str) -> str | None:
    """Install ``requirements`` (without dependencies) with ``python``'s pip: why not, or None."""
    try:
        done = _run([str(python), *_PIP_INSTALL, "--no-deps", *requirements], PIP_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"pip install {' '.join(requirements)} failed: {err}"
    if done.returncode != 0:
        output = _last_lines(done.stderr + done.stdout)
        return f"pip install {' '.join(requirements)} failed: {output}"
    return None
