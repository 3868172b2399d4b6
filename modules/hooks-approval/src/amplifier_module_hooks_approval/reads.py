"""The files a shell command may read or write, as far as its words name them.

A deny rule with a ``path`` condition (``.env``, ``*.pem``, ``~/.ssh/**``) protects those files
from every tool, the shell included: :func:`named_paths` lists what each program a command
runs (:mod:`.invocation`) may open, whatever the program (``cat``, ``grep``, ``head``, ``less``,
``cp``, ``git diff --no-index /dev/null .env``, ``git show HEAD:.env``):

* every operand and every redirection's file;
* the value of an option (``--file=.env``, ``-f.env``) and the path of a ``REV:PATH`` word;
* a glob, expanded against the workspace as bash would (``cat .en?`` names ``.env``);
* a directory given to a program that reads directories whole (a recursive option, or
  ``rg``, ``tar``, ``zip``, ``rsync``, ``scp``, ``git add``): every file under it, up to
  :data:`WALK_LIMIT` entries (past that, the directory counts as holding a protected file).

Only the files a command's words can show are known: a path a program builds or reads from
its input (``xargs cat``), or a file a script opens, is not.
"""

from __future__ import annotations

import glob as globbing
import os
import re
from collections.abc import Iterator
from typing import Final

from .invocation import Invocation

__all__ = ["GLOB_LIMIT", "TOO_MANY", "WALK_LIMIT", "named_paths"]

WALK_LIMIT: Final = 5000
GLOB_LIMIT: Final = 64  # distinct globs of one command expanded against the workspace
_GLOB: Final = re.compile(r"[*?\[]")
_WHOLE_DIRECTORIES: Final = frozenset({"rg", "tar", "zip", "rsync", "scp", "ag", "ack", "du"})
_RECURSIVE: Final = frozenset({"recursive", "-r", "-R", "dereference-recursive", "archive", "-a"})
TOO_MANY: Final = "\0too-many"
"""Yielded for a directory with more than :data:`WALK_LIMIT` entries under it."""


def _words(invocation: Invocation) -> Iterator[str]:
    yield from invocation.parsed.operands
    yield from invocation.files
    for word in invocation.arguments:
        if word.startswith("--") and "=" in word:
            yield word.split("=", 1)[1]
        elif word.startswith("-") and not word.startswith("--") and len(word) > 2:
            yield word[2:]  # a short option's attached value (-f.env)
        if ":" in word:
            yield word.rsplit(":", 1)[1]
    for _, value in invocation.parsed.options:
        if value:
            yield value


def _reads_directories(invocation: Invocation) -> bool:
    if invocation.name in _WHOLE_DIRECTORIES or invocation.program == "git add":
        return True
    return not _RECURSIVE.isdisjoint(invocation.parsed.names)


def _under(directory: str) -> Iterator[str]:
    count = 0
    for root, dirs, files in os.walk(directory):
        for name in (*dirs, *files):
            count += 1
            if count > WALK_LIMIT:
                yield TOO_MANY
                return
            yield os.path.join(root, name)


def named_paths(runs: tuple[Invocation, ...], workspace: str) -> Iterator[str]:
    """The paths (as given, or found under a directory) the programs of a command name.

    Each distinct glob is expanded once, and at most :data:`GLOB_LIMIT` of them: a command of
    many globs (``[[ x [[ x ...``) would otherwise list the workspace once per word."""
    expanded: set[str] = set()
    for invocation in runs:
        whole = _reads_directories(invocation)
        for word in _words(invocation):
            if not word or word == "-":
                continue
            yield word
            if _GLOB.search(word) and word not in expanded:
                if len(expanded) >= GLOB_LIMIT:
                    yield TOO_MANY
                    continue
                expanded.add(word)
                base = os.path.expanduser(word)
                pattern = base if os.path.isabs(base) else os.path.join(workspace, base)
                yield from globbing.iglob(pattern, include_hidden=True)
            if whole:
                absolute = os.path.join(workspace, os.path.expanduser(word))
                if os.path.isdir(absolute):
                    yield from _under(absolute)
