"""What a piece of Python imports, seen from a fresh interpreter: the import-cost tests of the
modules (what mounting loads, what waits for first use)."""

from __future__ import annotations

import json
import subprocess
import sys

__all__ = ["modules_loaded_by"]


def modules_loaded_by(code: str, *, timeout: float = 120) -> list[str]:
    """Run ``code`` with this interpreter in a new process and return the JSON list it prints
    on its last line (the test's ``print(json.dumps(sorted(sys.modules)))``).

    :raises subprocess.CalledProcessError: the code failed (its stderr is on the error).
    :raises ValueError: its last line is no JSON.
    """
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=timeout
    )
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded
