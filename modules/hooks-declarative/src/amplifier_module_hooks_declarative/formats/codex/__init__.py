"""OpenAI Codex CLI: its ``hooks.json`` in the project's and the home directory's ``.codex``
(:mod:`.reader`) and its hook protocol (:mod:`.protocol`). ``codex: false`` turns them off."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat, HooksFile
from .reader import parse_codex_hooks

__all__ = ["FORMAT", "HOOKS_FILE"]

HOOKS_FILE: Final = ".codex/hooks.json"
"""Codex's hooks file, in the project and in the home directory."""

FORMAT: Final = HookFormat(
    name="codex",
    files=(HooksFile(HOOKS_FILE, "codex-hooks", parse_codex_hooks, "user-codex-hooks"),),
    switch="codex",
)
"""Codex's hooks files; every command hook speaks ``protocol: codex`` (:mod:`.protocol`)."""
