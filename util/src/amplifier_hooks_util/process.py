"""Run a command in a process group of its own, with a deadline, capped output and a clean kill.

:func:`run_process` starts a command (an argv list, or a string run by a shell), feeds it
``stdin`` (or ``/dev/null``), reads stdout and stderr as they come, each kept up to a cap, and
returns a :class:`ProcessResult` once the command has exited and both streams are closed (a
background job that keeps them open counts as part of the command).

Past the timeout the whole process group is stopped: the members other than the command first,
so that a still-running shell reaps them, then the group; ``SIGTERM`` and, after ``grace``
seconds, ``SIGKILL``. The command is reaped: nothing it started in its group keeps running and
no zombie of ours is left. Cancelling the call (``asyncio.CancelledError``) kills the group at
once, even while the command is still being started, and re-raises.

By default the command gets a new session (no controlling terminal, so it cannot read from or
write to the user's terminal); ``new_session=False`` gives it only a new process group, which is
a little cheaper to start and enough for the kill.

A process that leaves the group (``setsid``, a daemon's double fork) is still part of the
command: on Linux the session is made a child subreaper and every run keeps a
:class:`~.process_tree.ProcessTree` of its command, found through parent links (which a process
cannot rewrite, unlike its environment or name); the stop at the timeout or cancel also signals
every process of that tree, until none runs, and reaps those the session adopted.

How the command is started: on Linux with pidfds, :mod:`.child` (``vfork`` through
``subprocess.Popen``, in a spawning thread where CPython lets the loop run meanwhile; the pipes
and the exit watched by the loop's own callbacks, no child-watcher thread); elsewhere asyncio's
subprocess transport. Both behave the same; docs/decisions.md says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from . import child as _child
from .process_tree import (
    ProcessTree,
    boot_ticks,
    contain_session,
    finished_group,
    leaders,
    reap_finished_groups,
    spawning,
    started_group,
)

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_SHELL",
    "ProcessResult",
    "describe_exit",
    "run_process",
    "signal_name",
]

#: Seconds between ``SIGTERM`` and ``SIGKILL`` when a command runs past its timeout.
DEFAULT_GRACE: Final = 0.5
#: The shell that runs a command given as one string.
DEFAULT_SHELL: Final = "/bin/sh"

_POSIX: Final = os.name == "posix"
_LINUX: Final = sys.platform.startswith("linux")
_CHUNK: Final = 64 * 1024
_DRAIN: Final = 1.0
_POLL: Final = 0.01
_REAP: Final = 0.1
_KILL_WAIT: Final = 1.0
_PROC: Final = Path("/proc")
_MARKER: Final = "\n[... {dropped} bytes truncated ...]\n"
_KILLED: Final = -9  # the return code of a command that could not be reaped: SIGKILL's


class _Proc(Protocol):
    """What stopping a command needs of it: a started command of either spawn path."""

    @property
    def pid(self) -> int: ...
    @property
    def returncode(self) -> int | None: ...
    def kill(self) -> None: ...


@dataclasses.dataclass(frozen=True, slots=True)
class ProcessResult:
    """What one run of a command produced.

    ``returncode`` is negative when a signal ended the command. ``stdout`` and ``stderr`` are
    the bytes kept; ``*_dropped`` counts the bytes read past the cap and discarded, which sat
    at offset ``*_gap`` of the kept bytes (the end, unless the tail was kept too).
    ``timed_out``: the command ran past its timeout and its group was stopped; ``held_open``:
    the command had exited by then, but a process it started kept stdout or stderr open.
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    stdout_gap: int = 0
    stderr_gap: int = 0
    timed_out: bool = False
    held_open: bool = False

    @property
    def truncated(self) -> bool:
        """Whether either stream was cut at the cap."""
        return bool(self.stdout_dropped or self.stderr_dropped)

    def text(
        self, stream: Literal["stdout", "stderr"] = "stdout", *, marker: str | None = _MARKER
    ) -> str:
        """The stream decoded as UTF-8 (bad bytes replaced); where bytes were dropped,
        ``marker`` (``{dropped}`` is their count) stands in for them."""
        data, dropped, gap = (
            (self.stdout, self.stdout_dropped, self.stdout_gap)
            if stream == "stdout"
            else (self.stderr, self.stderr_dropped, self.stderr_gap)
        )
        if not dropped or marker is None:
            return data.decode("utf-8", "replace")
        head = data[:gap].decode("utf-8", "replace")
        tail = data[gap:].decode("utf-8", "replace")
        return head + marker.format(dropped=dropped) + tail


