"""The module's config: the keys a bundle gives hooks-declarative, validated.

Each key is documented on :class:`DeclarativeConfig` and in the README's config table; the
hooks files the config leads to are read by :mod:`.parsing` and the format readers. What
``amplifier-hooks validate`` checks beyond the keys' types is :class:`~.check.CheckedConfig`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from amplifier_hooks_util.config_errors import validate_config
from amplifier_hooks_util.minimal_env import MINIMAL_NAMES
from pydantic import BaseModel, ConfigDict, Field

from .tool_identity import DEFAULT_CURSOR_VERSION

__all__ = ["MINIMAL_ENVIRONMENT", "MODULE_ID", "DeclarativeConfig", "HooksOrigin", "parse_config"]

MODULE_ID: Final = "hooks-declarative"


# --------------------------------------------------------------------------- module config


MINIMAL_ENVIRONMENT: Final = MINIMAL_NAMES
"""What ``environment: minimal`` passes on of the session's environment: these names, each only
with a value of its shape (:mod:`amplifier_hooks_util.minimal_env`: ``LC_DEPLOY_TOKEN`` never,
``LC_ALL`` only as a locale)."""


class HooksOrigin(BaseModel):
    """The file the inline ``hooks`` were written in, and the line of each of their key paths
    (``hooks.PreToolUse[0].command``: 12); ``files``: the file of a key path written in
    another one (a bundle composed with ``includes:``), the nearest enclosing path's when
    the path itself is not listed."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    file: str = Field(min_length=1)
    lines: dict[str, int] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)

    def file_of(self, path: str) -> str:
        """The file key path ``path`` (``hooks.PreToolUse[0].hooks[1]``) was written in."""
        while path:
            found = self.files.get(path)
            if found is not None:
                return found
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return self.file


