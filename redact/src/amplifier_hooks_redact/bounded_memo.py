"""Bounded pattern sources kept on disk, so that a new process reads them instead.

Bounding the sources of the built-in rules (:func:`.bounded.bounded`: about 130,000
characters, read one by one) takes about 20 ms of CPU at every import of the rules. A
:class:`BoundedMemo` answers what :func:`.bounded.bounded` answers, from what an earlier process
stored (:mod:`.diskcache`, kind ``bounded``, keyed by the SHA-256 of :mod:`.bounded`'s source,
so sources bounded by other code are never reused), and bounds the sources it does not find
there. When it bounded any, :meth:`BoundedMemo.store` writes what this process used for the next
(so sources no longer used drop out of the file).

What is stored decides what the rules match, so it is read under :mod:`.diskcache`'s checks
(the user's own private file, exactly as stored under its key) and used only when it is a JSON
object of strings; anything else is passed over and bounded again.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Final

from .bounded import bounded
from .diskcache import read_cached, write_cached

__all__ = ["BoundedMemo"]

_KIND: Final = "bounded"
_SUFFIX: Final = ".json"


class BoundedMemo:
    """:func:`.bounded.bounded`, remembered across processes (see the module docstring)."""

    __slots__ = ("_missed", "_stored", "_used")

    def __init__(self) -> None:
        self._stored: dict[str, str] | None = None
        self._used: dict[str, str] = {}
        self._missed = False

    def bounded(self, source: str, reach: int, gap: int, *, verbose: bool = False) -> str:
        """``bounded(source, reach, gap, verbose=verbose)``: stored, or worked out now."""
        if self._stored is None:
            self._stored = _load()
        name = f"{reach},{gap},{int(verbose)},{source}"
        found = self._stored.get(name)
        if found is None:
            found = bounded(source, reach, gap, verbose=verbose)
            self._missed = True
        self._used[name] = found
        return found

    def store(self) -> None:
        """Write what was used for the next process when any of it had to be worked out, and
        forget it all (a later :meth:`bounded` reads the file again)."""
        key = _code_key()
        if self._missed and key is not None:
            write_cached(_KIND, key, _SUFFIX, json.dumps(self._used).encode())
        self._stored = None
        self._used = {}
        self._missed = False


@functools.cache
def _code_key() -> str | None:
    """SHA-256 of :mod:`.bounded`'s source, or ``None`` (nothing stored nor read) without it."""
    try:
        return hashlib.sha256(Path(__file__).with_name("bounded.py").read_bytes()).hexdigest()
    except OSError:
        return None


def _load() -> dict[str, str]:
    key = _code_key()
    stored = read_cached(_KIND, key, _SUFFIX) if key is not None else None
    if stored is None:
        return {}
    try:
        decoded = json.loads(stored)
    except ValueError:
        return {}
    if not isinstance(decoded, dict) or not all(
        isinstance(name, str) and isinstance(value, str) for name, value in decoded.items()
    ):
        return {}
    return decoded
