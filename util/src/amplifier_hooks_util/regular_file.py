"""Read a file that must be a regular file, once, without ever waiting on it.

A hooks file is configuration that decides what runs, so where one is expected, anything that
is not a regular file (a FIFO, a socket, a device, a link to ``/dev/stdin`` or ``/dev/zero``)
is refused before a byte is read: the file is opened with ``O_NONBLOCK`` (an open FIFO never
blocks) and checked with ``fstat`` on that very descriptor (no race between the check and the
read), and a file larger than the cap is refused instead of read to the end. The bytes returned
are the bytes a caller hashes and parses: nothing reads the file a second time.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = [
    "MAX_HOOKS_FILE_BYTES",
    "NotRegularFile",
    "TooLargeFile",
    "kind_of",
    "read_regular",
]

MAX_HOOKS_FILE_BYTES: Final = 4 << 20
"""The largest hooks file read (4 MiB); a larger one is an error, never read to the end."""


class NotRegularFile(OSError):
    """Where a regular file is expected there is a FIFO, a socket, a device or a directory."""


class TooLargeFile(OSError):
    """The file is larger than the cap of what is read."""


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, as errors name it (``a FIFO``, ``a character device``)."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(
    path: str | os.PathLike[str],
    limit: int = MAX_HOOKS_FILE_BYTES,
    *,
    check: Callable[[os.stat_result], None] | None = None,
) -> bytes:
    """The bytes of the regular file ``path`` (links followed to a regular file).

    ``check`` is called with the open descriptor's ``fstat`` before anything else is looked
    at or read (the managed policy's owner check); what it raises is raised, the file unread.

    :raises FileNotFoundError: there is no such file.
    :raises NotRegularFile: it is a FIFO, socket, device or directory (the message says which
        and where); nothing was read from it.
    :raises TooLargeFile: it holds more than ``limit`` bytes.
    :raises OSError: it cannot be opened or read.
    """
    where = Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        descriptor = os.open(where, flags)
    except IsADirectoryError as err:
        raise NotRegularFile(f"{where}: a directory, not a file") from err
    except OSError as err:
        if err.errno == errno.ENXIO:  # a socket (or a FIFO's other end on some systems)
            raise NotRegularFile(f"{where}: a socket or device, not a regular file") from err
        raise
    try:
        info = os.fstat(descriptor)
        if check is not None:
            check(info)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(f"{where}: {kind_of(info.st_mode)}, not a regular file; not read")
        if info.st_size > limit:
            raise TooLargeFile(
                f"{where}: {info.st_size:,} bytes, more than the {limit:,} a hooks file may hold"
            )
        chunks: list[bytes] = []
        total = 0
        while True:  # the size may grow while reading: the cap holds for what is read
            chunk = os.read(descriptor, 1 << 16)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise TooLargeFile(f"{where}: more than the {limit:,} bytes a hooks file may hold")
            chunks.append(chunk)
    finally:
        os.close(descriptor)
    return b"".join(chunks)
