"""Which projects may run the hooks they bring.

A repository can carry hook files (``.claude/settings.json``, ``.amplifier/hooks.yaml``,
``.amplifier/hooks/<name>/hooks.json``, ``.gemini/settings.json``, ``.cursor/hooks.json``) whose
commands would run with the user's rights the moment a session starts in it. They run only in a
project the user trusts, the way Claude Code asks before it runs a folder's hooks:

* ``amplifier-hooks trust PATH`` (:func:`trust_project`) records the project in
  ``$AMPLIFIER_HOME/trusted-projects.json`` with the SHA-256 of each of its hook files, of every
  file under its hook directories (``.claude/hooks``, ``.amplifier/hooks``, ``.gemini/hooks``,
  ``.cursor/hooks``) and of every file of the project a hook file names by its path (the
  scripts its commands run, also when an interpreter is given one without a script suffix, or
  ``-m`` a module with its packages, from the project or a directory the file names). A file
  changed, added or removed since makes the project untrusted again until it is trusted
  anew. Links to directories are followed; a FIFO or a device is recorded as such, never
  read. A project with more than 2,000 such files cannot be trusted: a record that left some
  out would not notice them change.
* What a bundle runs hooks from inside the project (a Claude Code plugin kept in the
  checkout, ``plugins: [plugins/guard]``, even when it links elsewhere) is project content too:
  ``amplifier-hooks trust PATH --include plugins/guard`` adds it and every file under it to the
  record, with the scripts its hooks files name (``${CLAUDE_PLUGIN_ROOT}`` read as each
  directory above the file, whichever is the plugin's), and later ``trust`` calls keep it. A
  session that runs hooks from there asks for it (``include``); the project counts as
  untrusted until the record covers it (an included directory covers what lies under it).
* ``AMPLIFIER_TRUST_PROJECT`` trusts without a record, for CI: ``1`` (or ``true``, ``yes``)
  trusts any project; a path (or several, separated by ``os.pathsep``) trusts those projects.

:func:`trust_status` says whether a project's hooks may run, and if not, why.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from .state import state_home

__all__ = [
    "PROJECT_HOOK_DIRS",
    "PROJECT_HOOK_FILES",
    "TRUST_ENV",
    "TRUST_FILE",
    "TooManyFiles",
    "TrustStatus",
    "fingerprint",
    "forget_project",
    "hook_files",
    "included_path",
    "trust_project",
    "trust_status",
    "trusted_projects",
]

PROJECT_HOOK_FILES: Final = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".amplifier/hooks.yaml",
    ".gemini/settings.json",
    ".cursor/hooks.json",
)
"""Files a project brings whose hooks run commands, relative to the project directory."""

PROJECT_HOOK_DIRS: Final = (".claude/hooks", ".amplifier/hooks", ".gemini/hooks", ".cursor/hooks")
"""Directories whose files (hook scripts, hook-shell's ``<name>/hooks.json``) are part of what
the user trusts."""

TRUST_ENV: Final = "AMPLIFIER_TRUST_PROJECT"
"""``1`` trusts every project; a path (or ``os.pathsep``-separated paths) trusts those."""

TRUST_FILE: Final = "trusted-projects.json"
"""The record of trusted projects, in the state home."""

_YES: Final = frozenset({"1", "true", "yes", "on"})
_MAX_FILES: Final = 2000
_PROJECT_VARIABLES: Final = re.compile(
    r"\$\{?(?:CLAUDE_PROJECT_DIR|AMPLIFIER_PROJECT_DIR|PWD)\}?|\$\{?\w*PLUGIN_ROOT\}?"
)
_PLUGIN_ROOT: Final = re.compile(r"\$\{?\w*PLUGIN_ROOT\}?")
_SCRIPT_SUFFIXES: Final = frozenset(
    {".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1", ".php"}
)
_TOKEN: Final = re.compile(r"[^\s\"'`;&|()<>=,\[\]{}\\]+")

How = Literal["record", "environment", "none"]


@dataclass(frozen=True, slots=True)
class TrustStatus:
    """Whether a project's hooks may run.

    ``files``: the project's hook files (relative paths; empty when it brings none).
    ``how``: ``record`` (trusted with ``amplifier-hooks trust``), ``environment``
    (:data:`TRUST_ENV`) or ``none``. ``known``: the record has the project. ``changed``: the
    files that differ from the record (changed, added or removed), when there is one.
    ``uncovered``: paths asked for (``include``) that the record does not cover. ``problem``:
    why no record can hold the project (too many files), when that is why it is not trusted.
    """

    project: Path
    trusted: bool
    how: How
    files: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    uncovered: tuple[str, ...] = ()
    known: bool = False
    problem: str = ""

    @property
    def recorded(self) -> bool:
        """Whether the project was trusted once (it may have changed since)."""
        return self.known

    def why_not(self) -> str:
        """Why the hooks do not run, and what to do: one sentence for a warning."""
        where = str(self.project)
        flags = (f"--include {shlex.quote(name)}" for name in self.uncovered)
        command = " ".join(["amplifier-hooks trust", shlex.quote(where), *flags])
        if self.problem:
            return self.problem
        if self.changed:
            return (
                f"project {where} changed since you trusted it "
                f"({', '.join(self.changed)}); review the changes, then run `{command}` again"
            )
        if self.known and self.uncovered:
            one = len(self.uncovered) == 1
            return (
                f"{', '.join(self.uncovered)} in project {where} {'is' if one else 'are'} not "
                f"covered by its trust; review {'it' if one else 'them'}, then run `{command}`"
            )
        also = f" and {', '.join(self.uncovered)}" if self.uncovered else ""
        return (
            f"project {where} is not trusted; review its hook files{also}, then run "
            f"`{command}` (or set {TRUST_ENV}=1 where every checkout is trusted, as in CI)"
        )


# ----------------------------------------------------------------------------- the files


def included_path(project_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> str:
    """``path`` (relative to the project, or absolute) as the project-relative name a record
    keeps for an included file or directory. Symbolic links in it are kept, not resolved: a
    link inside the project is project content wherever it points.

    :raises ValueError: ``path`` is the project itself or lies outside it.
    """
    project = Path(project_dir).resolve()
    given = Path(path).expanduser()
    target = Path(os.path.normpath(given if given.is_absolute() else project / given))
    if not target.is_relative_to(project):  # an absolute path through a link to the project
        resolved = target.resolve()
        target = resolved if resolved.is_relative_to(project) else target
    if target == project or not target.is_relative_to(project):
        raise ValueError(f"{path}: not a file or directory inside the project {project}")
    return target.relative_to(project).as_posix()


def _files_under(project: Path, names: Iterable[str]) -> Iterator[Path]:
    """The project's files ``names`` and every file under its directories ``names``, in a
    stable order. Symbolic links to directories are followed (hooks run what they lead to),
    each real directory once."""
    seen: set[str] = set()
    for name in names:
        top = project / name
        if top.is_file():
            yield top
            continue
        if not top.is_dir():
            continue
        for root, dirs, files in os.walk(top, followlinks=True):
            real = os.path.realpath(root)
            if real in seen:
                dirs.clear()
                continue
            seen.add(real)
            dirs.sort()
            for file in sorted(files):
                yield Path(root) / file


_INTERPRETER_REACH: Final = 4  # tokens after an interpreter that may be its script
_MAX_SCANNED: Final = 1 << 20  # larger files are not read for the scripts they name
# Interpreters whose next arguments include the script they run, whatever its name.
_INTERPRETERS: Final = re.compile(
    r"(?:python[0-9.]*|pypy[0-9.]*|uv|bash|sh|zsh|dash|ksh|fish|node|deno|bun|ruby|perl|php"
    r"|pwsh|powershell|tsx|ts-node|source|\.)"
)


def _named_files(project: Path, config: Path, roots: Sequence[Path] = ()) -> Iterator[Path]:
    """Files of the project that ``config`` names by a path as what its hooks run: a token
    that is a file with a script suffix, an executable file, or any file an interpreter is
    given (``python3 -u tools/guard``, ``python3 -m tools.guard`` with its packages'
    ``__init__.py``). A data file a pattern names (``.env``) is not one. Paths are tried from
    the project and from every directory of it the config names (``cd tools``,
    ``PYTHONPATH=lib``). ``roots``: the directories ``${CLAUDE_PLUGIN_ROOT}`` may stand for
    (each is tried); without them the variable is dropped and the rest read from the
    project."""
    try:
        if config.stat().st_size > _MAX_SCANNED:
            return
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    if roots and "command" not in text:  # not a hooks file: nothing in it runs
        return
    # A root relative to the project: a path with a space would split into two tokens.
    texts = [
        _PLUGIN_ROOT.sub(_relative(project, root).replace("\\", r"\\"), text) for root in roots
    ]
    for each in texts or [text]:
        yield from _scripts_in(project, _TOKEN.findall(_PROJECT_VARIABLES.sub("", each)))


def _relative(project: Path, path: Path) -> str:
    return path.relative_to(project).as_posix() if path != project else "."


def _scripts_in(project: Path, tokens: Sequence[str]) -> Iterator[Path]:
    bases = [project]
    interpreted = 0  # how many more tokens may be an interpreter's script
    module = False  # the token is the module of ``-m``
    for token in tokens:
        if _INTERPRETERS.fullmatch(Path(token).name) is not None:
            interpreted, module = _INTERPRETER_REACH, False
            continue
        if token.startswith("-"):
            module = interpreted > 0 and token == "-m"
            continue
        candidates: list[Path] = []
        if module:
            parts = token.split(".")
            candidates = [Path(*parts).with_suffix(".py"), Path(*parts, "__main__.py")]
            candidates += [Path(*parts[:end], "__init__.py") for end in range(1, len(parts) + 1)]
        else:  # "$CLAUDE_PROJECT_DIR"/scripts/x.py reads /scripts/x.py once the variable is gone
            candidates = [Path(token), Path(token.lstrip("/"))] if token.strip("/") else []
        given = interpreted > 0 or module
        named = given or "/" in token or "." in token
        interpreted, module = max(0, interpreted - 1), False
        for name in candidates:
            for base in bases:
                candidate = (name if name.is_absolute() else base / name).resolve()
                if candidate == project or not candidate.is_relative_to(project):
                    continue
                if candidate.is_dir():
                    if candidate not in bases:
                        bases.append(candidate)
                elif (
                    named
                    and candidate.is_file()
                    and (
                        given
                        or candidate.suffix in _SCRIPT_SUFFIXES
                        or os.access(candidate, os.X_OK)
                    )
                ):
                    yield candidate
                if name.is_absolute():
                    break


class TooManyFiles(ValueError):
    """A project's hook files and included paths hold more files than a record covers."""


def hook_files(project_dir: str | os.PathLike[str], include: Iterable[str] = ()) -> list[Path]:
    """The files a trust record covers for ``project_dir`` (see the module docstring), with
    the ``include`` files and every file under the ``include`` directories (project-relative
    names), in a stable order.

    :raises TooManyFiles: there are more than 2,000: a record that left some out would not
        notice when they change.
    """
    project = Path(project_dir).resolve()
    included = sorted(set(include))
    configs = [project / name for name in PROJECT_HOOK_FILES if (project / name).is_file()]
    found: dict[Path, None] = dict.fromkeys(configs)
    for path in _files_under(project, PROJECT_HOOK_DIRS):
        found.setdefault(path)
        _check_count(project, found)
    included_files: list[Path] = []
    for name in included:
        for path in _files_under(project, (name,)):
            found.setdefault(path)
            included_files.append(path)
            _check_count(project, found)
    readers = [*configs, *(p for p in found if p.name in ("hooks.json", "hooks.yaml"))]
    for config in readers:
        for path in _named_files(project, config):
            found.setdefault(path)
    # Every file of an included plugin may be a hooks file its manifest names, and
    # ${CLAUDE_PLUGIN_ROOT} may be any directory above it (a marketplace, a directory of
    # plugins, a project that is itself a plugin): each is tried.
    for config in included_files:
        roots = [config.parent, *config.parent.parents]
        roots = [root for root in roots if root == project or root.is_relative_to(project)]
        for path in _named_files(project, config, roots):
            found.setdefault(path)
    _check_count(project, found)
    return list(found)


def _check_count(project: Path, found: Mapping[Path, None]) -> None:
    if len(found) > _MAX_FILES:
        raise TooManyFiles(
            f"project {project}: its hook files and included paths hold more than "
            f"{_MAX_FILES:,} files, more than a trust record covers; keep dependencies "
            "(node_modules, virtual environments) out of them"
        )


def _digest(path: Path) -> str:
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a FIFO or /dev/zero would never end
            return "not a regular file"
        sha = hashlib.sha256()
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 16), b""):
                sha.update(block)
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    return sha.hexdigest()


