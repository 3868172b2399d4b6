"""Where modules come from, as amplifier-core 2.0.2 names it: a :class:`ModuleSource` resolves
to a directory that holds an importable module; a :class:`ModuleSourceResolver` (mounted by an
application at ``module-source-resolver``) maps a module id and a bundle's source hint to one.
This kernel's loader reads source directories and ``package:attr`` references itself (see
:mod:`amplifier_core.loader`); these names are for applications and modules written for 2.0.2.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "FileSystemModuleSource",
    "ModuleLoadError",
    "ModuleNotFoundError",
    "ModuleSource",
    "ModuleSourceResolver",
]


class ModuleNotFoundError(Exception):
    """No resolution layer knows the module."""


class ModuleLoadError(Exception):
    """The module was found but cannot be loaded."""


class ModuleSource(ABC):
    """A place a module can be imported from."""

    @abstractmethod
    def resolve(self) -> Path:
        """The directory holding the importable module.

        :raises ModuleNotFoundError: the source cannot be resolved.
        """


class ModuleSourceResolver(Protocol):
    """Maps a module id (and the bundle's hint) to the source to load it from."""

    def resolve(
        self, module_id: str, source_hint: Any = None, profile_hint: Any = None
    ) -> ModuleSource:
        """``profile_hint`` is the older name of ``source_hint``."""
        ...


class FileSystemModuleSource(ModuleSource):
    """Module search paths on disk, and the ``@mention`` -> path mappings a bundle gives."""

    def __init__(
        self, paths: Iterable[str] | None = None, mentions: dict[str, str] | None = None
    ) -> None:
        self._paths: list[str] = list(paths or ())
        self._bundle_mappings: dict[str, str] = dict(mentions or {})

    def get_module_paths(self) -> list[str]:
        """A copy of the search paths."""
        return list(self._paths)

    def get_mention_mappings(self) -> dict[str, str]:
        """A copy of the mention mappings (empty when there are none)."""
        return dict(self._bundle_mappings)

    def resolve(self) -> Path:
        """The first search path that is a directory."""
        for path in self._paths:
            where = Path(path).expanduser()
            if where.is_dir():
                return where
        raise ModuleNotFoundError(f"none of the module paths is a directory: {self._paths}")
