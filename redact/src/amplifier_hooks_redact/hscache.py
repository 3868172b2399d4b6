"""Compiled Hyperscan databases kept on disk, so a new process loads them instead of compiling.

Compiling the trigger databases of the built-in rules takes a few hundred milliseconds; loading
a serialized one takes microseconds. :func:`cached_database` looks a database up by a key
(SHA-256 of the exact expressions, flags, ids and mode, the Hyperscan package version and the
platform), and compiles and stores it when it is not there.

Where: ``$AMPLIFIER_HOOKS_CACHE_DIR`` when set (an empty value turns the disk cache off), else
``$XDG_CACHE_HOME/amplifier-hooks`` or ``~/.cache/amplifier-hooks``; the databases are in its
``hyperscan`` folder, made with mode 0700, each file written to a temporary file with mode
0600 and renamed into place (readers never see half a file).

A database decides what gets redacted, so a file is used only when all of this holds, and
otherwise the database is compiled and the file written anew:

* the folder and the file belong to the user running the process and no one else may write
  them (a folder or file another user can write is not used, and not written to);
* the file is a regular file (not a link), starting with this format's header, the key it
  was stored under (the same key as asked for: a file renamed or copied to another key's
  name is refused) and the SHA-256 of the serialized database that follows (a truncated or
  altered file is refused);
* Hyperscan accepts it (its own checks: version, platform, mode, checksum).

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

__all__ = ["CACHE_ENV", "cache_dir", "cache_key", "cached_database"]

CACHE_ENV: Final = "AMPLIFIER_HOOKS_CACHE_DIR"
"""The folder to keep the cache in instead of the user's cache folder; empty: no disk cache."""

_FORMAT: Final = b"amplifier-hooks hyperscan 1\n"
_DIGEST_SIZE: Final = 64  # hex characters of a SHA-256
_HEADER_SIZE: Final = len(_FORMAT) + 2 * (_DIGEST_SIZE + 1)

_hyperscan: Any
try:
    _hyperscan = importlib.import_module("hyperscan")
except ImportError:  # pragma: no cover - nothing to cache
    _hyperscan = None


def cache_dir() -> Path | None:
    """The folder the databases are kept in, or ``None`` when the disk cache is off."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return Path(chosen) / "hyperscan" if chosen else None
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base) / "amplifier-hooks" / "hyperscan"
    try:
        home = Path.home()
    except RuntimeError:  # no home directory: no disk cache
        return None
    return home / ".cache" / "amplifier-hooks" / "hyperscan"


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
    folder = cache_dir()
    if folder is None or _hyperscan is None:
        return compile_database()
    key = cache_key(expressions, flags, ids, mode)
    path = folder / f"{key}.hsdb"
    if _usable_folder(folder, create=False):
        loaded = _load(path, key, mode)
        if loaded is not None:
            return loaded
    database = compile_database()
    if _usable_folder(folder, create=True):
        with contextlib.suppress(OSError, _hyperscan.error):
            _store(path, key, _hyperscan.dumpb(database))
    return database


def _private(info: os.stat_result) -> bool:
    """Owned by this user, and no one else may write it."""
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _usable_folder(folder: Path, *, create: bool) -> bool:
    """Whether ``folder`` is a private folder of this user (made, mode 0700, if ``create``)."""
    try:
        if create:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _private(info)


def _load(path: Path, key: str, mode: int) -> Any:
    """The database stored in ``path`` under ``key``, or ``None`` if it is missing or is not
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
    try:
        return _hyperscan.loadb(payload, mode)
    except _hyperscan.error:
        return None


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
