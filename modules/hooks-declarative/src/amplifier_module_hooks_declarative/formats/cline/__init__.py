"""Cline: one executable per hook in the workspace's ``.clinerules/hooks/`` and the user's
``~/Documents/Cline/Hooks/`` (:mod:`.reader`), and its hook protocol (:mod:`.protocol`).
``cline: false`` turns them off. The user's hooks are read with the user's files
(``include_user``); the workspace's only in a project the user trusts."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat
from .reader import PROJECT_HOOKS_DIR, USER_HOOKS_DIR, cline_sources

__all__ = ["FORMAT", "PROJECT_HOOKS_DIR", "USER_HOOKS_DIR"]

FORMAT: Final = HookFormat(
    name="cline",
    switch="cline",
    more_sources=cline_sources,
    more_kinds=("cline-hook",),
)
