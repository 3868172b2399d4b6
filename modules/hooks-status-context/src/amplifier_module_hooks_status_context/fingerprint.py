"""Cheap change detection: a tuple of ``stat`` results of the files a snapshot depends on.

A snapshot lists what it watches (see :func:`snapshot.take_git_facts`): the working directory
and the repository root (their modification time changes when an entry is added, removed or
renamed in them), ``.git/HEAD`` (checkout, detach, a commit on a detached HEAD),
``.git/index`` (add, commit, reset, stash, merge, a rebase step), the current branch's ref
file (commit, amend, reset, pull) and its upstream's (fetch: the ahead/behind counts). The
fingerprint is their ``(mtime_ns, size, inode)``, or ``None`` for a missing file: git replaces
these files by renaming a new one into place, so even a same-size rewrite in the same
nanosecond changes the inode. Four to six ``stat`` calls, a few microseconds.

What it cannot see: a file edited in place below the top of the working directory (no
directory changes, and the index only changes when git runs), and refs that only change
inside ``packed-refs`` or are created without a checkout (a new ``main`` branch,
``origin/HEAD``). The hook covers those by taking the snapshot again after tools that write
(``refresh_after_tools``) and after ``refresh_interval`` seconds.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["Fingerprint", "fingerprint", "is_dir"]

Fingerprint = tuple[tuple[int, int, int] | None, ...]

_stat = os.stat


def fingerprint(paths: Sequence[str]) -> Fingerprint:
    """``(mtime_ns, size, inode)`` of each path, ``None`` where it cannot be read."""
    marks: list[tuple[int, int, int] | None] = []
    for path in paths:
        try:
            st = _stat(path)
        except OSError:
            marks.append(None)
        else:
            marks.append((st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(marks)


def is_dir(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a directory (one ``stat``; fine to call from the event loop)."""
    return os.path.isdir(path)
