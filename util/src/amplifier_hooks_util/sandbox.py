"""Run a command contained by bubblewrap (``bwrap``): no network, a read-only system, its own
``/tmp`` and its own PID namespace.

:class:`Sandbox` turns a command into the ``bwrap`` command line that runs it contained:

* ``--unshare-net``: a network namespace of its own, with only a loopback interface (no route
  out, and none to the session's loopback services);
* ``--unshare-pid`` with a fresh ``/proc``: the command sees its own processes only, so not the
  session's ``/proc/<pid>/environ`` or memory, even as root. The command is the namespace's
  init (``--as-pid-1``), so ``bwrap`` exits only once it has and the whole namespace is gone
  with it (no reaper process outlives it); ``--die-with-parent`` takes it down with ``bwrap``;
* ``--ro-bind / /``: the whole filesystem read-only, then the project directory and each
  declared write path bound read-write; a private ``/tmp`` and ``/var/tmp`` (empty tmpfs), a
  minimal ``/dev``;
* what the command's own programs need from those hidden directories, bound read-only at the
  same place (:attr:`Sandbox.read_paths`, from :func:`~amplifier_hooks_util.program_files.
  program_files`): an interpreter in a virtual environment under ``/tmp``, the script it runs,
  so a hook whose interpreter lives there runs contained as it runs plain;
* ``--unshare-ipc``, ``--unshare-uts``, ``--unshare-cgroup-try``;
* ``/proc/sys``, ``/proc/sysrq-trigger``, ``/proc/irq``, ``/proc/bus`` read-only: root owns
  them, and writing them needs no capability (``kernel.core_pattern`` names a program the
  kernel runs, uncontained, on the next crash);
* ``--cap-drop ALL``: a session running as root would otherwise give its contained command
  every capability (``bwrap`` keeps them for root), and with them it could remount ``/``
  read-write, unmount a guarded entry, or make a device node of the disk; with none (and
  ``no_new_privs``, which ``bwrap`` sets), a root command is held as any user's. The price:
  as root it can no longer write a project owned by another user (no ``CAP_DAC_OVERRIDE``);
* the system-call filter of :mod:`.seccomp` (``--seccomp``): no socket but the network
  namespace's, so no ``connect()`` to a unix socket file anywhere (``docker.sock``), and no
  io_uring;
* the project's files that make programs run read-only, though the project is writable
  (:data:`GUARDED`: ``.git``, the hook directories, the env files, ...), unless the user
  declares one (or a path inside one) among the write paths, and where a ``.git`` file leads
  (``gitdir:``, its ``commondir``); a guarded entry the project does not have is watched
  instead: one the command made is set aside once it has ended (renamed beside itself,
  :meth:`Contained.set_aside`), so no repository, hook directory or env file it creates is
  read by a later program (nothing is made on the host to hold its place: a mount point would
  be an entry in the project, seen by every program there while the command runs); a guarded
  entry that is a link (which a command could replace) and a write path that leads through a
  link in the project refuse to start.

* ``/dev/tty`` is ``/dev/null``: with no terminal among its inherited descriptors (a hook's are
  pipes), the command cannot reach the user's terminal (no ``TIOCSTI`` typing into it).

No new session (``setsid``, ``bwrap --new-session``): where the scheduler gives each session
its own group (Linux autogroup) it costs about 9 ms per run on a busy machine, and without it
every process ``bwrap`` starts stays in the leader's process group, which the timeout stops
and whose leftovers the session reaps.

What it does not do: hide files the user can read (they are read-only, not absent: keep secrets
out of reach by file permissions), limit CPU or memory, or filter system calls.

The environment is the caller's to reduce (``bwrap`` passes the one it gets). A sandbox that
cannot start (``bwrap`` missing, namespaces refused by the kernel, a write path that does not
exist) makes ``bwrap`` exit with code 1 and a ``bwrap: ...`` message; :func:`sandbox_failure`
recognises that so the caller can fail closed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from typing import Final, NamedTuple

from .program_files import argv_files
from .seccomp import socket_filter

__all__ = [
    "BWRAP",
    "GUARDED",
    "HIDDEN",
    "Contained",
    "Sandbox",
    "SandboxUnavailable",
    "bwrap_path",
    "sandbox_failure",
]

BWRAP: Final = "bwrap"
"""The bubblewrap executable, looked up on ``PATH`` (Debian package ``bubblewrap``)."""
HIDDEN: Final = ("/tmp", "/var/tmp")
"""The directories a contained command sees empty (its own tmpfs each)."""
GUARDED: Final = (
    ".git",
    ".githooks",
    ".husky",
    ".pre-commit-config.yaml",
    ".amplifier",
    ".claude",
    ".gemini",
    ".cursor",
    ".windsurf",
    ".clinerules",
    ".vscode",
    ".envrc",
    ".env",
    ".venv",
)
"""The project's entries read-only inside the sandbox, though the project is writable: what
makes a program run when the user (or the model's auto-approved ``git status``) next works in
the project: git's configuration and hooks, the hooks of the agent tools and their settings,
an editor's tasks, direnv's and dotenv's files, the virtual environment's start-up files."""
_KERNEL_SETTINGS: Final = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")
"""What of a fresh ``/proc`` sets the kernel rather than the command's own processes, shown
read-only: a command running as root writes ``/proc/sys`` (``kernel.core_pattern``, a program
the kernel then runs uncontained on the next crash) by ownership alone, with no capability."""
_SETUP_FAILED: Final = 1
_PREFIX: Final = b"bwrap: "


class _Layout(NamedTuple):
    project: str
    """The project directory, links resolved."""
    declared: tuple[str, ...]
    """The write paths, absolute, links resolved."""
    writable: tuple[str, ...]
    """What is bound read-write, in order: the write paths, then the project."""


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be used here (the message says why and how to fix it)."""


@functools.cache
def bwrap_path() -> str:
    """The absolute path of ``bwrap``.

    :raises SandboxUnavailable: it is not installed.
    """
    found = shutil.which(BWRAP)
    if found is None:
        raise SandboxUnavailable(
            f"{BWRAP} (bubblewrap) is not installed or not on PATH; install it "
            "(Debian/Ubuntu: apt-get install bubblewrap) or turn the sandbox off"
        )
    return os.path.realpath(found)


@dataclasses.dataclass(frozen=True, slots=True)
class Contained:
    """A command ready to run contained: ``argv``, the file descriptors it must get and the
    environment ``bwrap`` itself starts with (``run_process(argv, env=env,
    pass_fds=pass_fds)``). That environment is empty: the command's own reaches it through
    ``bwrap --clearenv --setenv`` read from a descriptor, so no variable of the command
    (``LD_PRELOAD``, ``LD_AUDIT``, ``LD_LIBRARY_PATH``, ``LD_DEBUG_OUTPUT``, ``GLIBC_TUNABLES``,
    or any a loader learns later) acts on ``bwrap``, which runs outside the sandbox it makes,
    and none is shown in its command line."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    missing: tuple[str, ...] = ()
    """The guarded entries the project did not have when the command was made ready."""

    def set_aside(self) -> list[tuple[str, str]]:
        """Each of :attr:`missing` that exists now, renamed beside itself to
        ``NAME.set-aside-XXXXXXXX`` so that nothing reads it as the project's (git, direnv,
        the agent tools), as (path, new path) pairs; the new path is empty where it could not
        be renamed (the caller must then fail closed). A project the command made read-only to
        keep its entry in place is given back its owner's write permission first. For once the
        command has ended: its whole PID namespace has then, so nothing contained writes
        there any more."""
        moved: list[tuple[str, str]] = []
        for path in self.missing:
            # no look first: a project the command made unsearchable hides what it holds
            aside = f"{path}.set-aside-{secrets.token_hex(4)}"
            try:
                _rename_in_place(path, aside)
            except FileNotFoundError:
                continue  # not made
            except OSError:
                aside = ""
            moved.append((path, aside))
        return moved


@dataclasses.dataclass(frozen=True, slots=True)
class Sandbox:
    """Where a contained command may write: ``project_dir`` and ``write_paths`` (absolute, or
    relative to ``project_dir``); everything else is read-only, and so are the project's
    ``guarded`` entries (relative to ``project_dir``) unless a write path is one of them or lies
    inside one. ``read_paths`` (absolute) are shown read-only where they lie in a directory of
    :data:`HIDDEN` and outside what is writable: what the command's own programs need from
    there (regular files and directories only: never a socket, a FIFO or a device)."""

    project_dir: str
    write_paths: tuple[str, ...] = ()
    read_paths: tuple[str, ...] = ()
    guarded: tuple[str, ...] = GUARDED

    def _declared(self) -> tuple[str, ...]:
        """The write paths, absolute, links resolved.

        :raises SandboxUnavailable: a write path inside the project leads through a link in
            the project (``build -> ~/``, ``out -> .git``): the project cannot say where its
            declared paths lead, so the command does not run.
        """
        project = os.path.realpath(self.project_dir)
        named = os.path.normpath(os.path.abspath(self.project_dir))
        seen: dict[str, None] = {}
        for path in self.write_paths:
            full = os.path.normpath(os.path.join(named, os.path.expanduser(path)))
            for base in dict.fromkeys((named, project)):
                if _inside(full, base):
                    # the part inside the project must name itself: no link there
                    expected = os.path.join(project, os.path.relpath(full, base))
                    expected = os.path.normpath(expected)
                    if os.path.realpath(expected) != expected:
                        raise SandboxUnavailable(
                            f"the sandbox write path {path!r} leads through a link in the "
                            f"project ({expected} -> {os.path.realpath(expected)}); a "
                            "project cannot redirect where a contained command may write"
                        )
                    break
            seen[os.path.realpath(full)] = None
        return tuple(seen)

    def writable(self) -> tuple[str, ...]:
        """The directories and files bound read-write, absolute, links resolved, in the order
        they are bound: the write paths, then the project (bound last, so it is a mount point
        of its own, which the command cannot rename or remove)."""
        return self._layout().writable

    def _layout(self) -> _Layout:
        """The project and the write paths, resolved once for one command line."""
        project = os.path.realpath(self.project_dir)
        declared = self._declared()
        writable = (*(p for p in declared if p != project), project)
        return _Layout(project, declared, writable)

    def _guarded_paths(self, layout: _Layout | None = None) -> tuple[list[str], list[str]]:
        """(existing guarded paths to bind read-only, missing ones to watch)."""
        project, declared, writable = layout or self._layout()
        bound: dict[str, None] = {}
        missing: list[str] = []
        for name in self.guarded:
            literal = os.path.join(project, name)
            if any(_inside(literal, d) for d in declared if d != project):
                continue  # the user declared it (or what holds it) writable
            if not os.path.lexists(literal):
                missing.append(literal)
                continue
            if os.path.islink(literal):
                # a link in the writable project: its target can be bound read-only, the link
                # itself cannot, and a command could put its own entry in its place
                raise SandboxUnavailable(
                    f"the project's {name} is a link ({literal} -> {os.readlink(literal)}); a "
                    "contained command could replace it with its own; make it a real "
                    f"{name}, or run this hook uncontained"
                )
            # the project is resolved and the entry is no link: it names itself
            for full in (literal, *_git_directories(literal)):
                if not any(_inside(full, w) for w in writable):
                    continue  # read-only already
                if any(_inside(full, d) for d in declared if d != project):
                    continue  # the user declared it (or what holds it) writable
                bound[full] = None
        return list(bound), missing

    def readable(
        self,
        command: Sequence[str] = (),
        search_path: str | None = None,
        layout: _Layout | None = None,
    ) -> tuple[str, ...]:
        """The paths bound read-only: each of ``read_paths``, then what ``command``'s own
        program needs to start (:func:`~amplifier_hooks_util.program_files.argv_files`, found
        on ``search_path``: its interpreter, virtual environment, script, the installation it
        belongs to), that exists as a regular file or a directory, lies in a hidden directory
        and is not inside a writable path, in order."""
        project, _declared, writable = layout or self._layout()
        found: dict[str, None] = {}
        needed = argv_files(command, project, search_path)
        for path in (*self.read_paths, *needed):
            full = os.path.normpath(path)
            if not os.path.isabs(full) or not _file_or_directory(full):
                continue
            # the path as written, and where its links lead (a link outside to a hidden place)
            for candidate in dict.fromkeys((full, os.path.realpath(full))):
                if not any(_inside(candidate, hidden) for hidden in HIDDEN):
                    continue
                if any(_inside(candidate, w) for w in writable):
                    continue
                found[candidate] = None
        return tuple(found)

    def argv(
        self,
        command: Sequence[str],
        filter_fd: int,
        args_fd: int | None = None,
        search_path: str | None = None,
    ) -> list[str]:
        """The ``bwrap`` command line that runs ``command`` contained, in the project
        directory, with the system-call filter read from ``filter_fd`` and more options (the
        command's environment) from ``args_fd`` (:meth:`contained` makes both);
        ``search_path`` is the ``PATH`` the command is given (``None``: this process's), where
        its program is looked up.

        :raises SandboxUnavailable: ``bwrap`` is not installed.
        """
        layout = self._layout()
        guarded = self._guarded_paths(layout)[0]
        return self._argv(command, filter_fd, args_fd, search_path, layout, guarded)

    def _argv(
        self,
        command: Sequence[str],
        filter_fd: int,
        args_fd: int | None,
        search_path: str | None,
        layout: _Layout,
        guarded: list[str],
    ) -> list[str]:
        argv = [
            bwrap_path(),
            "--die-with-parent",
            "--cap-drop",
            "ALL",
            "--as-pid-1",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--seccomp",
            str(filter_fd),
            *(("--args", str(args_fd)) if args_fd is not None else ()),
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--ro-bind",
            "/dev/null",
            "/dev/tty",
            "--proc",
            "/proc",
        ]
        for kernel in _KERNEL_SETTINGS:  # root owns them: no capability needed to write them
            argv += ["--ro-bind-try", kernel, kernel]
        for hidden in HIDDEN:
            argv += ["--tmpfs", hidden]
        for path in self.readable(command, search_path, layout):
            argv += ["--ro-bind", path, path]
        writable = layout.writable
        for path in writable:
            argv += ["--bind", path, path]
        for path in guarded:
            argv += ["--ro-bind", path, path]
        # a path the user declared inside a guarded one is writable again
        for path in writable[:-1]:
            if any(_inside(path, g) and path != g for g in guarded):
                argv += ["--bind", path, path]
        argv += ["--chdir", layout.project, "--", *command]
        return argv

    @contextlib.contextmanager
    def contained(
        self, command: Sequence[str], env: Mapping[str, str] | None = None
    ) -> Iterator[Contained]:
        """``command`` ready to run contained, with exactly the environment ``env`` (none when
        not given), while the block runs: the filter in a pipe whose read end the command gets,
        the environment as ``--clearenv --setenv NAME VALUE ...`` in a memory file ``bwrap``
        reads (:class:`Contained`: ``bwrap`` itself starts with an empty environment). When the
        block ends, a guarded entry that was missing and now exists is set aside
        (:meth:`Contained.set_aside`, unless the caller has called it already).

        :raises SandboxUnavailable: ``bwrap`` is not installed, or the filter is not known for
            this machine.
        """
        program = socket_filter()
        if program is None:
            raise SandboxUnavailable(
                "the sandbox's system-call filter is not known for this machine "
                f"({os.uname().machine}); contained hooks cannot run here"
            )
        bwrap_path()
        layout = self._layout()
        guarded, missing = self._guarded_paths(layout)
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        args_fd = -1
        contained: Contained | None = None
        try:
            os.write(write_end, program)  # far below a pipe's buffer: never blocks
            os.close(write_end)
            write_end = -1
            args_fd = _args_file(_environment_args(env or {}))
            search_path = (env or {}).get("PATH")
            argv = self._argv(command, read_end, args_fd, search_path, layout, guarded)
            contained = Contained(argv, (read_end, args_fd), {}, tuple(missing))
            yield contained
        finally:
            if write_end >= 0:
                os.close(write_end)
            if args_fd >= 0:
                os.close(args_fd)
            os.close(read_end)
            if contained is not None:
                contained.set_aside()


def _rename_in_place(path: str, new: str) -> None:
    """``os.rename(path, new)`` within one directory; where the directory's owner (this
    process's user) has lost the write or search permission to it, it is given back first."""
    try:
        os.rename(path, new)
        return
    except PermissionError:
        directory = os.path.dirname(path)
        mode = os.stat(directory).st_mode
        os.chmod(directory, stat.S_IMODE(mode) | stat.S_IWUSR | stat.S_IXUSR)
    os.rename(path, new)


def _environment_args(env: Mapping[str, str]) -> bytes:
    """``--clearenv`` and a ``--setenv NAME VALUE`` per variable, NUL-separated (``--args``).

    :raises ValueError: a name or value holds a NUL byte, or a name is empty or holds ``=``.
    """
    words = ["--clearenv"]
    for name, value in env.items():
        if not name or "=" in name or "\0" in name or "\0" in value:
            raise ValueError(f"environment variable {name!r} cannot be passed to the sandbox")
        words += ["--setenv", name, value]
    return b"".join(os.fsencode(word) + b"\0" for word in words)


def _args_file(data: bytes) -> int:
    """A descriptor (close-on-exec; ``pass_fds`` keeps it open in ``bwrap``) of a memory
    file holding ``data``, read from its start: any size, never blocking as a pipe would."""
    fd = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


_GITDIR: Final = "gitdir:"


def _git_directories(path: str) -> tuple[str, ...]:
    """Where a ``.git`` file (``gitdir: DIR``, as ``git init --separate-git-dir`` and
    worktrees write) leads, and that directory's ``commondir``: the repository's configuration
    and hooks live there, links resolved; nothing for a directory or anything else."""
    if not os.path.isfile(path) or os.path.islink(path):
        return ()
    found: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            first = file.read(4096).splitlines()[:1]
        if not first or not first[0].startswith(_GITDIR):
            return ()
        gitdir = os.path.join(os.path.dirname(path), first[0][len(_GITDIR) :].strip())
        found.append(os.path.realpath(gitdir))
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as file:
            common = file.read(4096).strip()
        if common:
            found.append(os.path.realpath(os.path.join(gitdir, common)))
    except OSError:
        pass
    return tuple(found)


def _file_or_directory(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def sandbox_failure(returncode: int, stderr: bytes) -> str | None:
    """``bwrap``'s own message when the sandbox did not start (exit code 1 and a ``bwrap:``
    line); ``None`` when the command ran."""
    if returncode != _SETUP_FAILED or not stderr.startswith(_PREFIX):
        return None
    return stderr.decode("utf-8", "replace").strip().splitlines()[0]
