"""Whether one search of a joined text answers for each string joined.

Strings joined with :data:`SEPARATOR` (a line break) can be searched once instead of one by
one, when a pattern cannot miss in the joined text a match it has in one of the strings.
That holds when every assertion the pattern makes behaves at a line break as it does at the
edge of a string:

- word boundaries (``\\b``, ``\\B``): a line break is not a word character, like no character;
- ``^`` and ``$`` only with ``re.MULTILINE`` (they hold at a line break as at the edges);
  ``\\A``, ``\\Z`` and plain ``^`` / ``$`` do not, so a pattern with them is not joinable;
- a negative look-around holds at an edge (there is nothing to see); in the joined text it
  must still hold, so nothing inside it may match a line break (then it cannot read past
  the edge either);
- a positive look-around fails at an edge and may hold in the joined text: a match more,
  never one less.

Every path that matches inside one string then matches at the same place in the joined
text, so a search of the joined text finds a match at that place or before it. A match more
(across a separator) only sends a string to be scanned on its own.
"""

from __future__ import annotations

import re
from typing import Any, Final

from .lazy import PatternLike

__all__ = ["SEPARATOR", "joinable"]

SEPARATOR: Final = "\n"

_parser: Any = __import__("re._parser", fromlist=["parse"])
_sre: Any = __import__("re._constants", fromlist=["AT"])

_SAFE_ANCHORS: Final = frozenset(
    {
        _sre.AT_BOUNDARY,
        _sre.AT_NON_BOUNDARY,
        _sre.AT_UNI_BOUNDARY,
        _sre.AT_UNI_NON_BOUNDARY,
        _sre.AT_LOC_BOUNDARY,
        _sre.AT_LOC_NON_BOUNDARY,
    }
)
_LINE_ANCHORS: Final = frozenset({_sre.AT_BEGINNING, _sre.AT_END})
# Whether each character class holds a line break.
_CATEGORY_HAS_BREAK: Final = {
    _sre.CATEGORY_DIGIT: False,
    _sre.CATEGORY_NOT_DIGIT: True,
    _sre.CATEGORY_SPACE: True,
    _sre.CATEGORY_NOT_SPACE: False,
    _sre.CATEGORY_WORD: False,
    _sre.CATEGORY_NOT_WORD: True,
    _sre.CATEGORY_LINEBREAK: True,
    _sre.CATEGORY_NOT_LINEBREAK: False,
    _sre.CATEGORY_UNI_DIGIT: False,
    _sre.CATEGORY_UNI_NOT_DIGIT: True,
    _sre.CATEGORY_UNI_SPACE: True,
    _sre.CATEGORY_UNI_NOT_SPACE: False,
    _sre.CATEGORY_UNI_WORD: False,
    _sre.CATEGORY_UNI_NOT_WORD: True,
    _sre.CATEGORY_UNI_LINEBREAK: True,
    _sre.CATEGORY_UNI_NOT_LINEBREAK: False,
    _sre.CATEGORY_LOC_WORD: False,
    _sre.CATEGORY_LOC_NOT_WORD: True,
}
_BREAK: Final = ord(SEPARATOR)


def joinable(pattern: PatternLike) -> bool:
    """True when searching strings joined by :data:`SEPARATOR` finds every string in which
    ``pattern`` matches (a match starts in it, or at the separator after it)."""
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
    except Exception:  # a pattern the parser of this Python reads otherwise: search alone
        return False
    flags = parsed.state.flags
    return _safe(list(parsed), flags, negated=False)


def _safe(items: list[Any], flags: int, *, negated: bool) -> bool:
    for op, value in items:
        if op is _sre.AT:
            if value in _SAFE_ANCHORS:
                continue
            if value in _LINE_ANCHORS and flags & re.MULTILINE:
                continue
            return False
        if negated and _reads_break(op, value, flags):
            return False
        if not all(_safe(list(sub), flags, negated=negated) for sub in _children(op, value)):
            return False
        if op is _sre.ASSERT_NOT and not _safe(list(value[1]), flags, negated=True):
            return False
    return True


def _children(op: Any, value: Any) -> list[Any]:
    """The sub-sequences of one parsed item (a negative look-around's body aside)."""
    if op is _sre.SUBPATTERN:
        return [value[3]]
    if op is _sre.BRANCH:
        return list(value[1])
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT):
        return [value[2]]
    if op is _sre.ASSERT or op is _sre.ATOMIC_GROUP:
        return [value[1]] if op is _sre.ASSERT else [value]
    if op is _sre.GROUPREF_EXISTS:
        return [branch for branch in value[1:] if branch is not None]
    return []


def _reads_break(op: Any, value: Any, flags: int) -> bool:
    """Whether this one item (not its children) could match a line break."""
    if op is _sre.LITERAL:
        return bool(value == _BREAK)
    if op is _sre.NOT_LITERAL:
        return bool(value != _BREAK)
    if op is _sre.ANY:
        return bool(flags & re.DOTALL)
    if op is _sre.CATEGORY:
        return _CATEGORY_HAS_BREAK.get(value, True)
    if op is _sre.IN:
        return _set_has_break(value)
    return op is _sre.GROUPREF  # a back-reference may repeat one: assume it does


def _set_has_break(items: list[Any]) -> bool:
    negate = False
    member = False
    for op, value in items:
        if op is _sre.NEGATE:
            negate = True
        elif op is _sre.LITERAL:
            member = member or value == _BREAK
        elif op is _sre.RANGE:
            member = member or value[0] <= _BREAK <= value[1]
        elif op is _sre.CATEGORY:
            member = member or _CATEGORY_HAS_BREAK.get(value, True)
        else:  # CHARSET, BIGCHARSET (compiled forms): unknown here, assume it holds one
            return True
    return member != negate
