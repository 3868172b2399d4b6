"""What a hook's runner notes about one run for its receipt (:mod:`.receipts`): the exit code
of its process, a timeout, a failure and its kind. The receipt's wrapper sets a :class:`Note`
in a context variable around the run; outside a receipted run the calls do nothing."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["NOTE", "Note", "note_failure", "note_process"]


@dataclass(slots=True)
class Note:
    """What one run's runner noted: the process's exit code, a timeout, a failure."""

    exit_code: int | None = None
    timed_out: bool = False
    failure: str | None = None
    why: str | None = None


NOTE: ContextVar[Note | None] = ContextVar("amplifier_hooks_declarative_receipt", default=None)


def note_process(returncode: int | None, timed_out: bool) -> None:
    """The hook's process ended with ``returncode`` (or was killed at its timeout)."""
    note = NOTE.get()
    if note is not None:
        note.exit_code = returncode
        note.timed_out = note.timed_out or timed_out


def note_failure(kind: str, why: str) -> None:
    """The hook failed: ``kind`` is ``error``, ``not_started`` or ``refused`` (the first one
    noted is kept)."""
    note = NOTE.get()
    if note is not None and note.failure is None:
        note.failure = kind
        note.why = why
