"""Trust re-checked before every run of a trusted project's hooks, for the cost of a syscall.

At session start the whole hook surface is hashed and compared with the record
(:func:`~.projects.trust_status`). :class:`TrustGuard` then keeps that answer true: it watches
every directory of the surface and every file of it through its inode (Linux inotify, through
``ctypes``: no thread, no debounce) and, before each run, asks the kernel whether anything
happened there. A watch on a file is a watch on its inode: a write through any path or hard
link to it (in a directory nobody watches) is reported all the same, and so is a new link
made to it. Elsewhere, or when the watches run out, the ``stat`` of every file and directory
of the surface is compared instead: a file's inode, size, modification and change times must
be those it had when it was hashed (the change time cannot be set back by a writer). Nothing:
the run goes ahead (a few microseconds). Something: the files named are hashed again and
compared with the record; a change to one that holds code (or any change
the hooks' own runs cannot explain) revokes the project's trust for the rest of the session,
and every hook of the project refuses from then on, naming the changed files and the
``trust`` command.

The hooks' own data: :meth:`TrustGuard.after_run` is called when one of the project's own
foreground hooks has finished. A file of the surface that changed by then, holds no code and
whose name says data (a log, a cache, a state file the hook wrote: :func:`~.surface.says_data`)
and which is new since the record or only grew (appended to) is recorded as the hooks' data
(:func:`~.projects.mark_data`): it no longer revokes trust, in this session or the next, until it
holds code. A Python bytecode cache the run wrote is recorded with its new digest. A file
that holds code, or whose name says nothing (``guard.conf``: a script may source it), and
changed is never taken as the hook's own: it revokes trust, whoever wrote it.

Inotify events are queued by the kernel before the write that causes them returns, and the
``stat`` of a file reflects a write once it returned, so a change finished before a check is
always seen by it; the window left is between the check and the moment the hook's process
opens the file (the next check sees such a change).
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import logging
import os
import struct
import sys
import weakref
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from functools import partial
from pathlib import Path
from typing import Final

from .projects import TrustStatus, mark_data, trust_status
from .surface import FileState, Surface, holds_code, says_data, state_of

__all__ = ["TrustGuard"]

logger = logging.getLogger("amplifier_module_hooks_declarative.trust")

_IN_MODIFY: Final = 0x2
_IN_ATTRIB: Final = 0x4
_IN_CLOSE_WRITE: Final = 0x8
_IN_MOVED_FROM: Final = 0x40
_IN_MOVED_TO: Final = 0x80
_IN_CREATE: Final = 0x100
_IN_DELETE: Final = 0x200
_IN_DELETE_SELF: Final = 0x400
_IN_MOVE_SELF: Final = 0x800
_IN_Q_OVERFLOW: Final = 0x4000
_IN_IGNORED: Final = 0x8000
_IN_ISDIR: Final = 0x40000000
_MASK: Final = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
)
_FILE_MASK: Final = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_DELETE_SELF | _IN_MOVE_SELF
_EVENT: Final = struct.Struct("iIII")
_EVERYTHING: Final = "*"  # a change the events cannot locate: hash the whole surface again


def _grew_from(path: Path, before: FileState) -> bool:
    """Whether the file at ``path`` starts with the bytes ``before`` recorded (same SHA-256
    over their length): it was appended to, not rewritten."""
    if before.mark is None or len(before.digest) != 64:
        return False
    size = before.mark[2]
    try:
        with path.open("rb") as stream:
            head = stream.read(size)
    except OSError:
        return False
    return len(head) == size and hashlib.sha256(head).hexdigest() == before.digest


class _Inotify:
    """The kernel's file watch: ``changes()`` drains what happened since the last call."""

    def __init__(self) -> None:
        if not sys.platform.startswith("linux"):
            raise OSError(errno.ENOSYS, "inotify is Linux's")
        libc = ctypes.CDLL(None, use_errno=True)
        self._add = libc.inotify_add_watch
        self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self._add.restype = ctypes.c_int
        init = libc.inotify_init1
        init.argtypes = [ctypes.c_int]
        init.restype = ctypes.c_int
        fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"inotify_init1: {os.strerror(code)}")
        self.fd = fd
        self.dirs: dict[int, Path] = {}
        self.files: dict[int, Path] = {}
        self._closer = weakref.finalize(self, os.close, fd)

    def _added(self, path: Path, mask: int) -> int:
        """The watch descriptor of ``path`` watched for ``mask``.

        :raises OSError: inotify refused (the message names ``path``).
        """
        wd: int = self._add(self.fd, os.fsencode(path), mask)
        if wd < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"inotify_add_watch {path}: {os.strerror(code)}")
        return wd

    def watch(self, directory: Path) -> None:
        self.dirs[self._added(directory, _MASK)] = directory

    def watch_file(self, path: Path) -> None:
        """Watch the inode ``path`` leads to: a write through any link to it is an event."""
        self.files[self._added(path, _FILE_MASK)] = path

    def changes(self) -> tuple[list[tuple[Path, str, bool]], bool]:
        """``([(directory, name, is_dir)], lost)``: what the events name (a watched file's own
        events as ``(file, "", False)``); ``lost`` when the queue overflowed or a watched
        directory went away (then nothing can be located)."""
        found: list[tuple[Path, str, bool]] = []
        lost = False
        while True:
            try:
                buffer = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return found, lost
            offset = 0
            while offset < len(buffer):
                wd, mask, _cookie, size = _EVENT.unpack_from(buffer, offset)
                offset += _EVENT.size
                name = buffer[offset : offset + size].rstrip(b"\0")
                offset += size
                if wd in self.files:  # its inode changed, lost a link, or went away
                    found.append((self.files[wd], "", False))
                    if mask & _IN_IGNORED:
                        del self.files[wd]
                    continue
                if mask & (_IN_Q_OVERFLOW | _IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF):
                    lost = True
                    continue
                directory = self.dirs.get(wd)
                if directory is not None:
                    found.append((directory, os.fsdecode(name), bool(mask & _IN_ISDIR)))

    def close(self) -> None:
        self._closer()


