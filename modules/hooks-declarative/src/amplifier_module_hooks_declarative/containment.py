"""Which hooks run contained, and the module's checks before they run.

A command hook runs contained (:class:`amplifier_hooks_util.sandbox.Sandbox`: no network and
no unix socket, the filesystem read-only except the project directory and
``sandbox_write_paths``, the project's guarded entries read-only even there, a private
``/tmp``, its own PID namespace, the minimal environment) when any of these asks for it:

* the hook entry: ``sandbox: true``;
* the module config: ``sandbox: true`` (every command hook), ``sandbox: project`` (the hooks
  the project brings), or ``sandbox_sources`` patterns matching the source's label.

Which hooks the project brings is decided by where they were read, never by what a hook
declares: a source of a project kind (:func:`~.discovery.is_project_kind`: the project's hooks
files, hook-shell's directory, a plugin whose directory lies in the project), or a file of
``files`` that lies in the project. A hook's ``env`` (``CLAUDE_PLUGIN_ROOT: /usr``) changes
nothing here.

What the config requires a hook's own ``sandbox: false`` cannot waive. A required sandbox that
cannot start (``bwrap`` missing, namespaces refused, a write path missing) fails closed: the
hook's decision is ``block`` with an error naming the hook, whatever its ``on_failure``.

``type: mcp_tool`` hooks too: the session's tool acts outside any sandbox, so one that must run
contained never calls it and fails by its ``on_failure``.

``type: http`` hooks follow the same rule: one that must run contained is never sent (a
contained hook has no network) and fails by its ``on_failure``; and the http hooks the
project brings put in their headers only the variables the user's ``http_env_vars`` names,
whatever their own ``allowedEnvVars`` says.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from amplifier_hooks_util.sandbox import SandboxUnavailable, bwrap_path

from .config import MODULE_ID, DeclarativeConfig
from .discovery import is_project_kind
from .document import HookEntry, HooksDocument
from .source import Source
from .specs import CommandHookSpec, HookSpec, HttpHookSpec, McpToolHookSpec

__all__ = ["contain_documents", "from_project"]

logger = logging.getLogger("amplifier_module_hooks_declarative")

_THE_USERS = ("config",)


def _inside(path: Path, project_dir: Path) -> bool:
    project = Path(os.path.realpath(project_dir))
    for candidate in (Path(os.path.normpath(path)), Path(os.path.realpath(path))):
        if candidate == project or candidate.is_relative_to(project):
            return True
    return False


def from_project(source: Source, project_dir: Path) -> bool:
    """Whether the hooks of ``source`` come with the project (see the module docstring): a
    project kind, or a file other than the user's own that lies in the project."""
    if is_project_kind(source.kind):
        return True
    if source.kind in _THE_USERS or source.kind.startswith("user") or source.path is None:
        return False
    return _inside(source.path, project_dir)


def _contained(source: Source, settings: DeclarativeConfig, brought: bool) -> bool:
    if settings.sandbox is True:
        return True
    if settings.sandbox == "project" and brought:
        return True
    return any(fnmatchcase(source.label, pattern) for pattern in settings.sandbox_sources)


def _map_specs(document: HooksDocument, change: Callable[[HookEntry], HookSpec]) -> HooksDocument:
    return document.with_entries(lambda item: dataclasses.replace(item, spec=change(item)))


def contain_documents(
    documents: Sequence[tuple[HooksDocument, Source]],
    settings: DeclarativeConfig,
    *,
    project_dir: Path,
) -> list[HooksDocument]:
    """Each document with ``sandbox: true`` on each command, http and mcp_tool hook the config
    requires
    to run contained, and a project's http hooks' ``allowedEnvVars`` cut to the user's
    ``http_env_vars``; one warning at mount when some command hook needs ``bwrap`` and it is
    missing (each of those hooks then blocks, naming itself)."""
    contained: list[HooksDocument] = []
    needed: list[str] = []
    permitted = frozenset(settings.http_env_vars)
    for document, source in documents:
        brought = from_project(source, project_dir)
        required = _contained(source, settings, brought)

        def change(
            entry: HookEntry, required: bool = required, brought: bool = brought
        ) -> HookSpec:
            spec = entry.spec
            if isinstance(spec, CommandHookSpec):
                if required and not spec.sandbox:
                    spec = spec.model_copy(update={"sandbox": True})
                if spec.sandbox:
                    needed.append(entry.label)
            elif isinstance(spec, McpToolHookSpec):
                if required and not spec.sandbox:
                    spec = spec.model_copy(update={"sandbox": True})
            elif isinstance(spec, HttpHookSpec):
                update: dict[str, object] = {}
                if required and not spec.sandbox:
                    update["sandbox"] = True
                if brought:
                    allowed = tuple(n for n in spec.allowed_env_vars if n in permitted)
                    if allowed != spec.allowed_env_vars:
                        update["allowed_env_vars"] = allowed
                if update:
                    spec = spec.model_copy(update=update)
            return spec

        contained.append(_map_specs(document, change))
    if needed:
        try:
            bwrap_path()
        except SandboxUnavailable as err:
            logger.warning(
                "%s: %s; these hooks must run contained and will block: %s",
                MODULE_ID,
                err,
                ", ".join(needed),
            )
    return contained
