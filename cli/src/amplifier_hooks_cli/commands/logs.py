"""``amplifier-hooks logs show`` / ``logs tail``: read hooks-logging's JSONL logs from the shell.

Which file is read (hooks-logging's :func:`~amplifier_module_hooks_logging.find_log`):

- a path to a log file (or a directory: its newest ``*.jsonl``);
- a session id: that session's log where ``--bundle``'s hooks-logging ``path`` puts it for
  ``--workspace``, else under the default path template;
- nothing: the newest session log of the ``--workspace`` project: where ``--bundle``'s
  hooks-logging ``path`` puts logs, under the default template
  (``$AMPLIFIER_HOME/projects/<project>/sessions/<session_id>/events.jsonl``, ``~/.amplifier``
  when ``AMPLIFIER_HOME`` is unset), and any hooks-logging log in the workspace itself (a
  relative ``path`` such as ``.amplifier/logs/{session_id}.jsonl``; up to three directories
  deep). When there is none, the error names every place looked.

Each record is printed on one line: time, level, event, and its data (session id and timestamp
left out) cut to the terminal's width unless ``--full``; ``--json`` prints the raw lines.
Either way control characters, bidi overrides and isolates, C1 controls and zero-width
characters are shown as ``\\uXXXX`` escapes, so a line reads as what happened.
``tail --follow`` goes on printing records as they are written, until a ``session:end`` record
or Ctrl-C. A line that is not a record is reported on standard error with its line number, and
reading goes on. hooks-logging is imported when a command runs: without it, the command says
which distribution to install.
"""

from __future__ import annotations

import functools
import json
import shutil
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import click

from ..output import colour

__all__ = ["LEVELS", "logs"]

LEVELS: Final = ("debug", "info", "warning", "error")
"""hooks-logging's record levels, lowest first (its ``LEVELS``; a test keeps the two equal)."""

_COLOURS: Final = {"debug": "bright_black", "warning": "yellow", "error": "red"}
_HIDDEN: Final = ("session_id", "timestamp")
_END_EVENT: Final = "session:end"
_DISTRIBUTION: Final = "amplifier-module-hooks-logging"


def _hooks_logging() -> ModuleType:
    try:
        import amplifier_module_hooks_logging
    except ImportError as err:
        raise click.ClickException(
            f"the logs commands read what hooks-logging writes, and it is not installed "
            f"({err}); pip install {_DISTRIBUTION}"
        ) from err
    return amplifier_module_hooks_logging


def _warn(message: str) -> None:
    click.echo(message, err=True)


def _templates(bundle_path: Path | None) -> list[str]:
    """The ``path`` template of each hooks-logging entry of the bundle at ``bundle_path``."""
    if bundle_path is None:
        return []
    from amplifier_hooks_bundle import load_bundle

    reading = _hooks_logging()
    templates: list[str] = []
    for entry in load_bundle(bundle_path).hooks:
        if entry.module != "hooks-logging":
            continue
        try:
            templates.append(str(reading.parse_config(dict(entry.config or {})).path))
        except ValueError as err:
            raise click.ClickException(f"{bundle_path}: hooks-logging config: {err}") from err
    if not templates:
        raise click.ClickException(f"{bundle_path}: the bundle mounts no hooks-logging module")
    return templates


@contextmanager
def _opened(
    target: str | None,
    workspace: Path,
    bundle_path: Path | None,
    warn: Callable[[str], None] = _warn,
) -> Iterator[Any]:
    """hooks-logging's reader on the log ``target`` names; a missing log is one clear error."""
    reading = _hooks_logging()
    templates = _templates(bundle_path)
    try:
        found = reading.find_log(target, workspace, templates, search_workspace=True)
        reader = reading.LogReader(found, warn)
    except reading.LogReadError as err:
        raise click.ClickException(str(err)) from err
    try:
        yield reader
    finally:
        reader.close()


def _decided(target: str | None, workspace: Path, bundle_path: Path | None) -> dict[int, str]:
    """What became of each gated event of the log (:mod:`..log_decisions`), by record index:
    a first pass over the file, its bad lines left for the printing pass to report."""
    from ..log_decisions import decisions

    with _opened(target, workspace, bundle_path, warn=lambda _line: None) as reader:
        return decisions(record for _raw, record in reader.records())


