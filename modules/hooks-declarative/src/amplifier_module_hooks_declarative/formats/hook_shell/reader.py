"""Amplifier hook-shell's layout: Claude-Code-format hooks files in ``.amplifier/hooks/``.

hook-shell (``microsoft/amplifier-module-hook-shell``) reads ``.amplifier/hooks/hooks.json``
and the ``hooks.json`` of each directory under ``.amplifier/hooks/`` (one directory per
installed hook, ``.amplifier/hooks/bash-validator/hooks.json``), each
``{"description": ..., "hooks": {<Claude Code event>: [matcher groups]}}``. Its commands name
their scripts as ``${AMPLIFIER_HOOKS_DIR}/bash-validator/validate.sh``: ``AMPLIFIER_HOOKS_DIR``
is the ``.amplifier/hooks`` directory itself, exported to the process beside
``AMPLIFIER_PROJECT_DIR``, ``AMPLIFIER_SESSION_ID`` and ``CLAUDE_PROJECT_DIR``. A hook without a
``timeout`` gets hook-shell's 30 seconds (Claude Code's default is 60), and a matcher group's
hooks run one after the other unless the group says ``parallel: true`` (Claude Code runs them
in parallel). As hook-shell's bridge, the first deny, injected context or change of the
arguments ends the event's later hook-shell groups (a deny ends every later hook).

Here, as in hook-shell, the root file comes first, then the directories' files in the order
the file system lists the directories (``Path.iterdir``, the call hook-shell makes; on ext4 a
hash order, not the names' order). That order decides which hooks run: hook-shell runs an
event's hooks one after the other and stops at the first deny, so a logger listed before a
validator records a command the validator then denies, and one listed after it never runs.
Reading the directories in another order would change what runs. The project's are read, and
the user's ``<user_dir>/hooks/`` too (``~/.amplifier/hooks/``, which hook-shell's behavior
bundle names). ``AMPLIFIER_HOOKS_DIR`` is set in each command's environment and written into
its command (:mod:`...variables`), so a project path with spaces works as well.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ...config import MODULE_ID
from ...document import HookEntry, HookGroup, HooksDocument, Step
from ...parsing import read_claude_hooks
from ...specs import CommandHookSpec
from ...variables import map_commands

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "HOOKS_DIR_VARIABLE",
    "HOOKS_FILE_NAME",
    "PROJECT_HOOKS_DIR",
    "hook_shell_files",
    "parse_hook_shell_file",
]

PROJECT_HOOKS_DIR: Final = ".amplifier/hooks"
"""hook-shell's directory, relative to the project directory (and, as ``hooks``, to the user
directory)."""

logger = logging.getLogger("amplifier_module_hooks_declarative")

HOOKS_FILE_NAME: Final = "hooks.json"
HOOKS_DIR_VARIABLE: Final = "AMPLIFIER_HOOKS_DIR"
DEFAULT_TIMEOUT_S: Final = 30
"""hook-shell's timeout of a hook that gives none, in seconds."""


def hook_shell_files(hooks_dir: Path) -> list[Path]:
    """``hooks_dir/hooks.json``, then ``hooks_dir/<name>/hooks.json`` in the order the file
    system lists the directories, as hook-shell reads them; only the files that exist. A
    ``<name>`` that is a symbolic link is skipped with a warning: what it points to is outside
    what trusting the project covers."""
    found: list[Path] = []
    if os.path.lexists(hooks_dir / HOOKS_FILE_NAME):  # a FIFO there is refused when read
        found.append(hooks_dir / HOOKS_FILE_NAME)
    try:
        children = [p for p in hooks_dir.iterdir() if p.is_dir()]  # hook-shell's order
    except OSError:  # no such directory, or not a directory
        return found
    for child in children:
        if not os.path.lexists(child / HOOKS_FILE_NAME):
            continue
        if child.is_symlink():
            logger.warning(
                "%s: %s is a symbolic link; its hooks are not read (copy the directory in)",
                MODULE_ID,
                child,
            )
            continue
        found.append(child / HOOKS_FILE_NAME)
    return found


def _at(data: Any, loc: tuple[str | int, ...]) -> Any:
    for key in loc:
        if isinstance(data, Mapping) and isinstance(key, str):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and key < len(data):
            data = data[key]
        else:
            return None
    return data


def parse_hook_shell_file(text: str, source: str) -> HooksDocument:
    """A hook-shell ``hooks.json``: Claude Code's ``hooks`` shape (other keys, such as
    ``description``, are ignored), with hook-shell's default timeout, each command speaking
    the ``hook-shell`` protocol (:mod:`.protocol`).

    :raises HooksConfigError: invalid JSON or hooks, with line and key path.
    """
    document = read_claude_hooks(text, source, "Claude Code settings")
    if not document.events:
        return document
    raw = json.loads(text)

    def as_hook_shell(entry: HookEntry, spec: CommandHookSpec) -> CommandHookSpec:
        """hook-shell's protocol, and its timeout where the hook gives none."""
        update: dict[str, Any] = {"protocol": "hook-shell"}
        given = _at(raw, entry.loc)
        if not (isinstance(given, Mapping) and "timeout" in given):
            update["timeout_ms"] = DEFAULT_TIMEOUT_S * 1000
        return spec.model_copy(update=update)

    def sequential_unless_said(step: Step) -> Step:
        """hook-shell runs a group's hooks one after the other unless it says ``parallel``."""
        if not isinstance(step, HookGroup) or not step.hooks:
            return step
        group = _at(raw, step.hooks[0].loc[:3])
        if isinstance(group, Mapping) and "parallel" in group:
            return dataclasses.replace(step, joint=False, ends_on_answer=True)
        return dataclasses.replace(step, parallel=False, joint=False, ends_on_answer=True)

    timed = map_commands(document, as_hook_shell)
    events = tuple(
        dataclasses.replace(block, steps=tuple(sequential_unless_said(s) for s in block.steps))
        for block in timed.events
    )
    return dataclasses.replace(timed, events=events)
