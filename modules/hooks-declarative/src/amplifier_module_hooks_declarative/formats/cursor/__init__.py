"""Cursor: its ``hooks.json`` in the project's and the home directory's ``.cursor``
(:mod:`.reader`) and its hook protocol (:mod:`.protocol`). ``cursor: false`` turns them off."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat, HooksFile
from .reader import parse_cursor_hooks, parse_user_cursor_hooks

__all__ = ["FORMAT", "HOOKS_FILE"]

HOOKS_FILE: Final = ".cursor/hooks.json"
"""Cursor's hooks file, in the project and in the home directory."""

FORMAT: Final = HookFormat(
    name="cursor",
    files=(
        HooksFile(
            HOOKS_FILE,
            "cursor-hooks",
            parse_cursor_hooks,
            user_kind="user-cursor-hooks",
            read_user=parse_user_cursor_hooks,
        ),
    ),
    switch="cursor",
)
