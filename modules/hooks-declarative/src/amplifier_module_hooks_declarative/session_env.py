"""``CLAUDE_ENV_FILE``: variables a ``SessionStart`` hook sets for the session's shell commands.

Claude Code gives its ``SessionStart`` hooks ``CLAUDE_ENV_FILE``, a per-session file where
they append ``export NAME=value`` lines; every later Bash command of the session runs with
those variables. Here the file is ``claude-env.sh`` in the session's state directory
(``amplifier_hooks_util.state.session_dir``), named to ``claude-code`` hooks as
``CLAUDE_ENV_FILE`` (and ``AMPLIFIER_ENV_FILE``, hook-shell's name) on ``SessionStart``.

The seam to the tools is a coordinator capability, :data:`ENVIRONMENT_CAPABILITY`: a callable
``() -> dict[str, str]`` that a tool calls before each command. hooks-declarative offers it
at mount; our ``tool-bash`` asks for it (Amplifier's own tool-bash does not, so there the file
is written and not read). The file is read, never executed: each line is ``export NAME=value``
or ``NAME=value`` (several per line, too) with shell quoting (``'...'``, ``"..."``,
backslashes); ``$NAME`` and ``${NAME}`` are expanded, outside single quotes, from the
session's environment and the file's earlier assignments, so ``export
PATH="/opt/tool/bin:$PATH"`` works as in a shell. Blank lines and ``#`` comments are skipped;
a line with anything that would run code or needs a shell to mean something (``$(...)``,
backquotes, ``${NAME:-default}``, a command) is skipped with a warning naming the file and
the line.

No variable that could change what a command runs enters the session's environment: each line
is judged by :func:`amplifier_hooks_util.env_policy.review` (``PATH`` entries that are relative
or inside the project, ``BASH_ENV``, ``LD_*``, ``GIT_*``, ``PYTHON*``, ``NODE_OPTIONS`` and their
families). A refused variable is left out with one warning that names it, the file and line,
and the hook that wrote the line (:func:`note_writer` records which hook appended which bytes).
The approval rules judge a command by its text, so its environment must not change what
``ls`` or ``git status`` runs.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.env_policy import review
from amplifier_hooks_util.state import session_dir

__all__ = [
    "ENVIRONMENT_CAPABILITY",
    "ENV_FILE_NAME",
    "env_file_for",
    "file_size",
    "note_writer",
    "offer_session_environment",
    "read_env_file",
    "review_written",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

ENVIRONMENT_CAPABILITY: Final = "session.environment"
"""The capability name: a callable returning the variables for the session's commands."""

ENV_FILE_NAME: Final = "claude-env.sh"
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def env_file_for(session_id: str, project_dir: str) -> Path:
    """The session's env file, created empty when missing (a hook appends to it)."""
    path = session_dir(session_id, working_dir=project_dir) / ENV_FILE_NAME
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return path


_DOLLAR: Final = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


class _NotAnAssignment(ValueError):
    """The line is not plain assignments (the message says what is in the way)."""


def _expand(text: str, at: int, env: Mapping[str, str]) -> tuple[str, int]:
    """The value of the ``$`` expansion at ``at`` and where it ends."""
    found = _DOLLAR.match(text, at)
    if found is not None:
        return env.get(found.group(1) or found.group(2), ""), found.end()
    if text.startswith(("$(", "${"), at):
        raise _NotAnAssignment(f"{text[at : at + 2]!r} is not expanded here (the file is not run)")
    return "$", at + 1


def _word(text: str, at: int, env: Mapping[str, str]) -> tuple[str, int]:
    """One shell word from ``at``: its value, and where it ends (at blank space or the end)."""
    out: list[str] = []
    n = len(text)
    while at < n and not text[at].isspace():
        char = text[at]
        if char == "'":
            end = text.find("'", at + 1)
            if end < 0:
                raise _NotAnAssignment("a quote is not closed")
            out.append(text[at + 1 : end])
            at = end + 1
        elif char == '"':
            at += 1
            while True:
                if at >= n:
                    raise _NotAnAssignment("a quote is not closed")
                char = text[at]
                if char == '"':
                    at += 1
                    break
                if char == "\\" and at + 1 < n and text[at + 1] in '$`"\\':
                    out.append(text[at + 1])
                    at += 2
                elif char == "$":
                    value, at = _expand(text, at, env)
                    out.append(value)
                elif char == "`":
                    raise _NotAnAssignment("backquotes are not run")
                else:
                    out.append(char)
                    at += 1
        elif char == "\\":
            out.append(text[at + 1 : at + 2])
            at += 2
        elif char == "$":
            value, at = _expand(text, at, env)
            out.append(value)
        elif char in "`;&|<>()":
            raise _NotAnAssignment(f"{char!r} belongs to a command, which is not run")
        else:
            out.append(char)
            at += 1
    return "".join(out), at


