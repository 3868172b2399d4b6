"""Cursor: its ``hooks.json`` in the project's and the home directory's ``.cursor``
(:mod:`.reader`) and its hook protocol (:mod:`.protocol`). ``cursor: false`` turns them off.
The reader is imported when a file of the format is read."""

from __future__ import annotations

from typing import Final

from ...document import HooksDocument
from ...source import HookFormat, HooksFile

__all__ = ["FORMAT", "HOOKS_FILE"]

HOOKS_FILE: Final = ".cursor/hooks.json"
"""Cursor's hooks file, in the project and in the home directory."""


def _read_project(text: str, label: str) -> HooksDocument:
    from .reader import parse_cursor_hooks

    return parse_cursor_hooks(text, label)


def _read_user(text: str, label: str) -> HooksDocument:
    from .reader import parse_user_cursor_hooks

    return parse_user_cursor_hooks(text, label)


FORMAT: Final = HookFormat(
    name="cursor",
    files=(
        HooksFile(
            HOOKS_FILE,
            "cursor-hooks",
            _read_project,
            user_kind="user-cursor-hooks",
            read_user=_read_user,
        ),
    ),
    switch="cursor",
)
