"""Options that make a harmless-looking command write, delete or run something else.

An allow rule names a program (``pytest *``, ``git log *``); it means "run it", not "run it
with the options that overwrite a file": ``pytest --basetemp=DIR`` empties ``DIR``,
``pytest --junitxml=FILE`` and ``git log --output=FILE`` overwrite ``FILE``. :func:`writing_flags`
finds those options in a simple command, so that an allow rule does not apply to it (the call
is asked about instead) unless the rule lists the option in ``allow_flags``.

Two sources, both applied to every simple command:

* :data:`PROGRAMS`: per program (and per ``git`` subcommand), the long and short options that
  write, delete, or load configuration or code from elsewhere, read the way the program parses
  them: ``--opt=value`` and ``--opt value``, short options bundled (``-qo x`` holds ``-o``; a
  short option that takes a value ends the bundle, ``-kfoo`` is ``-k foo``), long options
  abbreviated where the program accepts that (git's option parser does: ``--forc``).
  ``python -m pytest``, ``uv run pytest`` and kin are judged as ``pytest``.
* a family rule for every program, known or not: a long option whose name says it writes or
  deletes (``output``, ``outfile``, ``log-file``, ``junit``, ``report``, ``dump``, ``save``,
  ``delete``, ``remove``, ``purge``, ``prune``, ``clean``, ``overwrite``, ``in-place``,
  ``force``, ``basetemp``, a ``-dir``/``-file`` that is not an input ...), and an assignment
  to a variable that passes options to a program (``PYTEST_ADDOPTS=...``, ``*_OPTS``,
  ``*_OPTIONS``, ``*_FLAGS``, ``npm_config_*``).

The check reads each simple command after quote removal, so ``--base''temp`` is
``--basetemp``. It errs towards asking: an unknown option is never assumed harmless when its
name says it writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from amplifier_hooks_util.env_policy import option_variable

from .options import DANGEROUS_LONG, abbreviates
from .shell import words

__all__ = ["PROGRAMS", "ProgramFlags", "writing_flags"]


@dataclass(frozen=True, slots=True)
class ProgramFlags:
    """The options of one program (or ``git`` subcommand) that write, delete or load code.

    ``long``: long option names without the dashes; ``short``: single letters;
    ``short_values``: short options that take a value (the rest of a bundle is that value);
    ``abbreviations``: the program accepts unambiguous prefixes of long options;
    ``single_dash_long``: long options are spelled with one dash (``go test -coverprofile``).
    """

    long: frozenset[str] = frozenset()
    short: frozenset[str] = frozenset()
    short_values: frozenset[str] = frozenset()
    abbreviations: bool = False
    single_dash_long: bool = False


def _flags(
    long: str = "",
    short: str = "",
    values: str = "",
    *,
    abbreviations: bool = False,
    single_dash_long: bool = False,
) -> ProgramFlags:
    return ProgramFlags(
        frozenset(long.split()),
        frozenset(short),
        frozenset(values),
        abbreviations,
        single_dash_long,
    )


# git's diff options (log, show, diff, whatchanged ...): --output writes a file, --ext-diff and
# --textconv run configured programs.
_GIT_DIFF = "output output-directory ext-diff textconv"
_GIT: Final = {
    "": _flags(  # options before the subcommand
        "config-env exec-path git-dir work-tree namespace super-prefix",
        "c",
        "C",
        abbreviations=False,
    ),
    "log": _flags(_GIT_DIFF, abbreviations=True),
    "show": _flags(_GIT_DIFF, abbreviations=True),
    "diff": _flags(_GIT_DIFF, abbreviations=True),
    "whatchanged": _flags(_GIT_DIFF, abbreviations=True),
    "range-diff": _flags(_GIT_DIFF, abbreviations=True),
    "format-patch": _flags(_GIT_DIFF, "o", abbreviations=True),
    "status": _flags("", abbreviations=True),
    "branch": _flags(
        "delete move copy force set-upstream-to unset-upstream edit-description track",
        "dDmMcCfu",
        abbreviations=True,
    ),
    "tag": _flags("delete force", "df", "mF", abbreviations=True),
    "push": _flags(
        "force force-with-lease force-if-includes delete mirror prune receive-pack exec",
        "fd",
        abbreviations=True,
    ),
    "fetch": _flags("force prune prune-tags upload-pack refmap", "fpP", abbreviations=True),
    "pull": _flags("force prune upload-pack rebase autostash", "fr", abbreviations=True),
    "clone": _flags("upload-pack template config separate-git-dir", "uc", "ob", abbreviations=True),
    "ls-remote": _flags("upload-pack exec", "u", abbreviations=True),
    "archive": _flags("output remote exec", "o", abbreviations=True),
    "grep": _flags("open-files-in-pager ext-grep", "O", "efABC", abbreviations=True),
    "clean": _flags("force", "fxXd", "e", abbreviations=True),
    "reset": _flags("hard merge keep", abbreviations=True),
    "checkout": _flags("force overwrite-ignore", "fB", "b", abbreviations=True),
    "switch": _flags("force discard-changes force-create", "fC", "c", abbreviations=True),
    "restore": _flags("worktree staged source", "WSs", abbreviations=True),
    "rm": _flags("force", "rf", abbreviations=True),
    "mv": _flags("force", "fk", abbreviations=True),
    "stash": _flags("", abbreviations=True),
    "gc": _flags("prune aggressive", abbreviations=True),
    "commit": _flags("amend", abbreviations=True),
}
"""git's writing options, per subcommand (the key ``""`` holds the options before it)."""

