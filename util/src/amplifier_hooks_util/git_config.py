"""Git that the product runs, or that runs under a hook it starts, never runs a program the
project's own git configuration names.

A repository's configuration (``.git/config``, ``config.worktree`` and every file they pull in
through ``include.path`` / ``includeIf``, a tracked ``.gitconfig`` among them) can make an
ordinary ``git status`` or ``git commit`` run a program of the project's choosing:
``core.fsmonitor``, the hooks of ``core.hooksPath`` (or of ``.git/hooks``), ``core.sshCommand``,
``core.pager`` and ``pager.<command>``, ``diff.external``, the diff, merge and filter drivers
the attributes name, credential helpers, ``gpg.program`` and more (:data:`PROGRAM_KEYS`). The
project may be a clone nobody vetted, and a sandboxed hook may write ``.git/config``; so none
of it is obeyed.

The mechanism is git's own highest-precedence configuration: ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_<n>`` / ``GIT_CONFIG_VALUE_<n>`` in the environment, which every git
process (and every git it starts) reads after the system, global, repository and included
files, as if each pair were given with ``-c``. :func:`git_environment` reads the repository's
effective configuration once (``git config --list --show-scope --includes``: the same files,
includes followed, that the git commands after it will read) and, for every key that names a
program (:func:`program_key`), sets the value the *user's* configuration gives it (system,
global, or the user's own ``GIT_CONFIG_*`` variables) or, when the user set none, a neutral
value (:data:`PROGRAM_KEYS`: ``core.fsmonitor=false``, an empty filter, ``core.hooksPath=
/dev/null``...). Three keys are set whatever the repository holds: ``core.fsmonitor``,
``core.hooksPath`` (the repository's ``.git/hooks`` is the project's too) and
``protocol.ext.allow=never``. A driver the project configured and the user did not is empty:
an empty filter does nothing, an empty ``textconv``, diff or merge command makes git fail
("cannot run"), never run the project's program.

The listing is kept per working directory and reused while the files it came from are the
same: every file an entry came from, every ``include.path`` / ``includeIf`` target (present
or not yet), the user's global and system files and the ``.git`` of the working directory and
each directory above it (whether it is there), each file by its ``stat`` (inode, size,
modification and change time). A listing is not kept when one of those files changed within
the last :data:`RACY_NS` (a write in the same clock tick could leave its ``stat`` unchanged),
nor one with an ``includeIf "onbranch:..."`` (it follows ``HEAD``), nor one under
``GIT_DIR``-style variables or in a linked worktree.

Limits: a key set by the project *after* the environment was built (a hook that pulls a new
``.gitconfig`` and then runs ``git diff`` in the same run) is covered only if it is one of the
three always set; git run in another repository than the working directory the environment
was built for is covered the same way; environment variables (``GIT_SSH_COMMAND``,
``GIT_EXTERNAL_DIFF``...) are the user's and are left alone.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "ALWAYS",
    "PINNED",
    "PROGRAM_KEYS",
    "USER_SCOPES",
    "GitOverrides",
    "git_environment",
    "git_environment_async",
    "overrides_from_listing",
    "program_key",
    "with_overrides",
]

PROGRAM_KEYS: Final[tuple[tuple[str, str], ...]] = (
    # (regular expression on the lower-cased key, neutral value)
    (r"core\.fsmonitor", "false"),
    (r"core\.hookspath", "/dev/null"),
    (r"core\.sshcommand", "ssh"),
    (r"core\.pager", "cat"),
    (r"pager\..+", "false"),
    (r"core\.editor", ":"),
    (r"sequence\.editor", ":"),
    (r"core\.askpass", ""),
    (r"core\.alternaterefscommand", ""),
    (r"diff\.external", ""),
    (r"diff\..+\.(?:command|textconv)", ""),
    (r"merge\..+\.driver", ""),
    (r"filter\..+\.(?:clean|smudge|process)", ""),
    (r"(?:diff|merge)tool\..+\.(?:cmd|path)", ""),
    (r"credential\.(?:.+\.)?helper", ""),
    (r"gpg\.program", "gpg"),
    (r"gpg\.x509\.program", "gpgsm"),
    (r"gpg\.ssh\.program", "ssh-keygen"),
    (r"gpg\..+\.program", "gpg"),
    (r"gpg\.ssh\.defaultkeycommand", ""),
    (r"remote\..+\.(?:uploadpack|receivepack)", ""),
    (r"remote\..+\.vcs", ""),
    (r"interactive\.difffilter", ""),
    (r"trailer\..+\.(?:command|cmd)", ""),
    (r"sendemail\.(?:.+\.)?(?:smtpserver|tocmd|cccmd|headercmd|sendmailcmd)", ""),
    (r"web\.browser", ""),
    (r"help\.browser", ""),
    (r"man\.viewer", ""),
    (r"(?:browser|man)\..+\.(?:cmd|path)", ""),
    (r"hook\..+\.command", ":"),
    (r"imap\.tunnel", ""),
    (r"instaweb\.(?:httpd|browser)", ""),
    (r"guitool\..+\.cmd", ""),
    (r"core\.gitproxy", ""),
    (r"alias\..+", ""),
    (r"submodule\..+\.update", "none"),
    (r"tar\..+\.command", "gzip -cn"),
)
"""Keys whose value git runs as a program, or which make git run one, each with the value that
runs nothing of the project's: from git-config(1) of git 2.39 (every entry whose text says it
runs a command, program, helper, tool, tunnel or shell), git-interpret-trailers(1)
(``trailer.<token>.command``/``cmd``), git-send-email(1), git-archive(1)
(``tar.<format>.command``) and git 2.5x's config hooks (``hook.<name>.command``).
``uploadpack.packObjectsHook`` is left out: git reads it from the user's (protected)
configuration only. ``alias.*`` and ``submodule.*.update`` only when the value starts with
``!`` (a shell command)."""

ALWAYS: Final[tuple[tuple[str, str], ...]] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("protocol.ext.allow", "never"),
)
"""Set whatever the repository's configuration holds (or the user's value when it has one):
the repository's ``.git/hooks``, an fsmonitor or an ``ext::`` URL can run a program without
any key of the project's being listed first."""

