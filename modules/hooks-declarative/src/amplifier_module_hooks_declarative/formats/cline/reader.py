"""Cline's hooks: one executable per hook, named after it (``PreToolUse``, ``TaskStart``, ...),
in the workspace's ``.clinerules/hooks/`` and the user's ``~/Documents/Cline/Hooks/``.

As Cline finds them (``HookFactory.findUnixHook``): a hook is the file ``<dir>/<HookName>``,
no extension, which must be a regular file the user may execute; a file that is not
executable is not a hook (logged, as Cline skips it), and other files of the directory (a
``README.md``, ``PreToolUse.example``) are nothing. Each hook is run as Cline runs it, through
the shell (``/bin/sh -c '<path>'``, the ``#!`` line choosing its interpreter), in the
workspace root, with Cline's 30 seconds. The hooks of one event, the user's and the
workspace's, run at once and each to its end, as Cline runs them (``Promise.all``): any
``cancel`` cancels, the contexts add up.
"""

from __future__ import annotations

import logging
import os
import shlex
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ...config import DeclarativeConfig
from ...document import EventHooks, HookEntry, HookGroup, HooksDocument
from ...source import Source
from ...specs import CommandHookSpec
from .protocol import CLINE_EVENTS

__all__ = [
    "PROJECT_HOOKS_DIR",
    "TIMEOUT_S",
    "USER_HOOKS_DIR",
    "cline_sources",
    "read_cline_hook",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

PROJECT_HOOKS_DIR: Final = ".clinerules/hooks"
"""The workspace's hooks directory, relative to the project directory."""

USER_HOOKS_DIR: Final = "Documents/Cline/Hooks"
"""The user's hooks directory, relative to the home directory."""

TIMEOUT_S: Final = 30
"""Cline's time limit of a hook, in seconds."""


def _runnable(path: Path) -> bool:
    """Cline's test: a regular file the user may execute."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and os.access(path, os.X_OK)


def read_cline_hook(path: Path, event: str, label: str) -> HooksDocument:
    """The document of one hook executable ``path`` for Cline's ``event``; empty when Cline
    would not run it (not an executable regular file)."""
    if not _runnable(path):
        logger.warning(
            "%s: not an executable file; Cline does not run it (chmod +x %s)",
            label,
            shlex.quote(str(path)),
        )
        return HooksDocument(label, ())
    spec = CommandHookSpec(
        type="command",
        command=shlex.quote(str(path)),
        timeout_ms=TIMEOUT_S * 1000,
        protocol="cline",
    )
    # named as every hook is, <source>:<where in it>: observe_sources and sandbox_sources match
    entry = HookEntry(spec, f"{label}:{event}")
    group = HookGroup((entry,), False, None, entry.label, joint=True)
    # the hook's name is the steps' alias, which tells the protocol the Cline hook
    return HooksDocument(
        label,
        tuple(EventHooks(event, canonical, (group,), label) for canonical in CLINE_EVENTS[event]),
    )


def _display(path: Path, project_dir: Path | None) -> str:
    if project_dir is not None and path.is_relative_to(project_dir):
        return path.relative_to(project_dir).as_posix()
    home = Path.home()
    return "~/" + path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


def _reader(path: Path, event: str) -> Callable[[str, str], HooksDocument]:
    def read(text: str, label: str) -> HooksDocument:
        return read_cline_hook(path, event, label)

    return read


def cline_sources(settings: DeclarativeConfig, project_dir: Path, *, user: bool) -> list[Source]:
    """A source for each hook Cline would look for: in ``~/Documents/Cline/Hooks`` (``user``),
    else in the project's ``.clinerules/hooks``; one that does not exist is read as absent, a
    directory of a hook's name is none."""
    directory = Path.home() / USER_HOOKS_DIR if user else project_dir / PROJECT_HOOKS_DIR
    kind = "user-cline-hook" if user else "cline-hook"
    found: list[Source] = []
    for event in CLINE_EVENTS:
        path = directory / event
        if path.is_dir():  # not a hook (Cline's test is a regular file), nothing to read
            logger.warning("%s: a directory, not a hook executable; not run", path)
            continue
        label = _display(path, None if user else project_dir)
        found.append(Source(kind, label, path, reader=_reader(path, event), opaque=True))
    return found
