"""Mounting a session's plan: the orchestrator and the context manager (each required), then the
providers, tools and hooks, then every module's ``on_session_ready``, then ``session:fork`` for
a child session. :class:`~amplifier_core.session.AmplifierSession` calls
:func:`initialize_session`, as amplifier-core 2.0.2's does.

With this kernel's own :class:`~amplifier_core.loader.ModuleLoader` the loader mounts each
module itself (``mount`` / ``mount_all``: allow and deny lists, strict mode, located errors,
``module:load_failed`` with the stage and the entry point). Any other loader (or ours with
``load`` replaced) is driven as 2.0.2 drives one: the orchestrator and the context manager
(each required), then the providers
(several instances of one provider module under their ``instance_id``), tools and hooks (each
optional: one that fails is logged, ``module:load_failed`` is emitted and the rest go on),
then every queued ``on_session_ready``, then ``session:fork`` for a child session.

Each module is loaded with ``loader.load(id, config, source_hint=..., coordinator=...)`` and
mounted by awaiting the function it returns; its cleanup is registered on the coordinator.
The coordinator's ``loader`` is used (one is made when it has none). Capabilities a host may
register: ``provider.before_load(coordinator, entry)`` before each provider, and
``provider.load_failure(coordinator, entry, error)`` after one fails.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from copy import deepcopy
from typing import Any

from . import events
from .session_settings import SessionSettings

__all__ = ["initialize_session"]

logger = logging.getLogger(__name__)


def _safe_exception_str(error: BaseException) -> str:
    """``str(error)``, or its ``repr`` when the message cannot be rendered (2.0.2's name: the
    session uses it too, so reporting a failure never raises a second error)."""
    try:
        return str(error)
    except Exception:  # a message that cannot be rendered
        return repr(error)


def _reason_code(error: BaseException) -> str:
    code = getattr(error, "reason_code", None)
    if isinstance(code, str):
        return code
    if isinstance(error, ImportError | ModuleNotFoundError):
        return "import_failed"
    return "mount_failed"


async def _failed(
    coordinator: Any, kind: str, module_id: str, error: BaseException, instance_id: Any = None
) -> None:
    logger.warning(
        "Failed to load %s '%s': %s", kind, module_id, _safe_exception_str(error), exc_info=True
    )
    data: dict[str, Any] = {
        "module_type": kind,
        "module_id": module_id,
        "error": _safe_exception_str(error),
        "reason_code": _reason_code(error),
    }
    if instance_id:
        data["instance_id"] = instance_id
    try:
        await coordinator.hooks.emit(events.MODULE_LOAD_FAILED, data)
    except Exception:  # observing the failure must not change the outcome
        logger.debug("could not emit %s", events.MODULE_LOAD_FAILED, exc_info=True)


async def _mount(loader: Any, coordinator: Any, module_id: str, config: Any, source: Any) -> None:
    mount = await loader.load(module_id, config or {}, source_hint=source, coordinator=coordinator)
    cleanup = await mount(coordinator)
    if cleanup:
        coordinator.register_cleanup(cleanup)
    ready = getattr(mount, "__on_session_ready__", None)
    if ready:
        loader.enqueue_on_session_ready(ready[0], ready[1])


def _session_module(
    config: Mapping[str, Any], settings: SessionSettings, role: str, default: str
) -> tuple[str, Any, Any]:
    """``(module id, config, source)`` of ``session.<role>`` given as a name or a spec."""
    spec = getattr(settings, role)
    if spec is None:
        spec = default
    if isinstance(spec, Mapping):
        return str(spec.get("module", default)), spec.get("config") or {}, spec.get("source")
    section = config.get(role) or {}
    return str(spec), section.get("config") or {}, getattr(settings, f"{role}_source")


def _default_name(module_id: str) -> str:
    return module_id.removeprefix("provider-")


def _check_instances(providers: list[Any]) -> None:
    """At most one entry per provider module may go without an ``instance_id``."""
    without: dict[str, int] = {}
    for entry in providers:
        if isinstance(entry, Mapping) and entry.get("module") and not entry.get("instance_id"):
            without[entry["module"]] = without.get(entry["module"], 0) + 1
    for module_id, count in without.items():
        if count > 1:
            raise ValueError(
                f"Multi-instance providers require explicit 'instance_id' on each additional "
                f"entry. Found {count} entries for module '{module_id}' without instance_id "
                "(at most 1 allowed as the default instance)."
            )


async def _provider(loader: Any, coordinator: Any, entry: Mapping[str, Any]) -> None:
    module_id = entry["module"]
    instance_id = entry.get("instance_id")
    before = dict(coordinator.get("providers") or {})
    try:
        before_load = coordinator.get_capability("provider.before_load")
        if before_load is not None:
            await before_load(coordinator, deepcopy(dict(entry)))
        default = _default_name(module_id)
        await _mount(loader, coordinator, module_id, entry.get("config"), entry.get("source"))
        after = coordinator.get("providers") or {}
        if all(name in before and value is before[name] for name, value in after.items()):
            raise ValueError("Provider mount did not install a new provider instance")
        if instance_id and instance_id != default:
            fresh = after.get(default)
            if fresh is None or fresh is before.get(default):
                raise ValueError(
                    "Named provider mount did not install a new instance at its default mount name"
                )
            await coordinator.mount("providers", fresh, name=instance_id)
            if before.get(default) is not None:  # give the default name back its provider
                await coordinator.mount("providers", before[default], name=default)
            else:
                await coordinator.unmount("providers", name=default)
    except Exception as error:
        await _restore_providers(coordinator, before)
        await _failed(coordinator, "provider", module_id, error, instance_id)
        on_failure = coordinator.get_capability("provider.load_failure")
        if on_failure is not None:
            await on_failure(coordinator, deepcopy(dict(entry)), error)


async def _restore_providers(coordinator: Any, before: dict[str, Any]) -> None:
    """Undo what a failed provider mounted: the providers are as they were before it."""
    for name in list(coordinator.get("providers") or {}):
        if name not in before:
            await coordinator.unmount("providers", name=name)
    current = coordinator.get("providers") or {}
    for name, previous in before.items():
        if current.get(name) is not previous:
            await coordinator.mount("providers", previous, name=name)


async def initialize_session(
    config: Mapping[str, Any], coordinator: Any, session_id: str, parent_id: str | None
) -> None:
    """Load and mount every module of ``config`` on ``coordinator`` (see the module docstring).

    :raises RuntimeError: the orchestrator or the context manager cannot be mounted.
    :raises ValueError: two entries of one provider module lack an ``instance_id``.
    """
    from .loader import ModuleLoader

    loader = getattr(coordinator, "loader", None)
    if loader is None:
        loader = ModuleLoader(coordinator=coordinator)
        coordinator.loader = loader
    if getattr(getattr(loader, "load", None), "__func__", None) is ModuleLoader.load:
        await _mount_with_our_loader(config, coordinator, loader)
    else:
        await _mount_with_load(config, coordinator, loader)

    if parent_id:
        settings = SessionSettings.of_plan(config, coordinator)
        payload: dict[str, Any] = {"parent": parent_id, "session_id": session_id}
        if settings.metadata:
            payload["metadata"] = settings.metadata
        if settings.raw:
            from .session_data import raw_plan

            payload["raw"] = raw_plan(config)
        await coordinator.hooks.emit(events.SESSION_FORK, payload)
    logger.info("Session %s initialized", session_id)


def _module_entry(spec: Any, default_config: Any, kind: str) -> tuple[str, dict[str, Any], Any]:
    """(module id, config, source) of the plan's orchestrator or context entry."""
    if isinstance(spec, Mapping):
        module_id = spec.get("module")
        if not isinstance(module_id, str) or not module_id:
            raise ValueError(f"session.{kind}: expected a module id, got {module_id!r}")
        config = spec.get("config") or {}
        source = spec.get("source")
    elif isinstance(spec, str):
        module_id, config, source = spec, default_config or {}, None
    else:
        raise ValueError(f"session.{kind}: expected a module id or a mapping, got {spec!r}")
    if not isinstance(config, Mapping):
        raise ValueError(f"session.{kind}.config: expected a mapping, got {type(config).__name__}")
    return module_id, dict(config), source


