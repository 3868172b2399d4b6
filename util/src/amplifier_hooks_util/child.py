"""A command started with ``subprocess.Popen`` and watched by the event loop itself.

:func:`start` is the spawn path of :func:`~.process.run_process` on Linux with pidfds (5.3 and
later; :data:`PIDFD` says whether this process has them). The command is started by
``subprocess.Popen`` with nothing that runs Python in the child, so CPython uses ``vfork``;
its stdin, stdout and stderr are pipes whose ends of ours are made non-blocking and served by
the loop's reader and writer callbacks (no transports, protocols or stream objects); its exit
is learned from a pidfd registered with the loop, and its status is collected at once with
``waitpid(pid, WNOHANG)`` on that pid alone (no child-watcher thread). Everything is set up in
one synchronous step: no other coroutine of the loop runs between the fork and the moment the
caller registers the command's pid.

Only a waiter that reaps *any* child (``waitpid(-1)``, ``os.wait()``, asyncio's deprecated
``FastChildWatcher``) could take the status first; the command then counts as ended with
:data:`LOST_STATUS`, as asyncio reports a child whose status it lost.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NamedTuple

__all__ = [
    "LOST_STATUS",
    "PIDFD",
    "THREADED",
    "Child",
    "Launched",
    "launch",
    "spawner",
    "start",
    "watch",
]

#: The return code of a command whose exit status another waiter of this process collected.
LOST_STATUS: Final = 255
_CHUNK: Final = 64 * 1024
_POLL: Final = 0.01


def _pidfd_works() -> bool:
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
        return False
    try:
        fd = os.pidfd_open(os.getpid())
    except OSError:  # an older kernel, or a seccomp filter that refuses the call
        return False
    os.close(fd)
    return True


#: Whether :func:`start` can be used here (Linux with ``pidfd_open``).
PIDFD: Final = _pidfd_works()
#: Whether :func:`launch` lets other threads run while the child execs: CPython drops the
#: interpreter lock around ``vfork`` (gh-104372) in 3.12 and, backported, in 3.11.7, the first
#: 3.11 release this was checked on.
THREADED: Final = sys.version_info >= (3, 11, 7)
_SPAWNERS: Final = 8
_spawner: list[concurrent.futures.ThreadPoolExecutor] = []


def spawner() -> concurrent.futures.ThreadPoolExecutor:
    """The threads that run :func:`launch` (up to eight, started as needed)."""
    if not _spawner:
        _spawner.append(
            concurrent.futures.ThreadPoolExecutor(_SPAWNERS, thread_name_prefix="spawn")
        )
    return _spawner[0]


Sink = Callable[[bytes], object]


class Child:
    """One command started by :func:`start`.

    ``returncode`` is ``None`` until the command has ended and been reaped (negative: ended by
    that signal). ``exited`` resolves to it then; ``stdout_closed`` and ``stderr_closed`` once
    the stream reached its end (every process holding it closed it); ``fed`` once stdin was
    written in full (or the command closed it) and closed, already done when that happened in
    :func:`start`. A read error counts as the end of the stream.
    """

    __slots__ = (
        "_data",
        "_fds",
        "_loop",
        "_pidfd",
        "_poll",
        "_popen",
        "_written",
        "exited",
        "fed",
        "pid",
        "returncode",
        "stderr_closed",
        "stdout_closed",
    )

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        popen: subprocess.Popen[bytes],
        stdin: tuple[int, bytes] | None,
        stdout: tuple[int, Sink],
        stderr: tuple[int, Sink],
    ) -> None:
        self._loop = loop
        self._popen = popen
        self.pid = popen.pid
        self.returncode: int | None = None
        self._fds: set[int] = set()
        self._pidfd = -1
        self._poll: asyncio.TimerHandle | None = None
        self.exited: asyncio.Future[int] = loop.create_future()
        self.stdout_closed: asyncio.Future[None] = loop.create_future()
        self.stderr_closed: asyncio.Future[None] = loop.create_future()
        self.fed: asyncio.Future[None] = loop.create_future()
        for (fd, sink), closed in ((stdout, self.stdout_closed), (stderr, self.stderr_closed)):
            os.set_blocking(fd, False)
            self._fds.add(fd)
            loop.add_reader(fd, self._read, fd, sink, closed)
        self._data = memoryview(b"")
        self._written = 0
        if stdin is None:
            self.fed.set_result(None)
        else:
            fd, self._data = stdin[0], memoryview(stdin[1])
            os.set_blocking(fd, False)
            self._fds.add(fd)
            self._write(fd)
            if not self.fed.done():
                loop.add_writer(fd, self._write, fd)
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except OSError:  # pragma: no cover - refused although the probe passed: poll instead
            self._poll = loop.call_later(_POLL, self._check)
        else:
            loop.add_reader(self._pidfd, self._check)

    def waits(self) -> set[asyncio.Future[Any]]:
        """What the run waits for: the exit, both streams' ends, and the feed."""
        return {self.exited, self.stdout_closed, self.stderr_closed, self.fed}

    # -- the pipes

    def _close(self, fd: int) -> None:
        if fd in self._fds:
            self._fds.discard(fd)
            self._loop.remove_reader(fd)
            self._loop.remove_writer(fd)
            os.close(fd)

    def _read(self, fd: int, sink: Sink, closed: asyncio.Future[None]) -> None:
        try:
            chunk = os.read(fd, _CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if chunk:
            sink(chunk)
            return
        self._close(fd)
        if not closed.done():
            closed.set_result(None)

    def _write(self, fd: int) -> None:
        """Write what the pipe takes; close stdin once all is written or the command closed
        it (a command that never reads its stdin is fine)."""
        try:
            while self._written < len(self._data):
                self._written += os.write(fd, self._data[self._written :])
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # BrokenPipeError and the like: the command will not read the rest
            pass
        self._data = memoryview(b"")
        self._close(fd)
        if not self.fed.done():
            self.fed.set_result(None)

    def close_pipes(self) -> None:
        """Stop reading and feeding, and close our ends of the pipes (a process outside the
        group may hold theirs); what waited on them is cancelled. Idempotent."""
        for fd in list(self._fds):
            self._close(fd)
        for future in (self.stdout_closed, self.stderr_closed, self.fed):
            future.cancel()

    # -- the exit

    def _check(self) -> None:
        """The pidfd is readable (the command ended), or the poll is due: reap it."""
        self._poll = None
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            returncode = LOST_STATUS
        else:
            if pid == 0:  # not ended yet
                if self._pidfd < 0:
                    self._poll = self._loop.call_later(_POLL, self._check)
                return
            returncode = os.waitstatus_to_exitcode(status)
        if self._pidfd >= 0:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        self.returncode = self._popen.returncode = returncode
        if not self.exited.done():
            self.exited.set_result(returncode)

    def kill(self) -> None:
        """``SIGKILL`` the command itself (its group is the caller's business)."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


class Launched(NamedTuple):
    """A command just started by :func:`launch`, not watched yet: its ``Popen`` and our ends
    of its pipes (``stdin`` is -1 when it reads ``/dev/null``)."""

    popen: subprocess.Popen[bytes]
    stdin: int
    stdout: int
    stderr: int

    def abandon(self) -> None:
        """Kill the command's group, reap it and close our ends (it will not be watched)."""
        with contextlib.suppress(OSError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()
        for fd in (self.stdin, self.stdout, self.stderr):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)


def launch(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    feed: bool,
    new_session: bool,
    pass_fds: Sequence[int] = (),
) -> Launched:
    """Start ``argv`` in a new session (or, with ``new_session=False``, a new process group)
    with a pipe for stdout and one for stderr, and for stdin when ``feed`` (else
    ``/dev/null``); ``pass_fds`` stay open in it at the same numbers. Needs no event loop: it
    may run in another thread.

    :raises OSError: the command could not be started (missing executable or ``cwd``).
    :raises ValueError: a NUL byte in ``argv`` or ``env``.
    """
    ours: list[int] = []
    theirs: list[int] = []
    try:
        in_read: int = subprocess.DEVNULL
        if feed:
            in_read, in_write = os.pipe2(os.O_CLOEXEC)
            theirs.append(in_read)
            ours.append(in_write)
        out_read, out_write = os.pipe2(os.O_CLOEXEC)
        ours.append(out_read)
        theirs.append(out_write)
        err_read, err_write = os.pipe2(os.O_CLOEXEC)
        ours.append(err_read)
        theirs.append(err_write)
        popen = subprocess.Popen(
            argv,
            stdin=in_read,
            stdout=out_write,
            stderr=err_write,
            cwd=cwd,
            env=env,
            start_new_session=new_session,
            process_group=None if new_session else 0,
            pass_fds=tuple(pass_fds),
        )
    except BaseException:
        for fd in ours:
            os.close(fd)
        raise
    finally:
        for fd in theirs:
            os.close(fd)
    return Launched(popen, ours[0] if feed else -1, out_read, err_read)


def watch(launched: Launched, stdin: bytes | None, stdout: Sink, stderr: Sink) -> Child:
    """Watch a launched command with the running loop: each chunk read goes to ``stdout`` or
    ``stderr``; ``stdin`` (given to a command launched with ``feed``) is written and closed."""
    loop = asyncio.get_running_loop()
    if stdin is None and launched.stdin >= 0:  # nothing to feed after all: end of input
        os.close(launched.stdin)
        launched = launched._replace(stdin=-1)
    try:
        return Child(
            loop,
            launched.popen,
            None if stdin is None else (launched.stdin, stdin),
            (launched.stdout, stdout),
            (launched.stderr, stderr),
        )
    except BaseException:  # pragma: no cover - the loop refused an fd: leave nothing behind
        for fd in (launched.stdin, launched.stdout, launched.stderr):
            with contextlib.suppress(ValueError, OSError):
                loop.remove_reader(fd)
                loop.remove_writer(fd)
        launched.abandon()
        raise


def start(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    stdin: bytes | None,
    stdout: Sink,
    stderr: Sink,
    new_session: bool,
    pass_fds: Sequence[int] = (),
) -> Child:
    """:func:`launch` and :func:`watch` in one step, on the loop's thread."""
    launched = launch(
        argv,
        cwd=cwd,
        env=env,
        feed=stdin is not None,
        new_session=new_session,
        pass_fds=pass_fds,
    )
    return watch(launched, stdin, stdout, stderr)
