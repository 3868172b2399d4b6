"""Modules on a coordinator, for a host that runs its own loop.

A host that wants hook modules (and perhaps tools) without an orchestrator mounts them on a
coordinator of its own and emits the events itself::

    from amplifier_core import mount_modules

    modules = ["hooks-redaction", {"module": "hooks-logging", "config": {"path": "events.jsonl"}}]
    async with mount_modules(modules) as coordinator:
        data = {"tool_name": "bash", "tool_input": {"command": "ls"}}
        result = await coordinator.hooks.emit("tool:pre", data)

Each module is mounted in order through a :class:`~amplifier_core.loader.ModuleLoader` (entry
points, ``source`` directories, the allow and deny lists), then every module's
``on_session_ready`` runs; leaving the block runs the cleanups in reverse order. As in a
session composed from a bundle, a module that cannot be found, imported or mounted raises
:class:`~amplifier_core.errors.ModuleLoadError` naming it and why, after unmounting the ones
before it, unless its entry says ``optional: true`` or the allow or deny list keeps it out
(then it is reported on ``module:load_failed`` and skipped). See docs/module-loading.md.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from .coordinator import ModuleCoordinator
from .loader import ModuleLoader

__all__ = ["mount_modules"]


def _entry(module: str | Mapping[str, Any] | Any, index: int) -> dict[str, Any]:
    """``{module, config, source, optional}`` of an id, a mapping or a bundle's ModuleEntry."""
    if isinstance(module, str):
        return {"module": module, "config": {}, "source": None, "optional": False}
    if isinstance(module, Mapping):
        fields = dict(module)
    else:
        fields = {k: getattr(module, k, None) for k in ("module", "config", "source", "optional")}
    module_id = fields.get("module")
    if not isinstance(module_id, str) or not module_id:
        raise ValueError(f"mount_modules: modules[{index}]: expected a module id, got {module!r}")
    config = fields.get("config") or {}
    if not isinstance(config, Mapping):
        raise ValueError(
            f"mount_modules: modules[{index}].config ({module_id}): expected a mapping, "
            f"got {type(config).__name__}"
        )
    return {
        "module": module_id,
        "config": dict(config),
        "source": fields.get("source"),
        "optional": bool(fields.get("optional")),
    }


@asynccontextmanager
async def mount_modules(
    modules: Iterable[str | Mapping[str, Any] | Any],
    *,
    coordinator: ModuleCoordinator | None = None,
    config: Mapping[str, Any] | None = None,
    approval_system: Any = None,
    display_system: Any = None,
    base_dir: str | os.PathLike[str] | None = None,
    allow: Iterable[str] | str | None = None,
    deny: Iterable[str] | str | None = None,
) -> AsyncIterator[ModuleCoordinator]:
    """Mount ``modules`` in order on a coordinator; yield it; clean up on the way out.

    :param modules: module ids (``"hooks-redaction"``), mappings
        ``{module, config, source, optional}`` as a bundle writes them, or a bundle's
        :class:`~amplifier_hooks_bundle.ModuleEntry` objects (``bundle.hooks``).
    :param coordinator: the coordinator to mount on; a new
        :class:`~amplifier_core.coordinator.ModuleCoordinator` by default, made with
        ``config`` (the mount plan: ``session.injection_size_limit`` ...),
        ``approval_system`` and ``display_system``.
    :param base_dir: the directory a relative ``source`` is relative to.
    :param allow: module ids or patterns allowed (``None``: ``AMPLIFIER_MODULES_ALLOW``).
    :param deny: module ids or patterns denied (``None``: ``AMPLIFIER_MODULES_DENY``).
    :raises ModuleLoadError: a module that is not ``optional`` failed to load or mount.
    """
    entries = [_entry(m, i) for i, m in enumerate(modules)]
    if coordinator is None:
        coordinator = ModuleCoordinator(
            approval_system=approval_system,
            display_system=display_system,
            config=dict(config or {}),
        )
    loader = ModuleLoader(coordinator, strict=True, allow=allow, deny=deny)
    if getattr(coordinator, "loader", None) is None:
        coordinator.loader = loader
    try:
        for entry in entries:
            # an optional entry, or one the allow or deny list keeps out, is reported, not fatal
            loader.strict = not entry["optional"] and loader.is_allowed(entry["module"])
            await loader.mount(entry["module"], entry["config"], entry["source"], base_dir=base_dir)
        loader.strict = True
        await loader.session_ready()
        yield coordinator
    finally:
        await loader.cleanup()
        await coordinator.cleanup()
