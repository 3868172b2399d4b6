"""The files a shell command may read or write, as far as its words name them.

A deny rule with a ``path`` condition (``.env``, ``*.pem``, ``~/.ssh/**``) protects those files
from every tool, the shell included: :func:`named_paths` lists what each program a command
runs (:mod:`.invocation`) may open, whatever the program (``cat``, ``grep``, ``head``, ``less``,
``cp``, ``git diff --no-index /dev/null .env``, ``git show HEAD:.env``):

* every operand and every redirection's file;
* the value of an option (``--file=.env``, ``-f.env``) and the path of a ``REV:PATH`` word;
* a glob, expanded against the workspace as bash would (``cat .en?`` names ``.env``), and
  a brace expansion (``cat .en{v,x}``, ``{a,b}``, ``{1..3}``; past :data:`BRACE_LIMIT` words
  it counts as too many to list);
* the value of an operand ``KEY=FILE`` (``dd if=.env``);
* the working directory, for a recursive searcher given a pattern and no path (``grep -r
  KEY``, ``rg KEY``, ``git grep KEY``);
* a directory given to a program that reads directories whole (a recursive option, or
  ``rg``, ``tar``, ``zip``, ``rsync``, ``scp``, ``git add``): every file under it, up to
  :data:`WALK_LIMIT` entries (past that, the directory counts as holding a protected file).

Only the files a command's words can show are known: a path a program builds or reads from
its input (``xargs cat``), or a file a script opens, is not. A program that reads the names
of the files it opens from a file or its input (``--files0-from``, ``--files-from``,
``--pathspec-from-file``, ``tar -T``, ``zip -@``, ``cpio``) yields :data:`NAMES_FROM`, a
directory too large to walk :data:`TOO_MANY`, and a word holding a parameter expansion
(``cat "$HOME/.ssh/id_rsa"``, ``cat .env$X``) :data:`EXPANDED`: any of them may be a
protected file, so the command is asked, never allowed.
"""

from __future__ import annotations

import glob as globbing
import os
import re
from collections.abc import Iterator
from typing import Final

from .deadline import spend
from .invocation import Invocation

__all__ = [
    "BRACE_LIMIT",
    "BRACE_WORD",
    "EXPANDED",
    "GLOB_LIMIT",
    "NAMES_FROM",
    "TOO_MANY",
    "UNKNOWN",
    "WALK_LIMIT",
    "expand_braces",
    "named_paths",
    "reads_names_from_elsewhere",
]

WALK_LIMIT: Final = 5000
GLOB_LIMIT: Final = 64  # distinct globs of one command expanded against the workspace
_GLOB: Final = re.compile(r"[*?\[]")
_WHOLE_DIRECTORIES: Final = frozenset({"rg", "tar", "zip", "rsync", "scp", "ag", "ack", "du"})
_RECURSIVE: Final = frozenset({"recursive", "-r", "-R", "dereference-recursive", "archive", "-a"})
TOO_MANY: Final = "\0too-many"
"""Yielded for a directory with more than :data:`WALK_LIMIT` entries under it."""
NAMES_FROM: Final = "\0names-from"
"""Yielded for a program that reads the names of the files it opens from a file or its input
(``sort --files0-from=F``, ``tar -T F``, ``git add --pathspec-from-file``, ``zip -@``)."""
# A long option that hands a program a list of file names (GNU ``--files0-from``, tar's and
# rsync's ``--files-from``, git's ``--pathspec-from-file``, find's ``-files0-from``).
_NAMES_OPTION: Final = re.compile(r"-?-(?:files?0?|paths?|pathspec|names?)-from(?:-file)?(?:=|$)")
# Short options that do the same, per program; and programs that always read names from input.
_NAMES_LONG: Final = ("files0-from", "files-from", "pathspec-from-file", "names-from")
_NAMES_SHORT: Final = {"tar": "T", "zip": "@", "rsync": "", "wc": "", "du": ""}
_NAMES_ALWAYS: Final = frozenset({"cpio", "afio", "pax"})


def reads_names_from_elsewhere(invocation: Invocation) -> bool:
    """Whether ``invocation`` opens files named in a file or its input, not in its words."""
    if invocation.name in _NAMES_ALWAYS:
        return True
    short = _NAMES_SHORT.get(invocation.name, "")
    for word in invocation.arguments:
        if word == "--":
            break
        if _NAMES_OPTION.match(word):
            return True
        name = word[2:].split("=", 1)[0] if word.startswith("--") else ""
        if len(name) >= 3 and any(option.startswith(name) for option in _NAMES_LONG):
            return True  # an abbreviation, as getopt_long and git read it (--files0)
        single = word.startswith("-") and not word.startswith("--")
        if short and single and any(letter in word[1:] for letter in short):
            return True
    return False


