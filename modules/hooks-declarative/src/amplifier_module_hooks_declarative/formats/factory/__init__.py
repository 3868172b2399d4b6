"""Factory Droid: its ``hooks.json`` in the project's and the home directory's ``.factory``
(:mod:`.reader`) and its hook protocol (:mod:`.protocol`). ``factory: false`` turns them off."""

from __future__ import annotations

from typing import Final

from ...source import HookFormat, HooksFile
from .reader import parse_factory_hooks

__all__ = ["FORMAT", "HOOKS_FILE"]

HOOKS_FILE: Final = ".factory/hooks.json"
"""Droid's hooks file, in the project and in the home directory."""

FORMAT: Final = HookFormat(
    name="factory",
    files=(HooksFile(HOOKS_FILE, "factory-hooks", parse_factory_hooks, "user-factory-hooks"),),
    switch="factory",
)
"""Droid's hooks files; every command hook speaks ``protocol: factory`` (:mod:`.protocol`)."""