async def _mount_with_our_loader(config: Mapping[str, Any], coordinator: Any, loader: Any) -> None:
    settings = SessionSettings.of_plan(config, coordinator)
    base_dir = settings.base_dir
    for kind in ("orchestrator", "context"):
        module_id, module_config, source = _module_entry(
            getattr(settings, kind), (config.get(kind) or {}).get("config"), kind
        )
        mounted = await loader.mount(module_id, module_config, source, base_dir=base_dir)
        if mounted is None or coordinator.get(kind) is None:
            failure = next((f for f in reversed(loader.failures) if f.module_id == module_id), None)
            cause = failure.message if failure else f"{module_id!r} mounted nothing at {kind!r}"
            raise RuntimeError(f"Cannot initialize without {kind}: {cause}")
    for kind in ("providers", "tools", "hooks"):
        entries = config.get(kind) or []
        if not isinstance(entries, list):
            raise ValueError(f"{kind}: expected a list, got {type(entries).__name__}")
        entries = [e for e in entries if isinstance(e, Mapping) and e.get("module")]
        if kind == "providers":
            _check_instances(entries)
        for entry in entries:
            if kind == "providers" and entry.get("instance_id"):
                # Another instance of a provider module: mounted through its mount function,
                # then moved to its instance name (the loader mounts each module id once).
                await _provider(loader, coordinator, entry)
            else:
                await loader.mount_all([entry], base_dir=base_dir)
    await loader.session_ready()
    await _run_ready_queue(loader, coordinator)  # the provider instances' own


