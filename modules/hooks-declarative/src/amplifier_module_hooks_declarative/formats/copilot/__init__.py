"""GitHub Copilot: every ``.json`` file in the project's ``.github/hooks`` and, for Copilot
CLI's personal hooks, in ``~/.copilot/hooks`` (:mod:`.reader`), and its hook protocol in its
two dialects, the CLI's and VS Code's (:mod:`.protocol`). ``copilot: false`` turns them off."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ...config import DeclarativeConfig
from ...source import HookFormat, Source
from .reader import parse_copilot_hooks

__all__ = ["FORMAT", "HOOKS_DIR", "USER_HOOKS_DIR", "copilot_sources"]

HOOKS_DIR: Final = ".github/hooks"
"""The project's directory of Copilot hooks files (each ``*.json`` in it)."""

USER_HOOKS_DIR: Final = ".copilot/hooks"
"""Copilot CLI's personal hooks, relative to the home directory."""


def copilot_sources(settings: DeclarativeConfig, project_dir: Path, *, user: bool) -> list[Source]:
    """The ``*.json`` files of ``~/.copilot/hooks`` (``user``) or of the project's
    ``.github/hooks``, in name order, as the ``copilot`` config key allows."""
    if not settings.copilot:
        return []
    root = Path.home() / USER_HOOKS_DIR if user else project_dir / HOOKS_DIR
    if not root.is_dir():
        return []
    found: list[Source] = []
    for path in sorted(root.glob("*.json")):
        if user:
            label = f"~/{USER_HOOKS_DIR}/{path.name}"
            found.append(Source("user-copilot-hooks", label, path, reader=parse_copilot_hooks))
        else:
            label = f"{HOOKS_DIR}/{path.name}"
            found.append(Source("copilot-hooks", label, path, reader=parse_copilot_hooks))
    return found


FORMAT: Final = HookFormat(
    name="copilot",
    switch="copilot",
    more_sources=copilot_sources,
    more_kinds=("copilot-hooks",),
    patterns=((f"{HOOKS_DIR}/*.json", parse_copilot_hooks),),
)
"""Copilot's hooks files; every command hook speaks ``protocol: copilot`` (:mod:`.protocol`)."""
