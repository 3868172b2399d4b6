"""Approval in the terminal: the prompt, its numbered options and a live countdown.

:class:`TerminalApprovalSystem` implements the kernel's
:class:`~amplifier_core.approval.ApprovalSystem`. Asked to approve, it shows::

    ╭─ Approval needed ─────────────────────────────╮
    │ Run `rm -rf build`?                           │
    │   1) Allow once   2) Allow always   3) Deny   │
    ╰───────────────────────────────────────────────╯
      answer 1-3 or a/d, Enter to confirm; Deny in 0:27 >

and reads one answer from the terminal: an option's number or its first letter, case
insensitive (a letter two options share needs Enter and picks the first of them; the whole
option name also works). A keypress that can only mean one option answers at once. Input is
read in cbreak mode through the event loop (``loop.add_reader``; a thread where the loop
cannot watch the terminal), so the session's other tasks keep running while the human thinks,
and input typed before the prompt appeared is discarded so that a stray keystroke never answers
a security question.

When nobody answers in time the system says so and returns the option matching ``default``
(see :func:`default_option`). It finishes a moment before ``timeout`` so that the announcement
is shown before the kernel's own deadline for the request.

Without a terminal (standard input is not a TTY, or ``CI`` is set) nothing is asked: the
``policy`` (``deny`` unless told otherwise) answers and the decision is printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import re
import select
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TextIO, TypeAlias

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from amplifier_core.approval import DEFAULT_APPROVAL_OPTIONS, ApprovalDefault, is_allow_option

__all__ = [
    "AnswerSource",
    "ApprovalPolicy",
    "ApprovalRecord",
    "TerminalApprovalSystem",
    "default_option",
    "is_interactive",
    "match_answer",
    "printable",
]

ApprovalPolicy: TypeAlias = Literal["allow", "deny"]
AnswerSource: TypeAlias = Literal["user", "timeout", "end_of_input", "policy"]

_FALSE: Final = frozenset({"", "0", "false", "no", "off"})
_REFUSAL_WORDS: Final = ("deny", "no")
_ENTER: Final = frozenset({"\r", "\n"})
_BACKSPACE: Final = frozenset({"\x7f", "\b"})
_END_OF_INPUT: Final = "\x04"
_KEY_SEQUENCE: Final = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?", re.DOTALL)
"""Escape sequences (arrow and function keys): dropped whole, so their letters never answer."""


@dataclass(frozen=True, slots=True)
class ApprovalRecord:
    """One request this system answered: what was asked and how it was decided."""

    prompt: str
    options: tuple[str, ...]
    answer: str
    source: AnswerSource
    seconds: float


_UNSAFE: Final = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
)


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on (escape sequences, carriage
    returns) or that reorders what is shown (bidirectional controls) written as an escape
    (``\\x1b``, ``\\u202e``); line feeds and tabs stay."""
    return _UNSAFE.sub(
        lambda m: (
            repr(m.group(0))[1:-1] if ord(m.group(0)) < 0x100 else f"\\u{ord(m.group(0)):04x}"
        ),
        text,
    )


def is_interactive(stream: TextIO | None = None) -> bool:
    """Whether a human can answer: ``stream`` (stdin) is a terminal and ``CI`` is not set."""
    if os.environ.get("CI", "").strip().lower() not in _FALSE:
        return False
    stream = sys.stdin if stream is None else stream
    if stream is None:
        return False
    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def default_option(options: Sequence[str], default: ApprovalDefault) -> str:
    """The option that stands for ``default``.

    ``deny``: the first option whose first word is "deny"/"denied" or "no", else the first
    option that does not approve, else ``"Deny"``. ``allow``: the first approving option that
    is not an "always" one (a timeout never grants lasting permission), else the first
    approving option, else ``"Allow"``.
    """
    if default == "allow":
        approving = [o for o in options if is_allow_option(o)]
        once = [o for o in approving if "always" not in o.lower()]
        return (once or approving or ["Allow"])[0]
    for option in options:
        words = option.strip().lower().split()
        if words and (words[0].startswith("deny") or words[0] in _REFUSAL_WORDS):
            return option
    return next((o for o in options if not is_allow_option(o)), "Deny")


def match_answer(text: str, options: Sequence[str]) -> str | None:
    """The option ``text`` picks, or ``None``.

    A number picks by position (from 1); a single letter picks the first option starting with
    it; anything longer picks the option with that name, else the first one it begins.
    Case never matters.
    """
    answer = text.strip().lower()
    if not answer:
        return None
    if answer.isdigit():
        index = int(answer)
        return options[index - 1] if 1 <= index <= len(options) else None
    for option in options:
        if option.strip().lower() == answer:
            return option
    return next((o for o in options if o.strip().lower().startswith(answer)), None)


def _decisive(buffer: str, options: Sequence[str]) -> str | None:
    """The option ``buffer`` picks when no further key could change the pick."""
    if buffer.isdigit():
        index = int(buffer)
        if 1 <= index <= len(options) and index * 10 > len(options):
            return options[index - 1]
        return None
    if len(buffer) == 1:
        starting = [o for o in options if o.strip().lower().startswith(buffer.lower())]
        return starting[0] if len(starting) == 1 else None
    return None


