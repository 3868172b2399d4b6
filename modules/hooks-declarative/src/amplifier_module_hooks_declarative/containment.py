"""Which command hooks run contained by bubblewrap, and the module's checks before they run.

A command hook runs contained (:class:`amplifier_hooks_util.sandbox.Sandbox`: no network, the
filesystem read-only except the project directory and ``sandbox_write_paths``, a private
``/tmp``, its own PID namespace, the minimal environment) when any of these asks for it:

* the hook entry: ``sandbox: true``;
* the module config: ``sandbox: true`` (every command hook), ``sandbox: project`` (the hooks
  the project brings: a source whose file lies in the project directory, which is any source
  labelled by a relative path, and a plugin whose root lies in it), or ``sandbox_sources``
  patterns matching the source's label.

What the config requires a hook's own ``sandbox: false`` cannot waive. A required sandbox that
cannot start (``bwrap`` missing, namespaces refused, a write path missing) fails closed: the
hook's decision is ``block`` with an error naming the hook, whatever its ``on_failure``.
"""

from __future__ import annotations

import logging
import os
from fnmatch import fnmatchcase
from pathlib import Path

from amplifier_hooks_util.sandbox import SandboxUnavailable, bwrap_path

from .config import MODULE_ID, DeclarativeConfig
from .document import HookEntry, HooksDocument
from .formats.claude_code.plugins import PLUGIN_ROOT_VARIABLE
from .specs import CommandHookSpec
from .variables import map_commands

__all__ = ["contain_documents", "from_project"]

logger = logging.getLogger("amplifier_module_hooks_declarative")


def _inside(path: str, project_dir: Path) -> bool:
    resolved = Path(os.path.realpath(path))
    project = Path(os.path.realpath(project_dir))
    return resolved == project or resolved.is_relative_to(project)


def from_project(document: HooksDocument, spec: CommandHookSpec, project_dir: Path) -> bool:
    """Whether the hook ``spec`` of ``document`` comes with the project (see the module
    docstring)."""
    root = spec.env.get(PLUGIN_ROOT_VARIABLE)
    if root is not None:
        return _inside(root, project_dir)
    label = document.source
    return not (label == "config" or label.startswith(("/", "~")))


def _required(
    document: HooksDocument, spec: CommandHookSpec, settings: DeclarativeConfig, project: Path
) -> bool:
    if settings.sandbox is True:
        return True
    if settings.sandbox == "project" and from_project(document, spec, project):
        return True
    return any(fnmatchcase(document.source, pattern) for pattern in settings.sandbox_sources)


def contain_documents(
    documents: list[HooksDocument], settings: DeclarativeConfig, *, project_dir: Path
) -> list[HooksDocument]:
    """``documents`` with ``sandbox: true`` on each command hook the config requires to run
    contained; one warning at mount when some hook needs ``bwrap`` and it is missing (each of
    those hooks then blocks, naming itself)."""
    contained: list[HooksDocument] = []
    needed: list[str] = []
    for document in documents:

        def change(
            entry: HookEntry, spec: CommandHookSpec, doc: HooksDocument = document
        ) -> CommandHookSpec:
            if not spec.sandbox and _required(doc, spec, settings, project_dir):
                spec = spec.model_copy(update={"sandbox": True})
            if spec.sandbox:
                needed.append(entry.label)
            return spec

        contained.append(map_commands(document, change))
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
