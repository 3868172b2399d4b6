"""``amplifier-hooks logs show`` / ``logs tail``: read this module's JSONL logs from the shell.

A plugin of the ``amplifier-hooks`` command line (entry-point group ``amplifier_hooks.cli``);
only the command line imports it, so click is needed only there. Which file is read:

- a path to a log file (or a directory: its newest ``*.jsonl``);
- a session id: that session's log under the default path template, for ``--workspace``;
- nothing: the newest session log of the ``--workspace`` project under the default template
  (``$AMPLIFIER_HOME/projects/<project>/sessions/<session_id>/events.jsonl``, ``~/.amplifier``
  when ``AMPLIFIER_HOME`` is unset).

Each record is printed on one line: time, level, event, and its data (session id and timestamp
left out) cut to the terminal's width unless ``--full``; ``--json`` prints the raw lines.
Either way control characters, bidi overrides and isolates, C1 controls and zero-width
characters are shown as ``\\uXXXX`` escapes (``visible.py``), so a line reads as what happened.
``tail --follow`` goes on printing records as they are written, until a ``session:end`` record
or Ctrl-C. A line that is not a record is reported on standard error with its line number, and
reading goes on.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import IO, Any, Final

import click
from amplifier_hooks_cli.hookspecs import hookimpl

from .config import DEFAULT_PATH, LEVELS
from .paths import PathTemplate
from .visible import visible

__all__ = ["find_log", "logs", "register_commands"]

_RANK: Final[dict[str, int]] = {name: rank for rank, name in enumerate(LEVELS)}
_COLOURS: Final = {"debug": "bright_black", "warning": "yellow", "error": "red"}
_HIDDEN: Final = ("session_id", "timestamp")
_END_EVENT: Final = "session:end"


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add the ``logs`` group to the ``amplifier-hooks`` command line."""
    cli.add_command(logs)


# -- finding the file ------------------------------------------------------------------------


def _newest(paths: Iterable[Path]) -> Path | None:
    found = [p for p in paths if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime_ns) if found else None


def find_log(target: str | None, workspace: Path) -> Path:
    """The log file ``target`` names (see the module docstring).

    :raises click.ClickException: no such file; the message says where it looked.
    """
    template = PathTemplate(DEFAULT_PATH, working_dir=workspace)
    if target is not None:
        path = Path(target).expanduser()
        if path.is_file():
            return path
        if path.is_dir():
            newest = _newest(path.rglob("*.jsonl"))
            if newest is None:
                raise click.ClickException(f"no *.jsonl log file in {path}")
            return newest
        by_id = Path(template.render(target))
        if by_id.is_file():
            return by_id
        raise click.ClickException(
            f"{target!r} is neither a log file nor a session with a log at {by_id}"
        )
    sessions = Path(template.render("x")).parent.parent
    newest = _newest(sessions.glob("*/events.jsonl"))
    if newest is None:
        raise click.ClickException(
            f"no session log of the project {workspace.resolve()} in {sessions}; "
            "pass a log file or a session id"
        )
    return newest


# -- reading records -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Filter:
    events: tuple[str, ...]
    level: str

    def __call__(self, record: dict[str, Any]) -> bool:
        event = str(record.get("event", ""))
        if self.events and not any(fnmatchcase(event, p) for p in self.events):
            return False
        return _RANK.get(str(record.get("level")), 0) >= _RANK[self.level]


