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
or ``NAME=value`` with shell quoting (``'...'``, ``"..."``, backslashes); ``$VAR`` is not
expanded; blank lines and ``#`` comments are skipped; any other line is skipped with a warning
naming the file and the line.
"""

from __future__ import annotations

import logging
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.state import session_dir

__all__ = [
    "ENVIRONMENT_CAPABILITY",
    "ENV_FILE_NAME",
    "env_file_for",
    "offer_session_environment",
    "read_env_file",
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


def _assignment(line: str) -> tuple[str, str] | None:
    words = shlex.split(line, comments=True, posix=True)
    if words and words[0] == "export":
        words = words[1:]
    if len(words) != 1 or "=" not in words[0]:
        return None
    name, _, value = words[0].partition("=")
    return (name, value) if _NAME.fullmatch(name) else None


def read_env_file(path: Path) -> dict[str, str]:
    """The variables ``path`` assigns, later lines winning; ``{}`` when it does not exist."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {}
    except OSError as err:
        logger.warning("%s: not read: %s; its variables are not set", path, err)
        return {}
    found: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            pair = _assignment(line)
        except ValueError as err:  # unbalanced quotes
            pair = None
            logger.debug("%s:%d: %s", path, number, err)
        if pair is None:
            logger.warning(
                "%s:%d: skipped %r: expected `export NAME=value` (the file is read, not run)",
                path,
                number,
                line[:120],
            )
            continue
        found[pair[0]] = pair[1]
    return found


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
        session_id = str(getattr(coordinator, "session_id", "") or "")
        if not session_id:
            return base
        path = session_dir(session_id, working_dir=project_dir) / ENV_FILE_NAME
        return {**base, **read_env_file(path)}

    offered: Callable[[], dict[str, str]] = environment
    register(ENVIRONMENT_CAPABILITY, offered)