EXPANDED: Final = "\0expanded"
"""Yielded for a word holding a parameter expansion (``"$HOME/.ssh/id_rsa"``, ``.env$X``,
``~$USER``): the file it names is known only when it runs."""
# A parameter expansion bash performs in a word: $NAME, ${...}, $1, $@, $*, $#, $?, $$, $!,
# $-, $_ (a ``$`` before anything else, or at the end, stays a literal ``$``: ``'a$'``).
_EXPANSION: Final = re.compile(r"\$[A-Za-z_0-9{@*#?$!-]")

UNKNOWN: Final = frozenset({TOO_MANY, NAMES_FROM, EXPANDED})
"""What :func:`named_paths` yields for files it cannot list: any of them may be protected."""


BRACE_LIMIT: Final = 256  # the words one brace expansion may give before it counts as too many
BRACE_WORD: Final = 1024  # the longest word brace-expanded
# An innermost brace group bash expands: a list (``{a,b}``) or a sequence (``{1..3}``).
_BRACE: Final = re.compile(r"\{([^{}]*?(?:,|\.\.)[^{}]*?)\}")
_SEQUENCE: Final = re.compile(r"(-?[0-9]+|[A-Za-z])\.\.(-?[0-9]+|[A-Za-z])(?:\.\.-?[0-9]+)?")
# Recursive searchers that read the working directory when given no path.
_SEARCHERS: Final = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "git grep"})
_ALWAYS_RECURSIVE: Final = frozenset({"rg", "ag", "ack", "git grep"})


def _sequence(body: str) -> list[str] | None:
    found = _SEQUENCE.fullmatch(body)
    if found is None:
        return None
    first, last = found.group(1), found.group(2)
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        low, high = sorted((int(first), int(last)))
        if high - low > BRACE_LIMIT:
            return [TOO_MANY]
        return [str(n) for n in range(low, high + 1)]
    if len(first) == len(last) == 1 and not first.isdigit() and not last.isdigit():
        low_char, high_char = sorted((ord(first), ord(last)))
        return [chr(c) for c in range(low_char, high_char + 1)]
    return None


def expand_braces(word: str) -> list[str]:
    """``word`` brace-expanded as bash does (``.en{v,x}`` is ``.env .enx``, ``{1..3}``), in
    bash's order; :data:`TOO_MANY` among them past :data:`BRACE_LIMIT` words."""
    pending, done = [word], []
    while pending:
        current = pending.pop()
        group = _BRACE.search(current)
        if group is None:
            done.append(current)
            continue
        body = group.group(1)
        parts = _sequence(body) if "," not in body else body.split(",")
        if parts is None:  # not expanded by bash ({a..}): kept, and the rest looked at
            parts = ["\0" + body + "\1"]
        if TOO_MANY in parts:
            return [*done, TOO_MANY]
        head, tail = current[: group.start()], current[group.end() :]
        pending.extend(head + part + tail for part in reversed(parts))  # first part next
        if len(pending) + len(done) > BRACE_LIMIT:
            return [*done, TOO_MANY]
    return [w.replace("\0", "{").replace("\1", "}") for w in done]


def _default_directory(invocation: Invocation) -> bool:
    """A recursive searcher given a pattern and no path: it reads the working directory."""
    name = invocation.program if invocation.program == "git grep" else invocation.name
    if name not in _SEARCHERS:
        return False
    recursive = name in _ALWAYS_RECURSIVE or not _RECURSIVE.isdisjoint(invocation.parsed.names)
    return recursive and len(invocation.parsed.operands) <= 1


def _words(invocation: Invocation, braces: list[int]) -> Iterator[str]:
    """The words of ``invocation`` that may be paths, brace-expanded; ``braces`` counts the
    words expanded so far in the command (past :data:`GLOB_LIMIT` of them, or for a word
    longer than :data:`BRACE_WORD`, the expansion counts as too many to list)."""
    for word in _plain_words(invocation):
        if "{" not in word or "}" not in word:
            yield word
        elif braces[0] >= GLOB_LIMIT or len(word) > BRACE_WORD:
            yield word
            yield TOO_MANY
        else:
            braces[0] += 1
            yield from expand_braces(word)
    if _default_directory(invocation):
        yield "."


def _plain_words(invocation: Invocation) -> Iterator[str]:
    for operand in invocation.parsed.operands:
        yield operand
        if "=" in operand:  # dd's if=FILE, make's VAR=FILE
            yield operand.split("=", 1)[1]
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
            spend()
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
    braces = [0]
    for invocation in runs:
        if reads_names_from_elsewhere(invocation):
            yield NAMES_FROM
        whole = _reads_directories(invocation)
        for word in _words(invocation, braces):
            spend()
            if word == TOO_MANY:
                yield word
                continue
            if not word or word == "-":
                continue
            yield word
            if _EXPANSION.search(word):
                yield EXPANDED
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
