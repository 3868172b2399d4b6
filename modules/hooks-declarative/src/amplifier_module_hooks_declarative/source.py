"""Where a document of hooks is read from: :class:`Source`, one place hooks may come from, and
its :data:`SourceKind`. :mod:`.sources` finds the sources of a config, in order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .document import HooksConfigError, HooksDocument

__all__ = ["Source", "SourceKind"]

SourceKind = Literal[
    "user",
    "user-hook-shell",
    "claude-settings",
    "project",
    "hook-shell",
    "plugin",
    "project-plugin",
    "file",
    "config",
    "user-gemini-settings",
    "gemini-settings",
    "user-cursor-hooks",
    "cursor-hooks",
    "user-gemini-extension",
    "gemini-extension",
]


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
    reader: Callable[[str, str], HooksDocument] | None = None
    """Its own parser (``reader(text, label)``), in place of its kind's
    :data:`~.sources.SOURCE_READERS`."""
