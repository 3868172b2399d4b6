"""Claude Code: the ``hooks`` of the project's ``.claude/settings.json`` and
``.claude/settings.local.json`` (:mod:`.reader`), its plugins and marketplaces
(:mod:`.plugins`, named in the config's ``plugins``) and its hook protocol
(:mod:`.protocol`). ``claude_code: false`` turns the settings files off."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat, HooksFile
from .reader import parse_claude_settings

__all__ = ["FORMAT", "SETTINGS_FILES"]

SETTINGS_FILES: Final = (".claude/settings.json", ".claude/settings.local.json")
"""Claude Code's project settings whose ``hooks`` are run, relative to the project directory."""

FORMAT: Final = HookFormat(
    name="claude-code",
    files=tuple(
        HooksFile(path, "claude-settings", parse_claude_settings) for path in SETTINGS_FILES
    ),
    switch="claude_code",
)
