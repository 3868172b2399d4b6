"""The processes a command started, found through the kernel's parent links, and the session's
own protection from them.

A command's processes can leave its process group and session (``setsid``, a daemon's double
fork) and rewrite their own environment and name; what they cannot change is who their parent
is. :class:`ProcessTree` finds them by that alone:

* the session process is made a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``,
  :func:`contain_session`): a process whose parent exits is adopted by the session rather than
  by init, so it stays in reach;
* the tree of a run is every descendant of its leader (the command) and of every process
  already seen in the tree, plus every process the session adopted that started after the
  leader and is not the leader of another run.

Two runs at once that both leave orphans behind cannot be told apart: stopping one stops the
orphans of both (they left their own group; nothing else of the session does).

:func:`contain_session` also makes the session process non-dumpable
(``prctl(PR_SET_DUMPABLE, 0)``): its ``/proc/<pid>/environ``, ``mem`` and the like become
unreadable to processes of the same user, so a hook given a reduced environment cannot read
the session's. Root can still read them; a hook run as root is contained only by the sandbox's
PID namespace (:mod:`.sandbox`). Linux only; elsewhere nothing is done.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os
import signal
import sys
import time
from pathlib import Path
from typing import Final

__all__ = [
    "ProcessTree",
    "boot_ticks",
    "contain_session",
    "finished_group",
    "is_dumpable",
    "leaders",
    "reap_finished_groups",
    "spawning",
    "started_group",
]

_PROC: Final = Path("/proc")
_LINUX: Final = sys.platform.startswith("linux")
_PR_SET_DUMPABLE: Final = 4
_PR_GET_DUMPABLE: Final = 3
_PR_SET_CHILD_SUBREAPER: Final = 36

_TICKS: Final = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

_LEADERS: set[int] = set()
"""The leaders of the runs in progress in this process (never taken for orphans)."""
_SPAWNING: list[int] = []
""":func:`boot_ticks` at the start of each spawn in flight: a child of the session that started
since may be a leader not registered yet, so it is not taken for an orphan until then."""
_CONTAINED: dict[str, bool] = {}
_FINISHED_GROUPS: dict[int, None] = {}
"""Process groups of finished runs (their leaders reaped) that may still hold processes."""


def leaders() -> set[int]:
    """The leader pids of the runs in progress (a live view, for registering and removing)."""
    return _LEADERS


def spawning() -> list[int]:
    """The start marks of the spawns in flight (a live view: append before a spawn, remove
    once its leader is in :func:`leaders`)."""
    return _SPAWNING


def _prctl(option: int, value: int) -> bool:
    if not _LINUX:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def contain_session(*, subreaper: bool = True, hide: bool = True) -> dict[str, bool]:
    """Make this process a child subreaper and, with ``hide``, non-dumpable (see the module
    docstring); return what holds now (``{"subreaper": bool, "hidden": bool}``). Idempotent
    and cheap after the first call."""
    if subreaper and not _CONTAINED.get("subreaper"):
        _CONTAINED["subreaper"] = _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    if hide and not _CONTAINED.get("hidden"):
        _CONTAINED["hidden"] = _prctl(_PR_SET_DUMPABLE, 0)
    return {
        "subreaper": bool(_CONTAINED.get("subreaper")),
        "hidden": bool(_CONTAINED.get("hidden")),
    }


def is_dumpable() -> bool:
    """Whether this process's ``/proc`` files are readable by its user's other processes."""
    if not _LINUX:
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)) == 1
    except (OSError, AttributeError):
        return True


def boot_ticks() -> int:
    """Now, in the unit and from the origin of ``/proc/<pid>/stat``'s start time (clock ticks
    since boot), rounded down."""
    if not _LINUX:
        return 0
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * _TICKS)


@dataclasses.dataclass(frozen=True, slots=True)
class _Stat:
    ppid: int
    pgid: int
    state: str
    start: int


def _stat(pid: int) -> _Stat | None:
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp session tty tpgid flags ... starttime(22nd)": comm may hold
    # spaces and parentheses.
    fields = text[text.rfind(")") + 2 :].split()
    if len(fields) < 20:
        return None
    return _Stat(int(fields[1]), int(fields[2]), fields[0], int(fields[19]))


def _table() -> dict[int, _Stat]:
    table: dict[int, _Stat] = {}
    try:
        entries = [entry.name for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return table
    for name in entries:
        found = _stat(int(name))
        if found is not None:
            table[int(name)] = found
    return table


class ProcessTree:
    """The processes of one run, whose command is ``leader`` (see the module docstring)."""

    __slots__ = ("_seen", "leader", "start")

    def __init__(self, leader: int, start: int) -> None:
        self.leader = leader
        self.start = start
        """:func:`boot_ticks` just before the leader started."""
        self._seen: dict[int, int] = {}  # pid -> start time, so a reused pid is not taken

    def members(self) -> dict[int, tuple[str, int]]:
        """Every process of the run but the leader, ``{pid: (state, process group)}``; each
        one found is remembered, so its own descendants stay members after it exits."""
        if not _LINUX:
            return {}
        table = _table()
        me = os.getpid()
        children: dict[int, list[int]] = {}
        for pid, stat in table.items():
            children.setdefault(stat.ppid, []).append(pid)
        roots = [self.leader] + [
            pid for pid, start in self._seen.items() if pid in table and table[pid].start == start
        ]
        unregistered = min(_SPAWNING, default=None)
        adopted = [
            pid
            for pid in children.get(me, ())
            if pid != self.leader
            and pid not in _LEADERS
            and table[pid].start >= self.start
            and (unregistered is None or table[pid].start < unregistered)
        ]
        found: dict[int, tuple[str, int]] = {}
        stack = roots + adopted
        while stack:
            pid = stack.pop()
            if pid in found or pid not in table:
                continue
            if pid != self.leader:
                found[pid] = (table[pid].state, table[pid].pgid)
                self._seen.setdefault(pid, table[pid].start)
            stack.extend(children.get(pid, ()))
        return found

    def running(self, *, outside: int | None = None) -> set[int]:
        """The members that still run (not zombies), without those of process group
        ``outside``."""
        return {
            pid for pid, (state, pgid) in self.members().items() if state != "Z" and pgid != outside
        }

    def signal(self, sig: signal.Signals, *, outside: int | None = None) -> bool:
        """Send ``sig`` to the running members (outside group ``outside``); whether any ran."""
        targets = self.running(outside=outside)
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        return bool(targets)

    def reap(self) -> None:
        """Collect the exit status of the members the session adopted and that have ended, so
        that no zombie of ours is left (the leader is reaped by its own waiter)."""
        me = os.getpid()
        for pid, start in list(self._seen.items()):
            stat = _stat(pid)
            if stat is None or stat.start != start or stat.ppid != me or pid in _LEADERS:
                continue
            if stat.state == "Z":
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)


def finished_group(pgid: int) -> None:
    """The run whose command led group ``pgid`` is over and its leader reaped: what of the group
    the session adopts later (a background job that outlived it) is reaped by
    :func:`reap_finished_groups`."""
    if _LINUX:
        _FINISHED_GROUPS[pgid] = None


def reap_finished_groups() -> None:
    """Collect the ended processes of finished runs' groups that the session adopted; forget a
    group once no child of the session is left in it. Only children of the session that are in
    such a group are reaped: none of them was started by anyone else, so no other waiter is
    robbed (the group's number cannot be reused while any process is in it). Nothing is
    reaped while a spawn is in flight: its command may have a finished group's number and not
    be registered yet (:func:`started_group`); a later call reaps what was left."""
    if _SPAWNING:
        return
    for pgid in list(_FINISHED_GROUPS):
        while True:
            try:
                found = os.waitid(os.P_PGID, pgid, os.WEXITED | os.WNOHANG)
            except ChildProcessError:
                del _FINISHED_GROUPS[pgid]
                break
            except OSError:
                break
            if found is None:
                break


def started_group(pgid: int) -> None:
    """A run's leader got pid ``pgid`` (and leads group ``pgid``): no finished group of that
    number holds a process any more (the kernel does not reuse a number while a group or a
    process holds it), so it is forgotten, and :func:`reap_finished_groups` never takes this
    leader's exit status from its own waiter."""
    _FINISHED_GROUPS.pop(pgid, None)