def signal_name(returncode: int) -> str | None:
    """``"SIGKILL"`` for a return code of ``-9``, ``"signal 77"`` for an unknown one; ``None``
    when the command exited on its own (``returncode >= 0``)."""
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def describe_exit(returncode: int) -> str:
    """``"exit code 3"``, or ``"exit code -9 (killed by SIGKILL)"`` when a signal ended it."""
    name = signal_name(returncode)
    return f"exit code {returncode}" + (f" (killed by {name})" if name else "")


# ----------------------------------------------------------------------------- output


class _Capture:
    """The bytes of one stream, at most ``cap`` of them: the first ones, or with ``keep_tail``
    the first half and the last half. Later bytes are only counted."""

    __slots__ = ("_head", "_head_cap", "_tail", "_tail_cap", "dropped")

    def __init__(self, cap: int | None, keep_tail: bool) -> None:
        if cap is None:
            self._head_cap, self._tail_cap = -1, 0
        elif keep_tail:
            self._head_cap, self._tail_cap = cap // 2, cap - cap // 2
        else:
            self._head_cap, self._tail_cap = cap, 0
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        if self._head_cap < 0:
            self._head += chunk
            return
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        if not self._tail_cap:
            self.dropped += len(chunk)
            return
        self._tail += chunk[-self._tail_cap :]
        self.dropped += max(0, len(chunk) - self._tail_cap)
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            del self._tail[:excess]
            self.dropped += excess

    def result(self) -> tuple[bytes, int, int]:
        """``(kept bytes, dropped count, offset of the gap)``."""
        return bytes(self._head + self._tail), self.dropped, len(self._head)


async def _pump(stream: asyncio.StreamReader | None, sink: _Capture) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        sink.add(chunk)


async def _finish_feed(stdin: asyncio.StreamWriter) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        await stdin.drain()
    stdin.close()


def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> asyncio.Task[None] | None:
    """Write ``data`` and close stdin; a task only when the pipe could not take it at once.

    A command that exits without reading its stdin breaks the pipe: that is not an error.
    """
    if stdin is None:
        return None
    try:
        stdin.write(data)
    except (BrokenPipeError, ConnectionResetError):
        stdin.close()
        return None
    if stdin.transport.get_write_buffer_size():
        return asyncio.create_task(_finish_feed(stdin))
    stdin.close()
    return None


# ----------------------------------------------------------------------------- the group


def _state(pid: int) -> tuple[str, int] | None:
    """``(state letter, process group)`` of ``pid`` from ``/proc``; ``None`` when it is gone."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = stat[stat.rfind(")") + 2 :].split()
    return (fields[0], int(fields[2])) if len(fields) > 2 else None


def _members(pgid: int) -> set[int] | None:
    """Running (not zombie) processes of group ``pgid``; ``None`` where ``/proc`` is missing."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        pids = [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return None
    return {
        pid
        for pid in pids
        if (state := _state(pid)) is not None and state[1] == pgid and state[0] != "Z"
    }


def _running(pid: int, pgid: int) -> bool:
    state = _state(pid)
    return state is not None and state[1] == pgid and state[0] != "Z"


def _in_group(pid: int, pgid: int) -> bool:
    state = _state(pid)
    return state is not None and state[1] == pgid


def _group_running(pgid: int) -> bool:
    members = _members(pgid)
    if members is not None:
        return bool(members)
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal(proc: _Proc, sig: signal.Signals, *, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if not _POSIX:  # pragma: no cover - no process groups to signal
            proc.kill()
        elif group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)


