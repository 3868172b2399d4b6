"""Regular expressions compiled on first use.

The built-in rules hold well over a hundred patterns (and case-insensitive twins of the
assignment patterns); compiling them all with Python's regex compiler takes a good part of a
second, and most are never run in a given process, or only once a trigger of theirs occurs. A
:class:`LazyPattern` holds the source and flags and compiles on the first call of a matching
method (or the first read of :attr:`LazyPattern.groupindex`, :attr:`~LazyPattern.groups` or
:attr:`~LazyPattern.compiled`); from then on its ``search``, ``match``, ``fullmatch``,
``finditer``, ``findall`` and ``sub`` are the compiled pattern's own bound methods, so a
compiled lazy pattern costs what a compiled pattern costs.

What a lazy pattern answers is what ``re.compile(source, flags)`` answers: the same object
type of matches (``match.re`` is the compiled pattern), the same :attr:`LazyPattern.flags`
(the inline flags of the source included, read with the regex parser, without compiling).
Two threads compiling at once each compile, and one result is kept: both are equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Protocol

from .re_internals import PARSER as _parser  # the inline flags without compiling

__all__ = ["LazyPattern", "PatternLike", "lazy_compile"]


_FLAG_LETTERS: Final = frozenset("aiLmsux")


class PatternLike(Protocol):
    """What the engine reads of a pattern: a compiled ``re.Pattern`` or a :class:`LazyPattern`."""

    def __hash__(self) -> int: ...

    @property
    def pattern(self) -> str: ...

    @property
    def flags(self) -> int: ...

    @property
    def groupindex(self) -> Mapping[str, int]: ...

    def search(self, string: str, pos: int = ..., endpos: int = ...) -> re.Match[str] | None: ...

    def match(self, string: str, pos: int = ..., endpos: int = ...) -> re.Match[str] | None: ...

    def fullmatch(self, string: str, pos: int = ..., endpos: int = ...) -> re.Match[str] | None: ...

    def finditer(
        self, string: str, pos: int = ..., endpos: int = ...
    ) -> Iterator[re.Match[str]]: ...


_Find = Callable[..., "re.Match[str] | None"]


class LazyPattern:
    """``re.compile(source, flags)``, done the first time the pattern is used."""

    __slots__ = (
        "_compiled",
        "_flags",
        "_source_flags",
        "findall",
        "finditer",
        "fullmatch",
        "match",
        "pattern",
        "search",
        "sub",
    )

    pattern: str
    search: _Find
    match: _Find
    fullmatch: _Find
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]
    sub: Callable[..., str]

    def __init__(self, source: str, flags: int = 0) -> None:
        self.pattern = source
        self._source_flags = flags
        self._flags: int | None = None
        self._compiled: re.Pattern[str] | None = None
        # Until compiled, each method compiles and then hands over to the compiled one.
        self.search = self._first_search
        self.match = self._first_match
        self.fullmatch = self._first_fullmatch
        self.finditer = self._first_finditer
        self.findall = self._first_findall
        self.sub = self._first_sub

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now, the first time)."""
        compiled = self._compiled
        if compiled is None:
            compiled = re.compile(self.pattern, self._source_flags)
            self.search = compiled.search
            self.match = compiled.match
            self.fullmatch = compiled.fullmatch
            self.finditer = compiled.finditer
            self.findall = compiled.findall
            self.sub = compiled.sub
            self._compiled = compiled
        return compiled

    @property
    def is_compiled(self) -> bool:
        """Whether the pattern was compiled already (it is, once used)."""
        return self._compiled is not None

    @property
    def flags(self) -> int:
        """The compiled pattern's flags (the given ones, the source's inline ones and
        ``re.UNICODE``), read without compiling."""
        flags = self._flags
        if flags is None:
            if self._compiled is not None:
                flags = self._compiled.flags
            else:
                flags = _flags_of(self.pattern, self._source_flags)
            self._flags = flags
        return flags

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    @property
    def groups(self) -> int:
        return self.compiled.groups

    def _first_search(self, *args: Any) -> re.Match[str] | None:
        return self.compiled.search(*args)

    def _first_match(self, *args: Any) -> re.Match[str] | None:
        return self.compiled.match(*args)

    def _first_fullmatch(self, *args: Any) -> re.Match[str] | None:
        return self.compiled.fullmatch(*args)

    def _first_finditer(self, *args: Any) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(*args)

    def _first_findall(self, *args: Any) -> list[Any]:
        return self.compiled.findall(*args)

    def _first_sub(self, *args: Any) -> str:
        return self.compiled.sub(*args)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self._source_flags!r})"


def _flags_of(source: str, flags: int) -> int:
    """What ``re.compile(source, flags).flags`` is: the parser adds the inline flags and
    ``re.UNICODE``; a source that cannot start with inline flags needs no parsing."""
    if _parser is None:
        return re.compile(source, flags).flags
    if flags & re.VERBOSE or (source.startswith("(?") and source[2:3] in _FLAG_LETTERS):
        return int(_parser.parse(source, flags).state.flags)
    if not flags & (re.ASCII | re.LOCALE):
        flags |= re.UNICODE
    return flags


def lazy_compile(source: str, flags: int = 0) -> LazyPattern:
    """A :class:`LazyPattern` of ``source`` (what ``re.compile`` would make, later)."""
    return LazyPattern(source, flags)
