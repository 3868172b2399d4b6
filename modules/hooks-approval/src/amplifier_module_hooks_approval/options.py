"""A program's options read the way the program's own parser reads them.

:func:`parse_options` turns the arguments of one command into the options it sets, each under
a canonical name, and its operands. It follows ``getopt_long`` (GNU coreutils, sed, sort,
grep ...) and git's parse-options, which agree on what matters here:

* short options bundle (``-fr`` is ``-f -r``); a short option that takes a value ends the
  bundle (``-kfoo`` is ``-k foo``), else the next word is its value;
* a long option takes its value after ``=`` or as the next word;
* a long option may be abbreviated to any prefix that names one option of the program's table
  (``sed --in`` is ``--in-place``, ``sort --o=f`` is ``--output``); an ambiguous prefix is an
  error to the program, and is read here as every option it could name;
* options and operands mix in any order (``rm victim -rf``) until ``--``;
* each option has a canonical name (``-R``, ``-r`` and ``--recursive`` are ``recursive``), and
  an option may imply others (``git push --mirror`` force-updates: it implies ``force``).

Where a program's table is not known, a long option is kept under its own name, and
:func:`abbreviates` tells whether it is a prefix of a known-dangerous option, so that an
abbreviation can neither slip past a deny rule nor satisfy an allow rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "DANGEROUS_LONG",
    "SAME_EFFECT",
    "TABLES",
    "OptionTable",
    "Parsed",
    "abbreviates",
    "parse_options",
    "table_for",
]


@dataclass(frozen=True, slots=True)
class OptionTable:
    """The options of one program (or git subcommand).

    ``short``: letter -> canonical name, for options without a value; ``short_values``: the
    same for options that take a value; ``long``: long name -> canonical name; ``long_values``:
    long names that take a value (required); ``implies``: canonical name -> names it implies.
    ``complete``: the table lists every option, so an unknown long option is an error to the
    program and an abbreviation is resolved against this table alone. ``short_optional``:
    letter -> canonical name, for options whose value is optional and only ever the rest of
    their word (sed's ``-i[SUFFIX]``: ``-ibak`` is ``-i bak``, ``-i`` alone has none).
    """

    short: dict[str, str] = field(default_factory=dict)
    short_values: dict[str, str] = field(default_factory=dict)
    long: dict[str, str] = field(default_factory=dict)
    long_values: frozenset[str] = frozenset()
    implies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    abbreviations: bool = True
    complete: bool = False
    short_optional: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Parsed:
    """The options a command sets (canonical names, with their values) and its operands."""

    options: tuple[tuple[str, str | None], ...]
    operands: tuple[str, ...]
    unknown: tuple[str, ...] = ()

    @property
    def names(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.options)


def _table(
    short: str = "",
    values: str = "",
    long: str = "",
    long_values: str = "",
    implies: dict[str, tuple[str, ...]] | None = None,
    *,
    complete: bool = True,
) -> OptionTable:
    """``short``/``values``: ``"r=recursive R=recursive f=force"``; ``long``: ``"force
    recursive=recursive"`` (a name alone is its own canonical name)."""

    def pairs(text: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for item in text.split():
            key, _, canon = item.partition("=")
            out[key] = canon or key
        return out

    long_map = pairs(long) | pairs(long_values)
    return OptionTable(
        short=pairs(short),
        short_values=pairs(values),
        long=long_map,
        long_values=frozenset(pairs(long_values)),
        implies=implies or {},
        complete=complete,
    )


_RM = _table(
    "f=force i=interactive I=interactive r=recursive R=recursive d=dir v=verbose",
    long="force recursive dir verbose one-file-system no-preserve-root preserve-root "
    "interactive help version",
)
_SED = _table(
    "n=quiet r=regexp-extended E=regexp-extended s=separate u=unbuffered z=null-data "
    "i=in-place b=binary",
    "e=expression f=file l=line-length",
    "quiet silent=quiet debug follow-symlinks posix regexp-extended separate sandbox "
    "unbuffered null-data zero-terminated=null-data help version binary in-place",
    "expression file line-length",
)
_SORT = _table(
    "b=ignore-leading-blanks d=dictionary-order f=ignore-case g=general-numeric-sort "
    "i=ignore-nonprinting M=month-sort h=human-numeric-sort n=numeric-sort R=random-sort "
    "r=reverse V=version-sort c=check C=check-quiet m=merge s=stable u=unique z=zero-terminated",
    "k=key o=output S=buffer-size t=field-separator T=temporary-directory",
    "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
    "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse "
    "version-sort merge stable unique zero-terminated debug help version check",
    "key output buffer-size field-separator temporary-directory compress-program "
    "parallel files0-from random-source sort batch-size",
)
_GIT_PUSH = _table(
    "v=verbose q=quiet f=force d=delete n=dry-run u=set-upstream 4=ipv4 6=ipv6",
    "o=push-option",
    "verbose quiet all branches=all mirror delete tags dry-run porcelain force "
    "force-if-includes atomic prune no-verify verify follow-tags thin no-thin "
    "set-upstream progress ipv4 ipv6 force-with-lease no-force-with-lease no-force "
    "signed no-signed",
    "repo receive-pack exec=receive-pack recurse-submodules push-option",
    {"mirror": ("force",), "force-with-lease": ("force",)},
)
# git's plumbing that updates a remote's refs as ``git push`` does (``send-pack``: git's own
# parse-options, abbreviations included; ``http-push``: exact words only).
_GIT_SEND_PACK = _table(
    "v=verbose q=quiet f=force n=dry-run",
    "",
    "verbose quiet all mirror dry-run force signed no-signed progress thin atomic "
    "stateless-rpc stdin helper-status force-with-lease no-force-with-lease "
    "force-if-includes no-force",
    "receive-pack exec=receive-pack remote push-option",
    {"mirror": ("force",), "force-with-lease": ("force",)},
)
_GIT_HTTP_PUSH = dataclasses.replace(
    _table(
        "d=delete D=force-delete",
        long="all force dry-run verbose helper-status",
        implies={"force-delete": ("force", "delete")},
    ),
    abbreviations=False,
)
_GIT_CLEAN = _table(
    "d=directories f=force i=interactive n=dry-run q=quiet x=ignored-too X=only-ignored",
    "e=exclude",
    "force interactive dry-run quiet",
    "exclude",
)

TABLES: Final[dict[str, OptionTable]] = {
    "rm": _RM,
    "sed": _SED,
    "sort": _SORT,
    "git push": _GIT_PUSH,
    "git send-pack": _GIT_SEND_PACK,
    "git http-push": _GIT_HTTP_PUSH,
    "git clean": _GIT_CLEAN,
}
"""Per program (``git push`` for a git subcommand): its option table."""

DANGEROUS_LONG: Final = frozenset(
    {
        "output",
        "output-document",
        "output-file",
        "output-directory",
        "outfile",
        "in-place",
        "force",
        "force-with-lease",
        "mirror",
        "delete",
        "recursive",
        "remove",
        "exec",
        "execute",
        "upload-pack",
        "receive-pack",
        "basetemp",
        "junitxml",
        "junit-xml",
        "log-file",
        "override-ini",
        "config-file",
        "rootdir",
        "ext-diff",
        "textconv",
        "temporary-directory",
        "compress-program",
        "pre",
        "prefix",
        "hard",
        "prune",
        "git-dir",
        "work-tree",
        "exec-path",
        "config-env",
        "open-files-in-pager",
        "script-shell",
        "global",
        "remote-name",
        "dump-header",
        "cookie-jar",
        "directory-prefix",
        "target-dir",
        "cache-dir",
        "fix",
    }
)
"""Long options known to write, delete, force or run other programs, whichever program."""


SAME_EFFECT: Final[dict[str, str]] = {
    "git send-pack": "git push",
    "git http-push": "git push",
}
"""Programs that do what another does, read as that one by a rule naming it: git's plumbing
that updates a remote's refs (``git send-pack --force`` is ``git push --force``)."""


def table_for(program: str) -> OptionTable | None:
    """The option table of ``program`` (``git push`` for a git subcommand), if known."""
    return TABLES.get(program)


def abbreviates(name: str, known: Iterable[str] = DANGEROUS_LONG) -> tuple[str, ...]:
    """The known-dangerous long options ``name`` (without dashes) may abbreviate, or is."""
    if not name:
        return ()
    return tuple(sorted(option for option in known if option.startswith(name)))


def _resolve_long(name: str, table: OptionTable) -> tuple[str, ...]:
    """The long options of ``table`` that ``name`` names: itself, or every option it is a
    prefix of (getopt_long: an exact match wins over longer ones)."""
    if name in table.long:
        return (name,)
    if not table.abbreviations:
        return ()
    return tuple(option for option in table.long if option.startswith(name))


def parse_options(arguments: Sequence[str], table: OptionTable | None) -> Parsed:
    """Read ``arguments`` (after the program word) the way the program does (module docs)."""
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    unknown: list[str] = []
    known = table or OptionTable(complete=False)
    i = 0
    while i < len(arguments):
        word = arguments[i]
        i += 1
        if word == "--":
            operands.extend(arguments[i:])
            break
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word[2:].partition("=")
            hits = _resolve_long(name, known)
            if not hits:
                unknown.append(word)
                options.append((name, value if eq else None))
                continue
            for hit in hits:
                canon = known.long[hit]
                if hit in known.long_values and not eq:
                    if i < len(arguments):
                        value, eq = arguments[i], "="
                    if len(hits) == 1:
                        i += 1
                options.append((canon, value if eq else None))
            continue
        if word.startswith("-") and len(word) > 1:
            following = arguments[i] if i < len(arguments) else None
            i += _short_bundle(word, following, known, options, unknown)
            continue
        operands.append(word)
    implied: list[tuple[str, str | None]] = []
    for name, _ in options:
        implied.extend((extra, None) for extra in known.implies.get(name, ()))
    return Parsed(tuple(options + implied), tuple(operands), tuple(unknown))


def _short_bundle(
    word: str,
    following: str | None,
    known: OptionTable,
    options: list[tuple[str, str | None]],
    unknown: list[str],
) -> int:
    """Read one bundle of short options (``-nf FILE``) into ``options`` (and ``unknown``);
    how many of the following words it took as a value (0 or 1)."""
    j = 1
    while j < len(word):
        letter = word[j]
        j += 1
        if letter in known.short_optional:  # -i[SUFFIX]: the rest of the word, if any
            options.append((known.short_optional[letter], word[j:] or None))
            return 0
        if letter in known.short_values:
            value = word[j:]
            if value or following is None:
                options.append((known.short_values[letter], value))
                return 0
            options.append((known.short_values[letter], following))
            return 1
        if letter in known.short:
            options.append((known.short[letter], None))
        else:
            unknown.append(f"-{letter}")
            options.append((f"-{letter}", None))
    return 0
