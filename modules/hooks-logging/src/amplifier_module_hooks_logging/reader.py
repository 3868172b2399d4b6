"""Reading the JSONL logs this module writes: which file, its records, which of them to keep.

What the ``amplifier-hooks logs show`` / ``logs tail`` commands read with; no terminal or
command-line library is needed here. Which file :func:`find_log` picks:

- a path to a log file (or a directory: its newest ``*.jsonl``);
- a session id: that session's log under the default path template, for ``workspace``;
- nothing: the newest session log of the ``workspace`` project under the default template
  (``$AMPLIFIER_HOME/projects/<project>/sessions/<session_id>/events.jsonl``, ``~/.amplifier``
  when ``AMPLIFIER_HOME`` is unset).

:class:`LogReader` yields the records written so far, a line written halfway only once it is
whole; a line that is not a record is reported (file and line number) and reading goes on.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import IO, Any, Final

from .config import DEFAULT_PATH, LEVELS
from .paths import PathTemplate

__all__ = ["LogReadError", "LogReader", "RecordFilter", "find_log"]

_RANK: Final[dict[str, int]] = {name: rank for rank, name in enumerate(LEVELS)}


class LogReadError(OSError):
    """No log where one was looked for, or a log that cannot be opened; the message says
    which file or where it looked."""


def _newest(paths: Iterable[Path]) -> Path | None:
    found = [p for p in paths if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime_ns) if found else None


def find_log(target: str | None, workspace: Path) -> Path:
    """The log file ``target`` names (see the module docstring).

    :raises LogReadError: no such file; the message says where it looked.
    """
    template = PathTemplate(DEFAULT_PATH, working_dir=workspace)
    if target is not None:
        path = Path(target).expanduser()
        if path.is_file():
            return path
        if path.is_dir():
            newest = _newest(path.rglob("*.jsonl"))
            if newest is None:
                raise LogReadError(f"no *.jsonl log file in {path}")
            return newest
        by_id = Path(template.render(target))
        if by_id.is_file():
            return by_id
        raise LogReadError(f"{target!r} is neither a log file nor a session with a log at {by_id}")
    sessions = Path(template.render("x")).parent.parent
    newest = _newest(sessions.glob("*/events.jsonl"))
    if newest is None:
        raise LogReadError(
            f"no session log of the project {workspace.resolve()} in {sessions}; "
            "pass a log file or a session id"
        )
    return newest


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