class DeclarativeConfig(BaseModel):
    """The module's config keys (the README's config table documents each one)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    hooks: Any = None
    """Hooks declared inline: an event-keyed mapping, as in a hooks file's ``hooks:``."""

    hooks_origin: HooksOrigin | None = None
    """Where the inline ``hooks`` were written (a bundle sets it): their receipts name that
    file and the line of each entry."""

    files: list[str] = Field(default_factory=list)
    """More hooks files, read after the project's (relative paths: from the project dir)."""

    project_dir: str | None = None
    """The project directory when the session offers no ``session.working_dir``."""

    user_dir: str | None = None
    """Where the user's ``hooks.yaml`` lives (default ``$AMPLIFIER_HOME`` or ``~/.amplifier``)."""

    include_user: bool = True
    """Read the user's ``hooks.yaml``."""

    include_project: bool = True
    """Read the project's ``.amplifier/hooks.yaml`` (and its Claude Code settings)."""

    claude_code: bool = True
    """Read the ``hooks`` of the project's ``.claude/settings.json`` and ``settings.local.json``."""

    gemini: bool = True
    """Read the ``hooks`` of Gemini CLI's ``.gemini/settings.json`` (project and ``~``)."""

    cursor: bool = True
    """Read Cursor's ``.cursor/hooks.json`` (project and ``~``)."""

    codex: bool = True
    """Read OpenAI Codex CLI's ``.codex/hooks.json`` (project and ``~``)."""

    factory: bool = True
    """Read Factory Droid's ``.factory/hooks.json`` (project and ``~``)."""

    copilot: bool = True
    """Read GitHub Copilot's ``.github/hooks/*.json`` (and Copilot CLI's ``~/.copilot/hooks``)."""
    windsurf: bool = True
    """Read Windsurf's ``hooks.json``: the system's, ``~/.codeium/windsurf/`` and the
    project's ``.windsurf/``."""

    cline: bool = True
    """Run Cline's hook executables: ``~/Documents/Cline/Hooks/`` and the project's
    ``.clinerules/hooks/``."""

    cursor_version: str = Field(default=DEFAULT_CURSOR_VERSION, min_length=1)
    """The Cursor version Cursor hooks are told (``cursor_version``, ``CURSOR_VERSION``)."""

    plugins: list[str] = Field(default_factory=list)
    """Claude Code plugin directories, marketplaces or directories of plugins (relative paths:
    from the project dir; ``~`` allowed), whose hooks run (see plugins.py)."""

    disabled_plugins: list[str] = Field(default_factory=list)
    """Plugins of ``plugins`` whose hooks do not run: ``name`` or ``name@marketplace``."""

    hook_shell: bool = True
    """Read hook-shell's ``hooks.json`` files in ``.amplifier/hooks/`` (and the user's)."""

    priority: int = 0
    """Priority of the module's handlers in the kernel's chain (lower runs first)."""

    async_grace_s: float = Field(default=5.0, ge=0)
    """At cleanup, how long running ``async: true`` hooks may finish before they are cancelled."""

    strict: bool = True
    """A trusted project's broken hooks file, or its hooks changed since it was trusted, fail
    the mount (the session stops before its first turn). ``false`` is the opt-out: a warning,
    and the session goes on without those hooks: the guards they hold are off (fails open)."""

    environment: Literal["inherit", "minimal"] = "inherit"
    """What command hooks get of the session's environment: all of it (``inherit``), or only
    :data:`MINIMAL_ENVIRONMENT` and ``pass_env`` (``minimal``: no API keys or tokens)."""

    pass_env: list[str] = Field(default_factory=list)
    """With ``environment: minimal``, more variables to pass on, whatever their values: names
    or patterns (``LC_*``)."""

    sandbox: bool | Literal["project"] = False
    """Run command hooks contained by bubblewrap (no network, read-only outside the project,
    own ``/tmp`` and PID namespace, minimal environment): ``true`` every one, ``project`` those
    the project brings; ``false`` only those whose entry or source asks (see containment.py)."""

    sandbox_sources: list[str] = Field(default_factory=list)
    """Sources whose command hooks run contained: patterns matched against a source's label
    (``.claude/settings.json``, ``plugin guard*``, ``~/.amplifier/hooks.yaml``)."""

    observe_sources: list[str] = Field(default_factory=list)
    """Sources in observe mode: patterns matched against a source's label, as in
    ``sandbox_sources``. Their hooks run, but what they decide (block, ask, modify, context) is
    not applied: it is emitted as a ``hook:observed`` event (docs/rollout.md)."""

    sandbox_write_paths: list[str] = Field(default_factory=list)
    """What a contained hook may write besides the project directory (relative paths: from the
    project directory; ``~`` allowed); each must exist. Naming one of the project's guarded
    entries (``.git``, ``.claude``, ``.env``, ...: :data:`amplifier_hooks_util.sandbox.GUARDED`),
    or a path inside one, makes it writable: they are read-only otherwise."""

    http_env_vars: list[str] = Field(default_factory=list)
    """Variables the ``type: http`` hooks the project brings may put in their headers: a
    project hook's ``allowedEnvVars`` names only what is listed here too (the user's own and
    the bundle's http hooks are not limited)."""

    prompt_provider: str | None = Field(default=None, min_length=1)
    """The mount name of the provider Claude Code ``prompt`` and ``agent`` hooks ask (default:
    the first mounted)."""

    prompt_model: str | None = Field(default=None, min_length=1)
    """The model prompt and agent hooks ask for, in place of a hook's own ``model`` (default:
    the hook's ``model``, else the provider's own)."""

    prompt_on_failure: Literal["warn", "block", "ignore"] = "warn"
    """What a prompt or agent hook that cannot decide does: no provider, a provider error, the
    timeout, an ambiguous answer (``warn``: go on with a warning; ``block``: fail closed)."""

    agent_max_turns: int = Field(default=50, gt=0)
    """Model requests an agent hook may make, reading with read-only tools, before it answers."""


def parse_config(raw: Mapping[str, Any] | None) -> DeclarativeConfig:
    """Validate the module config; a bad key raises :class:`ValueError` starting with
    ``hooks-declarative: config`` and naming the key path and what was expected."""
    return validate_config(DeclarativeConfig, raw, owner=MODULE_ID)