async def _mount_with_load(config: Mapping[str, Any], coordinator: Any, loader: Any) -> None:
    for role, default, label in (
        ("orchestrator", "loop-basic", "orchestrator"),
        ("context", "context-simple", "context manager"),
    ):
        module_id, module_config, source = _session_module(
            config, SessionSettings.of_plan(config, coordinator), role, default
        )
        logger.info("Loading %s: %s", label, module_id)
        try:
            await _mount(loader, coordinator, module_id, module_config, source)
        except Exception as error:
            raise RuntimeError(
                f"Cannot initialize without {label}: {_safe_exception_str(error)}"
            ) from error

    providers = list(config.get("providers") or [])
    _check_instances(providers)
    for entry in providers:
        if isinstance(entry, Mapping) and entry.get("module"):
            await _provider(loader, coordinator, entry)

    for kind, section in (("tool", "tools"), ("hook", "hooks")):
        for entry in config.get(section) or []:
            name = entry.get("module") if isinstance(entry, Mapping) else None
            if not name:
                continue
            config_of, source = entry.get("config"), entry.get("source")
            try:
                await _mount(loader, coordinator, name, config_of, source)
            except Exception as error:
                await _failed(coordinator, kind, name, error)

    await _run_ready_queue(loader, coordinator)


async def _run_ready_queue(loader: Any, coordinator: Any) -> None:
    """Run each queued ``on_session_ready``, then empty the queue; a failure is logged and
    emitted, not raised."""
    for module_id, ready in loader.get_on_session_ready_queue():
        try:
            await ready(coordinator)
        except Exception as error:
            await _ready_failed(coordinator, module_id, error)
    loader.clear_on_session_ready_queue()


async def _ready_failed(coordinator: Any, module_id: str, error: Exception) -> None:
    logger.warning("on_session_ready of '%s' raised: %s", module_id, _safe_exception_str(error))
    try:
        await coordinator.hooks.emit(
            events.MODULE_ON_SESSION_READY_FAILED,
            {"module_id": module_id, "error": _safe_exception_str(error)},
        )
    except Exception:
        logger.debug("could not emit the on_session_ready failure", exc_info=True)