def _render(
    raw: str,
    record: dict[str, Any],
    *,
    as_json: bool,
    full: bool,
    width: int,
    decided: str | None = None,
) -> str:
    visible = _hooks_logging().visible
    if as_json:
        return str(visible(raw))
    stamp = visible(str(record.get("ts", "")))
    clock = stamp[11:23] if len(stamp) >= 23 else stamp
    level = visible(str(record.get("level", "?")))
    event = visible(str(record.get("event", "?")))
    data = record.get("data")
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in _HIDDEN}
    text = visible(json.dumps(data, ensure_ascii=False, default=str))
    verdict = f"[{visible(decided)}]  " if decided else ""
    head = f"{clock}  {level:<7}  {event:<22}  {verdict}"
    room = max(width - len(head), 20)
    if not full and len(text) > room:
        text = text[: room - 3] + "..."
    if not colour():
        return f"{head}{text}"
    styled = click.style(f"{level:<7}", fg=_COLOURS.get(level))
    if verdict:
        verdict = click.style(verdict, fg="red" if "denied" in verdict else "green")
    return f"{clock}  {styled}  {click.style(f'{event:<22}', bold=True)}  {verdict}{text}"


_TARGET = click.argument("target", required=False)
_WORKSPACE = click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="The project whose session logs are looked up (by session id, or the newest).",
)
_BUNDLE = click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Also look where this bundle's hooks-logging `path` writes logs for --workspace.",
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


@dataclass(frozen=True, slots=True)
class _Log:
    """The log a reading command names (TARGET, --workspace, --bundle) and how it prints its
    records (--event, --level, --json, --full, and the terminal's width)."""

    target: str | None
    workspace: Path
    bundle_path: Path | None
    events: tuple[str, ...]
    level: str
    as_json: bool
    full: bool
    width: int = field(default_factory=lambda: shutil.get_terminal_size((160, 24)).columns)

    def opened(self) -> AbstractContextManager[Any]:
        """hooks-logging's reader on the log."""
        return _opened(self.target, self.workspace, self.bundle_path)

    def decided(self) -> dict[int, str]:
        """What became of each gated event, by record index (nothing for --json)."""
        return {} if self.as_json else _decided(self.target, self.workspace, self.bundle_path)

    def keep(self) -> Any:
        """The filter of --event and --level."""
        return _hooks_logging().RecordFilter(self.events, self.level)

    def render(self, raw: str, record: dict[str, Any], decided: str | None = None) -> str:
        """One record's line."""
        return _render(
            raw, record, as_json=self.as_json, full=self.full, width=self.width, decided=decided
        )


def _reading(command: Callable[..., None]) -> Callable[..., None]:
    """The arguments and options every log-reading command takes, handed to ``command`` as
    one :class:`_Log` (its other options as keywords)."""

    @functools.wraps(command)
    def read(
        *,
        target: str | None,
        workspace: Path,
        bundle_path: Path | None,
        events: tuple[str, ...],
        level: str,
        as_json: bool,
        full: bool,
        **options: Any,
    ) -> None:
        command(_Log(target, workspace, bundle_path, events, level, as_json, full), **options)

    reading: Callable[..., None] = read
    for decorator in (_FULL, _JSON, _LEVEL, _EVENTS, _BUNDLE, _WORKSPACE, _TARGET):
        reading = decorator(reading)
    return reading


@click.group(short_help="Read the event logs hooks-logging writes.")
def logs() -> None:
    """Read the JSONL event logs hooks-logging writes.

    TARGET is a log file, a directory (its newest log), or a session id; without it, the
    newest session log of the --workspace project: in the state directory, where --bundle's
    hooks-logging `path` puts logs, and in the workspace itself.
    """


@logs.command(short_help="Print a session's log, one line per record.")
@_reading
def show(log: _Log) -> None:
    """Print every record of a log (those the filters keep), one line each.

    A call a hook denied, or an approval answered, says so on its own line
    (``tool:pre  [denied by HOOK: REASON]``; ``[ran]`` for a tool call that ran); --json
    prints the lines as written.
    """
    keep = log.keep()
    decided = log.decided()
    with log.opened() as reader:
        for index, (raw, record) in enumerate(reader.records()):
            if keep(record):
                click.echo(log.render(raw, record, decided.get(index)))


@logs.command(short_help="Print the last records of a log, and follow it.")
@_reading
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
    log: _Log,
    count: int,
    follow: bool,
    interval: float,
) -> None:
    """Print the last records of a log; with --follow, the new ones as they come.

    The records printed first say what became of a denied or asked call on its line, as
    `logs show` does; records printed while following are printed as they are written (the
    decision is the `policy:violation` line after the call).
    """
    keep = log.keep()
    decided = log.decided()
    with log.opened() as reader:
        try:
            last: deque[tuple[str, dict[str, Any], str | None]] = deque(maxlen=count)
            ended = False
            for index, (raw, record) in enumerate(reader.records()):
                ended = record.get("event") == _END_EVENT
                if keep(record):
                    last.append((raw, record, decided.get(index)))
            for raw, record, verdict in last:
                click.echo(log.render(raw, record, verdict))
            while follow and not ended:
                time.sleep(interval)
                reader.rewound()
                for raw, record in reader.records():
                    if keep(record):
                        click.echo(log.render(raw, record))
                    if record.get("event") == _END_EVENT:
                        ended = True
                        break
        except KeyboardInterrupt:
            pass
