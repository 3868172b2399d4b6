"""Python's cyclic garbage collector paused while a module is imported.

Importing a module package creates tens of thousands of long-lived objects (classes,
functions, pydantic validators, compiled patterns). Each 700 allocations start a collection of
the youngest objects, and every few of those a collection of all of them: the first session of a
process, which imports every module of its plan, spent about a sixth of its ``initialize()``
in the collector, looking again and again at objects that live as long as the process.
:func:`collector_paused` turns the collector off for the duration of a synchronous import and
back on after it (when it was on before), so those objects are looked at once, by the next
collection.

Nothing an import leaves behind is lost: garbage it made in cycles is collected by the first
collection after it. The pause is counted, so imports on several threads at once (or one
within another) end it only when the last one ends; the collector is turned back on only when
it was on when the first pause began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]

_LOCK = threading.Lock()
_paused = 0
"""How many pauses are under way (on every thread)."""
_was_enabled = False
"""Whether the collector was on when the outermost pause began."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off while the ``with`` block runs (never across an ``await``: the block
    must be synchronous), on again after the last of the pauses under way ends if it was on
    before the first."""
    global _paused, _was_enabled
    with _LOCK:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _LOCK:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
