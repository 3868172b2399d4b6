"""The background writer: a bounded in-memory queue drained by one thread per logger.

The emit side (:meth:`EventWriter.put`) appends an already-encoded record to a deque and
wakes the thread when the deque was empty: a few hundred nanoseconds, no lock taken on the
common path. Once woken, the thread lets records gather for :data:`_GATHER` seconds (unless
the queue already holds a batch, a flush or close is waiting), so a steady stream of events is
written in batches instead of one wake-up and one write per event: those also contend with the
emitting thread for the interpreter lock each time it is released (a Hyperscan scan, a
system call). It takes up to :data:`_BATCH` records, lets ``settle`` decide the redaction of
those whose data waits for it (:mod:`.deferred`: one decision for the whole batch), turns
them into lines, groups them by file and appends each group with as few ``os.write`` calls as
possible (see :mod:`.sink`). A record whose data was never settled is written as a marker,
never as its unredacted text.

Guarantees:

* **Back-pressure, not loss.** When ``queue_size`` records are waiting, ``put`` blocks the
  caller until the thread makes room. Only when the thread makes no progress for
  ``block_timeout`` seconds (a stalled disk), or is gone, is a record dropped; every drop is
  counted in :attr:`EventWriter.stats`, logged once per reason, and summed up in a final
  ``hooks-logging:dropped`` record when the writer closes.
* **Nothing left behind.** :meth:`EventWriter.close` drains the queue before it returns, and
  an ``atexit`` hook closes every writer still open when the interpreter exits: it runs after
  the interpreter has joined the program's other threads, so whatever they emitted is written,
  and it waits as long as the thread makes progress, however long the backlog.
* **Joined before the interpreter finalizes.** The thread runs the redaction engine, whose
  Hyperscan calls take and release the interpreter lock from C for each match: a thread still
  doing that while the interpreter tears itself down can abort the process. So the exit hook
  returns only once the thread has finished, unless it made no progress for ``block_timeout``
  seconds (a stalled disk: the thread waits in a system call, not in the engine); a thread
  given up on that way decides nothing more, it only writes what is already decided.
* **Order.** Records reach each file in the order they were put.
* **Forks.** A child process starts its own thread and its own descriptors; records queued in
  the parent stay the parent's to write.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from .deferred import NOT_SETTLED, Unsettled
from .record import LineFormatter
from .sink import FileSink

__all__ = ["DROPPED_EVENT", "EventWriter", "Item", "WriterStats"]

logger = logging.getLogger("amplifier_module_hooks_logging")

#: ``(time.time(), level, event, session_id, data as JSON text)``; the data may still wait for
#: the writer's ``settle`` (:class:`~.deferred.Unsettled`).
Item: TypeAlias = tuple[float, str, str, str, str | Unsettled]

#: Event name of the summary record written when records were dropped.
DROPPED_EVENT: Final = "hooks-logging:dropped"

_BATCH: Final = 2048  # records formatted before a write and a wake-up of waiting producers
_IDLE_WAIT: Final = 0.25  # the thread re-checks the queue at least this often
_GATHER: Final = 0.002  # seconds records may gather after a wake-up before they are written
_ROOM_POLL: Final = 0.05
_JOIN_POLL: Final = 0.1  # how often close() looks for progress while it waits
_MAX_SINKS: Final = 64


@dataclass
class WriterStats:
    """Counters of one writer (read them any time; they only grow)."""

    written: int = 0
    """Records written to disk."""
    dropped: int = 0
    """Records lost; see ``drop_reasons``."""
    drop_reasons: dict[str, int] = field(default_factory=dict)
    """Why records were dropped -> how many."""
    waits: int = 0
    """How often emit had to wait for room in a full queue."""
    write_errors: int = 0
    """Failed writes (each drops the records it carried)."""


class _Flush:
    """A marker in the queue: set once every record before it is written."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = threading.Event()


