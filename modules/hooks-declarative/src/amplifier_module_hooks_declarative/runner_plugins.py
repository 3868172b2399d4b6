"""Hook types as plugins: a :class:`RunnerPlugin` per entry point of
:data:`~.registry.RUNNERS_GROUP`, named as the ``type`` of its hooks, says which spec model its
hooks are read into and how a runner is built from one (:class:`RunnerEnvironment`: what the
mount gives every runner). :func:`runner_factory` builds each hook's runner through them: the
module's own hook types (``command``, ``matcher``, ``llm``, ...) exactly as another
distribution's.

A hook type of another distribution whose plugin says ``in_hooks_files`` is a ``type`` the
module's own hooks files accept (``type: notify`` in ``hooks.yaml``); its spec model derives
from :class:`~.specs.PluginHookSpec`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel

from .registry import RUNNERS_GROUP, Plugin, find_plugin, plugins
from .types import Runner

if TYPE_CHECKING:
    from .config import DeclarativeConfig
    from .model_hook_guards import Guards
    from .specs import HookSpec

__all__ = [
    "RunnerEnvironment",
    "RunnerFactory",
    "RunnerPlugin",
    "RunnerType",
    "hook_type_names",
    "runner_factory",
    "runner_plugin",
]

RunnerFactory = Callable[["HookSpec", str], Runner]
"""Builds the runner of one hook: ``factory(spec, label) -> Runner``."""


@dataclass(frozen=True, slots=True)
class RunnerEnvironment:
    """What the mount gives every runner it builds."""

    project_dir: str
    """The session's project directory."""
    coordinator: Any = None
    """The session's coordinator (``None`` in a bare dispatcher)."""
    pass_env: Sequence[str] | None = None
    """The variables command hooks get (``None``: all)."""
    settings: DeclarativeConfig | None = None
    """The module config (``None``: the defaults)."""
    guards: Guards | None = None
    """The session's guards on model requests made by hooks (:mod:`.guard`)."""
    shared: dict[str, Any] = field(default_factory=dict)
    """State a hook type keeps for the mount's life, under a key of its own (the llm
    runners' caches)."""

    def providers(self) -> Callable[[], Any] | None:
        """The mounted providers, asked when a hook runs (``None``: no coordinator)."""
        get = getattr(self.coordinator, "get", None)
        return (lambda: get("providers")) if callable(get) else None

    def tools(self) -> Callable[[], Any] | None:
        """The mounted tools, asked when a hook runs (``None``: no coordinator)."""
        get = getattr(self.coordinator, "get", None)
        return (lambda: get("tools")) if callable(get) else None


@runtime_checkable
class RunnerPlugin(Protocol):
    """A hook type: the spec model its hooks are read into, and how to build their runner."""

    @property
    def spec(self) -> type[BaseModel]:
        """The hooks' spec model (its ``type`` field is the entry point's name)."""
        ...

    @property
    def in_hooks_files(self) -> bool:
        """Whether the module's own hooks files accept the type (``type: <name>``)."""
        ...

    def build(self, spec: Any, label: str, env: RunnerEnvironment) -> Runner:
        """The runner of one hook of this type."""
        ...


@dataclass(frozen=True, slots=True)
class RunnerType:
    """A :class:`RunnerPlugin` made of a spec model and a build function."""

    spec: type[BaseModel]
    build: Callable[[Any, str, RunnerEnvironment], Runner]
    in_hooks_files: bool = True


def _checked(plugin: Plugin) -> RunnerPlugin:
    found = plugin.load()
    if not isinstance(found, RunnerPlugin):
        raise plugin.fail(
            f"is a {type(found).__name__}, not a runner plugin (spec, in_hooks_files, build)"
        )
    return found


def runner_plugin(name: str) -> RunnerPlugin | None:
    """The hook type called ``name``, loaded on first use; ``None``: no such type.

    :raises ~.registry.PluginError: it cannot be loaded, or is not a runner plugin.
    """
    plugin = find_plugin(RUNNERS_GROUP, name)
    return None if plugin is None else _checked(plugin)


def hook_type_names() -> tuple[str, ...]:
    """The name of every hook type of the registry, in its order (nothing is loaded)."""
    return tuple(plugin.name for plugin in plugins(RUNNERS_GROUP))


def runner_factory(env: RunnerEnvironment) -> RunnerFactory:
    """Builds each hook's runner with the hook type its spec's ``type`` names.

    :raises TypeError: no hook type builds the spec (naming it).
    :raises ~.registry.PluginError: the hook type's plugin cannot be loaded.
    """

    def build(spec: HookSpec, label: str) -> Runner:
        plugin = runner_plugin(spec.type)
        if plugin is None or not isinstance(spec, plugin.spec):
            raise TypeError(f"hooks-declarative: no runner for hook type {type(spec).__name__}")
        return plugin.build(spec, label, env)

    return build
