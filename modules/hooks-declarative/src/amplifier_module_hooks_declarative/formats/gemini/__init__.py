"""Gemini CLI: the ``hooks`` of ``.gemini/settings.json`` in the project and the home directory
(:mod:`.reader`), the hooks of its installed extensions (:mod:`.extensions`) and its hook
protocol (:mod:`.protocol`). ``gemini: false`` turns them off."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat, HooksFile
from .extensions import gemini_extension_sources
from .reader import parse_gemini_settings

__all__ = ["FORMAT", "SETTINGS_FILE"]

SETTINGS_FILE: Final = ".gemini/settings.json"
"""Gemini CLI's settings (its ``hooks``), in the project and in the home directory."""

FORMAT: Final = HookFormat(
    name="gemini",
    files=(
        HooksFile(SETTINGS_FILE, "gemini-settings", parse_gemini_settings, "user-gemini-settings"),
    ),
    switch="gemini",
    more_sources=gemini_extension_sources,
    more_kinds=("gemini-extension",),
)
