"""The managed policy's hooks on a session: registered first, named apart, reached by nothing.

:func:`mount_managed` registers the policy's hooks (:mod:`.managed`) on the coordinator's
registry at :data:`MANAGED_PRIORITY`, the lowest priority there is, under handler names of
their own (``managed-policy:<event>``), and records the mount as the coordinator capability
:data:`MANAGED_CAPABILITY`. An application mounts them before any module of its bundle
(``amplifier-hooks run`` does: ``AgentSession``), so that a handler of equal priority
registered later still runs after them, and the loader's observe mode, which wraps only what
a module registers while it mounts, never reaches them. hooks-declarative's own mount calls
:func:`mount_managed` too, for a host that did not: then they are registered when the module
mounts.

No config key applies to them: they are planned with the module's defaults, without
``observe_sources`` and without the reload of changed hook files (the file is checked at each
session start). On a session that keeps receipts, each of their runs leaves one like every
other declarative hook's, naming the policy file and the entry's line. :func:`handlers_ahead`
names any handler that would run before them (one registered at a lower priority still); an
application refuses such a session.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.kernel import Kernel

from . import receipts as _receipts
from .config import DeclarativeConfig
from .containment import contain_documents
from .discovery import Loaded, resolve_project_dir
from .dispatch import Dispatcher, default_runner_factory, plan_steps
from .managed import MANAGED_KIND, ManagedPolicy, load_managed_policy
from .once import once
from .source import Source

__all__ = [
    "HANDLER_PREFIX",
    "MANAGED_CAPABILITY",
    "MANAGED_PRIORITY",
    "ManagedMount",
    "handlers_ahead",
    "mount_managed",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

MANAGED_PRIORITY: Final = -(2**63)
"""The priority of the policy's handlers: lower than any other a module should use."""

MANAGED_CAPABILITY: Final = "hooks.managed_policy"
"""The coordinator capability holding the :class:`ManagedMount` once the hooks are on."""

HANDLER_PREFIX: Final = "managed-policy"
"""The policy's handlers are named ``managed-policy:<event>``."""

_GRACE_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class ManagedMount:
    """The policy's hooks, registered: where the policy is and its handler names."""

    path: Path
    handlers: tuple[str, ...]


class _Named:
    """A registry whose registrations take the policy's handler names."""

    def __init__(self, registry: Any) -> None:
        self._registry = registry
        self.names: list[str] = []

    def register(self, event: str, handler: Any, **options: Any) -> Any:
        name = str(options.pop("name", event)).split(":", 1)[-1]
        options["name"] = f"{HANDLER_PREFIX}:{name}"
        self.names.append(options["name"])
        return self._registry.register(event, handler, **options)


def _registry(coordinator: Any) -> Any:
    hooks = getattr(coordinator, "hooks", None)
    if hooks is None or not callable(getattr(hooks, "register", None)):
        raise TypeError(
            f"managed policy: the coordinator ({type(coordinator).__name__}) has no hook "
            "registry (.hooks with register())"
        )
    return hooks


def _mounted(coordinator: Any) -> ManagedMount | None:
    get = getattr(coordinator, "get_capability", None)
    if not callable(get):
        return None
    try:
        found = get(MANAGED_CAPABILITY)
    except Exception:  # a coordinator without capabilities: nothing mounted
        return None
    return found if isinstance(found, ManagedMount) else None


async def mount_managed(
    coordinator: Any,
    *,
    environ: Mapping[str, str] | None = None,
    policy: ManagedPolicy | None = None,
) -> Callable[[], Awaitable[None]] | None:
    """Register the managed policy's hooks on ``coordinator`` unless they are already there;
    the async cleanup, or ``None`` when there is no policy (or it is already mounted).

    :raises ManagedPolicyError: the policy file exists and cannot be trusted, read or parsed.
    """
    if _mounted(coordinator) is not None:
        return None
    if policy is None:
        policy = load_managed_policy(environ)
    if policy is None:
        return None
    found = _registry(coordinator)
    registry = _Named(found)
    settings = DeclarativeConfig()
    project_dir = resolve_project_dir(coordinator, settings)
    source = Source(MANAGED_KIND, policy.label, policy.path)
    documents = contain_documents([(policy.document, source)], settings, project_dir=project_dir)
    factory = default_runner_factory(str(project_dir), coordinator, settings=settings)
    kept = _receipts.kept(coordinator)
    dispatcher = Dispatcher(
        plan_steps(documents, factory, receipts=kept),
        project_dir=str(project_dir),
        coordinator=coordinator,
        kernel=replace(Kernel.of(coordinator, found), registry=registry),
    )
    unregisters = dispatcher.register(priority=MANAGED_PRIORITY)
    if kept:  # its hooks leave receipts naming the policy file and their lines
        _receipts.bind(
            coordinator,
            Loaded([(document, source) for document in documents]),
            dispatcher.steps,
            project_dir=project_dir,
            scope="managed",
            dispatcher=f"{HANDLER_PREFIX}:",
        )
    mounted = ManagedMount(policy.path, tuple(registry.names))
    register_capability = getattr(coordinator, "register_capability", None)
    if callable(register_capability):
        register_capability(MANAGED_CAPABILITY, mounted)
    logger.info(
        "managed policy %s: %d hook step(s) on %s, before every other hook",
        policy.path,
        len(dispatcher.steps),
        ", ".join(dispatcher.keys) or "no events",
    )

    async def cleanup() -> None:
        for unregister in unregisters:
            unregister()
        await dispatcher.settle(_GRACE_S)
        await dispatcher.aclose()

    return once(cleanup)


def handlers_ahead(coordinator: Any) -> list[str]:
    """The handlers ordered before one of the managed policy's on an event both can handle
    (a lower priority, or the same one and registered earlier), as ``name (event, priority
    P)``; empty when none is or no policy is mounted."""
    mounted = _mounted(coordinator)
    registrations = getattr(getattr(coordinator, "hooks", None), "registrations", None)
    if mounted is None or not callable(registrations):
        return []
    infos = list(registrations())
    ours = [info for info in infos if info.name in mounted.handlers]
    if not ours:
        return []
    return [
        f"{info.name} ({info.event}, priority {info.priority})"
        for info in infos
        if info.name not in mounted.handlers
        and any(
            _shared(info.event, mine.event)
            and (info.priority, info.seq) < (mine.priority, mine.seq)
            for mine in ours
        )
    ]


def _shared(event: str, other: str) -> bool:
    """Whether two registrations (names or patterns such as ``*:error``) can meet on one
    event."""
    return event == other or fnmatchcase(event, other) or fnmatchcase(other, event)
