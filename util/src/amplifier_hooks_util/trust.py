"""Which projects may run the hooks they bring.

A repository can carry hook files (``.claude/settings.json``, ``.amplifier/hooks.yaml``,
``.amplifier/hooks/<name>/hooks.json``, ``.gemini/settings.json``, ``.cursor/hooks.json``) whose
commands would run with the user's rights the moment a session starts in it. They run only in a
project the user trusts, the way Claude Code asks before it runs a folder's hooks:

* ``amplifier-hooks trust PATH`` (:func:`trust_project`) records the project in
  ``$AMPLIFIER_HOME/trusted-projects.json`` with the SHA-256 of each of its hook files, of every
  file under its hook directories (``.claude/hooks``, ``.amplifier/hooks``, ``.gemini/hooks``,
  ``.cursor/hooks``) and of every file of the project a hook file names by its path (the
  scripts its commands run). A file changed, added or removed since makes the project untrusted
  again until it is trusted anew.
* A directory of the project that a bundle runs hooks from (a Claude Code plugin kept in the
  checkout, ``plugins: [plugins/guard]``) is project content too: ``amplifier-hooks trust PATH
  --include plugins/guard`` adds every file under it to the record, and later ``trust`` calls
  keep it. A session that runs hooks from such a directory asks for it (``include``), and the
  project counts as untrusted until the record covers it.
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
import tempfile
from collections.abc import Iterable, Iterator, Mapping
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
    "TrustStatus",
    "fingerprint",
    "forget_project",
    "hook_files",
    "included_dir",
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
    (:data:`TRUST_ENV`) or ``none``. ``changed``: the files that differ from the record
    (changed, added or removed), when there is one. ``uncovered``: directories asked for
    (``include``) that the record does not cover.
    """

    project: Path
    trusted: bool
    how: How
    files: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    uncovered: tuple[str, ...] = ()

    @property
    def recorded(self) -> bool:
        """Whether the project was trusted once (it may have changed since)."""
        return self.how == "record" or bool(self.changed)

    def why_not(self) -> str:
        """Why the hooks do not run, and what to do: one sentence for a warning."""
        where = str(self.project)
        if self.uncovered:
            flags = " ".join(f"--include {name}" for name in self.uncovered)
            return (
                f"{', '.join(self.uncovered)} in project {where} "
                f"{'is' if len(self.uncovered) == 1 else 'are'} not covered by its trust; "
                f"review {'it' if len(self.uncovered) == 1 else 'them'}, then run "
                f"`amplifier-hooks trust {where} {flags}`"
            )
        if self.changed:
            return (
                f"project {where} changed since you trusted it "
                f"({', '.join(self.changed)}); review the changes, then run "
                f"`amplifier-hooks trust {where}` again"
            )
        return (
            f"project {where} is not trusted; review its hook files, then run "
            f"`amplifier-hooks trust {where}` (or set {TRUST_ENV}=1 where every checkout is "
            "trusted, as in CI)"
        )


# ----------------------------------------------------------------------------- the files


def _files_under(project: Path, names: Iterable[str]) -> Iterator[Path]:
    """Every file under the project's directories ``names``, in a stable order."""
    for name in names:
        top = project / name
        if not top.is_dir():
            continue
        for root, dirs, files in os.walk(top):
            dirs.sort()
            for file in sorted(files):
                yield Path(root) / file


def _named_files(project: Path, config: Path) -> Iterator[Path]:
    """Files of the project that ``config`` names by a path and that look like scripts (a
    script suffix, or executable): what its hooks' commands run. A data file a pattern names
    (``.env``) is not one."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for token in _TOKEN.findall(_PROJECT_VARIABLES.sub("", text)):
        if "/" not in token and "." not in token:
            continue
        candidate = (project / token.lstrip("/")).resolve()
        if (
            candidate != project
            and candidate.is_relative_to(project)
            and candidate.is_file()
            and (candidate.suffix in _SCRIPT_SUFFIXES or os.access(candidate, os.X_OK))
        ):
            yield candidate


def included_dir(project_dir: str | os.PathLike[str], path: str | os.PathLike[str]) -> str:
    """``path`` (relative to the project, or absolute) as the project-relative name a record
    keeps for an included directory.

    :raises ValueError: ``path`` is the project itself or lies outside it.
    """
    project = Path(project_dir).resolve()
    target = Path(path).expanduser()
    target = (target if target.is_absolute() else project / target).resolve()
    if target == project or not target.is_relative_to(project):
        raise ValueError(f"{path}: not a directory inside the project {project}")
    return target.relative_to(project).as_posix()


def hook_files(project_dir: str | os.PathLike[str], include: Iterable[str] = ()) -> list[Path]:
    """The files a trust record covers for ``project_dir`` (see the module docstring), with
    every file under the ``include`` directories (project-relative names), at most 2,000, in a
    stable order."""
    project = Path(project_dir).resolve()
    configs = [project / name for name in PROJECT_HOOK_FILES if (project / name).is_file()]
    found: dict[Path, None] = dict.fromkeys(configs)
    for path in _files_under(project, (*PROJECT_HOOK_DIRS, *sorted(set(include)))):
        found.setdefault(path)
    for config in [*configs, *(p for p in found if p.name in ("hooks.json", "hooks.yaml"))]:
        for path in _named_files(project, config):
            found.setdefault(path)
    return list(found)[:_MAX_FILES]


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    try:
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 16), b""):
                sha.update(block)
    except OSError as err:
        return f"unreadable: {err.strerror or err}"
    return sha.hexdigest()


def fingerprint(project_dir: str | os.PathLike[str], include: Iterable[str] = ()) -> dict[str, str]:
    """``{relative path: sha256}`` of the project's hook files (:func:`hook_files`)."""
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
    names = {included_dir(project, path) for path in include}
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
    wanted = {included_dir(project, path) for path in include}
    if _trusted_by_environment(project, env):
        return TrustStatus(project, True, "environment", tuple(fingerprint(project, wanted)))
    try:
        record = trusted_projects(env).get(str(project))
    except ValueError:
        record = None
    covered = set(_recorded_includes(record))
    prints = fingerprint(project, covered | wanted)
    files = tuple(prints)
    if record is None:
        return TrustStatus(project, False, "none", files)
    uncovered = tuple(sorted(wanted - covered))
    if uncovered:
        return TrustStatus(project, False, "none", files, uncovered=uncovered)
    recorded = record.get("files")
    recorded = recorded if isinstance(recorded, dict) else {}
    changed = tuple(
        sorted(
            name for name in set(prints) | set(recorded) if prints.get(name) != recorded.get(name)
        )
    )
    if changed:
        return TrustStatus(project, False, "none", files, changed)
    return TrustStatus(project, True, "record", files)