def fingerprint(project_dir: str | os.PathLike[str], include: Iterable[str] = ()) -> dict[str, str]:
    """``{relative path: sha256}`` of the project's hook files (:func:`hook_files`).

    :raises TooManyFiles: see :func:`hook_files`.
    """
    project = Path(project_dir).resolve()
    prints: dict[str, str] = {}
    for path in hook_files(project, include):
        relative = (
            path.relative_to(project).as_posix() if path.is_relative_to(project) else str(path)
        )
        prints[relative] = _digest(path)
    return prints


# ----------------------------------------------------------------------------- the record


def _record_path(environ: Mapping[str, str] | None) -> Path:
    return state_home(environ) / TRUST_FILE


def trusted_projects(environ: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """``{project path: {"trusted_at": ..., "files": {path: sha256}}}``; empty when none is.

    :raises ValueError: the record exists but is not one this module wrote (names the file).
    """
    path = _record_path(environ)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text)
        projects = data["projects"]
        if not isinstance(projects, dict):
            raise TypeError("projects is not an object")
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a record of trusted projects ({err})") from err
    return {str(k): v for k, v in projects.items() if isinstance(v, dict)}


def _write(projects: Mapping[str, Any], environ: Mapping[str, str] | None) -> Path:
    path = _record_path(environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"version": 1, "projects": projects}, indent=2, sort_keys=True) + "\n"
    fd, temp = tempfile.mkstemp(prefix=".trusted-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return path


def _within(name: str, top: str) -> bool:
    """Whether the project-relative ``name`` is ``top`` or lies under it."""
    return name == top or name.startswith(top.rstrip("/") + "/")


def _recorded_includes(record: Mapping[str, Any] | None) -> tuple[str, ...]:
    names = record.get("include") if record is not None else None
    return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()


def trust_project(
    project_dir: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    include: Iterable[str | os.PathLike[str]] = (),
) -> dict[str, str]:
    """Record ``project_dir`` as trusted with its files as they are now; return them.

    ``include``: directories of the project to cover as well (see :func:`included_dir`),
    added to those the record covered already.

    :raises ValueError: an ``include`` directory lies outside the project.
    """
    project = Path(project_dir).resolve()
    projects = trusted_projects(environ)
    names = {included_path(project, path) for path in include}
    names.update(_recorded_includes(projects.get(str(project))))
    prints = fingerprint(project, names)
    projects[str(project)] = {
        "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": prints,
        **({"include": sorted(names)} if names else {}),
    }
    _write(projects, environ)
    return prints


def forget_project(
    project_dir: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> bool:
    """Remove ``project_dir`` from the record; whether it was there."""
    project = str(Path(project_dir).resolve())
    projects = trusted_projects(environ)
    if projects.pop(project, None) is None:
        return False
    _write(projects, environ)
    return True


def _trusted_by_environment(project: Path, environ: Mapping[str, str]) -> bool:
    raw = (environ.get(TRUST_ENV) or "").strip()
    if not raw:
        return False
    if raw.lower() in _YES:
        return True
    return any(
        Path(item).expanduser().resolve() == project for item in raw.split(os.pathsep) if item
    )


def trust_status(
    project_dir: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    include: Iterable[str | os.PathLike[str]] = (),
) -> TrustStatus:
    """Whether the hooks ``project_dir`` brings may run (see the module docstring); with
    ``include``, also those of these directories of the project (a record must cover them).

    A record that cannot be read counts as no record (the project is not trusted).

    :raises ValueError: an ``include`` directory lies outside the project.
    """
    env = os.environ if environ is None else environ
    project = Path(project_dir).resolve()
    wanted = {included_path(project, path) for path in include}
    if _trusted_by_environment(project, env):
        return TrustStatus(project, True, "environment")
    try:
        record = trusted_projects(env).get(str(project))
    except ValueError:
        record = None
    covered = set(_recorded_includes(record))
    uncovered = tuple(
        sorted(name for name in wanted if not any(_within(name, top) for top in covered))
    )
    known = record is not None
    try:
        prints = fingerprint(project, covered | wanted)
    except TooManyFiles as err:
        return TrustStatus(project, False, "none", known=known, problem=str(err))
    files = tuple(prints)
    if record is None or uncovered:
        return TrustStatus(project, False, "none", files, uncovered=uncovered, known=known)
    recorded = record.get("files")
    recorded = recorded if isinstance(recorded, dict) else {}
    changed = tuple(
        sorted(
            name for name in set(prints) | set(recorded) if prints.get(name) != recorded.get(name)
        )
    )
    if changed:
        return TrustStatus(project, False, "none", files, changed, known=True)
    return TrustStatus(project, True, "record", files, known=True)
