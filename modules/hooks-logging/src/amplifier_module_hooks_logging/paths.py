"""Where a session's events go: the path template, rendered in the state directory's layout
(``amplifier_hooks_util.state``: ``$AMPLIFIER_HOME/projects/<project>/sessions/<id>/``).

The project slug follows the Amplifier convention, so logs land where the ecosystem's tools
look for them (``/work/app`` -> ``-work-app``). Session ids come from event data, so they are
made safe for a file name before they are put into a path; a session id can never climb out of
its directory.
"""

from __future__ import annotations

import os
from pathlib import Path

from amplifier_hooks_util.state import project_slug, render_template, safe_session_id

__all__ = ["PathTemplate", "project_slug", "safe_session_id"]


class PathTemplate:
    """Renders the configured ``path`` template for a session id."""

    __slots__ = ("_base", "_project", "_template")

    def __init__(self, template: str, *, working_dir: str | os.PathLike[str] | None = None):
        self._template = template
        self._base = Path(working_dir).resolve() if working_dir is not None else Path.cwd()
        self._project = project_slug(self._base)

    @property
    def project(self) -> str:
        return self._project

    def render(self, session_id: object) -> str:
        """The absolute file path for ``session_id``; relative templates start at the
        session's working directory."""
        return str(render_template(self._template, session_id, working_dir=self._base))