def _assignments(line: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The ``NAME=value`` pairs of one line, values expanded against ``env`` and the line's
    earlier pairs.

    :raises _NotAnAssignment: the line is something else.
    """
    text = line.strip()
    if text.startswith("export") and text[6:7].isspace():
        text = text[6:].lstrip()
    pairs: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        if text[at] == "#":
            break
        equals = text.find("=", at)
        name = text[at:equals] if equals > at else ""
        if not _NAME.fullmatch(name):
            raise _NotAnAssignment("expected NAME=value")
        value, at = _word(text, equals + 1, {**env, **dict(pairs)})
        pairs.append((name, value))
        while at < len(text) and text[at].isspace():
            at += 1
    if not pairs:
        raise _NotAnAssignment("expected NAME=value")
    return pairs


_WRITERS: dict[Path, list[tuple[int, int, str]]] = {}
"""For each env file, the byte ranges hooks appended: ``(start, end, hook label)``."""
_WARNED: set[tuple[Path, str, str, str]] = set()


def note_writer(path: Path, start: int, end: int, label: str) -> None:
    """Record that the hook ``label`` wrote bytes ``start:end`` of the env file ``path`` (the
    warning about a refused variable names it)."""
    if end > start:
        _WRITERS.setdefault(path, []).append((start, end, label))


def file_size(path: Path) -> int:
    """The size of ``path`` in bytes; 0 when it does not exist."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _writer(path: Path, offset: int) -> str:
    for start, end, label in reversed(_WRITERS.get(path, ())):
        if start <= offset < end:
            return f"hook {label}"
    return "no hook run of this session (the file was changed outside one)"


def read_env_file(path: Path, *, project_dir: str | None = None) -> dict[str, str]:
    """The variables ``path`` assigns, later lines winning, without those the session
    environment refuses (see the module docstring); ``{}`` when it does not exist.

    :param project_dir: the project directory (``PATH`` entries inside it are refused).
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as err:
        logger.warning("%s: not read: %s; its variables are not set", path, err)
        return {}
    found: dict[str, str] = {}
    offset = 0
    for number, raw_bytes in enumerate(data.splitlines(keepends=True), start=1):
        start, offset = offset, offset + len(raw_bytes)
        line = raw_bytes.decode("utf-8", "replace").strip()
        if not line or line.startswith("#"):
            continue
        try:
            pairs = _assignments(line, {**os.environ, **found})
        except _NotAnAssignment as err:
            logger.warning(
                "%s:%d: skipped %r: %s; each line must be `export NAME=value` (the file is "
                "read, not run)",
                path,
                number,
                line[:120],
                err,
            )
            continue
        judged = review(dict(pairs), project_dir=project_dir)
        for refusal in judged.refused:
            _warn_refused(path, number, start, refusal.name, refusal.why)
        for name, _ in pairs:
            if name in judged.allowed:
                found[name] = judged.allowed[name]
            else:
                found.pop(name, None)
    return found


def _warn_refused(path: Path, number: int, offset: int, name: str, why: str) -> None:
    writer = _writer(path, offset)
    _warn_once(
        (path, name, why, writer),
        "%s:%d: %s set by %s is refused for the session's commands: %s",
        path,
        number,
        name,
        writer,
        why,
    )


def _warn_once(key: tuple[Path, str, str, str], message: str, *args: object) -> None:
    if key in _WARNED:
        return
    _WARNED.add(key)
    logger.warning(message, *args)


def review_written(path: Path, start: int, label: str, *, project_dir: str) -> None:
    """After the hook ``label`` ran: record what it appended to ``path`` from byte ``start``
    and warn at once about what of it is refused."""
    note_writer(path, start, file_size(path), label)
    read_env_file(path, project_dir=project_dir)


def offer_session_environment(coordinator: Any, project_dir: str) -> None:
    """Offer :data:`ENVIRONMENT_CAPABILITY` on ``coordinator``: the variables of its session's
    env file, read at each call (a tool asks before each command). An environment offered
    earlier by another module is kept, its variables overridden by the file's."""
    register = getattr(coordinator, "register_capability", None)
    if not callable(register):
        logger.debug("coordinator has no capabilities; CLAUDE_ENV_FILE stays unread")
        return
    get = getattr(coordinator, "get_capability", None)
    earlier = get(ENVIRONMENT_CAPABILITY) if callable(get) else None

    def environment() -> dict[str, str]:
        base: dict[str, str] = dict(earlier()) if callable(earlier) else {}
        if base:
            judged = review(base, project_dir=project_dir)
            for refusal in judged.refused:
                _warn_once(
                    (Path(ENVIRONMENT_CAPABILITY), refusal.name, refusal.why, ""),
                    "%s: %s offered by another module is refused for the session's commands: %s",
                    ENVIRONMENT_CAPABILITY,
                    refusal.name,
                    refusal.why,
                )
            base = judged.allowed
        session_id = str(getattr(coordinator, "session_id", "") or "")
        if not session_id:
            return base
        path = session_dir(session_id, working_dir=project_dir) / ENV_FILE_NAME
        return {**base, **read_env_file(path, project_dir=project_dir)}

    offered: Callable[[], dict[str, str]] = environment
    register(ENVIRONMENT_CAPABILITY, offered)
