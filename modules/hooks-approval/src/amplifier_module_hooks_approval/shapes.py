"""Deny and ask rules matched against what a command executes, not against its text.

A ``command`` glob of a deny or ask rule that starts with a plain program word
(``rm -rf *``, ``git push --force``) is read like a command (:func:`shape_of`): its program,
the options it names (canonical, as the program reads them: ``-rf`` is ``force`` and
``recursive``) and its other words. It then applies to every invocation
(:mod:`.invocation`) that runs that program with at least those options, in any order and
spelling, whatever else it holds, and whose operands include a match for each of the glob's
other words (``*`` matches any, or none). So ``rm -rf *`` covers ``rm -fr x``,
``/bin/rm --recursive --force x``, ``xargs rm -rf``, ``find x -delete`` and ``sh -c 'rm -Rf
x'``; ``git push --force`` covers ``git -C . push -f``, ``git push --mirror`` and
``git push origin +main``.

Every rule pattern, glob or regex, is also tried against each invocation rendered as text
(:func:`renderings`): the program, its options in their canonical long form and its operands
(``git push --force origin main``), and the program with its arguments as written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Final

from .invocation import Invocation, invocations
from .options import SAME_EFFECT, table_for

__all__ = ["Shape", "renderings", "shape_of"]

_GLOB: Final = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class Shape:
    """A rule's command glob read as a command: program, options, other words."""

    program: str
    options: frozenset[str]
    operands: tuple[str, ...]
    option_globs: tuple[str, ...] = ()

    def matches(self, invocation: Invocation) -> bool:
        """True when ``invocation`` runs this program with these options and operands."""
        if SAME_EFFECT.get(invocation.program, invocation.program) != self.program:
            return False
        names = invocation.parsed.names
        if not self.options <= names:
            if table_for(self.program) is not None:
                return False
            # the program's table is not known: an abbreviation may name the option
            abbreviated = [n for n in names if not n.startswith("-") and n]
            if not all(
                option in names or any(option.startswith(n) for n in abbreviated)
                for option in self.options
            ):
                return False
        if not all(any(fnmatchcase(n, glob) for n in names) for glob in self.option_globs):
            return False
        given = invocation.parsed.operands
        given += tuple(os.path.normpath(o) for o in given if "/" in o)  # rm -rf /. is rm -rf /
        return all(
            any(fnmatchcase(operand, pattern) for operand in given)
            for pattern in self.operands
            if pattern.strip("*")
        )

    def may_match(self, invocation: Invocation) -> bool:
        """True when ``invocation`` runs this program (or git with a subcommand that may be an
        alias) and something outside its words may add what it lacks."""
        if invocation.uncertain is None:
            return False
        if SAME_EFFECT.get(invocation.program, invocation.program) == self.program:
            return True
        return invocation.name == self.program.split(" ", 1)[0] and (
            "alias" in invocation.uncertain
        )


def shape_of(glob: str) -> Shape | None:
    """``glob`` read as a command, or ``None`` when its program word is itself a pattern."""
    found = invocations(glob)
    if len(found) != 1:
        return None
    invocation = found[0]
    if invocation.opaque is not None or not invocation.program or invocation.via:
        return None
    if _GLOB.search(invocation.program):
        return None
    names = [name for name, _ in invocation.parsed.options if name]
    # an option word holding a pattern (``--force*``) requires an option it matches
    options = frozenset(n for n in names if not _GLOB.search(n))
    globs = tuple(n.lstrip("-") for n in names if _GLOB.search(n))
    return Shape(invocation.program, options, invocation.parsed.operands, globs)


def renderings(invocation: Invocation) -> Iterable[str]:
    """``invocation`` as text rules are matched against (see the module docstring)."""
    if not invocation.program:
        return ()
    canonical = [invocation.program]
    for name, value in invocation.parsed.options:
        flag = name if name.startswith("-") else f"--{name}"
        canonical.append(flag if value is None else f"{flag}={value}")
    canonical.extend(invocation.parsed.operands)
    written = " ".join((invocation.program, *invocation.arguments))
    same = SAME_EFFECT.get(invocation.program)
    if same is None:
        return (" ".join(canonical), written)
    return (" ".join(canonical), written, " ".join((same, *canonical[1:])))
