"""Which projects may run the hooks they bring.

A repository can carry hook files (``.claude/settings.json``, ``.amplifier/hooks.yaml``,
``.amplifier/hooks/<name>/hooks.json``, ``.gemini/settings.json``, ``.cursor/hooks.json``,
``.codex/hooks.json``, ``.factory/hooks.json``, ``.github/hooks/*.json``,
``.windsurf/hooks.json``, the executables of ``.clinerules/hooks/``) whose commands would run
with the user's rights the moment a session starts in it. They run only in a project the user
trusts, the way Claude Code asks before it runs a folder's hooks:

* ``amplifier-hooks trust PATH`` (:func:`trust_project`) records the project in
  ``$AMPLIFIER_HOME/trusted-projects.json`` with the fingerprint of its whole hook surface
  (:mod:`.surface`: its hooks files, every file under its hook directories, every file
  under each directory its hooks name, what their code names in turn, the files of the build
  tools they run, links with their targets). A file of the surface that holds code changed,
  added or removed since makes the project untrusted again until it is trusted anew; what a
  hook of the project writes during its own run and that holds no code (its log, its cache)
  is its data and does not (:func:`mark_data`, :mod:`.watch`). A FIFO or a device is
  recorded as such, never read. A surface of more than 2,000 files cannot be trusted: a record
  that left some out would not notice them change.
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
import json
import os
import shlex
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from amplifier_hooks_util.state import state_home

from .surface import (
    HOOK_DIRS,
    HOOKS_FILES,
    FileState,
    Surface,
    TooManyFiles,
    says_data,
    scan_surface,
)

__all__ = [
    "PROJECT_HOOK_DIRS",
    "PROJECT_HOOK_FILES",
    "TRUST_ENV",
    "TRUST_FILE",
    "Surface",
    "TooManyFiles",
    "TrustStatus",
    "changed_names",
    "fingerprint",
    "forget_project",
    "hook_files",
    "included_path",
    "mark_data",
    "trust_project",
    "trust_status",
    "trusted_projects",
]

PROJECT_HOOK_FILES: Final = HOOKS_FILES
"""Files a project brings whose hooks run commands, relative to the project directory."""

PROJECT_HOOK_DIRS: Final = HOOK_DIRS
"""Directories whose files (hook scripts, hook-shell's ``<name>/hooks.json``) are part of what
the user trusts."""

TRUST_ENV: Final = "AMPLIFIER_TRUST_PROJECT"
"""``1`` trusts every project; a path (or ``os.pathsep``-separated paths) trusts those."""

TRUST_FILE: Final = "trusted-projects.json"
"""The record of trusted projects, in the state home."""

_YES: Final = frozenset({"1", "true", "yes", "on"})
_SURFACE_VERSION: Final = 2  # records that cover the whole hook surface

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
    surface: Surface | None = None
    """What was fingerprinted to decide (with the bytes of the hooks files asked for)."""
    data: frozenset[str] = frozenset()
    """Names the record keeps as the hooks' own data (their content is not compared)."""
    outdated: bool = False
    """The record was written before it covered the whole hook surface."""

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
        if self.changed and self.outdated:
            return (
                f"project {where} was trusted before trust covered everything its hooks run "
                f"({', '.join(self.changed[:5])}{', ...' if len(self.changed) > 5 else ''} "
                f"not recorded or changed); review them, then run `{command}` again"
            )
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


def hook_files(project_dir: str | os.PathLike[str], include: Iterable[str] = ()) -> list[Path]:
    """The files a trust record covers for ``project_dir`` (:mod:`.surface`), with the
    ``include`` files and every file under the ``include`` directories (project-relative
    names), in a stable order.

    :raises TooManyFiles: there are more than 2,000: a record that left some out would not
        notice when they change.
    """
    return list(scan_surface(project_dir, include).paths.values())


def fingerprint(project_dir: str | os.PathLike[str], include: Iterable[str] = ()) -> dict[str, str]:
    """``{name: sha256}`` of the project's hook surface (:func:`hook_files`); a link's entry
    is its target text with the target's digest, a special file's its kind.

    :raises TooManyFiles: see :func:`hook_files`.
    """
    return scan_surface(project_dir, include).digests()


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
    text = json.dumps({"version": 2, "projects": projects}, indent=2, sort_keys=True) + "\n"
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


@contextlib.contextmanager
def _locked(environ: Mapping[str, str] | None) -> Iterator[None]:
    """Hold the record's lock: two sessions (or a session and ``trust``) updating it at once
    never lose each other's change."""
    path = _record_path(environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+b") as lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no advisory locks on this platform
            yield
            return
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _recorded_data(record: Mapping[str, Any] | None) -> frozenset[str]:
    names = record.get("data") if record is not None else None
    if not isinstance(names, list):
        return frozenset()
    # a name that does not say data (surface.says_data) is compared, whatever a record says
    return frozenset(n for n in names if isinstance(n, str) and says_data(n))


def mark_data(
    project_dir: str | os.PathLike[str],
    states: Mapping[str, FileState | None],
    environ: Mapping[str, str] | None = None,
) -> bool:
    """Record what one of the project's own hook runs wrote: each name of ``states`` that
    holds no code becomes the hooks' data (its content is no longer compared; it counts again
    the moment it holds code), and a Python bytecode cache is recorded with its new digest.
    ``None``: the file is gone. Whether the project still has a record to update.
    """
    project = str(Path(project_dir).resolve())
    with _locked(environ):
        projects = trusted_projects(environ)
        record = projects.get(project)
        if record is None:
            return False
        files = dict(record.get("files") or {})
        data = set(_recorded_data(record))
        for name, state in states.items():
            if state is None:
                files.pop(name, None)
                data.discard(name)
            elif state.code:  # only bytecode caches reach here (.watch)
                files[name] = state.digest
            else:
                files.pop(name, None)
                data.add(name)
        record = {**record, "files": files, "data": sorted(data)}
        projects[project] = record
        _write(projects, environ)
    return True


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
    names = {included_path(project, path) for path in include}
    with _locked(environ):
        projects = trusted_projects(environ)
        record = projects.get(str(project))
        names.update(_recorded_includes(record))
        surface = scan_surface(project, names)
        prints = surface.digests()
        # what was the hooks' data stays so while it holds no code
        data = sorted(
            name
            for name in _recorded_data(record)
            if name in surface.states and not surface.states[name].code
        )
        projects[str(project)] = {
            "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "surface": _SURFACE_VERSION,
            "files": {name: digest for name, digest in prints.items() if name not in data},
            **({"data": data} if data else {}),
            **({"include": sorted(names)} if names else {}),
        }
        _write(projects, environ)
    return prints


def forget_project(
    project_dir: str | os.PathLike[str], environ: Mapping[str, str] | None = None
) -> bool:
    """Remove ``project_dir`` from the record; whether it was there."""
    project = str(Path(project_dir).resolve())
    with _locked(environ):
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


def changed_names(
    states: Mapping[str, FileState], recorded: Mapping[str, Any], data: frozenset[str]
) -> tuple[str, ...]:
    """The names whose state differs from the record (changed, added or removed), leaving
    out the hooks' data while it holds no code."""
    changed = []
    for name in set(states) | set(recorded):
        state = states.get(name)
        if name in data and (state is None or not state.code):
            continue
        if (state.digest if state is not None else None) != recorded.get(name):
            changed.append(name)
    return tuple(sorted(changed))


def trust_status(
    project_dir: str | os.PathLike[str],
    environ: Mapping[str, str] | None = None,
    include: Iterable[str | os.PathLike[str]] = (),
    keep: Iterable[Path] = (),
) -> TrustStatus:
    """Whether the hooks ``project_dir`` brings may run (see the module docstring); with
    ``include``, also those of these directories of the project (a record must cover them).
    ``keep``: hooks files whose bytes the caller will parse: the status's ``surface`` holds
    the very bytes that were hashed (``contents``), so nothing reads them twice.

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
        surface = scan_surface(project, covered | wanted, keep)
    except TooManyFiles as err:
        return TrustStatus(project, False, "none", known=known, problem=str(err))
    files = tuple(surface.states)
    if record is None or uncovered:
        return TrustStatus(
            project, False, "none", files, uncovered=uncovered, known=known, surface=surface
        )
    recorded = record.get("files")
    recorded = recorded if isinstance(recorded, dict) else {}
    data = _recorded_data(record)
    changed = changed_names(surface.states, recorded, data)
    if changed:
        outdated = record.get("surface") != _SURFACE_VERSION
        return TrustStatus(
            project, False, "none", files, changed, known=True, surface=surface, outdated=outdated
        )
    return TrustStatus(project, True, "record", files, known=True, surface=surface, data=data)