class _Reader:
    """The records of one log file, read as far as it is written; bad lines are reported."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.stream: IO[str] = path.open(encoding="utf-8", errors="replace", newline="\n")
        except OSError as err:
            raise click.ClickException(f"cannot read {path}: {err.strerror or err}") from err
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
            click.echo(f"warning: {where}: not a JSON record ({err})", err=True)
            return None
        if not isinstance(record, dict):
            kind = type(record).__name__
            click.echo(f"warning: {where}: not a record (a JSON {kind})", err=True)
            return None
        return record


def _render(raw: str, record: dict[str, Any], *, as_json: bool, full: bool, width: int) -> str:
    if as_json:
        return visible(raw)
    stamp = visible(str(record.get("ts", "")))
    clock = stamp[11:23] if len(stamp) >= 23 else stamp
    level = visible(str(record.get("level", "?")))
    event = visible(str(record.get("event", "?")))
    data = record.get("data")
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in _HIDDEN}
    text = visible(json.dumps(data, ensure_ascii=False, default=str))
    head = f"{clock}  {level:<7}  {event:<22}  "
    room = max(width - len(head), 20)
    if not full and len(text) > room:
        text = text[: room - 3] + "..."
    styled = click.style(f"{level:<7}", fg=_COLOURS.get(level))
    return f"{clock}  {styled}  {click.style(f'{event:<22}', bold=True)}  {text}"


def _width() -> int:
    return shutil.get_terminal_size((160, 24)).columns


# -- the commands ----------------------------------------------------------------------------

_TARGET = click.argument("target", required=False)
_WORKSPACE = click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="The project whose session logs are looked up (by session id, or the newest).",
)
_EVENTS = click.option(
    "--event",
    "events",
    multiple=True,
    help="Only events matching this pattern (tool:*); repeat for several.",
)
_LEVEL = click.option(
    "--level",
    type=click.Choice(LEVELS),
    default="debug",
    show_default=True,
    help="Only records at this level or above.",
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the raw JSON lines.")
_FULL = click.option("--full", is_flag=True, help="Do not cut the data to the terminal's width.")


@click.group(short_help="Read the event logs hooks-logging writes.")
def logs() -> None:
    """Read the JSONL event logs hooks-logging writes.

    TARGET is a log file, a directory (its newest log), or a session id; without it, the
    newest session log of the --workspace project.
    """


@logs.command(short_help="Print a session's log, one line per record.")
@_TARGET
@_WORKSPACE
@_EVENTS
@_LEVEL
@_JSON
@_FULL
def show(
    target: str | None,
    workspace: Path,
    events: tuple[str, ...],
    level: str,
    as_json: bool,
    full: bool,
) -> None:
    """Print every record of a log (those the filters keep), one line each."""
    reader = _Reader(find_log(target, workspace))
    keep = _Filter(events, level)
    width = _width()
    try:
        for raw, record in reader.records():
            if keep(record):
                click.echo(_render(raw, record, as_json=as_json, full=full, width=width))
    finally:
        reader.close()


@logs.command(short_help="Print the last records of a log, and follow it.")
@_TARGET
@_WORKSPACE
@_EVENTS
@_LEVEL
@_JSON
@_FULL
@click.option(
    "-n",
    "--lines",
    "count",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="How many records to print first.",
)
@click.option(
    "-f",
    "--follow",
    is_flag=True,
    help="Go on printing records as they are written, until session:end (or Ctrl-C).",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.01),
    default=0.25,
    show_default=True,
    help="Seconds between looks at the file while following.",
)
def tail(
    target: str | None,
    workspace: Path,
    events: tuple[str, ...],
    level: str,
    as_json: bool,
    full: bool,
    count: int,
    follow: bool,
    interval: float,
) -> None:
    """Print the last records of a log; with --follow, the new ones as they come."""
    reader = _Reader(find_log(target, workspace))
    keep = _Filter(events, level)
    width = _width()
    try:
        last: deque[tuple[str, dict[str, Any]]] = deque(maxlen=count)
        ended = False
        for raw, record in reader.records():
            ended = record.get("event") == _END_EVENT
            if keep(record):
                last.append((raw, record))
        for raw, record in last:
            click.echo(_render(raw, record, as_json=as_json, full=full, width=width))
        while follow and not ended:
            time.sleep(interval)
            reader.rewound()
            for raw, record in reader.records():
                if keep(record):
                    click.echo(_render(raw, record, as_json=as_json, full=full, width=width))
                if record.get("event") == _END_EVENT:
                    ended = True
                    break
    except KeyboardInterrupt:
        pass
    finally:
        reader.close()