async def _until(condition: Callable[[], bool], seconds: float) -> bool:
    """Poll ``condition()`` until it holds or ``seconds`` pass; return whether it holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL)
    return True


def _signal_marked(tree: ProcessTree | None, group: int, sig: signal.Signals) -> bool:
    """Signal the processes of ``tree`` outside ``group``; whether there were any."""
    return tree is not None and tree.signal(sig, outside=group)


def _marked(tree: ProcessTree | None, group: int) -> set[int]:
    """The running processes of ``tree`` outside process group ``group``."""
    return set() if tree is None else tree.running(outside=group)


async def _kill_marked(tree: ProcessTree | None, group: int) -> None:
    """``SIGKILL`` the processes of ``tree`` outside ``group`` until none runs (a fork racing
    the kill included), then reap those the session adopted."""
    await _until(lambda: not _signal_marked(tree, group, signal.SIGKILL), _KILL_WAIT)
    if tree is not None:
        tree.reap()


async def _stop_others(proc: _Proc, sig: signal.Signals, wait: float) -> bool:
    """Signal the group's members other than the leader and, while the leader still runs,
    give it a moment to reap them (a killed child of a dead parent stays a zombie where init
    does not reap). Return whether none of them still runs."""
    leader = proc.pid
    others = (_members(leader) or set()) - {leader}
    if not others or proc.returncode is not None:
        return True
    for pid in others:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)

    def others_stopped() -> bool:
        return not any(_running(pid, leader) for pid in others)

    def others_reaped() -> bool:
        return proc.returncode is not None or not any(_in_group(pid, leader) for pid in others)

    if not await _until(others_stopped, wait):
        return False
    await _until(others_reaped, _REAP)
    return True


async def _stop_group(proc: _Proc, grace: float, tree: ProcessTree | None) -> None:
    """Stop every process of ``proc``'s group and every process of ``tree``:
    ``SIGTERM``, then ``SIGKILL`` after ``grace``.

    Each round stops the members other than the leader first (:func:`_stop_others`), then
    signals the whole group. When some member outlives ``SIGTERM``, the leader is spared until
    the ``SIGKILL`` round, so that it is still there to reap that member.
    """

    def stopped() -> bool:
        return (
            proc.returncode is not None
            and (not _POSIX or not _group_running(proc.pid))
            and not _marked(tree, proc.pid)
        )

    try:
        await _stop_all(proc, grace, tree, stopped)
    finally:
        if tree is not None:
            tree.reap()


async def _stop_all(
    proc: _Proc,
    grace: float,
    tree: ProcessTree | None,
    stopped: Callable[[], bool],
) -> None:
    strays = _signal_marked(tree, proc.pid, signal.SIGTERM)
    if _POSIX and await _stop_others(proc, signal.SIGTERM, grace):
        _signal(proc, signal.SIGTERM, group=True)
        if await _until(stopped, grace):
            return
    elif strays:
        await _until(lambda: not _marked(tree, proc.pid), grace)
    if _POSIX:
        await _stop_others(proc, signal.SIGKILL, _KILL_WAIT)
    _signal(proc, signal.SIGKILL, group=True)
    await _kill_marked(tree, proc.pid)
    await _until(stopped, _KILL_WAIT)


def _closer(proc: asyncio.subprocess.Process) -> Callable[[], None]:
    """What closes the pipes that a process outside the group still holds, so ``wait()``
    returns."""

    def close() -> None:
        transport = getattr(proc, "_transport", None)
        if transport is not None:
            transport.close()

    return close


async def _kill_now(
    proc: _Proc,
    waits: set[asyncio.Future[Any]],
    exited: asyncio.Future[int],
    tree: ProcessTree | None,
    close_pipes: Callable[[], None],
) -> None:
    """A cancelled run: ``SIGKILL`` the group (other members first) and the processes of
    ``tree``, and reap the command."""
    for wait in waits:
        if wait is not exited:
            wait.cancel()
    if _POSIX:
        with contextlib.suppress(BaseException):
            await _stop_others(proc, signal.SIGKILL, _REAP)
    _signal(proc, signal.SIGKILL, group=True)
    with contextlib.suppress(BaseException):
        await _kill_marked(tree, proc.pid)
    close_pipes()
    with contextlib.suppress(BaseException):
        await asyncio.wait({exited}, timeout=_DRAIN)
    exited.cancel()
    if tree is not None:
        with contextlib.suppress(BaseException):
            await _until(lambda: not tree.running(), _REAP)
        tree.reap()


async def _abandon_spawn(spawn: asyncio.Future[asyncio.subprocess.Process], started: int) -> None:
    """A run cancelled while its command starts: let the start finish, then kill the group."""
    with contextlib.suppress(BaseException):
        proc = await asyncio.wait_for(spawn, _DRAIN)
        started_group(proc.pid)
        exited = asyncio.ensure_future(proc.wait())
        tree = ProcessTree(proc.pid, started) if _LINUX else None
        await _kill_now(proc, {exited}, exited, tree, _closer(proc))
        if _LINUX and proc.returncode is not None:  # reaped: its group's leftovers are ours
            finished_group(proc.pid)
            reap_finished_groups()


# ----------------------------------------------------------------------------- the run


async def run_process(
    command: str | Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 - the group is stopped, not only the wait
    output_cap: int | None = None,
    keep_tail: bool = False,
    grace: float = DEFAULT_GRACE,
    shell: str = DEFAULT_SHELL,
    new_session: bool = True,
    pass_fds: Sequence[int] = (),
) -> ProcessResult:
    """Run ``command`` and return what it did (see the module docstring).

    :param command: an argv list, executed directly; or one string, run as
        ``<shell> -c <command>``.
    :param cwd: the working directory (default: ours).
    :param env: the whole environment of the command (default: ours).
    :param stdin: bytes written to the command's stdin, which is then closed; ``None`` gives
        it ``/dev/null``. A command that never reads its stdin is fine.
    :param timeout: seconds before the group is stopped; ``None`` waits as long as it takes.
    :param output_cap: bytes kept of each of stdout and stderr; ``None`` keeps everything.
    :param keep_tail: keep the first and the last half of the cap instead of the first bytes.
    :param grace: seconds between ``SIGTERM`` and ``SIGKILL`` on a timeout.
    :param shell: the shell that runs a string ``command``.
    :param new_session: a new session (no controlling terminal) rather than only a new group.
    :param pass_fds: our file descriptors the command gets at the same numbers (a sandbox's
        filter); the caller closes them.
    :raises OSError: the command could not be started (missing executable or ``cwd``, no
        permission).
    :raises ValueError: ``command`` is empty, or ``env`` or the command holds a NUL byte.
    """
    argv = [shell, "-c", command] if isinstance(command, str) else list(command)
    if not argv:
        raise ValueError("run_process: the command is empty")
    out, err = _Capture(output_cap, keep_tail), _Capture(output_cap, keep_tail)
    job = _Job(argv, cwd, env, stdin, timeout, out, err, grace, new_session, tuple(pass_fds))
    runner = _run_child if _child.PIDFD else _run_asyncio
    returncode, timed_out, held_open = await runner(job)
    stdout, stdout_dropped, stdout_gap = out.result()
    stderr, stderr_dropped, stderr_gap = err.result()
    return ProcessResult(
        returncode=_KILLED if returncode is None else returncode,
        stdout=stdout,
        stderr=stderr,
        stdout_dropped=stdout_dropped,
        stderr_dropped=stderr_dropped,
        stdout_gap=stdout_gap,
        stderr_gap=stderr_gap,
        timed_out=timed_out,
        held_open=held_open,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _Job:
    """One command to run and where its output goes, as :func:`run_process` hands it to the
    runner of this platform (:func:`_run_child` or :func:`_run_asyncio`)."""

    argv: list[str]
    cwd: str | os.PathLike[str] | None
    env: Mapping[str, str] | None
    stdin: bytes | None
    timeout: float | None
    out: _Capture
    err: _Capture
    grace: float
    new_session: bool
    pass_fds: tuple[int, ...]


_Outcome = tuple[int | None, bool, bool]
"""``(returncode or None when it could not be reaped, timed_out, held_open)``."""


async def _launch(job: _Job, started: int) -> _child.Child:
    """Start the command in a spawning thread (the loop runs while the child execs) and watch
    it from the loop; its pid is a leader when this returns. Until then its start mark is
    among those of the spawns in flight, so no other run takes it for an orphan and no
    finished group is reaped."""
    loop = asyncio.get_running_loop()
    launching = loop.run_in_executor(
        _child.spawner(),
        functools.partial(
            _child.launch,
            job.argv,
            cwd=job.cwd,
            env=job.env,
            feed=job.stdin is not None,
            new_session=job.new_session,
            pass_fds=job.pass_fds,
        ),
    )
    spawning().append(started)
    try:
        launched = await asyncio.shield(launching)
    except asyncio.CancelledError:
        spawning().remove(started)  # before the kill: its orphans are of this run's tree
        await _abandon_launch(launching, started)
        raise
    except BaseException:
        spawning().remove(started)
        raise
    try:
        proc = _child.watch(launched, job.stdin, job.out.add, job.err.add)
        leaders().add(proc.pid)
    finally:
        spawning().remove(started)
    return proc


async def _abandon_launch(launching: asyncio.Future[_child.Launched], started: int) -> None:
    """A run cancelled while its command starts: let the start finish, then kill the group."""
    try:
        launched = await asyncio.wait_for(asyncio.shield(launching), _DRAIN)
    except BaseException:  # not started, or still starting: killed once it has
        launching.add_done_callback(_abandon_later)
        return
    with contextlib.suppress(BaseException):
        proc = _child.watch(launched, None, _discard, _discard)
        started_group(proc.pid)
        tree = ProcessTree(proc.pid, started)
        try:
            await _kill_now(proc, proc.waits(), proc.exited, tree, proc.close_pipes)
        finally:
            proc.close_pipes()
        if proc.returncode is not None:  # reaped: its group's leftovers are ours
            finished_group(proc.pid)
            reap_finished_groups()


def _abandon_later(launching: asyncio.Future[_child.Launched]) -> None:
    if not launching.cancelled() and launching.exception() is None:
        launching.result().abandon()


def _discard(_chunk: bytes) -> None:
    pass


async def _run_child(job: _Job) -> _Outcome:
    """Linux with pidfds: :mod:`.child` (``vfork``, the loop's own callbacks, no watcher
    thread). Where CPython lets other threads run during ``vfork``, the command starts in a
    spawning thread (:func:`_launch`); elsewhere on the loop's thread, started and registered
    as a leader in one synchronous step. Either way its number is taken out of the finished
    groups before anything reaps them, so no reaping of another run's leftovers can take its
    status."""
    contain_session(hide=False)  # orphans come to us, not to init
    started = boot_ticks()
    if _child.THREADED:
        proc = await _launch(job, started)
    else:
        proc = _child.start(
            job.argv,
            cwd=job.cwd,
            env=job.env,
            stdin=job.stdin,
            stdout=job.out.add,
            stderr=job.err.add,
            new_session=job.new_session,
            pass_fds=job.pass_fds,
        )
        leaders().add(proc.pid)
    started_group(proc.pid)
    tree = ProcessTree(proc.pid, started)
    try:
        timed_out, held_open = await _collect(
            proc, proc.waits(), proc.exited, proc.close_pipes, job.timeout, job.grace, tree
        )
    finally:
        proc.close_pipes()
        leaders().discard(proc.pid)
        if proc.returncode is not None:
            finished_group(proc.pid)
            reap_finished_groups()
    return proc.returncode, timed_out, held_open


async def _run_asyncio(job: _Job) -> _Outcome:
    """Elsewhere: asyncio's subprocess transport and its child watcher."""
    group: dict[str, Any] = {}
    if _POSIX:
        group = {"start_new_session": True} if job.new_session else {"process_group": 0}
    started = 0
    if _LINUX:
        contain_session(hide=False)
        reap_finished_groups()
        started = boot_ticks()
    # Shielded: a cancel while asyncio connects the pipes would otherwise kill only the command
    # and then wait for every process that holds its pipes (a background job: for minutes).
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *job.argv,
            stdin=asyncio.subprocess.DEVNULL if job.stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=job.cwd,
            env=None if job.env is None else dict(job.env),
            pass_fds=job.pass_fds,
            **group,
        )
    )
    spawning().append(started)
    try:
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        spawning().remove(started)
        await _abandon_spawn(spawn, started)
        raise
    except BaseException:
        spawning().remove(started)
        raise
    leaders().add(proc.pid)
    spawning().remove(started)
    started_group(proc.pid)
    tree = ProcessTree(proc.pid, started) if _LINUX else None
    waits: set[asyncio.Future[Any]] = {
        asyncio.create_task(_pump(proc.stdout, job.out)),
        asyncio.create_task(_pump(proc.stderr, job.err)),
    }
    exited = asyncio.create_task(proc.wait())
    waits.add(exited)
    feeder = _feed(proc.stdin, job.stdin) if job.stdin is not None else None
    if feeder is not None:
        waits.add(feeder)
    try:
        timed_out, held_open = await _collect(
            proc, waits, exited, _closer(proc), job.timeout, job.grace, tree
        )
    finally:
        leaders().discard(proc.pid)
        if _LINUX and proc.returncode is not None:
            finished_group(proc.pid)
            reap_finished_groups()
    return proc.returncode, timed_out, held_open


async def _collect(
    proc: _Proc,
    waits: set[asyncio.Future[Any]],
    exited: asyncio.Future[int],
    close_pipes: Callable[[], None],
    timeout: float | None,  # noqa: ASYNC109 - see run_process
    grace: float,
    tree: ProcessTree | None,
) -> tuple[bool, bool]:
    """Wait for ``waits`` (the exit, both streams' ends, the feed) until the timeout, then
    stop the group; ``(timed_out, held_open)``."""
    timed_out = held_open = False
    try:
        _, pending = await asyncio.wait(waits, timeout=timeout)
        if pending:
            timed_out, held_open = True, proc.returncode is not None
            await _stop_group(proc, grace, tree)
            # Take what is left in the pipes; a process that left the group may hold them.
            _, still_open = await asyncio.wait(pending, timeout=_DRAIN)
            for wait in still_open:
                wait.cancel()
            if still_open:
                close_pipes()
                await asyncio.wait({exited}, timeout=_DRAIN)
    except BaseException:
        await _kill_now(proc, waits, exited, tree, close_pipes)
        raise
    return timed_out, held_open
