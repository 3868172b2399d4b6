"""The approval audit log: one JSON object per line for every request and decision.

The path comes from the ``audit_log`` template, rendered in the state directory's layout
(``amplifier_hooks_util.state``): ``{session_dir}`` is the session's directory there,
``{session_id}`` the session id (made safe for a file name: characters outside
``A-Z a-z 0-9 . _ -`` become ``_``), ``~`` is expanded, and a relative path starts at the
workspace. Parent directories are created. Each
record is written with one ``write`` call on a file opened for appending and flushed at once,
so a record is on disk before the tool runs, and a crash loses at most the line being written.

A record always has ``ts`` (UTC, ISO 8601), ``session_id``, ``kind`` (``rule`` for a decision
taken by a rule or a default without asking, ``request`` when the human is asked, ``decision``
for the human flow's answer), ``tool_name``, ``tool_call_id``, ``rule`` (the rule's name,
``default_action``/``other_tools_action``, or ``user`` for the human flow), ``decision``
(``allow``, ``ask`` or ``deny``) and ``prompt``, plus the call's ``command`` or ``path``
(see :func:`~.prompt.summary_of`). Writing never raises: a failure is logged once per file.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from amplifier_hooks_util.deep import dumps
from amplifier_hooks_util.state import render_template, safe_session_id

__all__ = ["AuditLog", "safe_session_id"]

logger = logging.getLogger(__name__)


class AuditLog:
    """Appends records to the file the template names for each session."""

    def __init__(self, template: str, workspace: str) -> None:
        self.template = template
        self.workspace = workspace
        self._files: dict[str, IO[str]] = {}
        self._failed: set[str] = set()
        self.written = 0

    def path_for(self, session_id: object) -> Path:
        """The file records of ``session_id`` go to."""
        return render_template(self.template, session_id, working_dir=self.workspace)

    def write(self, session_id: str, record: dict[str, Any]) -> None:
        """Append ``record`` (``ts`` and ``session_id`` are put first)."""
        path = self.path_for(session_id)
        key = str(path)
        line = dumps(
            {"ts": datetime.now(UTC).isoformat(), "session_id": session_id, **record},
            ensure_ascii=False,
        )
        try:
            handle = self._files.get(key)
            if handle is None:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle = self._files[key] = path.open("a", encoding="utf-8")
            handle.write(line + "\n")
            handle.flush()
            self.written += 1
        except (OSError, ValueError) as err:
            if key not in self._failed:
                self._failed.add(key)
                logger.warning("hooks-approval: cannot write the audit log %s: %s", path, err)

    def close(self) -> None:
        """Close every open file (a later write opens it again)."""
        files, self._files = self._files, {}
        for handle in files.values():
            try:
                handle.close()
            except OSError as err:
                logger.warning("hooks-approval: closing the audit log failed: %s", err)