class TrustGuard:
    """Re-checks a project's trust before each run of its hooks (module docstring).

    :param status: a trusted :func:`~.projects.trust_status` of the project, with its surface.
    :param include: the paths the record was asked to cover (as for ``trust_status``).
    """

    def __init__(
        self,
        status: TrustStatus,
        *,
        include: Iterable[str | os.PathLike[str]] = (),
        environ: Mapping[str, str] | None = None,
        use_inotify: bool = True,
    ) -> None:
        if status.surface is None or not status.trusted:
            raise ValueError(f"{status.project}: a guard needs a project trusted by its record")
        self.project = status.project
        self._include = tuple(include)
        self._environ = environ
        self._surface = status.surface
        self._states: dict[str, FileState] = dict(status.surface.states)
        self._data = set(status.data)
        self._revoked: str | None = None
        self._pending: set[str] = set()
        self._inotify: _Inotify | None = None
        self._stats: dict[str, tuple[int, int, int, int]] = {}
        if use_inotify:
            try:
                self._inotify = _Inotify()
                for directory in self._directories(self._surface):
                    self._inotify.watch(directory)
                for path in self._surface.paths.values():
                    if os.path.isfile(path):
                        self._inotify.watch_file(path)
            except OSError as err:
                logger.info("trust: %s; checking by stat instead", err)
                if self._inotify is not None:
                    self._inotify.close()
                self._inotify = None
        if self._inotify is None:
            self._stats = self._snapshot()
        if not self._unchanged_since_scan():  # between the scan and the watches
            self._pending.add(_EVERYTHING)

    def _unchanged_since_scan(self) -> bool:
        """Whether what the scan saw is still there, checked once the watches are in place
        (so nothing can slip between the two): each file's ``stat`` as it was before it was
        read, each directory's entries as they were walked, each single watched name."""
        surface = self._surface
        for name, path in surface.paths.items():
            mark = self._states[name].mark if name in self._states else None
            try:
                info = os.stat(path)
            except OSError:
                if mark is not None:
                    return False
                continue
            if mark != (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino):
                return False
        for directory, entries in surface.listing.items():
            try:
                if frozenset(os.listdir(directory)) != entries:
                    return False
            except OSError:
                return False
        for directory, names in surface.names.items():
            for name in names:
                path = directory / name
                if os.path.lexists(path) == (path in surface.absent):
                    return False
        for directory, globs in surface.patterns.items():
            if _matching(directory, globs) != surface.matched.get(directory, frozenset()):
                return False
        return True

    @property
    def watching(self) -> str:
        """How changes are found: ``inotify`` or ``stat``."""
        return "inotify" if self._inotify is not None else "stat"

    @property
    def revoked(self) -> str | None:
        """Why the project's hooks no longer run, once a change was found."""
        return self._revoked

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()

    # -- the checks

    def check(self) -> str | None:
        """Before a run: ``None`` when nothing the record covers changed since it was checked,
        else why the project's hooks must not run (one sentence with the ``trust`` command)."""
        if self._revoked is None:
            self._pending |= self._changes()
            if self._pending:
                self._settle(absorb=False)
        return self._revoked

    def after_run(self) -> None:
        """After one of the project's own foreground hooks finished: what it wrote that holds
        no code becomes the hooks' data; any other change revokes trust."""
        if self._revoked is None:
            self._pending |= self._changes()
            if self._pending:
                self._settle(absorb=True)

    def _changes(self) -> set[str]:
        if self._inotify is None:
            return self._stat_changes()
        events, lost = self._inotify.changes()
        if lost:
            return {_EVERYTHING}
        names: set[str] = set()
        surface = self._surface
        for directory, name, is_dir in events:
            if not name:  # a watched file's inode (its path), or a directory's own mode
                if directory in surface.dirs or directory in surface.names:
                    continue  # a directory: what it holds comes named
                names.add(self._name(directory))
                continue
            path = directory / name
            if directory in surface.dirs:
                if is_dir and os.path.isdir(path):  # a new directory: watch it, read it
                    return {_EVERYTHING}
                names.add(self._name(path))
            elif name in surface.names.get(directory, ()) or any(
                _fits(name, g, partial(bool, is_dir)) for g in surface.patterns.get(directory, ())
            ):
                if is_dir:
                    return {_EVERYTHING}
                names.add(self._name(path))
        return names

    def _name(self, path: Path) -> str:
        if path.is_relative_to(self.project):
            return path.relative_to(self.project).as_posix()
        return path.as_posix()

    def _settle(self, *, absorb: bool) -> None:
        pending, self._pending = self._pending, set()
        if _EVERYTHING in pending:
            self._rescan(absorb=absorb)
            return
        now: dict[str, FileState | None] = {}
        self._watch_again(pending)
        for name in pending:
            path = Path(name) if name.startswith("/") else self.project / name
            if not os.path.lexists(path):
                now[name] = None
            elif name in self._data and not holds_code(path):
                continue  # the hooks' data: its content is not compared, nor read
            else:
                now[name] = state_of(path)[0]
        self._judge(now, absorb=absorb)

    def _judge(self, now: Mapping[str, FileState | None], *, absorb: bool) -> None:
        taken: dict[str, FileState | None] = {}
        changed: list[str] = []
        for name, state in now.items():
            before = self._states.get(name)
            if name in self._data:
                if state is not None and state.code:  # the hooks' data now holds code
                    changed.append(name)
                continue
            if (state is None and before is None) or (
                state is not None and before is not None and state.digest == before.digest
            ):
                continue
            own = absorb and name not in self._surface.hooks
            bytecode = "/__pycache__/" in f"/{name}"
            if own and (state is None or self._own_data(name, state, before) or bytecode):
                if before is not None and before.code and not bytecode:
                    changed.append(name)  # code removed (or replaced by data) is a change
                    continue
                taken[name] = state
                continue
            changed.append(name)
        if taken:
            try:
                mark_data(self.project, taken, self._environ)
            except (OSError, ValueError) as err:  # the next session asks again; this one goes on
                logger.warning("trust: the hooks' own writes were not recorded: %s", err)
            for name, state in taken.items():
                if state is None:
                    self._states.pop(name, None)
                    self._data.discard(name)
                elif state.code:
                    self._states[name] = state
                else:
                    self._states[name] = state
                    self._data.add(name)
        if changed:
            self._revoke(tuple(sorted(changed)))

    def _own_data(self, name: str, state: FileState, before: FileState | None) -> bool:
        """Whether a change a run made may be the hooks' own data: it holds no code, its name
        says data, and it is new since the record or only grew (a log appended to). A file
        the record has that was rewritten (a ``policy.json`` the guard reads) is
        configuration: someone else may have written it while the hook ran."""
        if state.code or not says_data(name):
            return False
        if before is None:
            return True
        path = Path(name) if name.startswith("/") else self.project / name
        return _grew_from(path, before)

    def _rescan(self, *, absorb: bool) -> None:
        try:
            status = trust_status(self.project, self._environ, self._include)
        except (OSError, ValueError) as err:
            self._revoked = f"project {self.project}: its trust cannot be checked again: {err}"
            return
        surface = status.surface
        if surface is None:
            self._revoked = status.why_not()
            return
        names = set(surface.states) | set(self._states)
        self._judge({n: surface.states.get(n) for n in names}, absorb=absorb)
        if self._revoked is None:  # a new directory of the hooks' data is watched from now on
            self._surface = surface
            self._rewatch(surface)

    def _rewatch(self, surface: Surface) -> None:
        if self._inotify is None:
            self._stats = self._snapshot()
            return
        known = set(self._inotify.dirs.values())
        files = set(self._inotify.files.values())
        try:
            for directory in self._directories(surface):
                if directory not in known:
                    self._inotify.watch(directory)
            for path in surface.paths.values():
                if path not in files and os.path.isfile(path):
                    self._inotify.watch_file(path)
        except OSError as err:
            self._check_by_stat(err)

    def _check_by_stat(self, err: OSError) -> None:
        """inotify could not watch what the surface holds: check every file by stat from now."""
        logger.info("trust: %s; checking by stat instead", err)
        if self._inotify is not None:
            self._inotify.close()
        self._inotify = None
        self._stats = self._snapshot()

    def _watch_again(self, names: Iterable[str]) -> None:
        """A file replaced at its path (renamed over, deleted and made again) is a new inode:
        watch it, so a write through a link to it is seen too."""
        if self._inotify is None:
            return
        try:
            for name in names:
                path = Path(name) if name.startswith("/") else self.project / name
                if name in self._surface.paths and os.path.isfile(path):
                    self._inotify.watch_file(path)
        except OSError as err:
            self._check_by_stat(err)

    def _revoke(self, changed: tuple[str, ...]) -> None:
        status = TrustStatus(self.project, False, "none", changed=changed, known=True)
        self._revoked = status.why_not()
        logger.warning("trust: %s", self._revoked)

    # -- without inotify

    @staticmethod
    def _directories(surface: Surface) -> list[Path]:
        return sorted({*surface.dirs, *surface.names, *surface.patterns})

    def _snapshot(self) -> dict[str, tuple[int, int, int, int]]:
        """``{path: (mtime, ctime, size, inode)}`` of every file of the surface (its inode as
        reached through the path: a hard link elsewhere shares it) and every directory."""
        marks: dict[str, tuple[int, int, int, int]] = {}
        for path in [*self._surface.paths.values(), *self._directories(self._surface)]:
            try:
                info = os.lstat(path)
            except OSError:
                continue
            marks[str(path)] = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
        return marks

    def _stat_changes(self) -> set[str]:
        """The files whose ``stat`` changed; a directory that changed (an entry added or
        removed) asks for the whole surface again."""
        now = self._snapshot()
        if now == self._stats:
            return set()
        before, self._stats = self._stats, now
        directories = {str(d) for d in self._directories(self._surface)}
        changed: set[str] = set()
        for key in set(now) | set(before):
            if now.get(key) != before.get(key):
                if key in directories:
                    return {_EVERYTHING}
                changed.add(self._name(Path(key)))
        return changed


def _matching(directory: Path, globs: Iterable[str]) -> frozenset[str]:
    """The entries of ``directory`` whose names match one of ``globs``."""
    patterns = tuple(globs)
    try:
        names = os.listdir(directory)
    except OSError:
        return frozenset()
    return frozenset(
        n
        for n in names
        if any(_fits(n, g, partial(os.path.isdir, directory / n)) for g in patterns)
    )


def _fits(name: str, glob: str, is_dir: Callable[[], bool]) -> bool:
    """Whether ``name`` matches ``glob``; a glob ending in ``/`` matches directories only."""
    if glob.endswith("/"):
        return fnmatchcase(name, glob[:-1]) and is_dir()
    return fnmatchcase(name, glob)
