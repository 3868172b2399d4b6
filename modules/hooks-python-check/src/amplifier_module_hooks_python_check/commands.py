"""Find the command that starts a checker (``ruff`` or ``mypy``) when the config names none.

In order: the executable on ``PATH``; the one beside the running interpreter (a virtual
environment that is not activated); ``python -m <name>`` when the interpreter can import it.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Resolution", "resolve_command"]


@dataclass(frozen=True, slots=True)
class Resolution:
    """The command to run, or ``None`` with a sentence saying where it was looked for."""

    command: tuple[str, ...] | None
    looked: str


def resolve_command(name: str, configured: tuple[str, ...] | None) -> Resolution:
    """The argv prefix that runs ``name``: ``configured`` when given, else the first one found."""
    if configured is not None:
        return Resolution(configured, f"commands.{name} = {list(configured)}")
    found = shutil.which(name)
    if found:
        return Resolution((found,), "PATH")
    beside = shutil.which(name, path=str(Path(sys.executable).parent))
    if beside:
        return Resolution((beside,), f"beside {sys.executable}")
    if importlib.util.find_spec(name) is not None:
        return Resolution((sys.executable, "-m", name), f"{sys.executable} -m {name}")
    return Resolution(
        None,
        f"not on PATH, not beside {sys.executable}, not importable as {sys.executable} -m {name}",
    )
