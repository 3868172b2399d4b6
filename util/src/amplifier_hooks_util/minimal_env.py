"""The minimal environment: the few variables of the session a hook gets under
``environment: minimal`` and in a sandbox, each only with a value of its own shape.

A variable passes on its name *and* its value. The names are fixed (no patterns): ``PATH``,
``HOME``, ``USER``, ``LOGNAME``, ``SHELL``, ``TMPDIR``, ``TERM``, ``TZ``, ``LANG``,
``LANGUAGE`` and the locale categories glibc knows (``LC_ALL``, ``LC_CTYPE``, ``LC_COLLATE``,
``LC_MESSAGES``, ``LC_NUMERIC``, ``LC_MONETARY``, ``LC_TIME``, ``LC_ADDRESS``,
``LC_IDENTIFICATION``, ``LC_MEASUREMENT``, ``LC_NAME``, ``LC_PAPER``, ``LC_TELEPHONE``).
``ssh`` forwards ``LC_*`` (``SendEnv LC_*``), so people carry tokens in made-up ``LC_``
names: ``LC_DEPLOY_TOKEN`` is no category and never passes, and ``LC_ALL=<a key>`` does not
pass either, since a locale is ``language[_territory][.codeset][@modifier]`` (or ``C``,
``POSIX``). The other values: paths for ``PATH``, ``HOME``, ``SHELL``, ``TMPDIR``; a login
name for ``USER`` and ``LOGNAME`` and a terminal name for ``TERM`` (at most 32 characters); a
zone name or POSIX TZ rule for ``TZ`` (at most 34); each path at most 256 characters (``PATH``
64 of them). A token of 36 characters or more fits none of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = ["MINIMAL_NAMES", "fits", "minimal_environment"]

_LOCALE: Final = (
    r"(?:C|POSIX|[A-Za-z]{2,3}(?:_[A-Za-z0-9]{2,3})?)"
    r"(?:\.[A-Za-z0-9_-]{1,20})?(?:@[A-Za-z0-9_-]{1,20})?"
)
_PATH_ENTRY: Final = r"/[^:\n\x00]{0,255}"
_SHAPES: Final[dict[str, re.Pattern[str]]] = {
    "PATH": re.compile(rf"(?:{_PATH_ENTRY})(?::{_PATH_ENTRY}){{0,63}}"),
    "HOME": re.compile(_PATH_ENTRY),
    "SHELL": re.compile(_PATH_ENTRY),
    "TMPDIR": re.compile(_PATH_ENTRY),
    "USER": re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@-]{0,31}\$?"),
    "LOGNAME": re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@-]{0,31}\$?"),
    "TERM": re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,31}"),
    "TZ": re.compile(r":?[A-Za-z0-9/_+:.,<>-]{1,33}"),
    "LANG": re.compile(_LOCALE),
    "LANGUAGE": re.compile(rf"{_LOCALE}(?::{_LOCALE}){{0,15}}"),
}
for _category in (
    "ALL",
    "CTYPE",
    "COLLATE",
    "MESSAGES",
    "NUMERIC",
    "MONETARY",
    "TIME",
    "ADDRESS",
    "IDENTIFICATION",
    "MEASUREMENT",
    "NAME",
    "PAPER",
    "TELEPHONE",
):
    _SHAPES[f"LC_{_category}"] = _SHAPES["LANG"]

MINIMAL_NAMES: Final = tuple(_SHAPES)
"""The variables the minimal environment may hold (exact names)."""


def fits(name: str, value: str) -> bool:
    """Whether ``name`` is of the minimal environment and ``value`` has its shape."""
    shape = _SHAPES.get(name)
    return shape is not None and shape.fullmatch(value) is not None


def minimal_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``environ`` the minimal environment keeps (see the module docstring)."""
    return {name: value for name, value in environ.items() if fits(name, value)}