PINNED: Final[tuple[tuple[str, str], ...]] = (
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("gpg.program", "gpg"),
    ("gpg.openpgp.program", "gpg"),
    ("gpg.x509.program", "gpgsm"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("tar.tgz.command", "gzip -cn"),
    ("tar.tar.gz.command", "gzip -cn"),
)
"""Keys of a fixed name set, once the configuration has been listed, whatever the repository
holds: to the user's value, else to git's own default behaviour. So a key of these the project
gains *after* the listing (a hook's ``git pull`` brings a new included ``.gitconfig``), or holds
in another repository a hook's git reaches (``git -C vendor/lib``, a submodule), changes
nothing. ``core.sshCommand`` joins them when the environment names no ``GIT_SSH`` (which the
key would override). Keys whose neutral value would change what git does (``diff.external``,
whose empty value makes every ``git diff`` fail) stay overridden only where listed."""

USER_SCOPES: Final = frozenset({"system", "global", "command"})
"""Scopes of configuration the user controls; ``local`` and ``worktree`` (and what they
include) are the project's."""

_MULTI: Final = re.compile(r"credential\.(?:.+\.)?helper")  # a list, reset by an empty value
_FIRST_WINS: Final = re.compile(r"remote\..+\.(?:uploadpack|receivepack)")
_SHELL_ONLY: Final = re.compile(r"(?:alias\..+|submodule\..+\.update)")
_COMPILED: Final = tuple((re.compile(p), neutral) for p, neutral in PROGRAM_KEYS)
_TIMEOUT: Final = 5.0
RACY_NS: Final = 2_000_000_000
"""A file changed this recently (nanoseconds) keeps its listing out of the cache."""
_CACHE_SIZE: Final = 64
_Stamp = tuple[int, int, int, int] | None
_CACHE: OrderedDict[tuple[object, ...], tuple[tuple[str, ...], tuple[_Stamp, ...], bytes]] = (
    OrderedDict()
)
_PRESENCE: Final = "\0"  # a watched path whose presence and kind only count
_LOCATION_VARIABLES: Final = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


def program_key(key: str, value: str = "!") -> str | None:
    """The neutral value of ``key`` when it names a program git runs (:data:`PROGRAM_KEYS`),
    else ``None``. ``value``: the key's value, for the keys that run a program only when it
    starts with ``!``."""
    lowered = _lower_key(key)
    for pattern, neutral in _COMPILED:
        if pattern.fullmatch(lowered):
            if _SHELL_ONLY.fullmatch(lowered) and not value.startswith("!"):
                return None
            return neutral
    return None


def _lower_key(key: str) -> str:
    """Section and variable names are case-insensitive, a subsection is not: for matching
    patterns the whole key is lower-cased (no pattern tells subsections apart by case)."""
    return key.lower()


@dataclass(frozen=True, slots=True)
class GitOverrides:
    """What :func:`git_environment` sets: ``pairs`` (key, value) in order, and ``neutralised``:
    the project's keys that named a program (``key`` and the file it came from, where git
    said)."""

    pairs: tuple[tuple[str, str], ...]
    neutralised: tuple[tuple[str, str], ...] = ()


def overrides_from_listing(
    raw: bytes,
    *,
    origins: bool = False,
    pinned: Sequence[tuple[str, str]] = PINNED,
    project_dir: str | os.PathLike[str] | None = None,
) -> GitOverrides:
    """The overrides for one repository from ``git config --list --show-scope --includes -z``
    (with ``origins``: ``--show-origin`` too), as :func:`git_environment` sets them; the keys
    of ``pinned`` (:data:`PINNED`) are set whatever the listing holds. An entry of a user's
    scope read from a file inside ``project_dir`` (a ``HOME`` or ``XDG_CONFIG_HOME`` that
    leads into the project makes its ``.gitconfig`` git's *global* file) is the project's:
    who controls a file is where it lies, not what git calls it."""
    inside = _inside_test(project_dir)
    user: dict[str, list[tuple[str, str]]] = {}  # lower-cased key -> [(key, value)] in order
    project: dict[str, tuple[str, str, str]] = {}  # lower-cased key -> (key, value, origin)
    fields = raw.split(b"\0")
    step = 3 if origins else 2
    for index in range(0, len(fields) - step + 1, step):
        scope = fields[index].decode("utf-8", "replace")
        origin = fields[index + 1].decode("utf-8", "replace") if origins else ""
        entry = fields[index + step - 1].decode("utf-8", "surrogateescape")
        key, _, value = entry.partition("\n")
        if not key:
            continue
        lowered = _lower_key(key)
        if scope in USER_SCOPES and not inside(origin):
            user.setdefault(lowered, []).append((key, value))
        elif program_key(key, value) is not None or _MULTI.fullmatch(lowered):
            project[lowered] = (key, value, origin)
    pairs: list[tuple[str, str]] = []
    neutralised: list[tuple[str, str]] = []
    done: set[str] = set()
    for key, neutral in (*ALWAYS, *pinned):
        lowered = _lower_key(key)
        done.add(lowered)
        pairs.append((key, _user_value(user.get(lowered), neutral, lowered)))
        if lowered in project:
            neutralised.append((project[lowered][0], project[lowered][2]))
    for lowered, (key, value, origin) in project.items():
        found = program_key(key, value)
        if lowered in done or found is None:
            continue
        neutral = found
        neutralised.append((key, origin))
        if _FIRST_WINS.fullmatch(lowered) or lowered == "core.gitproxy":
            pass  # a later value is ignored; the transport that would run it is refused below
        elif _MULTI.fullmatch(lowered):  # an empty value empties the list; the user's come back
            pairs.append((key, ""))
            pairs += [(key, v) for _, v in user.get(lowered, []) if v]
        else:
            pairs.append((key, _user_value(user.get(lowered), neutral, lowered)))
        if lowered == "core.gitproxy":  # a list whose first match wins: no git:// at all
            pairs.append(("protocol.git.allow", "never"))
        elif _FIRST_WINS.fullmatch(lowered):  # the first value wins: run on the remote side
            pairs.append(("protocol.file.allow", "never"))  # only; no local repository
    return GitOverrides(tuple(pairs), tuple(neutralised))


def _inside_test(project_dir: str | os.PathLike[str] | None) -> Callable[[str], bool]:
    """Whether a listing's origin (``file:PATH``) lies inside ``project_dir``."""
    if project_dir is None:
        return lambda origin: False
    top = os.path.realpath(project_dir).rstrip(os.sep) + os.sep

    def inside(origin: str) -> bool:
        if not origin.startswith("file:"):
            return False
        path = origin[len("file:") :]
        if not os.path.isabs(path):  # relative: git read it from the repository
            return True
        return (os.path.realpath(path) + os.sep).startswith(top)

    return inside


def _user_value(values: Sequence[tuple[str, str]] | None, neutral: str, lowered: str) -> str:
    if not values:
        return neutral
    value = values[-1][1]
    if lowered == "core.hookspath" and not os.path.isabs(os.path.expanduser(value)):
        return neutral  # relative: resolved inside the repository, the project's
    return value


def with_overrides(env: Mapping[str, str], pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``env`` with ``pairs`` appended to its ``GIT_CONFIG_COUNT`` entries (the user's own, if
    any, are kept before them; git applies them in order, so the later ones win)."""
    out = dict(env)
    try:
        count = int(out.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        count = 0
    count = max(count, 0)
    for key, value in pairs:
        out[f"GIT_CONFIG_KEY_{count}"] = key
        out[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    out["GIT_CONFIG_COUNT"] = str(count)
    return out


def _listing_command(git: str) -> list[str]:
    return [git, "config", "--list", "--show-scope", "--show-origin", "--includes", "-z"]


def _module_configs(cwd: str | os.PathLike[str]) -> list[Path]:
    """The configuration files of the submodules of the repository ``cwd`` lies in
    (``<git dir>/modules/**/config``, nested submodules included): a ``git status`` or
    ``git diff`` there runs git in each submodule, which reads its own configuration (the
    overrides of the environment reach it too, so the keys it names are overridden by name)."""
    modules = _modules_dir(cwd)
    return _module_walk(modules)[0] if modules is not None else []


def _module_walk(modules: Path) -> tuple[list[Path], list[Path]]:
    """The submodules' ``config`` files under ``modules`` and the directories that hold
    submodules (where a new one appears); nothing of a submodule's objects is walked."""
    configs: list[Path] = []
    holders: list[Path] = [modules]
    pending = [modules]
    while pending:
        holder = pending.pop()
        try:
            entries = sorted(holder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if not entry.is_dir() or entry.is_symlink():
                continue
            if (entry / "HEAD").is_file():  # a submodule's git directory
                if (entry / "config").is_file():
                    configs.append(entry / "config")
                if (entry / "modules").is_dir():
                    holders.append(entry / "modules")
                    pending.append(entry / "modules")
            else:  # a submodule named a/b: modules/a/b
                holders.append(entry)
                pending.append(entry)
    return configs, holders


def _modules_dir(cwd: str | os.PathLike[str]) -> Path | None:
    here = Path(os.path.realpath(cwd))
    for directory in (here, *here.parents):
        dot = directory / ".git"
        if dot.is_dir():
            gitdir = dot
        elif dot.is_file():
            try:
                line = dot.read_text(errors="replace").split("\n", 1)[0]
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            gitdir = Path(directory, line[len("gitdir:") :].strip())
        else:
            continue
        common = gitdir / "commondir"  # a linked worktree: its modules live in the common dir
        if common.is_file():
            try:
                gitdir = gitdir / common.read_text(errors="replace").strip()
            except OSError:
                return None
        modules = gitdir / "modules"
        return modules if modules.is_dir() else None
    return None


def _module_command(git: str, config: Path) -> list[str]:
    return [git, "config", "--file", str(config), "--list", "--show-origin", "--includes", "-z"]


def _as_project(raw: bytes) -> bytes:
    """A submodule's listing (``origin``, ``key\\nvalue`` fields) in the listing's form, in a
    scope of the project's."""
    fields = raw.split(b"\0")
    out = bytearray()
    for index in range(0, len(fields) - 1, 2):
        out += b"submodule\0" + fields[index] + b"\0" + fields[index + 1] + b"\0"
    return bytes(out)


def _listing_env(env: Mapping[str, str]) -> dict[str, str]:
    # ``git config`` runs no program of the configuration; it reads what the commands after
    # it will read (the user's own ``GIT_CONFIG_*`` entries show as the ``command`` scope)
    return {**env, "GIT_OPTIONAL_LOCKS": "0"}


def _cache_key(
    git: str, cwd: str | os.PathLike[str], env: Mapping[str, str]
) -> tuple[object, ...] | None:
    if any(env.get(name) for name in _LOCATION_VARIABLES):
        return None
    names = sorted(
        k
        for k in env
        if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME", "PATH", "USERPROFILE")
    )
    return (git, os.path.realpath(cwd), tuple((k, env[k]) for k in names))


def _entries(raw: bytes) -> list[tuple[str, str, str, str]]:
    fields = raw.split(b"\0")
    out: list[tuple[str, str, str, str]] = []
    for index in range(0, len(fields) - 2, 3):
        key, _, value = fields[index + 2].decode("utf-8", "surrogateescape").partition("\n")
        out.append(
            (fields[index].decode("utf-8", "replace"), fields[index + 1].decode(), key, value)
        )
    return out


def _watched(
    cwd: str | os.PathLike[str], env: Mapping[str, str], raw: bytes
) -> tuple[str, ...] | None:
    """The files a listing depends on (module docstring), or ``None`` when it cannot be kept."""
    here = Path(os.path.realpath(cwd))  # git discovers from the physical directory
    ancestors = [here, *here.parents]
    top = next((d for d in ancestors if os.path.lexists(d / ".git")), None)
    if top is not None and not (top / ".git").is_dir():
        return None  # a linked worktree or a gitfile: its configuration lives elsewhere
    paths = {_PRESENCE + str(d / ".git") for d in ancestors}  # which repository: presence only
    if top is not None:
        paths |= {str(top / ".git" / "config"), str(top / ".git" / "config.worktree")}
        modules = top / ".git" / "modules"  # a submodule added later: a new entry there
        paths.add(_PRESENCE + str(modules))
        if modules.is_dir():
            configs, holders = _module_walk(modules)
            paths |= {str(d) for d in holders} | {str(c) for c in configs}
    home = env.get("HOME", "")
    paths.add(env.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"))
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths.add(os.path.join(xdg, "git", "config"))
    paths.add(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    for _scope, origin, key, value in _entries(raw):
        if not origin.startswith("file:"):
            if origin.startswith("blob:"):
                return None
            continue
        source = origin[len("file:") :]
        if not os.path.isabs(source):  # git reads from the top of the work tree
            if top is None:
                return None
            source = str(top / source)
        source = os.path.normpath(source)
        paths.add(source)
        lowered = key.lower()
        if lowered == "include.path" or (
            lowered.startswith("includeif.") and lowered.endswith(".path")
        ):
            if "onbranch:" in lowered:
                return None
            target = os.path.expanduser(value)
            if not os.path.isabs(target):
                target = os.path.join(os.path.dirname(source), target)
            paths.add(os.path.normpath(target))
    return tuple(sorted(paths))


def _stamps(paths: Iterable[str]) -> tuple[_Stamp, ...] | None:
    """Each path's ``stat`` (through links), ``None`` for a missing one; ``None`` in all when
    one changed within :data:`RACY_NS`."""
    now = time.time_ns()
    out: list[_Stamp] = []
    for path in paths:
        if path.startswith(_PRESENCE):
            where = path[len(_PRESENCE) :]
            out.append((0, 0, int(os.path.isdir(where)), 0) if os.path.lexists(where) else None)
            continue
        try:
            info = os.stat(path)
        except OSError:
            out.append(None)
            continue
        if now - max(info.st_mtime_ns, info.st_ctime_ns) < RACY_NS:
            return None
        out.append((info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino))
    return tuple(out)


def _cached(key: tuple[object, ...] | None) -> bytes | None:
    if key is None:
        return None
    try:
        paths, stamps, raw = _CACHE[key]
        if _stamps(paths) != stamps:
            del _CACHE[key]
            return None
        _CACHE.move_to_end(key)
    except KeyError:  # another thread dropped it meanwhile
        return None
    return raw


def _keep(
    key: tuple[object, ...] | None,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    raw: bytes,
) -> None:
    if key is None:
        return
    paths = _watched(cwd, env, raw)
    stamps = _stamps(paths) if paths is not None else None
    if paths is None or stamps is None:
        return
    _CACHE[key] = (paths, stamps, raw)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)


def _work_tree(cwd: str | os.PathLike[str] | None) -> str | None:
    """The top of the work tree ``cwd`` lies in (the nearest directory with a ``.git``), else
    ``cwd`` itself: what the project controls."""
    if cwd is None:
        return None
    here = Path(os.path.realpath(cwd))
    top = next((d for d in (here, *here.parents) if os.path.lexists(d / ".git")), here)
    return str(top)


def _pinned(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    if env.get("GIT_SSH"):  # core.sshCommand would override the user's GIT_SSH
        return PINNED
    return (*PINNED, ("core.sshCommand", "ssh"))


def _finish(
    env: Mapping[str, str], raw: bytes | None, cwd: str | os.PathLike[str] | None = None
) -> tuple[dict[str, str], GitOverrides]:
    overrides = (
        overrides_from_listing(raw, origins=True, pinned=_pinned(env), project_dir=_work_tree(cwd))
        if raw is not None
        else GitOverrides(ALWAYS)
    )
    return with_overrides(env, overrides.pairs), overrides


def _in_repository(cwd: str | os.PathLike[str], env: Mapping[str, str]) -> bool:
    """Whether git in ``cwd`` may find a repository (a ``.git`` in it or above, or
    ``GIT_DIR``): without one there is no repository configuration to list."""
    if env.get("GIT_DIR"):
        return True
    here = Path(os.path.realpath(cwd))
    return any(os.path.lexists(d / ".git") for d in (here, *here.parents))


_Answer = tuple[dict[str, str], GitOverrides]


def _without_listing(
    env: Mapping[str, str], cwd: str | os.PathLike[str], git: str
) -> tuple[tuple[object, ...] | None, _Answer | None]:
    """The cache key for ``cwd``'s listing, and the answer when no listing has to run:
    outside any repository, or with a kept listing whose files are unchanged."""
    if not _in_repository(cwd, env):
        return None, _finish(env, None)
    key = _cache_key(git, cwd, env)
    raw = _cached(key)
    return key, (_finish(env, raw, cwd) if raw is not None else None)


def _from_listing(
    key: tuple[object, ...] | None,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    raw: bytes | None,
) -> _Answer:
    """The answer from the listing git gave (``None``: git did not give one), kept under
    ``key`` for the next call."""
    if raw is None:
        return _finish(env, None)
    _keep(key, cwd, env, raw)
    return _finish(env, raw, cwd)


def _list(git: str, cwd: str | os.PathLike[str], env: Mapping[str, str]) -> bytes | None:
    """The repository's configuration listed by git, ``None`` when git fails."""
    raw = _listed(_listing_command(git), cwd, env)
    if raw is None:
        return None
    for config in _module_configs(cwd):
        module = _listed(_module_command(git, config), cwd, env)
        if module is None:
            return None
        raw += _as_project(module)
    return raw


def _listed(
    command: list[str], cwd: str | os.PathLike[str], env: Mapping[str, str]
) -> bytes | None:
    """What one listing ``command`` prints, ``None`` when it cannot run or fails."""
    try:
        done = subprocess.run(
            command,
            cwd=Path(cwd),
            env=_listing_env(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


async def _list_async(
    git: str, cwd: str | os.PathLike[str], env: Mapping[str, str]
) -> bytes | None:
    """:func:`_list` without blocking the event loop."""
    raw = await _run_async(_listing_command(git), cwd, env)
    if raw is None:
        return None
    for config in _module_configs(cwd):
        module = await _run_async(_module_command(git, config), cwd, env)
        if module is None:
            return None
        raw += _as_project(module)
    return raw


async def _run_async(
    command: Sequence[str], cwd: str | os.PathLike[str], env: Mapping[str, str]
) -> bytes | None:
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=Path(cwd),
            env=_listing_env(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        stdout, _ = await asyncio.wait_for(process.communicate(), _TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    return stdout if process.returncode == 0 else None


def git_environment(
    env: Mapping[str, str],
    cwd: str | os.PathLike[str],
    *,
    git: str = "git",
) -> tuple[dict[str, str], GitOverrides]:
    """``env`` for a process that may run git in ``cwd``: the overrides of the module docstring
    added. When git cannot list the configuration (not installed, a broken config file), only
    :data:`ALWAYS` is set (git commands then fail on the broken file the same way); outside
    any repository, too (nothing of a project's to list)."""
    key, known = _without_listing(env, cwd, git)
    if known is not None:
        return known
    return _from_listing(key, cwd, env, _list(git, cwd, env))


async def git_environment_async(
    env: Mapping[str, str],
    cwd: str | os.PathLike[str],
    *,
    git: str = "git",
) -> tuple[dict[str, str], GitOverrides]:
    """:func:`git_environment` without blocking the event loop."""
    key, known = _without_listing(env, cwd, git)
    if known is not None:
        return known
    return _from_listing(key, cwd, env, await _list_async(git, cwd, env))
