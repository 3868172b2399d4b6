"""Where Gemini CLI keeps what this format reads, known without importing its readers."""

from __future__ import annotations

from typing import Final

__all__ = ["EXTENSIONS_DIR", "SETTINGS_FILE"]

SETTINGS_FILE: Final = ".gemini/settings.json"
"""Gemini CLI's settings (its ``hooks``), in the project and in the home directory."""

EXTENSIONS_DIR: Final = ".gemini/extensions"
"""Where extensions are installed, in the home directory and in the project."""
