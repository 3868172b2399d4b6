"""What an engine compiles, kept on disk, so that a new process loads it instead.

Compiling the trigger databases of the built-in rules takes a few hundred milliseconds, and
reading the literal triggers off their patterns with the regex parser a couple of hundred more;
loading what a previous process stored takes microseconds. Three kinds are kept:

* ``hyperscan``: :func:`cached_database` looks a database up by a key (SHA-256 of the exact
  expressions, flags, ids and mode, the Hyperscan package version and the platform), and
  compiles and stores it when it is not there;
* ``triggers``: the literal triggers of a list of patterns (:mod:`.triggers` keys them by the
  patterns, its own code and the Python version), through :func:`read_cached` and
  :func:`write_cached`;
* ``bounded``: the built-in rules' pattern sources with every repeat bounded
  (:mod:`.bounded_memo`, keyed by the code that bounds them), the same way.

Where: ``$AMPLIFIER_HOOKS_CACHE_DIR`` when set (an empty value turns the disk cache off), else
``$XDG_CACHE_HOME/amplifier-hooks`` or ``~/.cache/amplifier-hooks``; each kind in a folder of
its name, made with mode 0700, each file written to a temporary file with mode 0600 and
renamed into place (readers never see half a file).

What is stored decides what gets redacted, so a file is used only when all of this holds, and
otherwise it is worked out again and the file written anew:

* the folder and the file belong to the user running the process and no one else may write
  them (a folder or file another user can write is not used, and not written to);
* the file is a regular file (not a link), starting with this format's header, the key it
  was stored under (the same key as asked for: a file renamed or copied to another key's
  name is refused) and the SHA-256 of the payload that follows (a truncated or altered file
  is refused);
* the payload reads back (Hyperscan accepts a database: its own checks of version, platform,
  mode and checksum; triggers are a list of the expected length and shape).

The folder is the user's own, as trusted as the user's config: whoever can write it can
already change what the user's configuration redacts, so the checks guard against accidents
(a disk error, an interrupted write, another version, a shared cache folder), not against
the user.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import platform
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = [
    "CACHE_ENV",
    "cache_dir",
    "cache_key",
    "cached_database",
    "read_cached",
    "write_cached",
]

CACHE_ENV: Final = "AMPLIFIER_HOOKS_CACHE_DIR"
"""The folder to keep the cache in instead of the user's cache folder; empty: no disk cache."""

_FORMAT: Final = b"amplifier-hooks cache 1\n"
_DIGEST_SIZE: Final = 64  # hex characters of a SHA-256
_HEADER_SIZE: Final = len(_FORMAT) + 2 * (_DIGEST_SIZE + 1)

_hyperscan: Any
try:
    _hyperscan = importlib.import_module("hyperscan")
except ImportError:  # pragma: no cover - nothing to cache
    _hyperscan = None


def cache_dir(kind: str = "hyperscan") -> Path | None:
    """The folder the files of ``kind`` are kept in, or ``None`` when the disk cache is off."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return Path(chosen) / kind if chosen else None
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base) / "amplifier-hooks" / kind
    try:
        home = Path.home()
    except RuntimeError:  # no home directory: no disk cache
        return None
    return home / ".cache" / "amplifier-hooks" / kind


def cache_key(
    expressions: Sequence[bytes], flags: Sequence[int], ids: Sequence[int], mode: int
) -> str:
    """The key of a database: what was compiled, how, and by which Hyperscan on which
    platform (hex SHA-256)."""
    described = {
        "format": _FORMAT.decode().strip(),
        "expressions": [expression.hex() for expression in expressions],
        "flags": list(flags),
        "ids": list(ids),
        "mode": mode,
        "hyperscan": getattr(_hyperscan, "__version__", None),
        "platform": [sys.platform, platform.machine(), sys.byteorder],
    }
    encoded = json.dumps(described, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()


def cached_database(
    expressions: Sequence[bytes],
    flags: Sequence[int],
    ids: Sequence[int],
    mode: int,
    compile_database: Callable[[], Any],
) -> Any:
    """The database of ``expressions``: loaded from the disk cache when a valid file for its
    key is there, else ``compile_database()``, stored for the next process (a cache that
    cannot be read or written is passed over: the database is compiled)."""
    if _hyperscan is None:
        return compile_database()
    key = cache_key(expressions, flags, ids, mode)
    stored = read_cached("hyperscan", key, ".hsdb")
    if stored is not None:
        with contextlib.suppress(_hyperscan.error):
            return _hyperscan.loadb(stored, mode)
    database = compile_database()
    with contextlib.suppress(_hyperscan.error):
        write_cached("hyperscan", key, ".hsdb", _hyperscan.dumpb(database))
    return database


def read_cached(kind: str, key: str, suffix: str) -> bytes | None:
    """What :func:`write_cached` stored under ``key``, or ``None`` when the disk cache is off,
    or the file is missing, not private to this user, or not exactly what was stored there
    under that key."""
    folder = cache_dir(kind)
    if folder is None or not _usable_folder(folder, create=False):
        return None
    return _load(folder / f"{key}{suffix}", key)


def write_cached(kind: str, key: str, suffix: str, payload: bytes) -> None:
    """Store ``payload`` under ``key`` for the next process (nothing when the disk cache is off
    or its folder is not private to this user; a failed write is passed over)."""
    folder = cache_dir(kind)
    if folder is None or not _usable_folder(folder, create=True):
        return
    with contextlib.suppress(OSError):
        _store(folder / f"{key}{suffix}", key, payload)


def _private(info: os.stat_result) -> bool:
    """Owned by this user, and no one else may write it (where owners cannot be told, as on
    Windows, nothing is: the disk cache is off)."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        return False
    return info.st_uid == geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _usable_folder(folder: Path, *, create: bool) -> bool:
    """Whether ``folder`` is a private folder of this user (made, mode 0700, if ``create``)."""
    try:
        if create:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _private(info)


def _load(path: Path, key: str) -> bytes | None:
    """The payload stored in ``path`` under ``key``, or ``None`` if it is missing or is not
    exactly what was stored there under that key."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(descriptor, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode) or not _private(info):
                return None
            content = file.read()
    except OSError:
        return None
    header, payload = content[:_HEADER_SIZE], content[_HEADER_SIZE:]
    if header != _header(key, payload):
        return None
    return payload


def _header(key: str, payload: bytes) -> bytes:
    digest = hashlib.sha256(payload).hexdigest()
    return _FORMAT + key.encode() + b"\n" + digest.encode() + b"\n"


def _store(path: Path, key: str, payload: bytes) -> None:
    """Write ``payload`` under ``key`` to ``path``: a temporary file (mode 0600) renamed into
    place, so a reader sees the old file, no file, or the whole new one."""
    descriptor, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(_header(key, payload))
            file.write(payload)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
