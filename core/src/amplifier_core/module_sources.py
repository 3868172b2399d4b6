"""Where modules come from, as amplifier-core 2.0.2 names it: a :class:`ModuleSource` resolves
to a directory that holds an importable module; a :class:`ModuleSourceResolver` (mounted by an
application at ``module-source-resolver``) maps a module id and a bundle's source hint to one.
This kernel's loader reads source directories and ``package:attr`` references itself (see
:mod:`amplifier_core.loader`); these names are for applications and modules written for 2.0.2.

:func:`parse_source` reads a bundle's ``source:`` as pip reads a requirement: a git URL
(``git+https://host/repo@ref#subdirectory=path``), a local directory, or a
``package.module:attr`` reference; ``amplifier-hooks install`` installs the first two.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

__all__ = [
    "FileSystemModuleSource",
    "ModuleLoadError",
    "ModuleNotFoundError",
    "ModuleSource",
    "ModuleSourceResolver",
    "SourceRef",
    "parse_source",
    "split_git_url",
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


# -- a bundle's ``source:`` text -------------------------------------------------------

_VCS_PREFIXES: Final = ("git+",)
_REMOTE_PREFIXES: Final = ("git+", "hg+", "svn+", "bzr+", "http://", "https://", "ssh://", "git@")


@dataclass(frozen=True, slots=True)
class SourceRef:
    """A bundle's ``source:`` (or an include's ``bundle:``) read as pip reads a requirement.

    ``kind`` is ``"git"`` (``git+<url>[@ref][#subdirectory=path]``), ``"path"`` (a local
    directory, ``file://`` or a relative or absolute path), ``"reference"``
    (``package.module:attr``) or ``"remote"`` (another URL scheme, named but not fetched).
    """

    text: str
    kind: str
    url: str = ""
    """For ``git``: the repository URL without ``git+``, ``@ref`` and the fragment."""
    ref: str | None = None
    subdirectory: str | None = None
    path: Path | None = None
    """For ``path``: the directory, resolved against the bundle's directory."""

    def pip_requirement(self) -> str:
        """What ``pip install`` is given to install this source."""
        if self.kind == "path" and self.path is not None:
            return str(self.path)
        return self.text

    @property
    def installable(self) -> bool:
        """Whether ``pip install`` can install it (a git URL or a directory)."""
        return self.kind in ("git", "path")


def parse_source(text: str, base_dir: str | os.PathLike[str] | None = None) -> SourceRef:
    """Read a ``source:`` value; a relative path is taken relative to ``base_dir``.

    ``git+file:///srv/repo@v1#subdirectory=modules/hooks-x`` gives ``url="file:///srv/repo"``,
    ``ref="v1"``, ``subdirectory="modules/hooks-x"``.
    """
    value = text.strip()
    if value.startswith(_VCS_PREFIXES):
        url, ref, subdirectory = split_git_url(value)
        return SourceRef(value, "git", url=url, ref=ref, subdirectory=subdirectory)
    if value.startswith(_REMOTE_PREFIXES):
        return SourceRef(value, "remote")
    if (
        ":" in value
        and not value.startswith(("/", ".", "~", "file:"))
        and not re.match(r"^[A-Za-z]:[\\/]", value)
    ):
        return SourceRef(value, "reference")
    where = Path(value.removeprefix("file://")).expanduser()
    if not where.is_absolute() and base_dir is not None:
        where = Path(base_dir) / where
    return SourceRef(value, "path", path=where.resolve())


def split_git_url(text: str) -> tuple[str, str | None, str | None]:
    """``git+<url>[@ref][#subdirectory=path]`` -> ``(url, ref, subdirectory)``.

    The ``@ref`` is looked for after the URL's host, so ``git+ssh://git@host/repo`` keeps its
    user name; a ``#`` fragment may hold other ``&``-separated keys (``egg=``), ignored.
    """
    value = text.strip().removeprefix("git+")
    fragment = ""
    if "#" in value:
        value, fragment = value.split("#", 1)
    subdirectory = None
    for part in fragment.split("&"):
        if part.startswith("subdirectory="):
            subdirectory = part.removeprefix("subdirectory=").strip("/") or None
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest = "", value
    host, slash, path = rest.partition("/")
    ref = None
    if "@" in path:
        path, ref = path.rsplit("@", 1)
        ref = ref or None
    url = f"{scheme}{sep}{host}{slash}{path}"
    return url, ref, subdirectory
