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
* ``--unshare-ipc``, ``--unshare-uts``, ``--unshare-cgroup-try``.

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

import dataclasses
import functools
import os
import shutil
from collections.abc import Sequence
from typing import Final

__all__ = ["BWRAP", "HIDDEN", "Sandbox", "SandboxUnavailable", "bwrap_path", "sandbox_failure"]

BWRAP: Final = "bwrap"
"""The bubblewrap executable, looked up on ``PATH`` (Debian package ``bubblewrap``)."""
HIDDEN: Final = ("/tmp", "/var/tmp")
"""The directories a contained command sees empty (its own tmpfs each)."""
_SETUP_FAILED: Final = 1
_PREFIX: Final = b"bwrap: "


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
class Sandbox:
    """Where a contained command may write: ``project_dir`` and ``write_paths`` (absolute, or
    relative to ``project_dir``); everything else is read-only. ``read_paths`` (absolute) are
    shown read-only where they lie in a directory of :data:`HIDDEN` and outside what is
    writable: what the command's own programs need from there."""

    project_dir: str
    write_paths: tuple[str, ...] = ()
    read_paths: tuple[str, ...] = ()

    def writable(self) -> tuple[str, ...]:
        """The directories and files bound read-write, absolute, links resolved, in order."""
        seen: dict[str, None] = {}
        for path in (self.project_dir, *self.write_paths):
            full = os.path.join(self.project_dir, os.path.expanduser(path))
            seen[os.path.realpath(full)] = None
        return tuple(seen)

    def readable(self) -> tuple[str, ...]:
        """The paths bound read-only: each of ``read_paths`` that exists, lies in a hidden
        directory and is not inside a writable path, in order."""
        writable = self.writable()
        found: dict[str, None] = {}
        for path in self.read_paths:
            full = os.path.normpath(path)
            if not os.path.isabs(full) or not os.path.exists(full):
                continue
            # the path as written, and where its links lead (a link outside to a hidden place)
            for candidate in dict.fromkeys((full, os.path.realpath(full))):
                if not any(_inside(candidate, hidden) for hidden in HIDDEN):
                    continue
                if any(_inside(candidate, w) for w in writable):
                    continue
                found[candidate] = None
        return tuple(found)

    def argv(self, command: Sequence[str]) -> list[str]:
        """The ``bwrap`` command line that runs ``command`` contained, in the project directory.

        :raises SandboxUnavailable: ``bwrap`` is not installed.
        """
        argv = [
            bwrap_path(),
            "--die-with-parent",
            "--as-pid-1",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
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
        for hidden in HIDDEN:
            argv += ["--tmpfs", hidden]
        for path in self.readable():
            argv += ["--ro-bind", path, path]
        for path in self.writable():
            argv += ["--bind", path, path]
        argv += ["--chdir", os.path.realpath(self.project_dir), "--", *command]
        return argv


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def sandbox_failure(returncode: int, stderr: bytes) -> str | None:
    """``bwrap``'s own message when the sandbox did not start (exit code 1 and a ``bwrap:``
    line); ``None`` when the command ran."""
    if returncode != _SETUP_FAILED or not stderr.startswith(_PREFIX):
        return None
    return stderr.decode("utf-8", "replace").strip().splitlines()[0]
