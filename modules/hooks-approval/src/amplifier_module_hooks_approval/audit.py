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

Every record passes the redaction engine (``amplifier_hooks_redact``, the same engine and
default rules hooks-logging writes the event log with) before it is written: a secret in a
command, a prompt or a reason is replaced there as in the log (``redact`` in the config; off
only when asked). The file is created readable by its owner only (``0600``; an existing
file of ours with wider permissions is narrowed), and the directories made for it ``0700``.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

from amplifier_hooks_util.deep import dumps
from amplifier_hooks_util.state import render_template, safe_session_id

__all__ = ["AuditLog", "default_redactor", "safe_session_id"]

logger = logging.getLogger(__name__)

FILE_MODE: Final = 0o600
DIRECTORY_MODE: Final = 0o700
_FLAGS: Final = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


def default_redactor() -> Callable[[Any], Any]:
    """The redaction engine with its default rules (secrets and PII), as a function over
    nested data: the data back with every secret in its strings replaced. The engine is the
    process's one for those rules, shared with every other module that uses them."""
    from amplifier_hooks_redact import parse_config, shared_redactor

    engine = shared_redactor(parse_config(None))

    def redact(data: Any) -> Any:
        return engine.redact(data)[0]

    return redact


def _make_private_directories(directory: Path) -> None:
    """Create ``directory`` and its missing parents with mode 0700 (existing ones are left)."""
    missing: list[Path] = []
    current = directory
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=DIRECTORY_MODE)
        except FileExistsError:
            continue
        os.chmod(path, DIRECTORY_MODE)  # whatever the umask


def _open_private(path: Path) -> IO[str]:
    """``path`` opened for appending, created 0600; narrowed to 0600 when it is ours."""
    fd = os.open(path, _FLAGS, FILE_MODE)
    try:
        info = os.fstat(fd)
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, FILE_MODE)
        return os.fdopen(fd, "a", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


class AuditLog:
    """Appends records to the file the template names for each session."""

    def __init__(
        self,
        template: str,
        workspace: str,
        redact: Callable[[Any], Any] | None = None,
    ) -> None:
        self.template = template
        self.workspace = workspace
        self.redact = redact
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
        entry: Any = {"ts": datetime.now(UTC).isoformat(), "session_id": session_id, **record}
        try:
            if self.redact is not None:
                entry = self.redact(entry)
        except Exception as err:  # never write what could not be redacted
            entry = {
                "ts": entry["ts"],
                "session_id": session_id,
                "kind": record.get("kind"),
                "decision": record.get("decision"),
                "__redaction_failed__": type(err).__name__,
            }
        line = dumps(entry, ensure_ascii=False)
        try:
            handle = self._files.get(key)
            if handle is None:
                _make_private_directories(path.parent)
                handle = self._files[key] = _open_private(path)
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
