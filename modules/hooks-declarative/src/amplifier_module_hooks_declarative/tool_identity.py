"""What each hook format's tool tells its hooks about itself, so that a hook script can tell
which tool called it.

Hook scripts shared between tools branch on their caller: 1Password's ``run-hook.sh`` takes
its Cursor path when ``cursor_version`` is in the input (or ``CURSOR_VERSION`` in the
environment), its Claude Code path when ``CLAUDE_PROJECT_DIR`` is set, and so on. A hook of
one protocol therefore gets exactly the variables its tool sets for its hooks
(:data:`HOOK_VARIABLES`) and none that another tool sets for its own: those are removed from
the environment the hook inherits (:func:`inherited_environment`); the hook's own ``env`` and
its protocol's variables are added after. The field-by-field table is in
``docs/hook-formats.md``.

Sources: Claude Code ``docs/hooks`` (``CLAUDE_PROJECT_DIR``, ``CLAUDE_ENV_FILE`` on
``SessionStart``, ``CLAUDE_PLUGIN_ROOT`` for plugins, ``CLAUDE_CODE_REMOTE``); Cursor
``docs/agent/hooks`` (``CURSOR_PROJECT_DIR``, ``CURSOR_VERSION``, ``CURSOR_USER_EMAIL``,
``CURSOR_TRANSCRIPT_PATH``, ``CURSOR_CODE_REMOTE`` and ``CLAUDE_PROJECT_DIR`` as an alias);
Gemini CLI ``docs/hooks/index.md`` and ``packages/core/src/hooks/hookRunner.ts``
(``GEMINI_PROJECT_DIR``, ``GEMINI_PLANS_DIR``, ``GEMINI_CWD``, ``GEMINI_SESSION_ID`` and
``CLAUDE_PROJECT_DIR`` "for compatibility"); Codex ``codex-rs/hooks`` (``CODEX_ENV_FILE`` and
``CLAUDE_ENV_FILE`` on ``SessionStart``); Factory Droid ``reference/hooks-reference``
(``FACTORY_PROJECT_DIR``, ``DROID_PLUGIN_ROOT`` for plugins); GitHub Copilot, Windsurf
``cascade/hooks`` and Cline (its hooks README and ``HookProcess.ts``) set none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = [
    "DEFAULT_CURSOR_VERSION",
    "HOOK_VARIABLES",
    "foreign_variables",
    "inherited_environment",
]

DEFAULT_CURSOR_VERSION: Final = "2.4.0"
"""What Cursor hooks are told Cursor's version is (``cursor_version``, ``CURSOR_VERSION``)
unless the module's ``cursor_version`` key says otherwise: a Cursor release with every hook
event :mod:`.formats.cursor.protocol` maps."""

HOOK_VARIABLES: Final[Mapping[str, frozenset[str]]] = {
    "amplifier": frozenset(),
    "claude-code": frozenset(
        {"CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE", "CLAUDE_PLUGIN_ROOT", "CLAUDE_CODE_REMOTE"}
    ),
    "cursor": frozenset(
        {
            "CURSOR_PROJECT_DIR",
            "CURSOR_VERSION",
            "CURSOR_USER_EMAIL",
            "CURSOR_TRANSCRIPT_PATH",
            "CURSOR_CODE_REMOTE",
            "CLAUDE_PROJECT_DIR",
        }
    ),
    "hook-shell": frozenset({"CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE"}),
    "codex": frozenset({"CODEX_ENV_FILE", "CLAUDE_ENV_FILE"}),
    "factory": frozenset({"FACTORY_PROJECT_DIR", "DROID_PLUGIN_ROOT"}),
    "copilot": frozenset(),
    "windsurf": frozenset(),
    "cline": frozenset(),
    "gemini": frozenset(
        {
            "GEMINI_PROJECT_DIR",
            "GEMINI_PLANS_DIR",
            "GEMINI_CWD",
            "GEMINI_SESSION_ID",
            "CLAUDE_PROJECT_DIR",
        }
    ),
}
"""Protocol -> every variable its tool may set for its hooks (whether it does depends on the
event and the tool's state; what ours set is each protocol's ``environment``)."""

_EVERY: Final = frozenset().union(*HOOK_VARIABLES.values())


def foreign_variables(protocol: str) -> frozenset[str]:
    """The variables other tools set for their hooks and ``protocol``'s tool does not."""
    return _EVERY - HOOK_VARIABLES.get(protocol, frozenset())


def inherited_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without any variable of :data:`HOOK_VARIABLES`: a hook never sees another
    tool's marks (:func:`foreign_variables`), nor a value of its own tool's that the session
    happened to inherit; its protocol's ``environment`` sets those it has a value for."""
    return {name: value for name, value in environ.items() if name not in _EVERY}
