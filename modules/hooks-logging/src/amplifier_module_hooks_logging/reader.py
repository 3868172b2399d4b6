"""Reading the JSONL logs this module writes: which file, its records, which of them to keep.

What the ``amplifier-hooks logs show`` / ``logs tail`` commands read with; no terminal or
command-line library is needed here. Which file :func:`find_log` picks:

- a path to a log file (or a directory: its newest ``*.jsonl``);
- a session id: that session's log under each path template given (a bundle's hooks-logging
  ``path`` settings, rendered for ``workspace`` as a session there renders them), then the
  default one;
- nothing: the newest session log of the ``workspace`` project under those templates and the
  default one (``$AMPLIFIER_HOME/projects/<project>/sessions/<session_id>/events.jsonl``,
  ``~/.amplifier`` when ``AMPLIFIER_HOME`` is unset), and, with ``search_workspace``, the
  hooks-logging logs in the workspace itself: ``*.jsonl`` files at most
  :data:`WORKSPACE_DEPTH` directories deep (``.git``, virtual environments and
  ``node_modules`` left out) whose first record carries hooks-logging's schema name.

When nothing is found, the error names every place looked.

:class:`LogReader` yields the records written so far, a line written halfway only once it is
whole; a line that is not a record is reported (file and line number) and reading goes on.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import IO, Any, Final

from .config import DEFAULT_PATH, LEVELS
from .paths import PathTemplate
from .record import SCHEMA_NAME

__all__ = ["WORKSPACE_DEPTH", "LogReadError", "LogReader", "RecordFilter", "find_log"]

WORKSPACE_DEPTH: Final = 3
"""How many directories below the workspace :func:`find_log` looks for logs (``.amplifier/logs/``
is two)."""

_SKIPPED_DIRS: Final = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".nox", ".tox"}
)
_MARK: Final = "session-id-0f6b9d"  # rendered where the session id goes, then a wildcard

_RANK: Final[dict[str, int]] = {name: rank for rank, name in enumerate(LEVELS)}


class LogReadError(OSError):
    """No log where one was looked for, or a log that cannot be opened; the message says
    which file or where it looked."""


def _newest(paths: Iterable[Path]) -> Path | None:
    found = [p for p in paths if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime_ns) if found else None


def find_log(
    target: str | None,
    workspace: Path,
    templates: Sequence[str] = (),
    *,
    search_workspace: bool = False,
) -> Path:
    """The log file ``target`` names (see the module docstring); ``templates`` are path
    templates (a bundle's hooks-logging ``path`` settings) looked at before the default one.

    :raises LogReadError: no such file; the message says every place it looked.
    """
    rendered = [PathTemplate(t, working_dir=workspace) for t in _unique([*templates, DEFAULT_PATH])]
    if target is not None:
        path = Path(target).expanduser()
        if path.is_file():
            return path
        if path.is_dir():
            newest = _newest(path.rglob("*.jsonl"))
            if newest is None:
                raise LogReadError(f"no *.jsonl log file in {path}")
            return newest
        tried = [Path(t.render(target)) for t in rendered]
        for by_id in tried:
            if by_id.is_file():
                return by_id
        raise LogReadError(
            f"{target!r} is neither a log file nor a session with a log at "
            + " or ".join(str(p) for p in tried)
        )
    looked: list[str] = []
    found: list[Path] = []
    for template in rendered:
        pattern = _pattern(template)
        looked.append(pattern)
        found += (Path(p) for p in glob.glob(pattern))
    if search_workspace:
        root = workspace.resolve()
        looked.append(f"the hooks-logging logs in {root} (up to {WORKSPACE_DEPTH} levels deep)")
        found += _workspace_logs(root)
    newest = _newest(found)
    if newest is None:
        raise LogReadError(
            f"no session log of the project {workspace.resolve()}; looked in "
            + "; ".join(looked)
            + ". Pass a log file or a session id, or --bundle with the bundle whose "
            "hooks-logging `path` wrote it"
        )
    return newest


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _pattern(template: PathTemplate) -> str:
    """A glob of every session's file under ``template`` (the session id as ``*``)."""
    parts = template.render(_MARK).split(_MARK)
    return "*".join(glob.escape(part) for part in parts)


def _workspace_logs(root: Path) -> list[Path]:
    """The hooks-logging logs in ``root``, at most :data:`WORKSPACE_DEPTH` directories deep."""
    logs: list[Path] = []
    base = len(root.parts)
    for directory, subdirs, files in os.walk(root):
        here = Path(directory)
        if len(here.parts) - base >= WORKSPACE_DEPTH:
            subdirs[:] = []
        else:
            subdirs[:] = [d for d in subdirs if d not in _SKIPPED_DIRS]
        logs += (here / f for f in files if f.endswith(".jsonl") and _is_log(here / f, root))
    return logs


def _is_log(path: Path, root: Path) -> bool:
    """Whether ``path``'s first line is a record hooks-logging wrote for a session working in
    ``root`` (a session whose ``cwd`` is a directory below it is another project's)."""
    try:
        with path.open("rb") as stream:
            first = stream.readline(65536)
        record = json.loads(first)
    except (OSError, ValueError):
        return False
    schema = record.get("schema") if isinstance(record, dict) else None
    if not isinstance(schema, dict) or schema.get("name") != SCHEMA_NAME:
        return False
    data = record.get("data")
    cwd = data.get("cwd") if isinstance(data, dict) else None
    return not isinstance(cwd, str) or Path(cwd).resolve() == root


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """Keeps the records whose event matches one of ``events`` (fnmatch patterns; none keeps
    every event) at ``level`` or above (one of :data:`~.config.LEVELS`)."""

    events: tuple[str, ...]
    level: str

    def __post_init__(self) -> None:
        if self.level not in _RANK:
            raise ValueError(f"level {self.level!r} is not one of {', '.join(LEVELS)}")

    def __call__(self, record: dict[str, Any]) -> bool:
        event = str(record.get("event", ""))
        if self.events and not any(fnmatchcase(event, p) for p in self.events):
            return False
        return _RANK.get(str(record.get("level")), 0) >= _RANK[self.level]


class LogReader:
    """The records of one log file, read as far as it is written; bad lines go to ``warn``."""

    def __init__(self, path: Path, warn: Callable[[str], None]) -> None:
        self.path = path
        self._warn = warn
        try:
            self.stream: IO[str] = path.open(encoding="utf-8", errors="replace", newline="\n")
        except OSError as err:
            raise LogReadError(f"cannot read {path}: {err.strerror or err}") from err
        self.line = 0

    def close(self) -> None:
        self.stream.close()

    def rewound(self) -> bool:
        """Start again at the top when the file got shorter (rotated or emptied)."""
        try:
            shorter = self.path.stat().st_size < self.stream.tell()
        except OSError:
            return False
        if shorter:
            self.stream.seek(0)
            self.line = 0
        return shorter

    def records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(raw line, record)`` for each whole line written so far and not yet read."""
        while True:
            position = self.stream.tell()
            line = self.stream.readline()
            if not line:
                return
            if not line.endswith("\n"):
                self.stream.seek(position)  # written halfway: read it once it is whole
                return
            self.line += 1
            record = self._parse(line)
            if record is not None:
                yield line.rstrip("\n"), record

    def _parse(self, line: str) -> dict[str, Any] | None:
        if not line.strip():
            return None
        where = f"{self.path}:{self.line}"
        try:
            record = json.loads(line)
        except ValueError as err:
            self._warn(f"warning: {where}: not a JSON record ({err})")
            return None
        if not isinstance(record, dict):
            self._warn(f"warning: {where}: not a record (a JSON {type(record).__name__})")
            return None
        return record
