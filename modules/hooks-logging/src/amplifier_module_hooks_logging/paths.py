"""Where a session's events go: the project slug and the path template.

The project slug follows the Amplifier convention, so logs land where the ecosystem's
tools look for them: the absolute working directory with every ``/`` (and ``\\``) turned
into ``-`` and ``:`` dropped, starting with ``-`` (``/work/app`` -> ``-work-app``).

Session ids come from event data, so they are made safe for a file name before they are put
into a path: every character outside ``A-Z a-z 0-9 . _ -`` becomes ``_`` and a name made
only of dots becomes ``_``. A session id can never climb out of its directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

__all__ = ["PathTemplate", "project_slug", "safe_session_id"]

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")


def project_slug(working_dir: str | os.PathLike[str] | None = None) -> str:
    """The slug of ``working_dir`` (default: the current directory)."""
    path = str(Path(working_dir if working_dir is not None else Path.cwd()).resolve())
    slug = path.replace("/", "-").replace("\\", "-").replace(":", "")
    return slug if slug.startswith("-") else "-" + slug


def safe_session_id(session_id: object) -> str:
    """``session_id`` reduced to characters that are safe in one path component."""
    text = _UNSAFE.sub("_", str(session_id))[:200]
    return "_" if not text.strip(".") else text


class PathTemplate:
    """Renders the configured ``path`` template for a session id."""

    __slots__ = ("_base", "_home", "_project", "_template")

    def __init__(self, template: str, *, working_dir: str | os.PathLike[str] | None = None):
        self._template = os.path.expanduser(template)
        self._home = str(Path.home())
        self._project = project_slug(working_dir)
        self._base = Path(working_dir).resolve() if working_dir is not None else Path.cwd()

    @property
    def project(self) -> str:
        return self._project

    def render(self, session_id: object) -> str:
        """The absolute file path for ``session_id``; relative templates start at the
        session's working directory."""
        text = self._template.format(
            home=self._home, project=self._project, session_id=safe_session_id(session_id)
        )
        path = Path(text)
        return str(path if path.is_absolute() else self._base / path)