class EventWriter:
    """Queue plus writer thread for the records of one mounted logger."""

    def __init__(
        self,
        resolve_path: Callable[[str], str],
        *,
        queue_size: int = 10_000,
        block_timeout: float = 10.0,
        max_bytes: int = 0,
        backups: int = 5,
        settle: Callable[[list[Unsettled]], None] | None = None,
    ) -> None:
        self._resolve = resolve_path
        self._settle = settle
        self._limit = queue_size
        self._block_timeout = block_timeout
        self._max_bytes = max_bytes
        self._backups = backups
        self._format = LineFormatter()
        self._paths: dict[str, str] = {}
        self._sinks: dict[str, FileSink] = {}
        self._seen_paths: dict[str, str] = {}  # path -> first session id written there
        self._drop_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self.stats = WriterStats()
        self._closing = False
        self._closed = False
        self._abandoned = False
        self._taken = 0  # records the thread took off the queue: its progress
        self._start()
        _LIVE.add(self)

    def _start(self) -> None:
        self._buf: deque[Item | _Flush] = deque()
        self._wake = threading.Event()
        self._room = threading.Event()
        self._stalled = False
        self._thread = threading.Thread(target=self._run, name="hooks-logging-writer", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ producer side

    def put(self, item: Item) -> None:
        """Queue one record; waits only when the queue is full (see the module docstring)."""
        if self._closed:
            self.count_drop(1, "record arrived after the writer was closed")
            return
        buf = self._buf
        buf.append(item)
        size = len(buf)
        if size == 1:
            self._wake.set()
        elif size >= self._limit:
            self._wait_for_room()

    def _wait_for_room(self) -> None:
        buf = self._buf
        stalled = f"queue full for {self._block_timeout:g}s (the disk made no progress)"
        if self._stalled or not self._thread.is_alive():
            self._drop_newest(stalled if self._stalled else "the writer thread stopped")
            return
        self.stats.waits += 1
        self._wake.set()
        deadline = time.monotonic() + self._block_timeout
        while len(buf) >= self._limit:
            self._room.clear()
            if len(buf) < self._limit:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._stalled = True  # until the thread makes progress, drop without waiting
                self._drop_newest(stalled)
                return
            if not self._thread.is_alive():
                self._drop_newest("the writer thread stopped")
                return
            self._room.wait(min(remaining, _ROOM_POLL))

    def _drop_newest(self, reason: str) -> None:
        buf = self._buf
        try:
            last = buf.pop()
            if last.__class__ is not tuple:  # keep a flush marker, drop the record before it
                try:
                    buf.pop()
                finally:
                    buf.append(last)
        except IndexError:
            return  # drained meanwhile: nothing was lost
        self.count_drop(1, reason)

    def count_drop(self, count: int, reason: str) -> None:
        """Count ``count`` lost records under ``reason`` (logged the first time)."""
        with self._drop_lock:
            stats = self.stats
            first = reason not in stats.drop_reasons
            stats.dropped += count
            stats.drop_reasons[reason] = stats.drop_reasons.get(reason, 0) + count
        if first:
            logger.error("hooks-logging: dropped %d record(s): %s", count, reason)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every record queued before this call is written; False on timeout."""
        if not self._thread.is_alive():
            return not self._buf
        marker = _Flush()
        self._buf.append(marker)
        self._wake.set()
        return marker.done.wait(timeout)

    def close(self, timeout: float | None = 30.0) -> bool:
        """Write everything queued, close the files and stop the thread (idempotent).

        Waits as long as the thread makes progress, however long the queue. Returns False
        when it made none for ``timeout`` seconds (``None``: wait for ever); whatever it had
        not written by then is counted as dropped, and the thread decides nothing more.
        """
        with self._close_lock:
            if self._closed:
                return not self._thread.is_alive()
            self._closing = True
            self._wake.set()
            finished = self._join(timeout)
            if not finished:
                self._abandoned = True
            self._closed = True
            left = sum(1 for item in tuple(self._buf) if item.__class__ is tuple)
            if left:
                reason = "closed before the disk caught up" if not finished else "arrived late"
                self.count_drop(left, reason)
            _LIVE.discard(self)
            return finished

    def _join(self, stall: float | None) -> bool:
        """Join the thread while it makes progress; False after ``stall`` seconds without."""
        thread = self._thread
        if stall is None:
            thread.join()
            return True
        seen = self._taken
        last = time.monotonic()
        while True:
            thread.join(min(stall, _JOIN_POLL))
            if not thread.is_alive():
                return True
            now = time.monotonic()
            if self._taken != seen:
                seen, last = self._taken, now
            elif now - last >= stall:
                return False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def block_timeout(self) -> float:
        """Seconds without progress after which emit drops and close gives up."""
        return self._block_timeout

    @property
    def pending(self) -> int:
        """Records queued and not yet taken by the thread."""
        return len(self._buf)

    # ------------------------------------------------------------------ writer thread

    def _run(self) -> None:
        try:
            while True:
                self._wake.wait(_IDLE_WAIT)
                self._wake.clear()
                self._gather()
                self._drain()
                if (self._closing and not self._buf) or self._abandoned:
                    break
        except BaseException as err:  # never expected: account for what is left
            logger.exception("hooks-logging: writer thread failed")
            left = 0
            while self._buf:
                item = self._buf.popleft()
                if item.__class__ is tuple:
                    left += 1
                else:
                    item.done.set()  # type: ignore[union-attr]
            if left:
                self.count_drop(left, f"writer thread failed: {type(err).__name__}: {err}")
        finally:
            self._room.set()
            self._finish()

    def _gather(self) -> None:
        """Let records gather before a drain, unless one is due now: a batch is waiting, the
        last record put is a flush marker, or the writer is closing."""
        buf = self._buf
        if self._closing or not buf or len(buf) >= _BATCH or buf[-1].__class__ is not tuple:
            return
        time.sleep(_GATHER)

    def _drain(self) -> None:
        buf = self._buf
        line = self._format.line
        while not self._abandoned:
            taken: list[Item] = []
            marker: _Flush | None = None
            while len(taken) < _BATCH:
                try:
                    item = buf.popleft()
                except IndexError:
                    break
                if item.__class__ is tuple:
                    taken.append(item)
                else:
                    marker = item  # type: ignore[assignment]
                    break
            full = len(taken) >= _BATCH
            if full:
                self._room.set()
            if taken:
                self._taken += len(taken)
                self._settle_all(taken)
                groups: dict[str, list[str]] = {}
                for when, level, event, session_id, data in taken:
                    if data.__class__ is not str:
                        settled = data.settled  # type: ignore[union-attr]
                        data = NOT_SETTLED if settled is None else settled
                    lines = groups.get(session_id)
                    if lines is None:
                        lines = groups[session_id] = []
                    lines.append(line(when, level, event, session_id, data))
                self._write(groups)
            if marker is not None:
                marker.done.set()
            elif not full:
                break
        self._stalled = False
        self._room.set()

    def _settle_all(self, taken: list[Item]) -> None:
        """Let ``settle`` decide the records of ``taken`` whose data is not final yet."""
        settle = self._settle
        if settle is None or self._abandoned:  # given up on at exit: no engine call any more
            return
        pending = [item[4] for item in taken if item[4].__class__ is not str]
        if not pending:
            return
        try:
            settle(pending)  # type: ignore[arg-type]
        except Exception:  # never expected: what stays unsettled is written as a marker
            logger.exception("hooks-logging: deciding the redaction of queued records failed")

    def _write(self, groups: dict[str, list[str]]) -> None:
        by_path: dict[str, list[str]] = {}
        for session_id, lines in groups.items():
            try:
                path = self._path_for(session_id)
            except Exception as err:
                self.stats.write_errors += 1
                self.count_drop(len(lines), f"no path for session {session_id!r}: {err}")
                continue
            bucket = by_path.get(path)
            if bucket is None:
                by_path[path] = lines
                if path not in self._seen_paths and len(self._seen_paths) < 1024:
                    self._seen_paths[path] = session_id
            else:
                bucket.extend(lines)
        for path, lines in by_path.items():
            payload = "".join(lines).encode("utf-8", "backslashreplace")
            sink = self._sink_for(path)
            try:
                sink.write(payload)
            except Exception as err:
                self.stats.write_errors += 1
                sink.close()
                self.count_drop(len(lines), f"writing {path} failed: {type(err).__name__}: {err}")
                continue
            self.stats.written += len(lines)

    def _path_for(self, session_id: str) -> str:
        path = self._paths.get(session_id)
        if path is None:
            path = self._resolve(session_id)
            if len(self._paths) >= 4096:
                self._paths.clear()
            self._paths[session_id] = path
        return path

    def _sink_for(self, path: str) -> FileSink:
        sink = self._sinks.get(path)
        if sink is None:
            if len(self._sinks) >= _MAX_SINKS:
                oldest = next(iter(self._sinks))
                self._sinks.pop(oldest).close()
            sink = self._sinks[path] = FileSink(
                path, max_bytes=self._max_bytes, backups=self._backups
            )
        return sink

    def _finish(self) -> None:
        """Runs last on the thread: leave a summary of drops in the files, close them."""
        stats = self.stats
        if stats.dropped:
            data = _summary_json(stats.dropped, stats.drop_reasons)
            when = time.time()
            for path, session_id in self._seen_paths.items():
                line = self._format.line(when, "error", DROPPED_EVENT, session_id, data)
                with contextlib.suppress(Exception):  # already reported through logging
                    self._sink_for(path).write(line.encode("utf-8", "backslashreplace"))
            logger.error(
                "hooks-logging: %d record(s) dropped in total: %s",
                stats.dropped,
                stats.drop_reasons,
            )
        for sink in self._sinks.values():
            with contextlib.suppress(OSError):
                sink.close()
        self._sinks.clear()

    # ------------------------------------------------------------------ fork

    def _after_fork_in_child(self) -> None:
        for sink in self._sinks.values():
            sink.forget()
        self._sinks.clear()
        self._drop_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self.stats = WriterStats()
        if not self._closed:
            self._start()


def _summary_json(dropped: int, reasons: dict[str, int]) -> str:
    return json.dumps(
        {"dropped": dropped, "reasons": reasons}, ensure_ascii=False, separators=(",", ":")
    )


_LIVE: weakref.WeakSet[EventWriter] = weakref.WeakSet()


def _close_all_at_exit() -> None:
    """Write every writer's backlog and join its thread before the interpreter finalizes."""
    for writer in list(_LIVE):
        try:
            writer.close(timeout=writer.block_timeout)
        except Exception:
            logger.exception("hooks-logging: closing a writer at exit failed")


def _after_fork_in_child() -> None:
    for writer in list(_LIVE):
        writer._after_fork_in_child()


atexit.register(_close_all_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
