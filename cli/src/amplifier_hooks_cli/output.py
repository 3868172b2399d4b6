"""Where the command line writes: its two consoles, and every failure as one clear line.

Each command prints through :func:`stdout` and :func:`stderr` (made anew for every invocation,
so an in-process runner's streams are used). Everything they write, log records and a
session's hook messages, tool output and prompts included, passes the filter set with
:func:`show_through`: a session with hooks-redaction mounted sets its redaction there, so what
a person sees is redacted as the log and the model's request are.

A command wrapped in :func:`friendly` turns any failure into ``error: ...`` lines on standard
error and a non-zero exit code: 1 for a failure, 2 for a bad command line, 130 when
interrupted; ``-v`` lets the traceback through instead.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable
from typing import IO, Any, Final, NoReturn, ParamSpec, TypeVar

import click
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape

from amplifier_core.errors import AmplifierError, BundleError, BundleProblem

__all__ = [
    "SHOWN_CAPABILITY",
    "colour",
    "fail",
    "friendly",
    "make_console",
    "one_line",
    "setup",
    "show_through",
    "shown",
    "stderr",
    "stdout",
    "verbose",
    "warn",
]

P = ParamSpec("P")
R = TypeVar("R")

_PIPED_WIDTH: Final = 160


def colour() -> bool:
    """Whether styles may be written: not when ``NO_COLOR`` has any non-empty value
    (no-color.org); then no escape sequence at all is written, dim and bold included."""
    return not os.environ.get("NO_COLOR")


SHOWN_CAPABILITY: Final = "redaction.redact_text"
"""The coordinator capability a redaction module offers: ``(text) -> text`` redacted."""

_shown_filter: list[Callable[[str], str]] = []


def show_through(redact: Callable[[str], str] | None) -> None:
    """Pass everything the consoles write through ``redact`` from now on (``None``: as is)."""
    _shown_filter[:] = [] if redact is None else [redact]


def shown(text: str) -> str:
    """``text`` as the consoles would show it: through the filter of :func:`show_through`.
    Whatever cuts text for display (:func:`~.demo_view.shorten`) calls this first, so a secret
    cut in half is never shown as a half nobody recognises."""
    if not _shown_filter or not text:
        return text
    try:
        return _shown_filter[0](text)
    except Exception as err:  # what cannot be redacted is not shown
        return f"[REDACTED:unscannable:{type(err).__name__}]"


class _Shown:
    """A console's stream: each text written passes the filter of :func:`show_through`
    first; everything else (``isatty``, ``fileno``, ``encoding``) is the stream's own."""

    def __init__(self, stream: Callable[[], IO[str]]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if _shown_filter and text:
            try:
                text = _shown_filter[0](text)
            except Exception as err:  # what cannot be redacted is not shown
                text = f"[REDACTED:unscannable:{type(err).__name__}]\n"
        return self._stream().write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream(), name)


def make_console(*, stderr: bool) -> Console:
    """A console that keeps ids, paths and error lines whole when the output is piped, writes
    no style escape at all under ``NO_COLOR`` (:func:`colour`), and shows every text through
    the filter of :func:`show_through`."""
    stream = _Shown((lambda: sys.stderr) if stderr else (lambda: sys.stdout))
    if colour():
        made = Console(file=stream, stderr=stderr, highlight=False)  # type: ignore[arg-type]
    else:  # rich's own NO_COLOR keeps bold and dim: no colour system writes no style at all
        made = Console(
            file=stream,  # type: ignore[arg-type]
            stderr=stderr,
            highlight=False,
            color_system=None,
            no_color=True,
        )
    if not made.is_terminal:
        made.soft_wrap = True  # a line stays one line in a file or a pipe
        if "COLUMNS" not in os.environ:
            made.width = _PIPED_WIDTH
    elif stderr:
        made.soft_wrap = True  # an error stays one line, whole paths included, when copied
    return made


class _State:
    """The consoles and the verbosity of the running invocation."""

    def __init__(self) -> None:
        self.out = make_console(stderr=False)
        self.err = make_console(stderr=True)
        self.verbose = False


_state = _State()


def stdout() -> Console:
    """The console for results (standard output)."""
    return _state.out


def stderr() -> Console:
    """The console for errors, warnings and notes (standard error)."""
    return _state.err


def verbose() -> bool:
    """Whether ``-v`` was given: debug logs, and tracebacks instead of one-line errors."""
    return _state.verbose


class _NoTracebacks(logging.Filter):
    """Log records keep their one-line message; the traceback is for ``-v`` only."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {error})"
            record.args = None
        record.exc_info = None
        record.exc_text = None
        return True


def setup(*, verbose: bool) -> Callable[[], None]:
    """Fresh consoles and logging for one invocation; returns what puts logging back."""
    _state.out = make_console(stderr=False)
    _state.err = make_console(stderr=True)
    _state.verbose = verbose
    handler = RichHandler(console=_state.err, show_time=False, show_path=False, markup=False)
    if not verbose:
        handler.addFilter(_NoTracebacks())
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)

    def restore() -> None:  # leave logging as it was (the command line may run in process)
        root.handlers[:], level = saved
        root.setLevel(level)

    return restore


def fail(*lines: str, code: int = 1) -> NoReturn:
    """Print each line as ``error: ...`` on standard error and exit with ``code``."""
    for line in lines:
        _state.err.print(f"[red]error:[/] {escape(line)}")
    sys.exit(code)


def warn(line: str) -> None:
    """Print ``warning: line`` on standard error."""
    _state.err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)


def one_line(err: BaseException) -> str:
    """``err`` as one line; its type and a hint to use ``-v`` when it is not a known kind."""
    text = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, ValueError | OSError | LookupError | AmplifierError):
        return text
    return f"{type(err).__name__}: {text} (run with -v to see where)"


def friendly(command: Callable[P, R]) -> Callable[P, R]:
    """Turn any failure of ``command`` into one clear line and a non-zero exit code."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            _state.err.print("[yellow]interrupted[/]")
            sys.exit(130)
        except BundleError as err:
            if _state.verbose:
                raise
            fail(*(_bundle_problem(err.file, p) for p in err.problems))
        except Exception as err:
            if _state.verbose:
                raise
            fail(one_line(err))

    return wrapper


def _bundle_problem(file: str, problem: BundleProblem) -> str:
    """One problem of a bundle file, with the fix for a YAML indentation mistake."""
    from .yaml_hint import indentation_hint

    line = f"invalid bundle {problem.render(file)}"
    hint = indentation_hint(file, problem.message, problem.line)
    return f"{line}\n  hint: {hint}" if hint else line
