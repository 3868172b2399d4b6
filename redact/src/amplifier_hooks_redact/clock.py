"""The deadline of the redaction running on this thread, which every scan checks.

:func:`scan_deadline` sets it for a block; :func:`check_deadline`, called by the scanner
before it scans a string and between attempts of its patterns, raises
:class:`RedactionTimeout` once it has passed. The walker replaces such a string by
:data:`TIMEOUT_MARK`. A thread that set no deadline is never stopped.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Final

__all__ = ["TIMEOUT_MARK", "RedactionTimeout", "check_deadline", "scan_deadline"]

TIMEOUT_MARK: Final = "[REDACTED:timeout]"

_LIMIT: Final = threading.local()


class RedactionTimeout(Exception):
    """The scan of a string passed the deadline of the redaction it belongs to."""


def check_deadline() -> None:
    """Raise :class:`RedactionTimeout` when this thread's redaction is past its deadline."""
    at = getattr(_LIMIT, "at", None)
    if at is not None and time.monotonic() > at:
        raise RedactionTimeout(f"redaction passed its deadline of {_LIMIT.seconds:g} s")


@contextlib.contextmanager
def scan_deadline(seconds: float) -> Iterator[None]:
    """Within the block, scans on this thread stop ``seconds`` from now."""
    previous = getattr(_LIMIT, "at", None), getattr(_LIMIT, "seconds", None)
    _LIMIT.at = time.monotonic() + seconds
    _LIMIT.seconds = seconds
    try:
        yield
    finally:
        _LIMIT.at, _LIMIT.seconds = previous