def _clock(seconds: float) -> str:
    whole = max(0, math.ceil(seconds))
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else f"{whole}s"


class _KeyReader:
    """Delivers the terminal's keystrokes to the event loop without blocking it."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.fd = fd
        self.loop = loop
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._watching = False

    def _read(self) -> str:
        try:
            chunk = os.read(self.fd, 1024)
        except BlockingIOError:
            return ""
        except OSError:
            return _END_OF_INPUT
        return chunk.decode("utf-8", errors="ignore") if chunk else _END_OF_INPUT

    def _on_readable(self) -> None:
        text = self._read()
        if text:
            self.queue.put_nowait(text)
        if text == _END_OF_INPUT and self._watching:
            self.loop.remove_reader(self.fd)
            self._watching = False

    def _pump(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
            except (OSError, ValueError):
                ready = []
                text = _END_OF_INPUT
            else:
                text = self._read() if ready else ""
            if text:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, text)
                if text == _END_OF_INPUT:
                    return

    def start(self) -> None:
        try:
            self.loop.add_reader(self.fd, self._on_readable)
            self._watching = True
        except (NotImplementedError, RuntimeError, ValueError, OSError):
            self._thread = threading.Thread(
                target=self._pump, name="amplifier-approval-keys", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        if self._watching:
            self.loop.remove_reader(self.fd)
            self._watching = False
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=0.5)


@contextlib.contextmanager
def _cbreak(fd: int) -> Iterator[None]:
    """Keys arrive one at a time and are not echoed; pending type-ahead is discarded."""
    try:
        import termios
        import tty
    except ImportError:  # pragma: no cover - not a POSIX terminal
        yield
        return
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        yield
        return
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        termios.tcflush(fd, termios.TCIFLUSH)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class TerminalApprovalSystem:
    """Asks the human in the terminal; follows ``policy`` when there is no human to ask.

    :param policy: the answer when the run is not interactive: ``deny`` (default) or
        ``allow``; the option chosen is :func:`default_option` of it.
    :param interactive: ``None`` decides on each request (:func:`is_interactive`); ``False``
        never prompts (a fixed policy, announced); ``True`` always prompts.
    :param console: where the prompt and decisions are shown (standard error by default).
    :param stdin: the terminal answers are read from (``sys.stdin`` by default).
    :param policy_source: who set ``policy``, for the reason the model gets when the policy
        answers (``"the command line's --deny policy"``).

    ``history`` keeps every decision, in order. ``asked_where`` (``"at the terminal"``) is
    what a denial's reason says of where the person answered.
    """

    asked_where: Final = "at the terminal"

    def __init__(
        self,
        *,
        policy: ApprovalPolicy = "deny",
        interactive: bool | None = None,
        console: Console | None = None,
        stdin: TextIO | None = None,
        policy_source: str | None = None,
    ) -> None:
        if policy not in ("allow", "deny"):
            raise ValueError(
                f"TerminalApprovalSystem policy: expected 'allow' or 'deny', got {policy!r}"
            )
        self.policy: ApprovalPolicy = policy
        self.interactive = interactive
        if console is None:
            from .output import colour  # NO_COLOR: no style escape at all

            console = Console(stderr=True) if colour() else Console(stderr=True, color_system=None)
        self.console = console
        self._stdin = stdin
        self.policy_source = policy_source
        self.history: list[ApprovalRecord] = []
        self._lock = asyncio.Lock()

    @property
    def stdin(self) -> TextIO:
        """The stream answers are read from."""
        return self._stdin if self._stdin is not None else sys.stdin

    @property
    def answered_by_policy(self) -> str | None:
        """Who answers when nobody is asked (the kernel names it in a denial's reason, instead
        of a user), or None while a human is asked."""
        if self.asks():
            return None
        return self.policy_source or f"the approval policy ({self.policy}), with no one to ask"

    def asks(self) -> bool:
        """Whether the next request will prompt the human."""
        if self.interactive is not None:
            return self.interactive
        return is_interactive(self.stdin)

    async def request_approval(
        self,
        prompt: str,
        options: list[str],
        timeout: float,  # noqa: ASYNC109 - the ecosystem's approval interface
        default: ApprovalDefault,
    ) -> str:
        """Show ``prompt`` and return the chosen option (see the module docstring)."""
        choices = [str(o) for o in options] or list(DEFAULT_APPROVAL_OPTIONS)
        async with self._lock:  # one question on the screen at a time
            if not self.asks():
                return self._by_policy(prompt, choices)
            return await self._ask(prompt, choices, timeout, default)

    # -- without a human ---------------------------------------------------------------

    def _by_policy(self, prompt: str, options: list[str]) -> str:
        answer = default_option(options, self.policy)
        self.console.print(
            f"[bold yellow]approval[/] {escape(prompt)} -> [bold]{escape(answer)}[/] "
            f"[dim](no one to ask; policy: {self.policy})[/]",
            highlight=False,
        )
        self.history.append(ApprovalRecord(prompt, tuple(options), answer, "policy", 0.0))
        return answer

    # -- with a human ------------------------------------------------------------------

    def _hint(self, options: Sequence[str]) -> str:
        letters = "/".join(dict.fromkeys(o.strip()[:1].lower() for o in options if o.strip()))
        numbers = "1" if len(options) == 1 else f"1-{len(options)}"
        return f"answer {numbers} or {letters}, Enter to confirm"

    def _show_request(self, prompt: str, options: Sequence[str], default_answer: str) -> None:
        body = Text(printable(prompt) + "\n", style="bold")
        body.append("   ".join(f"{i}) {o}" for i, o in enumerate(options, 1)))
        self.console.print(
            Panel(
                body,
                title="Approval needed",
                title_align="left",
                border_style="yellow",
                expand=False,
            )
        )
        self.console.print(
            f"  [dim]{self._hint(options)}; no answer means[/] {escape(default_answer)}",
            highlight=False,
        )

    def _status(self, line: Text, *, changed: bool) -> None:
        """Redraw the answer line in place; off a terminal, print it only when it changes."""
        console = self.console
        if not console.is_terminal:
            if changed:
                console.print(line, highlight=False)
            return
        with console.capture() as captured:
            console.print(line, end="", soft_wrap=True, highlight=False)
        console.file.write("\r\x1b[2K" + captured.get())
        console.file.flush()

    def _clear_line(self) -> None:
        if self.console.is_terminal:
            self.console.file.write("\r\x1b[2K")
            self.console.file.flush()

    async def _ask(
        self, prompt: str, options: list[str], limit: float, default: ApprovalDefault
    ) -> str:
        loop = asyncio.get_running_loop()
        fallback = default_option(options, default)
        started = loop.time()
        margin = min(0.25, limit * 0.05) if math.isfinite(limit) else 0.0
        deadline = started + max(0.0, limit - margin)
        fd = self.stdin.fileno()
        reader = _KeyReader(fd, loop)
        answer: str | None = None
        source: AnswerSource = "user"
        with _cbreak(fd):  # type-ahead is discarded before the question is on the screen
            self._show_request(prompt, options, fallback)
            reader.start()
            try:
                answer, source = await self._read_answer(reader, options, deadline, fallback)
            except BaseException:
                self._clear_line()
                self.console.print("  [red]approval interrupted[/]")
                raise
            finally:
                reader.stop()
        seconds = loop.time() - started
        self._clear_line()
        if source == "timeout":
            self.console.print(
                f"  [yellow]No answer within {limit:g}s: timed out, taking the default:[/] "
                f"[bold]{escape(answer)}[/]",
                highlight=False,
            )
        elif source == "end_of_input":
            self.console.print(
                f"  [yellow]Input closed: taking the default:[/] [bold]{escape(answer)}[/]",
                highlight=False,
            )
        else:
            colour = "green" if is_allow_option(answer) else "red"
            self.console.print(f"  -> [bold {colour}]{escape(answer)}[/]", highlight=False)
        self.history.append(ApprovalRecord(prompt, tuple(options), answer, source, seconds))
        return answer

    async def _read_answer(
        self,
        reader: _KeyReader,
        options: list[str],
        deadline: float,
        fallback: str,
    ) -> tuple[str, AnswerSource]:
        loop = reader.loop
        buffer = ""
        note = ""
        shown: tuple[str, str] | None = None
        while True:
            left = deadline - loop.time()
            if left <= 0:
                return fallback, "timeout"
            line = Text("  ")
            if note:
                line.append(note, style="dim")
            if math.isfinite(left):
                line.append(f"{fallback} in {_clock(left)}", style="yellow")
                wait: float | None = min(1.0, (left - math.floor(left)) or 1.0)
            else:
                line.append("no time limit", style="yellow")
                wait = None
            line.append(" > ")
            line.append(buffer, style="bold")
            self._status(line, changed=shown != (note, buffer))
            shown = (note, buffer)
            try:
                keys = await asyncio.wait_for(reader.queue.get(), timeout=wait)
            except TimeoutError:
                continue
            for key in _KEY_SEQUENCE.sub("", keys):
                if key == _END_OF_INPUT:
                    return fallback, "end_of_input"
                if key in _ENTER:
                    picked = match_answer(buffer, options)
                    if picked is not None:
                        return picked, "user"
                    note = f"{buffer!r} is not an option; " if buffer else ""
                    buffer = ""
                elif key in _BACKSPACE:
                    buffer = buffer[:-1]
                elif not key.isprintable():
                    continue
                else:
                    buffer += key
                    picked = _decisive(buffer, options)
                    if picked is not None:
                        return picked, "user"
                    if match_answer(buffer, options) is None and not _could_grow(buffer, options):
                        note = f"{buffer!r} is not an option; "
                        buffer = ""


def _could_grow(buffer: str, options: Sequence[str]) -> bool:
    """Whether more keys could still turn ``buffer`` into an option."""
    if buffer.isdigit():
        return any(str(i).startswith(buffer) for i in range(1, len(options) + 1))
    lowered = buffer.lower()
    return any(o.strip().lower().startswith(lowered) for o in options)