_PYTEST = _flags(
    "basetemp junitxml junit-xml junit-prefix result-log resultlog report-log log-file debug "
    "override-ini config-file inifile rootdir cache-clear pastebin html json-report-file "
    "cov cov-report cov-config cov-append md-report-output pdbcls",
    "opc",
    "kmrWn",
)

PROGRAMS: Final[dict[str, ProgramFlags]] = {
    "pytest": _PYTEST,
    "py.test": _PYTEST,
    "ls": _flags(),
    "pwd": _flags(),
    "head": _flags(),
    "tail": _flags(),
    "npm": _flags(
        "prefix cache userconfig globalconfig script-shell node-options shell global", "g"
    ),
    "npx": _flags("prefix cache userconfig globalconfig script-shell node-options package", "p"),
    "sort": _flags("output temporary-directory compress-program", "oT", "kt"),
    "tee": _flags("append", "a"),
    "tree": _flags("output", "o", "LPIH"),
    "curl": _flags(
        "output remote-name remote-name-all dump-header cookie-jar trace trace-ascii stderr "
        "libcurl etag-save hsts alt-svc config output-dir create-dirs upload-file",
        "oODcKTw",
        "dHuAeEXx",
    ),
    "wget": _flags(
        "output-document output-file append-output directory-prefix delete-after "
        "save-cookies save-headers execute input-file",
        "OoaPeix",
    ),
    "find": _flags(),  # its writing actions are single-dash words: see _FIND_ACTIONS
    "sed": _flags("in-place", "i", "ef"),
    "tcpdump": _flags("", "wCGWz", "icsr"),
    "rsync": _flags(
        "delete delete-before delete-during delete-delay delete-after delete-excluded "
        "remove-source-files rsh rsync-path",
        "e",
    ),
    "rg": _flags("pre pre-glob", abbreviations=False),
    "go": _flags(
        "o coverprofile cpuprofile memprofile blockprofile mutexprofile trace outputdir "
        "exec toolexec modfile overlay",
        single_dash_long=True,
    ),
    "cargo": _flags("target-dir out-dir artifact-dir config manifest-path", "Z"),
    "mypy": _flags("install-types cache-dir config-file", "", "pmc"),
    "ruff": _flags("fix unsafe-fixes add-noqa cache-dir config"),
    "tox": _flags("workdir result-json installpkg root", "c", "e"),
}
"""Per program (by the command word's last path component): its writing options."""

# Long options that are the program's own, spelled whole, although they are prefixes of a
# writing option (pytest's ``--co`` is ``--collect-only``, not ``--config-file``).
_EXACT: Final[dict[str, frozenset[str]]] = {
    "pytest": frozenset({"co", "lf", "ff", "sw", "nf", "pdb", "tb", "fixtures", "full-trace"}),
    "py.test": frozenset({"co", "lf", "ff", "sw", "nf", "pdb", "tb", "fixtures", "full-trace"}),
}

_FIND_ACTIONS: Final = frozenset(
    {"-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-exec", "-execdir", "-ok", "-okdir"}
)
# A long option whose name says it writes, deletes or forces.
_WRITING_NAME: Final = re.compile(
    r"output|outfile|out-?dir|out-file|log-?file|result-?log|report|junit|dump|save|export|"
    r"write|delete|remove|purge|prune|clean|overwrite|in-?place|force|basetemp|"
    r"(?:temp|tmp|cache|target|work|base)-?dir|upload|pastebin|exec"
)
# A variable that hands options to a program: PYTEST_ADDOPTS, MAVEN_OPTS, npm_config_prefix ...
_OPTIONS_VARIABLE: Final = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:OPTS|OPTIONS|ADDOPTS|FLAGS|ARGS)|(?i:npm_config_)\w*|PYTEST_\w+"
)
_ASSIGNMENT: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")
_PREFIXES: Final = frozenset({"!", "time", "-p", "nice", "nohup", "command"})
# Runners that run the program named after them: ``uv run pytest``, ``poetry run pytest``.
_RUN_VERBS: Final = {"uv": "run", "poetry": "run", "pipenv": "run", "hatch": "run", "pdm": "run"}
_PYTHON: Final = re.compile(r"python[0-9.]*|pypy[0-9.]*")


