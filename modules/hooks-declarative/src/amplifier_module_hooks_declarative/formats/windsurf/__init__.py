"""Windsurf (Cascade): its ``hooks.json`` at the system level, in the user's
``~/.codeium/windsurf`` and in the workspace's ``.windsurf`` (:mod:`.reader`), merged in that
order as Windsurf merges them, and its hook protocol (:mod:`.protocol`). ``windsurf: false``
turns them off.

The system-level file is Windsurf's per platform (:func:`system_hooks_file`):
``/etc/windsurf/hooks.json`` on Linux, ``/Library/Application Support/Windsurf/hooks.json`` on
macOS, ``C:\\ProgramData\\Windsurf\\hooks.json`` on Windows; the variable
:data:`SYSTEM_FILE_VARIABLE` names another file in its place (tests, or a machine that keeps
it elsewhere). The system and user files are read with the user's files (``include_user``);
the workspace's only in a project the user trusts.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Final

from ...config import DeclarativeConfig
from ...source import HookFormat, HooksFile, Source
from .reader import parse_windsurf_hooks

__all__ = [
    "FORMAT",
    "HOOKS_FILE",
    "SYSTEM_FILE_VARIABLE",
    "USER_HOOKS_FILE",
    "system_hooks_file",
]

HOOKS_FILE: Final = ".windsurf/hooks.json"
"""The workspace's hooks file, relative to the project directory."""

USER_HOOKS_FILE: Final = ".codeium/windsurf/hooks.json"
"""The user's hooks file, relative to the home directory."""

SYSTEM_FILE_VARIABLE: Final = "AMPLIFIER_WINDSURF_SYSTEM_HOOKS"
"""Names the system-level hooks file in place of the platform's."""

_SYSTEM_FILES: Final = {
    "darwin": "/Library/Application Support/Windsurf/hooks.json",
    "win32": "C:\\ProgramData\\Windsurf\\hooks.json",
}
_LINUX_SYSTEM_FILE: Final = "/etc/windsurf/hooks.json"


def system_hooks_file() -> Path:
    """Windsurf's system-level ``hooks.json`` on this platform, or the file
    :data:`SYSTEM_FILE_VARIABLE` names."""
    named = os.environ.get(SYSTEM_FILE_VARIABLE)
    if named:
        return Path(named).expanduser()
    return Path(_SYSTEM_FILES.get(sys.platform, _LINUX_SYSTEM_FILE))


def _label(path: Path) -> str:
    home = Path.home()
    return "~/" + path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


def _machine_sources(settings: DeclarativeConfig, project_dir: Path, *, user: bool) -> list[Source]:
    """The system-level file, then the user's, read before the workspace's (Windsurf's order:
    system, user, workspace)."""
    if not user:
        return []
    system = system_hooks_file()
    home = Path.home() / USER_HOOKS_FILE
    return [
        Source("system-windsurf-hooks", _label(system), system, reader=parse_windsurf_hooks),
        Source("user-windsurf-hooks", _label(home), home, reader=parse_windsurf_hooks),
    ]


FORMAT: Final = HookFormat(
    name="windsurf",
    files=(HooksFile(HOOKS_FILE, "windsurf-hooks", parse_windsurf_hooks),),
    switch="windsurf",
    more_sources=_machine_sources,
    outside_kinds=("system-windsurf-hooks", "user-windsurf-hooks"),
)
