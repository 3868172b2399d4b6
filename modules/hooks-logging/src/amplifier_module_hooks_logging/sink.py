"""One events file: whole-line appends that stay whole with many writers, and rotation.

How a batch of complete lines is written (each step holds an exclusive ``flock`` on the
file, so every process that logs to the same file takes turns):

1. Make sure the descriptor still refers to the file at ``path``; if another process rotated
   it, reopen.
2. If the file does not end in ``\\n`` (a writer was killed in the middle of a write), cut the
   unfinished tail back to the last ``\\n``. Writes by live writers always complete under the
   lock, so an unfinished tail can only belong to a dead one.
3. With rotation on, rotate first when the next lines would not fit under ``max_bytes``.
4. Write with ``os.write`` on an ``O_APPEND`` descriptor, in pieces of at most
   :data:`CHUNK_BYTES` that always end at a line end: a line is never split across writes.

On systems without ``fcntl`` the lock is skipped (single-writer files stay correct).
"""

from __future__ import annotations

import contextlib
import os
from typing import Final

try:
    import fcntl

    _FLOCK = True
except ImportError:  # pragma: no cover - Windows
    _FLOCK = False

__all__ = ["CHUNK_BYTES", "FileSink"]

#: Largest single ``os.write``; a longer line is written alone, in one call.
CHUNK_BYTES: Final = 256 * 1024
_FLAGS: Final = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
_MODE: Final = 0o600
_TAIL_STEP: Final = 64 * 1024
_PREAD: Final = hasattr(os, "pread")


class FileSink:
    """Appends complete lines to one file path, with optional size-based rotation."""

    def __init__(self, path: str, *, max_bytes: int = 0, backups: int = 5) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self._fd = -1
        self._ino: tuple[int, int] = (0, 0)
        self._end = -1  # file size right after our last write (then it ends in "\n")
        self._locked = False

    # ------------------------------------------------------------------ descriptor

    def _open(self) -> int:
        parent = os.path.dirname(self.path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        fd = os.open(self.path, _FLAGS, _MODE)
        st = os.fstat(fd)
        self._fd, self._ino, self._end = fd, (st.st_dev, st.st_ino), -1
        return fd

    def close(self) -> None:
        """Close the descriptor (the next write reopens)."""
        self._unlock()
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def forget(self) -> None:
        """In a forked child: let go of the inherited descriptor without touching the lock
        (it belongs to the parent too)."""
        self._locked = False
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            with contextlib.suppress(OSError):
                os.close(fd)

    def _lock_current(self) -> int:
        """Open if needed, lock, and make sure the locked file is the one at ``path``."""
        while True:
            fd = self._fd if self._fd >= 0 else self._open()
            if not _FLOCK:
                return fd
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._locked = True
            try:
                st = os.stat(self.path)
                current = (st.st_dev, st.st_ino) == self._ino
            except FileNotFoundError:
                current = False
            if current:
                return fd
            self.close()  # rotated or removed by someone else: follow the path

    def _unlock(self) -> None:
        if self._locked:
            self._locked = False
            if _FLOCK and self._fd >= 0:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
                except OSError:  # closing the descriptor releases the lock anyway
                    self.close()

    # ------------------------------------------------------------------ writing

    def write(self, payload: bytes) -> int:
        """Append ``payload`` (complete ``\\n``-terminated lines); return bytes written.

        Raises :class:`OSError` when the file cannot be opened or written.
        """
        if not payload:
            return 0
        try:
            fd = self._lock_current()
            size = self._repair_tail(fd)
            view = memoryview(payload)
            total = len(payload)
            pos = 0
            while pos < total:
                end = self._piece_end(payload, pos, size)
                if end < 0:  # the next line does not fit: rotate, then go on in the new file
                    fd, size = self._rotate(fd)
                    continue
                size += self._write_all(fd, view[pos:end])
                pos = end
            self._end = size
            return total
        finally:
            self._unlock()

    def _piece_end(self, payload: bytes, pos: int, size: int) -> int:
        """End of the next piece to write (a line end), or -1 when rotation must come first."""
        limit = CHUNK_BYTES
        if self.max_bytes:
            room = self.max_bytes - size
            if room < limit:
                limit = room
        if limit > 0:
            cut = payload.rfind(b"\n", pos, pos + limit)
            if cut >= 0:
                return cut + 1
        if self.max_bytes and size > 0:
            return -1
        cut = payload.find(b"\n", pos)  # one line longer than a piece: alone, in one write
        return len(payload) if cut < 0 else cut + 1

    @staticmethod
    def _write_all(fd: int, data: memoryview) -> int:
        written = 0
        while written < len(data):  # more than one round only near a full disk; finish or raise
            count = os.write(fd, data[written:])
            if count <= 0:
                raise OSError(f"os.write wrote nothing ({written} of {len(data)} bytes done)")
            written += count
        return written

    def _repair_tail(self, fd: int) -> int:
        """Current size, after cutting an unfinished tail left by a killed writer."""
        size = os.fstat(fd).st_size
        if size == 0 or size == self._end or not _PREAD:
            return size
        if os.pread(fd, 1, size - 1) == b"\n":
            return size
        keep = 0
        pos = size
        while pos > 0:
            start = max(0, pos - _TAIL_STEP)
            cut = os.pread(fd, pos - start, start).rfind(b"\n")
            if cut >= 0:
                keep = start + cut + 1
                break
            pos = start
        os.ftruncate(fd, keep)
        return keep

    # ------------------------------------------------------------------ rotation

    def _rotate(self, fd: int) -> tuple[int, int]:
        """Shift ``path`` -> ``path.1`` -> ... -> ``path.<backups>``; return the locked new
        descriptor and its size.

        The caller holds the lock of the current file, so no two writers rotate one file and
        nobody writes to it meanwhile; writers holding the old descriptor notice the new
        file at ``path`` when they next take the lock.
        """
        if self.backups <= 0:
            os.ftruncate(fd, 0)
            return fd, 0
        for index in range(self.backups - 1, 0, -1):
            older = f"{self.path}.{index}"
            if os.path.exists(older):
                os.replace(older, f"{self.path}.{index + 1}")
        os.replace(self.path, f"{self.path}.1")
        self.close()
        fd = self._lock_current()
        return fd, self._repair_tail(fd)
