"""Redaction with a deadline, off the event loop for large data: it fails closed, never hangs.

:func:`redact_within` redacts small data in place (a thread costs more than the scan) and
large data in a worker thread, while the event loop goes on. The scan of every string checks
the deadline (:func:`.clock.scan_deadline`, read by the scanner between attempts): a string not
finished by then is replaced by :data:`TIMEOUT_MARK`, every string finished keeps its
redacted text. Should the worker not come back at all (a grace period after the deadline),
every string of the data that was not already known clean is replaced by the mark.

Every repeat in a rule's pattern is bounded (:mod:`.bounded`), so no single attempt of the
regex engine, which holds the interpreter lock, runs for long: the event loop keeps its turn
while a worker scans.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from .clock import TIMEOUT_MARK, scan_deadline
from .memo import CleanMemo
from .walker import Redactor

__all__ = ["DEFAULT_DEADLINE", "INLINE_CHARS", "redact_within"]

DEFAULT_DEADLINE: Final = 10.0
"""Seconds a redaction may take before what is not scanned yet is replaced."""
INLINE_CHARS: Final = 65_536
"""Data with fewer characters not scanned before is redacted on the caller's thread."""
_GRACE: Final = 5.0  # after the deadline, how long the worker may take to hand back

_EXECUTOR: Final = ThreadPoolExecutor(max_workers=2, thread_name_prefix="redaction")
_DEEPEST: Final = 100  # levels of containers kept when everything is marked


def _redact_by(
    redactor: Redactor, data: Any, seconds: float, memo: CleanMemo | None = None
) -> tuple[Any, dict[str, int]]:
    with scan_deadline(seconds):
        return redactor.redact(data, memo)


async def redact_within(
    redactor: Redactor,
    data: Any,
    *,
    deadline: float = DEFAULT_DEADLINE,
    inline_chars: int = INLINE_CHARS,
    memo: CleanMemo | None = None,
) -> tuple[Any, dict[str, int]]:
    """``redactor.redact(data, memo)`` that returns within about ``deadline`` seconds, off the
    event loop when ``data`` holds more than ``inline_chars`` characters not scanned before.

    What could not be scanned in time is replaced by :data:`TIMEOUT_MARK` (counted as
    ``timeout``), never passed on as it was. ``memo`` (the caller's, see :mod:`.memo`) skips
    list items remembered clean; it is used on the caller's thread only, never by the worker."""
    if redactor.is_clean(data, memo):
        return data, {}
    if _unscanned_chars(redactor, data, inline_chars) <= inline_chars:
        return _redact_by(redactor, data, deadline, memo)
    loop = asyncio.get_running_loop()
    work = loop.run_in_executor(_EXECUTOR, _redact_by, redactor, data, deadline)
    try:
        return await asyncio.wait_for(asyncio.shield(work), timeout=deadline + _GRACE)
    except TimeoutError:
        counts: dict[str, int] = {}
        return _all_marked(redactor, data, counts, _DEEPEST), counts


def _unscanned_chars(redactor: Redactor, data: Any, limit: int) -> int:
    """The characters of the strings in ``data`` the redactor has no verdict for, counted
    until more than ``limit``."""
    total = 0
    known = redactor.text.known
    stack = [data]
    while stack and total <= limit:
        value = stack.pop()
        if isinstance(value, str):
            if not known(value):
                total += len(value)
        elif isinstance(value, bytes | bytearray):
            total += len(value)
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            stack.extend(value)
    return total


def _all_marked(redactor: Redactor, data: Any, counts: dict[str, int], depth: int) -> Any:
    """``data`` with every string not known to be clean replaced by the mark (keys kept;
    containers deeper than ``depth`` levels replaced whole)."""
    if depth <= 0 and isinstance(data, dict | list | tuple):
        counts["timeout"] = counts.get("timeout", 0) + 1
        return TIMEOUT_MARK
    if isinstance(data, str):
        if redactor.text.known_clean(data):
            return data
        counts["timeout"] = counts.get("timeout", 0) + 1
        return TIMEOUT_MARK
    if isinstance(data, bytes | bytearray):
        counts["timeout"] = counts.get("timeout", 0) + 1
        return TIMEOUT_MARK.encode()
    if isinstance(data, dict):
        return {k: _all_marked(redactor, v, counts, depth - 1) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_all_marked(redactor, value, counts, depth - 1) for value in data]
    return data
