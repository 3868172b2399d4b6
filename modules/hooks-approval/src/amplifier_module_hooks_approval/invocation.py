"""What a shell command will execute: each program it runs, resolved to its name.

:func:`invocations` reads a command into the programs it runs, the way bash and the programs
themselves would:

* each simple command (``;``, ``&&``, ``|``, ``$(...)`` ... separate them), its redirections
  dropped and its leading ``NAME=value`` assignments noted;
* the program resolved to its name: a path (``/usr/bin/git``, ``./rm``) by its last component,
  and through the wrappers that run the rest of their arguments as a command (``env``,
  ``command``, ``builtin``, ``exec``, ``nice``, ``nohup``, ``timeout``, ``stdbuf``,
  ``setsid``, ``sudo``, ``doas``, ``time``, ``!`` ...), each with its own options skipped;
* commands that run other commands are read as the command they run: ``sh -c``/``bash -c``
  and ``eval`` (the text is read again, to a bounded depth), ``xargs`` (its arguments, plus
  whatever it reads from input, which may be options: ``open``), ``find -exec/-execdir/-ok``
  (the command given), ``find -delete`` (read as ``rm -r -f`` of the start points),
  ``watch`` (its arguments as a shell command), ``parallel`` (the command before ``:::``);
* git's global options (``-C``, ``-c``, ``--no-pager``, ``--git-dir`` ...) skipped and its
  subcommand taken as part of the program (``git push``).

What cannot be known before the command runs is ``opaque`` and names why: an expansion,
glob, brace or command substitution in the command word, a wrapper option not understood,
text too deep in ``sh -c`` nesting. An invocation may also be ``uncertain``: its program is
known but something outside the text may change what it does (a git subcommand that may be
an alias, ``git -c``, a ``GIT_CONFIG*`` assignment, arguments xargs reads from its input).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .arithmetic import evaluated_variable
from .code import runs_code
from .deadline import STEP_CHARS, spend
from .options import Parsed, parse_options, table_for
from .shell import _bash_input, comment_at, comment_end, scan_command, words

__all__ = ["Invocation", "invocations", "runs_commands"]

_MAX_DEPTH: Final = 4
_VIA_SHOWN: Final = 16
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_REDIRECT: Final = re.compile(r"[0-9]*(?:[<>]|&>|>>|<<<?|<&|>&|>\||<>)")
_REDIRECT_ONLY: Final = re.compile(r"(?:[0-9]*|&)(?:>>?|<<?<?|<>|>\||>&|<&|&>>?)")
_UNKNOWABLE: Final = re.compile(r"[$`*?\[\]{}]|^~[^/]")
_SHELLS: Final = frozenset(
    {"sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "yash", "busybox", "fish", "csh", "tcsh",
     "rbash", "pdksh", "oksh", "loksh", "posh"}
)  # fmt: skip
# Programs that run the rest of their arguments as a command, with options not read here: what
# they run is not known (``setpriv rm -rf x``, ``unshare -U ...``, ``strace -o f ...``).
_OPAQUE_RUNNERS: Final = frozenset(
    {"chroot", "unshare", "nsenter", "strace", "ltrace", "sg", "newgrp", "faketime", "setpriv",
     "setarch", "linux32", "linux64", "valgrind", "firejail", "systemd-run", "xvfb-run",
     "dbus-run-session", "dbus-launch", "torsocks", "proxychains", "proxychains4", "numactl",
     "cgexec", "prlimit", "runcon", "capsh", "pkexec", "catchsegv", "eatmydata", "nocache",
     "rlwrap", "chpst", "envdir", "setuidgid", "softlimit", "sshpass", "schroot", "entr",
     "bwrap", "ssh-agent", "systemd-inhibit", "mpirun", "mpiexec", "srun", "sudoedit",
     "machinectl", "systemd-nspawn", "tsp", "at", "batch", "daemonize", "start-stop-daemon",
     "fakechroot", "proot", "xterm", "tmux", "screen", "nix-shell",
     "dotenv", "with-contenv", "s6-setuidgid", "gosu", "su-exec", "tini", "dumb-init"}
)  # fmt: skip
# Package and environment managers whose subcommand runs a command given in their arguments.
_SUBCOMMAND_RUNNERS: Final[dict[str, frozenset[str]]] = {
    "uv": frozenset({"run", "tool"}),
    "uvx": frozenset({""}),
    "poetry": frozenset({"run"}),
    "pipenv": frozenset({"run"}),
    "pdm": frozenset({"run"}),
    "hatch": frozenset({"run"}),
    "rye": frozenset({"run"}),
    "pixi": frozenset({"run", "exec"}),
    "conda": frozenset({"run"}),
    "mamba": frozenset({"run"}),
    "micromamba": frozenset({"run"}),
    "bundle": frozenset({"exec"}),
    "npm": frozenset({"exec", "x"}),
    "npx": frozenset({""}),
    "pnpm": frozenset({"exec", "dlx"}),
    "pnpx": frozenset({""}),
    "yarn": frozenset({"exec", "dlx"}),
    "bunx": frozenset({""}),
    "bun": frozenset({"x", "exec"}),
    "mise": frozenset({"exec", "x", "run"}),
    "asdf": frozenset({"exec"}),
    "nix": frozenset({"run", "shell", "develop"}),
    "docker": frozenset({"run", "exec"}),
    "podman": frozenset({"run", "exec"}),
    "kubectl": frozenset({"exec", "run"}),
}
# Builtins that evaluate text given in their arguments, or read commands from a file.
_CODE_BUILTINS: Final = frozenset({"source", ".", "bind", "enable", "fc", "complete", "compgen"})
_BUILTINS_READ: Final = frozenset({*_CODE_BUILTINS, "trap", "alias", "mapfile", "readarray"})
_FIND_RUN: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# bash's reserved words that may come before a command (``coproc`` and ``function`` take a
# name first: see :func:`_simple`).
_PLAIN_PREFIXES: Final = frozenset(
    {"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac",
     "coproc", "function", "[[", "]]", "unbuffer", "fakeroot"}
)  # fmt: skip
_SUBSTITUTED: Final = "$__substitution__"

# Wrappers: (options without a value, options with a value, long options with a value,
# number of operands before the command). An option not listed makes the call opaque.
_WRAPPERS: Final[dict[str, tuple[str, str, frozenset[str], int]]] = {
    "env": ("i0v", "uCS", frozenset({"unset", "chdir", "split-string"}), 0),
    "command": ("pvV", "", frozenset(), 0),
    "builtin": ("", "", frozenset(), 0),
    "exec": ("cl", "a", frozenset(), 0),
    "nice": ("", "n", frozenset({"adjustment"}), 0),
    "ionice": ("t", "cnp", frozenset({"class", "classdata", "pid"}), 0),
    "timeout": ("v", "sk", frozenset({"signal", "kill-after"}), 1),
    "stdbuf": ("", "ioe", frozenset({"input", "output", "error"}), 0),
    "setsid": ("cfw", "", frozenset(), 0),
    "sudo": ("AbEHnPSBkKN", "ugpCDrtTUhR", frozenset({"user", "group", "prompt", "chdir"}), 0),
    "doas": ("ns", "uC", frozenset(), 0),
    "taskset": ("ap", "", frozenset(), 1),
    "chrt": ("bdfiormpRv", "T", frozenset(), 1),
    "flock": ("sxnuoFEw", "Ew", frozenset(), 1),
    "nohup": ("", "", frozenset(), 0),
    "busybox": ("", "", frozenset(), 0),
    "time": ("pv", "fo", frozenset({"format", "output"}), 0),
    "xargs": (
        "0prtx",
        "adEILnPs",
        frozenset(
            {
                "arg-file",
                "delimiter",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
                "replace",
                "eof",
            }
        ),
        0,
    ),
    "watch": ("bcdegtx", "nq", frozenset({"interval", "differences", "color"}), 0),
}
_XARGS_LONG_FLAGS: Final = frozenset(
    {"null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty", "show-limits"}
)
_GIT_GLOBAL_VALUES: Final = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--list-cmds",
        "--attr-source",
    }
)
_GIT_GLOBAL_FLAGS: Final = frozenset(
    {
        "-p",
        "-P",
        "--paginate",
        "--no-pager",
        "--bare",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-lazy-fetch",
        "--no-advice",
        "--exec-path",
        "--html-path",
        "--man-path",
        "--info-path",
        "--version",
        "--help",
        "-v",
        "-h",
    }
)
_GIT_COMMANDS: Final = frozenset(
    [
        "add",
        "am",
        "annotate",
        "apply",
        "archive",
        "bisect",
        "blame",
        "branch",
        "bundle",
        "cat-file",
        "check-attr",
        "check-ignore",
        "check-mailmap",
        "check-ref-format",
        "checkout",
        "checkout-index",
        "cherry",
        "cherry-pick",
        "citool",
        "clean",
        "clone",
        "column",
        "commit",
        "commit-graph",
        "commit-tree",
        "config",
        "count-objects",
        "credential",
        "describe",
        "diff",
        "diff-files",
        "diff-index",
        "diff-tree",
        "difftool",
        "fast-export",
        "fast-import",
        "fetch",
        "fetch-pack",
        "filter-branch",
        "fmt-merge-msg",
        "for-each-ref",
        "for-each-repo",
        "format-patch",
        "fsck",
        "gc",
        "get-tar-commit-id",
        "grep",
        "gui",
        "hash-object",
        "help",
        "index-pack",
        "init",
        "instaweb",
        "interpret-trailers",
        "log",
        "ls-files",
        "ls-remote",
        "ls-tree",
        "mailinfo",
        "mailsplit",
        "maintenance",
        "merge",
        "merge-base",
        "merge-file",
        "merge-index",
        "merge-tree",
        "mktag",
        "mktree",
        "multi-pack-index",
        "mv",
        "name-rev",
        "notes",
        "pack-objects",
        "pack-refs",
        "prune",
        "prune-packed",
        "pull",
        "push",
        "range-diff",
        "read-tree",
        "rebase",
        "receive-pack",
        "reflog",
        "remote",
        "repack",
        "replace",
        "request-pull",
        "rerere",
        "reset",
        "restore",
        "rev-list",
        "rev-parse",
        "revert",
        "rm",
        "send-email",
        "send-pack",
        "shortlog",
        "show",
        "show-branch",
        "show-ref",
        "sparse-checkout",
        "stash",
        "status",
        "stripspace",
        "submodule",
        "switch",
        "symbolic-ref",
        "tag",
        "unpack-file",
        "unpack-objects",
        "update-index",
        "update-ref",
        "update-server-info",
        "upload-archive",
        "upload-pack",
        "var",
        "verify-commit",
        "verify-pack",
        "verify-tag",
        "version",
        "whatchanged",
        "worktree",
        "write-tree",
    ]
)


@dataclass(frozen=True, slots=True)
class Invocation:
    """One program a command runs.

    ``program``: its name (``rm``; ``git push`` for a git subcommand; ``""`` when opaque);
    ``arguments``: the words after it, quote-removed; ``parsed``: its options and operands
    read by :func:`~.options.parse_options`; ``assignments``: variable names set for it;
    ``via``: the wrappers and runners it was reached through; ``opaque``: why the program
    cannot be known (``None`` when it can); ``uncertain``: why what it does may differ from
    its words (``None`` when it cannot); ``code``: the texts it runs as code that is not
    read here (an interpreter's inline program, a here-string it reads as its program),
    searched for the commands they name (:mod:`.embedded`).
    """

    program: str
    arguments: tuple[str, ...]
    parsed: Parsed
    assignments: tuple[str, ...] = ()
    via: tuple[str, ...] = ()
    opaque: str | None = None
    uncertain: str | None = None
    open: bool = False
    files: tuple[str, ...] = ()
    code: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The program without its subcommand (``git`` for ``git push``)."""
        return self.program.split(" ", 1)[0]


def _opaque(why: str, via: tuple[str, ...], word: str = "") -> Invocation:
    return Invocation("", (word,) if word else (), Parsed((), ()), via=via, opaque=why)


def _strip_redirections(argv: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """The words without redirections, and the files the redirections name."""
    out: list[str] = []
    files: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
            files.append(word)
            continue
        if _REDIRECT_ONLY.fullmatch(word):
            skip = True
            continue
        found = _REDIRECT.match(word)
        if found is not None and not word.startswith(("-", "+")):
            files.append(word[found.end() :])
            continue
        out.append(word)
    return out, tuple(files)


def _skip_wrapper_options(name: str, argv: list[str], i: int) -> tuple[int, list[str], str | None]:
    """Past the wrapper ``name``'s options from ``i``: the index of its command, extra words
    to read as a command (``env -S``), and why it is opaque (an option not understood)."""
    flags, values, long_values, operands = _WRAPPERS[name]
    extra: list[str] = []
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word == "-" and name == "env":
            i += 1
            continue
        if name == "nice" and re.fullmatch(r"-[0-9]+", word):
            i += 1
            continue
        if word.startswith("--") and len(word) > 2:
            option, eq, value = word[2:].partition("=")
            full = [o for o in long_values if o.startswith(option)]
            if name == "xargs" and any(o.startswith(option) for o in _XARGS_LONG_FLAGS):
                i += 1
                continue
            if not full:
                if name in ("timeout", "env", "watch", "time") and option.isalpha():
                    i += 1  # a flag of their own (--preserve-status, --ignore-environment)
                    continue
                return i, extra, f"{name} option {word} not understood"
            if name == "env" and "split-string".startswith(option):
                extra = words(value if eq else (argv[i + 1] if i + 1 < len(argv) else ""))
            i += 1 if eq or (name == "xargs" and option in ("replace", "eof")) else 2
            continue
        if word.startswith("-") and len(word) > 1:
            j = 1
            while j < len(word):
                letter = word[j]
                j += 1
                if letter in values:
                    value = word[j:]
                    if not value:
                        i += 1
                        value = argv[i] if i < len(argv) else ""
                    if name == "env" and letter == "S":
                        extra = words(value)
                    break
                if letter not in flags:
                    return i, extra, f"{name} option -{letter} not understood"
            i += 1
            continue
        break
    if name == "env":
        while i < len(argv) and _ASSIGNMENT.match(argv[i]):
            i += 1
    return i + operands, extra, None


def _git(
    argv: list[str],
    i: int,
    via: tuple[str, ...],
    assignments: tuple[str, ...],
    files: tuple[str, ...],
) -> Invocation:
    uncertain: str | None = None
    if any(a.startswith("GIT_CONFIG") or a == "GIT_DIR" for a in assignments):
        uncertain = "git configuration set in the environment"
    while i < len(argv) and argv[i].startswith("-"):
        word = argv[i]
        option = word.split("=", 1)[0]
        if option in ("-c", "--config-env") or word.startswith("-c"):
            uncertain = "git configuration given on the command line"
        if word in ("-c", "-C") or (option in _GIT_GLOBAL_VALUES and "=" not in word):
            i += 2
        elif (
            option in _GIT_GLOBAL_VALUES
            or word.startswith(("-C", "-c"))
            or word in _GIT_GLOBAL_FLAGS
        ):
            i += 1
        else:
            return _opaque(f"git global option {word} not understood", via, "git")
    if i >= len(argv):
        return Invocation("git", (), Parsed((), ()), assignments, via, files=files)
    sub = argv[i]
    if sub not in _GIT_COMMANDS:
        uncertain = uncertain or f"git {sub} may be an alias"
    program = f"git {sub}"
    arguments = tuple(argv[i + 1 :])
    parsed = parse_options(arguments, table_for(program))
    if sub in ("push", "send-pack", "http-push") and any(
        op.startswith("+") for op in parsed.operands
    ):
        parsed = Parsed((*parsed.options, ("force", "+refspec")), parsed.operands, parsed.unknown)
    if "stdin" in parsed.names:  # git send-pack --stdin: the refs, + or not, come from input
        uncertain = uncertain or f"git {sub} reads what it updates from its input"
    return Invocation(
        program, arguments, parsed, assignments, via, uncertain=uncertain, files=files
    )


def _through(via: tuple[str, ...], name: str) -> tuple[str, ...]:
    """``via`` with the wrapper ``name`` added: the first :data:`_VIA_SHOWN` wrappers are
    kept, so a chain of thousands (``nice nice ...``) is read in time linear in its length."""
    return (*via, name) if len(via) < _VIA_SHOWN else via


def _simple(argv: list[str], via: tuple[str, ...], depth: int) -> list[Invocation]:
    """The invocations of one simple command's words."""
    spend(len(argv) + 1)
    if depth > _MAX_DEPTH:
        return [_opaque("commands nested too deep to read", via)]
    argv, files = _strip_redirections(argv)
    assignments: list[str] = []
    i = 0
    while i < len(argv) and _ASSIGNMENT.match(argv[i]):
        assignments.append(argv[i].split("=", 1)[0].rstrip("+"))
        i += 1
    found: list[Invocation] = []
    while i < len(argv):
        word = argv[i]
        if word in _PLAIN_PREFIXES:
            i += 1
            if word == "function" or (
                word == "coproc" and i + 1 < len(argv) and argv[i + 1] in ("{", "((", "[[")
            ):
                i += 1  # the function's or the coprocess's name
            continue
        if _ASSIGNMENT.match(word):  # after a keyword: { X=1 git push; }
            assignments.append(word.split("=", 1)[0].rstrip("+"))
            i += 1
            continue
        if _UNKNOWABLE.search(word):
            shown = word.replace(_SUBSTITUTED, "$(...)")
            return [*found, _opaque(f"the command word {shown!r} is only known when it runs", via)]
        name = word.rsplit("/", 1)[-1]
        if name == "eval":
            return found + _text(" ".join(argv[i + 1 :]), (*via, name), depth + 1)
        builtin = _builtin(name, argv[i + 1 :], via, depth) if name in _BUILTINS_READ else None
        if builtin is not None:
            return found + builtin
        if name in _OPAQUE_RUNNERS and i + 1 < len(argv):
            reason = f"{name} runs a command its options are not read for"
            kept = tuple(argv[i + 1 :])  # a deny rule finds its command among them
            return [*found, Invocation(name, kept, Parsed((), kept), (), via, opaque=reason)]
        runner = _SUBCOMMAND_RUNNERS.get(name)
        if runner is not None and ("" in runner or (i + 1 < len(argv) and argv[i + 1] in runner)):
            start = i + (1 if "" in runner else 2)  # the command it runs, read as one
            if start >= len(argv) or argv[start].startswith("-"):
                reason = f"{name} runs a command given after options not read here"
                return [*found, _opaque(reason, via)]
            via, i = _through(via, " ".join(argv[i:start])), start
            continue
        if name in _SHELLS and name != "busybox":
            return found + _shell(argv, i, name, via, depth, files)
        if name in ("su", "runuser", "script"):  # run their -c text through a shell
            rest = argv[i + 1 :]
            for k, option in enumerate(rest):
                text = _command_option(option, rest[k + 1 : k + 2])
                if text is not None:
                    return found + _text(text, (*via, name), depth + 1)
            return [*found, _opaque(f"{name} runs a shell whose commands are not given", via)]
        if name == "watch":
            start, _, why = _skip_wrapper_options(name, argv, i + 1)
            if why is not None:
                return [*found, _opaque(why, (*via, name))]
            return found + _text(" ".join(argv[start:]), (*via, name), depth + 1)
        if name in _WRAPPERS:
            start, extra, why = _skip_wrapper_options(name, argv, i + 1)
            if why is not None:
                return [*found, _opaque(why, (*via, name))]
            if name == "command" and any(w in ("-v", "-V") for w in argv[i + 1 : start]):
                return found
            if name == "xargs":
                inner = _simple(argv[start:] or ["echo"], (*via, name), depth + 1)
                return found + [_open(invocation) for invocation in inner]
            if extra:
                found += _simple(extra + argv[start:], (*via, name), depth)
                return found
            while start < len(argv) and name == "env" and _ASSIGNMENT.match(argv[start]):
                assignments.append(argv[start].split("=", 1)[0])
                start += 1
            via, i = _through(via, name), start
            continue
        if name == "parallel":
            rest = argv[i + 1 :]
            end = next((k for k, w in enumerate(rest) if w in (":::", "::::", ":::+")), len(rest))
            command = [w for w in rest[:end] if not w.startswith("-")]
            inner = _text(" ".join(command), (*via, name), depth + 1) if command else []
            return found + [_open(invocation) for invocation in inner]
        if name == "git":
            return [*found, _git(argv, i + 1, via, tuple(assignments), files)]
        if name.startswith("git-") and name[4:] in _GIT_COMMANDS:  # /usr/lib/git-core/git-push
            dashed = [*argv[:i], "git", name[4:], *argv[i + 1 :]]
            return [*found, _git(dashed, i + 1, via, tuple(assignments), files)]
        arguments = tuple(argv[i + 1 :])
        code = runs_code(name, arguments)
        if code is not None:  # its program is unknown; the texts it runs are kept
            read = Parsed((), arguments)
            body = (*arguments, *files)
            return [*found, Invocation(name, arguments, read, (), via, opaque=code, code=body)]
        parsed = (
            Parsed((), arguments) if name == "find" else parse_options(arguments, table_for(name))
        )
        found.append(Invocation(name, arguments, parsed, tuple(assignments), via, files=files))
        if name == "find":
            found += _find(arguments, (*via, name), depth)
        return found
    return found


def _command_option(option: str, following: list[str]) -> str | None:
    """The command text ``option`` gives ``su``/``runuser``/``script``: ``--command=TEXT``,
    ``-c TEXT``, bundled (``-qc TEXT``, ``-lcTEXT``); ``None`` when it gives none."""
    if option in ("--command", "--session-command") or option.startswith(
        ("--command=", "--session-command=")
    ):
        _, eq, value = option.partition("=")
        return value if eq else (following[0] if following else "")
    if option.startswith("-") and not option.startswith("--") and "c" in option[1:]:
        value = option[option.index("c", 1) + 1 :]
        return value or (following[0] if following else "")
    return None


def _builtin(
    name: str, rest: list[str], via: tuple[str, ...], depth: int
) -> list[Invocation] | None:
    """A builtin that runs text as commands: ``trap`` (its action is read as a command),
    ``alias`` (a definition is read as a command, and makes later words anything), the ones
    that read a file or bind code (``source``, ``.``, ``bind -x``, ``enable -f``,
    ``complete -C``, ``fc``), ``mapfile -C``; ``None`` for any other program."""
    if name == "trap":
        actions = [w for w in rest if not w.startswith("-")][:1]
        return _text(actions[0], (*via, name), depth + 1) if actions else []
    if name == "alias":
        definitions = [w.split("=", 1)[1] for w in rest if "=" in w]
        found: list[Invocation] = []
        for text in definitions:
            found += _text(text, (*via, name), depth + 1)
        if definitions:
            found.append(_opaque("an alias makes later command words run anything", via))
        return found
    if name in ("mapfile", "readarray") and any(w.startswith("-") and "C" in w for w in rest):
        return [_opaque(f"{name} -C runs a callback given as text", via)]
    if name in _CODE_BUILTINS and (rest or name in ("source", ".")):
        return [_opaque(f"{name} runs commands from a file or text it is given", via)]
    return None


def _open(invocation: Invocation) -> Invocation:
    """``invocation`` with more arguments to come from input, which may be options."""
    return Invocation(
        invocation.program,
        invocation.arguments,
        invocation.parsed,
        invocation.assignments,
        invocation.via,
        invocation.opaque,
        invocation.uncertain or "it takes more arguments from its input",
        open=True,
        files=invocation.files,
        code=invocation.code,
    )


def _find(arguments: tuple[str, ...], via: tuple[str, ...], depth: int) -> list[Invocation]:
    """What ``find`` runs: its ``-exec`` commands, and ``-delete`` read as ``rm -r -f``."""
    found: list[Invocation] = []
    starts = []
    for word in arguments:
        if word.startswith(("-", "(", "!", ")")):
            break
        starts.append(word)
    k = 0
    while k < len(arguments):
        word = arguments[k]
        if word in _FIND_RUN:
            end = k + 1
            while end < len(arguments) and arguments[end] not in (";", "+"):
                end += 1
            command = [w if w != "{}" else "./found" for w in arguments[k + 1 : end]]
            found += _simple(command, via, depth + 1) if command else []
            k = end + 1
            continue
        if word == "-delete":
            rm_args = ("-r", "-f", "--", *starts)
            found.append(
                Invocation("rm", rm_args, parse_options(rm_args, table_for("rm")), (), via)
            )
        k += 1
    return found


def _shell(
    argv: list[str],
    i: int,
    name: str,
    via: tuple[str, ...],
    depth: int,
    files: tuple[str, ...] = (),
) -> list[Invocation]:
    """A shell: with ``-c`` (alone or bundled, ``-ec``) its text is read as a command; a shell
    reading a script file or its input runs what cannot be known from the text."""
    k = i + 1
    command_mode = False
    while k < len(argv) and argv[k][:1] in ("-", "+"):
        word = argv[k]
        k += 1
        if word in ("-", "--"):  # the end of the options: the command text follows
            break
        if word in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            k += 1
        elif not word.startswith("--") and "c" in word[1:]:
            command_mode = True
    if command_mode and k < len(argv):
        return _text(argv[k], (*via, name), depth + 1)
    why = f"{name} runs commands from a file or its input"
    body = (*argv[k:], *files)  # its script's name and arguments, and what it reads
    return [Invocation("", (), Parsed((), ()), (), (*via, name), opaque=why, code=body)]


def _substitutions(text: str) -> tuple[str, list[str]]:
    """``text`` with each command, process or arithmetic substitution (``$(...)``, backticks,
    ``<(...)``, ``>(...)``, ``$((...))``) replaced by one unknowable word, and the texts
    they run."""
    if "`" not in text and "(" not in text:
        return text, []
    out: list[str] = []
    inner: list[str] = []
    i, size = 0, len(text)
    quote = ""
    escaped = -1
    while i < size:
        char = text[i]
        if quote == "'":
            out.append(char)
            quote = "" if char == "'" else quote
            i += 1
            continue
        if char == "\\":
            out.append(text[i : i + 2])
            escaped = i + 1
            i += 2
            continue
        if not quote and comment_at(text, i, escaped):  # nothing in a comment runs
            end = comment_end(text, i)
            out.append(text[i:end])
            i = end
            continue
        if char == "'" and not quote:
            quote = "'"
            out.append(char)
            i += 1
            continue
        if char == '"':
            quote = "" if quote == '"' else '"'
            out.append(char)
            i += 1
            continue
        opening = text[i : i + 2]
        if opening in ("$(", "<(", ">(") and not (quote and opening != "$("):
            end = _closing(text, i + 2)
            body = text[i + 2 : end]
            if body.startswith("(") and body.endswith(")"):
                body = body[1:-1]
            inner.append(body)
            out.append(("" if opening == "$(" else opening[0] + " ") + _SUBSTITUTED)
            i = end + 1
            continue
        if char == "`":
            end = text.find("`", i + 1)
            end = size if end < 0 else end
            inner.append(text[i + 1 : end])
            out.append(_SUBSTITUTED)
            i = end + 1
            continue
        out.append(char)
        i += 1
    return "".join(out), inner


def _closing(text: str, start: int) -> int:
    """The index of the ``)`` closing a parenthesis opened before ``start`` (or the end)."""
    depth, i, size = 1, start, len(text)
    quote = ""
    escaped = -1
    while i < size:
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char == "\\":
            escaped = i + 1
            i += 2
            continue
        elif comment_at(text, i, escaped):
            i = comment_end(text, i)
            continue
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return size


def _text(text: str, via: tuple[str, ...], depth: int) -> list[Invocation]:
    if depth > _MAX_DEPTH:
        return [_opaque("commands nested too deep to read", via)]
    spend(1 + len(text) // STEP_CHARS)
    text = _bash_input(text)
    outer, inner = _substitutions(text)
    found: list[Invocation] = []
    arithmetic = evaluated_variable(text)
    if arithmetic is not None:
        shown = arithmetic[:60]
        found.append(_opaque(f"the arithmetic {shown!r} evaluates a variable's value", via))
    for body in inner:
        found += _text(body, (*via, "$(...)"), depth + 1)
    for segment in scan_command(outer).segments:
        spend()
        found += _simple(words(segment), via, depth)
    return found


_RUNNERS: Final = frozenset(
    {*_WRAPPERS, *_SHELLS, *_OPAQUE_RUNNERS, *_SUBCOMMAND_RUNNERS, *_CODE_BUILTINS, "eval",
     "find", "xargs", "watch", "parallel", "su", "runuser", "script", "trap", "alias"}
)  # fmt: skip


def runs_commands(name: str) -> bool:
    """Whether the program ``name`` may run another program its arguments name (a wrapper, a
    shell, ``find``, ``xargs``, an interpreter, git ...), as read here."""
    if name in _RUNNERS or name == "git" or name.startswith("git-"):
        return True
    return runs_code(name, ["-"]) is not None


def invocations(command: str) -> tuple[Invocation, ...]:
    """Every program ``command`` runs (see the module docstring)."""
    return tuple(_text(command, (), 0))
