"""Where a document of hooks is read from: :class:`Source`, one place hooks may come from, and
its :data:`SourceKind`; and :class:`HookFormat`, what another tool's hook format declares about
its files. :mod:`.discovery` finds the sources of a config, in order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .config import DeclarativeConfig
from .document import HooksConfigError, HooksDocument

__all__ = ["HookFormat", "HooksFile", "MoreSources", "Reader", "Source", "SourceKind"]

SourceKind = str
"""What a source is, which decides how it is read and whether it comes with the project: the
module's own ``user``, ``project``, ``file`` and ``config``; hook-shell's ``user-hook-shell``
and ``hook-shell``; a Claude Code ``plugin`` or ``project-plugin``; and the kinds each
:class:`HookFormat` declares (``claude-settings``, ``user-gemini-settings``,
``gemini-settings``, ``user-gemini-extension``, ``gemini-extension``, ``user-cursor-hooks``,
``cursor-hooks``, ``system-windsurf-hooks``, ``user-windsurf-hooks``, ``windsurf-hooks``,
``user-cline-hook``, ``cline-hook``)."""

Reader = Callable[[str, str], HooksDocument]
"""A hooks file's parser: ``reader(text, label)``.

:raises HooksConfigError: the text is invalid, with line and key path.
"""


@dataclass(frozen=True, slots=True)
class Source:
    """One place hooks may come from; ``label`` is how labels and errors name it."""

    kind: SourceKind
    label: str
    path: Path | None = None
    required: bool = False
    variables: tuple[tuple[str, str], ...] = ()
    """Directory variables its commands get, in their environment and text (:mod:`.variables`)."""
    textual: bool = False
    """``${NAME}`` of ``variables`` is replaced even inside single quotes (Claude Code's way)."""
    error: HooksConfigError | None = None
    """Why the source cannot be read, found before reading it (a broken plugin manifest)."""
    covers: Path | None = None
    """For a source the bundle names inside the project (a plugin kept in the checkout), the
    file or directory the project's trust record must cover before it runs."""
    reader: Reader | None = None
    """Its own parser (``reader(text, label)``), in place of its kind's
    :data:`~.discovery.SOURCE_READERS`."""
    opaque: bool = False
    """The file is a hook program itself, not a text to parse (Cline's executables): it is
    read once, as every source (its bytes are what trust checked), and ``reader`` gets an
    empty text."""


@dataclass(frozen=True, slots=True)
class HooksFile:
    """A hooks file a format reads at a fixed path: in the project directory, and in the home
    directory too when it has a ``user_kind``."""

    path: str
    """Relative to the project (or home) directory: ``.gemini/settings.json``."""
    kind: SourceKind
    """The project's file's kind; it comes with the project (read only in a trusted one)."""
    read: Reader
    user_kind: SourceKind | None = None
    """The home directory's file's kind; ``None``: the file is not read there."""
    read_user: Reader | None = None
    """The home directory's file's parser, when it differs from ``read``."""


class MoreSources(Protocol):
    """A format's sources found otherwise than at a fixed path (Gemini CLI's extensions): the
    user's (``user``) or the project's, for the config ``settings``."""

    def __call__(
        self, settings: DeclarativeConfig, project_dir: Path, *, user: bool
    ) -> list[Source]: ...


@dataclass(frozen=True, slots=True)
class HookFormat:
    """What another tool's hook format brings to a session: its hooks files, read after the
    user's own files (home directory) and after Claude Code's settings (project), in the order
    of the registry (:func:`~.format_plugins.hook_formats`). Its hooks' processes speak the
    protocol named ``name`` (the package's ``protocol`` module)."""

    name: str
    """Its protocol's name, its key in the registry: ``gemini``."""
    files: tuple[HooksFile, ...] = ()
    switch: str | None = None
    """The module config key that turns it off (``gemini: false``); ``None``: always read."""
    more_sources: MoreSources | None = None
    """Its sources found otherwise, added after every format's files."""
    more_kinds: tuple[SourceKind, ...] = ()
    """The kinds of the project's ``more_sources`` (they come with the project)."""
    outside_kinds: tuple[SourceKind, ...] = ()
    """The kinds of its ``more_sources`` that do not come with the project and are not
    ``user-`` and a project kind: a tool's user and system-level files (Windsurf's)."""
    patterns: tuple[tuple[str, Reader], ...] = ()
    """Its files found otherwise, as path patterns (``.github/hooks/*.json``, matched on the
    end of a path) with their parser: how a file named in the config's ``files`` is known as
    the format's."""

    @property
    def project_kinds(self) -> frozenset[SourceKind]:
        """The kinds of its sources that come with the project."""
        return frozenset({*(hooks.kind for hooks in self.files), *self.more_kinds})
