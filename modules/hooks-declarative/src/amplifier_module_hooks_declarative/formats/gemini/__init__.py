"""Gemini CLI: the ``hooks`` of ``.gemini/settings.json`` in the project and the home directory
(:mod:`.reader`), the hooks of its installed extensions (:mod:`.extensions`) and its hook
protocol (:mod:`.protocol`). ``gemini: false`` turns them off.

The readers are imported when a file of the format is read, the extensions when a directory
of them exists: a session without Gemini CLI's files pays for none of them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from ...config import DeclarativeConfig
from ...document import HooksDocument
from ...source import HookFormat, HooksFile, Source
from .places import EXTENSIONS_DIR, SETTINGS_FILE

__all__ = ["FORMAT", "SETTINGS_FILE"]


def _read_settings(text: str, label: str) -> HooksDocument:
    from .reader import parse_gemini_settings

    return parse_gemini_settings(text, label)


def _extension_sources(
    settings: DeclarativeConfig, project_dir: Path, *, user: bool
) -> list[Source]:
    """:func:`.extensions.gemini_extension_sources`, when a directory of extensions exists."""
    if not os.path.isdir((Path.home() if user else project_dir) / EXTENSIONS_DIR):
        return []
    from .extensions import gemini_extension_sources

    return gemini_extension_sources(settings, project_dir, user=user)


FORMAT: Final = HookFormat(
    name="gemini",
    files=(HooksFile(SETTINGS_FILE, "gemini-settings", _read_settings, "user-gemini-settings"),),
    switch="gemini",
    more_sources=_extension_sources,
    more_kinds=("gemini-extension",),
)