def _program(argv: list[str]) -> tuple[str, list[str]]:
    """The program a command line runs and its arguments, seen through ``python -m X`` and
    ``uv run X``; ``("", [])`` for an empty command."""
    i = 0
    while i < len(argv) and (_ASSIGNMENT.match(argv[i]) or argv[i] in _PREFIXES):
        i += 1
    if i >= len(argv):
        return "", []
    name = argv[i].rsplit("/", 1)[-1]
    rest = argv[i + 1 :]
    if _PYTHON.fullmatch(name):
        for j, word in enumerate(rest):
            if word == "-m" and j + 1 < len(rest):
                return rest[j + 1], rest[j + 2 :]
            if word.startswith("-m") and len(word) > 2:
                return word[2:], rest[j + 1 :]
            if not word.startswith("-"):
                break
    verb = _RUN_VERBS.get(name)
    if verb is not None and rest[:1] == [verb] and len(rest) > 1:
        return _program(rest[1:])
    return name, rest


def _git(arguments: list[str]) -> Iterable[tuple[str, ProgramFlags]]:
    """git's global options and its subcommand's options, each with the table it is read by."""
    global_ = _GIT[""]
    i = 0
    while i < len(arguments) and arguments[i].startswith("-"):
        word = arguments[i]
        yield word, global_
        if word in ("-c", "-C") or (
            word.startswith("--")
            and "=" not in word
            and word[2:]
            in ("git-dir", "work-tree", "namespace", "exec-path", "config-env", "super-prefix")
        ):
            i += 1
        i += 1
    if i >= len(arguments):
        return
    table = _GIT.get(arguments[i], ProgramFlags(abbreviations=True))
    for word in arguments[i + 1 :]:
        yield word, table


def _long_hit(name: str, table: ProgramFlags) -> str | None:
    if name in table.long:
        return name
    if table.abbreviations and len(name) >= 3:
        for option in sorted(table.long, key=lambda o: (len(o), o)):
            if option.startswith(name):
                return option
    return None


def _check(word: str, table: ProgramFlags, program: str = "") -> str | None:
    """The writing option ``word`` is (as ``--name``/``-x``), or ``None``."""
    if word.startswith("--") and len(word) > 2:
        name = word[2:].split("=", 1)[0]
        hit = _long_hit(name, table)
        if hit is not None:
            return f"--{hit}"
        if _WRITING_NAME.search(name.lower()) is not None:
            return f"--{name}"
        if name in _EXACT.get(program, ()):
            return None
        # getopt_long and argparse take any unambiguous prefix: an abbreviation of a
        # writing option is that option (``sed --in`` is ``--in-place``, ``sort --o``
        # ``--output``), whatever else the program's table holds
        spelled = abbreviates(name, table.long) or abbreviates(name, DANGEROUS_LONG)
        if spelled:
            return f"--{name} (--{spelled[0]})"
        return None
    if not word.startswith("-") or len(word) < 2 or word == "-":
        return None
    if table.single_dash_long:
        name = word[1:].split("=", 1)[0]
        hit = _long_hit(name, table)
        if hit is not None:
            return f"-{hit}"
        return f"-{name}" if _WRITING_NAME.search(name.lower()) else None
    for letter in word[1:]:
        if letter in table.short:
            return f"-{letter}"
        if letter in table.short_values or not (letter.isalnum()):
            return None
    return None


def writing_flags(segment: str) -> tuple[str, ...]:
    """The writing options (and option-passing variables) in one simple command, in order,
    each once (``("--basetemp",)`` for ``pytest -q --basetemp=/tmp/x``)."""
    argv = words(segment)
    found: dict[str, None] = {}
    for word in argv:
        assignment = _ASSIGNMENT.match(word)
        if assignment is None:
            break
        name = assignment.group(1)
        value = word[assignment.end() :]
        if _OPTIONS_VARIABLE.fullmatch(name) or option_variable(name, value):
            found[name + "="] = None
    program, arguments = _program(argv)
    if not program:
        return tuple(found)
    if program == "git":
        pairs: Iterable[tuple[str, ProgramFlags]] = _git(arguments)
    else:
        table = PROGRAMS.get(program, ProgramFlags())
        pairs = ((word, table) for word in arguments)
        if program == "find":
            for word in arguments:
                if word in _FIND_ACTIONS:
                    found[word] = None
    for word, table in pairs:
        hit = _check(word, table, program)
        if hit is not None:
            found[hit] = None
    return tuple(found)
