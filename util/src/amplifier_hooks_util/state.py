"""The one state directory: where sessions keep what they write (event logs, approval audit
records, checkpoints, transcripts).

Layout, the Amplifier convention, so the ecosystem's tools find the files::

    $AMPLIFIER_HOME (default ~/.amplifier)
    └── projects/<project slug>/sessions/<session id>/
        ├── events.jsonl          hooks-logging
        ├── approvals.jsonl       hooks-approval's audit records
        ├── checkpoint-0001.json  loop-session, one per turn
        └── transcript.jsonl      what Claude Code hooks read as transcript_path

The project slug is the absolute working directory with every ``/`` (and ``\\``) turned into
``-`` and ``:`` dropped, starting with ``-`` (``/work/app`` -> ``-work-app``). Session ids come
from event data, so they are made safe for a file name first: every character outside
``A-Z a-z 0-9 . _ -`` becomes ``_`` and a name made only of dots becomes ``_``; a session id can
never climb out of its directory.

Path templates in module configs may use ``{state}`` (the state home), ``{session_dir}``,
``{project}``, ``{session_id}`` and ``{home}``; relative paths start at the session's working
directory.

An absolute path is resolved (symlinks followed: a system call per component) once per process
and remembered: the state home and the project directories do not move while a session runs,
and a command hook resolves both on every run.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from string import Formatter
from typing import Final

__all__ = [
    "STATE_ENV",
    "TEMPLATE_FIELDS",
    "check_template",
    "project_slug",
    "render_template",
    "safe_session_id",
    "session_dir",
    "state_home",
]

STATE_ENV: Final = "AMPLIFIER_HOME"
"""The environment variable naming the state home (default ``~/.amplifier``)."""

TEMPLATE_FIELDS: Final = frozenset({"state", "session_dir", "project", "session_id", "home"})
"""The placeholders :func:`render_template` fills."""

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")


@functools.lru_cache(maxsize=256)
def _resolved_absolute(path: str) -> Path:
    return Path(path).resolve()


def _resolved(path: str | os.PathLike[str]) -> Path:
    """``path`` resolved; an absolute one from the remembered results (module docstring)."""
    text = os.fspath(path)
    return _resolved_absolute(text) if os.path.isabs(text) else Path(text).resolve()


def state_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$AMPLIFIER_HOME``, else ``~/.amplifier`` (absolute, ``~`` expanded)."""
    env = os.environ if environ is None else environ
    raw = env.get(STATE_ENV) or "~/.amplifier"
    return _resolved(os.path.expanduser(raw))


def project_slug(working_dir: str | os.PathLike[str] | None = None) -> str:
    """The slug of ``working_dir`` (default: the current directory)."""
    path = str(_resolved(working_dir if working_dir is not None else os.getcwd()))
    slug = path.replace("/", "-").replace("\\", "-").replace(":", "")
    return slug if slug.startswith("-") else "-" + slug


def safe_session_id(session_id: object) -> str:
    """``session_id`` reduced to characters that are safe in one path component."""
    text = _UNSAFE.sub("_", str(session_id))[:200]
    return "_" if not text.strip(".") else text


def session_dir(
    session_id: object,
    *,
    working_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """``<state home>/projects/<slug of working_dir>/sessions/<safe session id>``."""
    return (
        state_home(environ)
        / "projects"
        / project_slug(working_dir)
        / "sessions"
        / safe_session_id(session_id)
    )


def render_template(
    template: str,
    session_id: object,
    *,
    working_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path:
    """``template`` with its placeholders filled and ``~`` expanded, as an absolute path;
    a relative result starts at ``working_dir`` (default: the current directory).

    :raises KeyError: the template names a placeholder outside :data:`TEMPLATE_FIELDS`.
    """
    base = Path(working_dir).resolve() if working_dir is not None else Path.cwd()
    home = state_home(environ)
    safe = safe_session_id(session_id)
    slug = project_slug(base)
    text = os.path.expanduser(template).format(
        state=str(home),
        session_dir=str(home / "projects" / slug / "sessions" / safe),
        project=slug,
        session_id=safe,
        home=str(Path.home()),
    )
    path = Path(text)
    return path if path.is_absolute() else base / path


def check_template(template: str) -> str:
    """``template`` if it is a path template :func:`render_template` can fill.

    :raises ValueError: empty, malformed, an unknown or positional placeholder, or one with a
        format spec or conversion (the message says which and lists the allowed ones).
    """
    if not template.strip():
        raise ValueError("must be a non-empty path template")
    try:
        parsed = [
            (f, spec, conv) for _, f, spec, conv in Formatter().parse(template) if f is not None
        ]
    except ValueError as err:
        raise ValueError(f"is not a valid path template ({err})") from err
    allowed = ", ".join(f"{{{name}}}" for name in sorted(TEMPLATE_FIELDS))
    for field, spec, conversion in parsed:
        if field not in TEMPLATE_FIELDS:
            shown = f"{{{field}}}" if field else "{}"
            raise ValueError(f"uses unknown placeholder {shown}; allowed: {allowed}")
        if spec or conversion:
            raise ValueError(f"placeholder {{{field}}} must not carry a format spec or conversion")
    return template
