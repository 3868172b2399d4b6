"""A hook handler that holds the event loop is named: which handler, on which event, how long.

An async handler that makes a blocking call (``time.sleep``, a synchronous HTTP request, a
long computation) stops every other task of the session while it runs, and nothing in the
handler's own result says so. A watch thread per event loop notices it, at no cost to emit:

* every ``threshold / 4`` seconds it schedules a no-op callback on the loop
  (``call_soon_threadsafe``) and checks that the previous one ran;
* when none has run for ``threshold`` seconds, the loop is held: the thread reads the loop
  thread's current stack (``sys._current_frames``) and finds the innermost
  :meth:`HookRegistry.emit <amplifier_core.hooks.HookRegistry.emit>` (or ``emit_and_collect``)
  frame on it, whose locals name the handler running and the event;
* it then looks every 10 ms until that handler lets go of the loop, and one warning says
  ``hook handler 'x' held the event loop for 3.0 s on 'tool:pre'`` (to within a quarter of
  the threshold), with the hint to await, or run blocking work in a thread.

A loop held by something other than a handler is not reported here. The watch starts the
first time a handler is registered from inside a running loop (modules mount there), one
thread per loop, and ends when its loop closes. ``AMPLIFIER_SLOW_HANDLER_S`` sets the
threshold in seconds (default 1; ``0`` turns the watch off).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
import weakref
from collections.abc import Iterable
from types import CodeType, FrameType
from typing import Final

__all__ = [
    "SLOW_HANDLER_ENV",
    "LoopWatch",
    "mark_handler_frames",
    "threshold_from_env",
    "watch_running_loop",
]

logger = logging.getLogger("amplifier_core.hooks")

SLOW_HANDLER_ENV: Final = "AMPLIFIER_SLOW_HANDLER_S"
DEFAULT_THRESHOLD_S: Final = 1.0
_FOLLOW_S: Final = 0.01
"""How often a handler found holding the loop is looked at until it lets go."""

_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWatch] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


def threshold_from_env() -> float:
    """The threshold ``AMPLIFIER_SLOW_HANDLER_S`` sets (default 1 s; 0 or less: off)."""
    raw = os.environ.get(SLOW_HANDLER_ENV, "").strip()
    if not raw:
        return DEFAULT_THRESHOLD_S
    try:
        return float(raw)
    except ValueError:
        logger.warning("%s=%r is not a number of seconds; using %g", SLOW_HANDLER_ENV, raw, 1.0)
        return DEFAULT_THRESHOLD_S


_HANDLER_FRAMES: Final[set[CodeType]] = set()
"""The code of the functions whose frames name the handler they run (``info``) and the event
(``event``): the registry's emit and emit_and_collect (:func:`mark_handler_frames`)."""


def mark_handler_frames(codes: Iterable[CodeType]) -> None:
    """Have the watch look for a held loop's handler in the frames of ``codes``: functions
    whose frame, while it runs a handler, holds its registration in the local ``info`` and the
    event in ``event`` (the registry marks its emit before it starts the watch)."""
    _HANDLER_FRAMES.update(codes)


def running_handler(thread_id: int) -> tuple[str, str] | None:
    """(handler name, event) of the innermost handler an emit is running on thread
    ``thread_id`` right now, or ``None``."""
    frame: FrameType | None = sys._current_frames().get(thread_id)
    codes = _HANDLER_FRAMES
    while frame is not None:
        if frame.f_code in codes:
            local = frame.f_locals
            info = local.get("info")
            name = getattr(info, "name", None)
            event = local.get("event")
            if isinstance(name, str) and isinstance(event, str):
                return name, event
        frame = frame.f_back
    return None


class LoopWatch:
    """Watches one event loop from a daemon thread (see the module docstring)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold: float, thread_id: int) -> None:
        self.loop = loop
        self.threshold = threshold
        self.thread_id = thread_id
        self.beats = 0
        self.reported: list[tuple[str, str, float]] = []
        """What was reported: (handler, event, seconds)."""
        self._thread = threading.Thread(
            target=self._run, name=f"amplifier-loop-watch-{thread_id}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def _beat(self) -> None:
        self.beats += 1

    def _run(self) -> None:
        period = self.threshold / 4
        seen = self.beats
        since = time.monotonic()
        while not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(self._beat)
            except RuntimeError:  # the loop closed meanwhile
                return
            time.sleep(period)
            if self.beats != seen:
                seen, since = self.beats, time.monotonic()
                continue
            if time.monotonic() - since < self.threshold:
                continue
            culprit = running_handler(self.thread_id)
            if culprit is None:  # held by something else than a handler: not ours to name
                continue
            # follow it closely until the loop runs again or another handler runs
            while (
                self.beats == seen
                and not self.loop.is_closed()
                and running_handler(self.thread_id) == culprit
            ):
                time.sleep(_FOLLOW_S)
            now = time.monotonic()
            self._report(*culprit, now - since)
            seen, since = self.beats, now

    def _report(self, handler: str, event: str, seconds: float) -> None:
        self.reported.append((handler, event, seconds))
        logger.warning(
            "hook handler %r held the event loop for %.1f s on %r: the session did nothing "
            "else meanwhile (a blocking call in an async handler? await it, or run it with "
            "asyncio.to_thread)",
            handler,
            seconds,
            event,
        )


def watch_running_loop(threshold: float | None = None) -> LoopWatch | None:
    """Start the watch of the running event loop, once per loop; ``None`` outside a loop or
    when the watch is off (``threshold`` <= 0, default from ``AMPLIFIER_SLOW_HANDLER_S``)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    with _lock:
        found = _watches.get(loop)
        if found is not None:
            return found
        limit = threshold_from_env() if threshold is None else threshold
        if limit <= 0:
            return None
        watch = _watches[loop] = LoopWatch(loop, limit, threading.get_ident())
    watch.start()
    return watch
