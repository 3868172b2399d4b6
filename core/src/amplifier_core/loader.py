"""Find modules through entry points, mount them in bundle order, clean them up in reverse.

The life of a module, the failure policy (what each stage reports, strict mode) and the
allow and deny lists are in docs/module-loading.md.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import logging
import os
import re
import shlex
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeVar

import importlib_metadata

from . import events
from ._module_types import MODULES_ENV, ModuleValidationError, module_type_of, validate_at_load
from ._module_types import discover_directory as _discover_directory
from ._module_types import module_info as _module_info
from .collector_pause import collector_paused
from .errors import LoadStage, ModuleLoadError

if TYPE_CHECKING:
    from .declared_events import UnknownRegistration
    from .descriptions import ModuleInfo
    from .hooks import HandlerInfo

__all__ = [
    "ALLOW_ENV",
    "CONFIG_SCHEMA_ATTR",
    "DEFAULT_GROUP",
    "DENY_ENV",
    "MODULES_ENV",
    "SOURCE_RESOLVER",
    "STRICT_ENV",
    "FailureStage",
    "HookEmitter",
    "LoaderCoordinator",
    "ModuleEntryLike",
    "ModuleFailure",
    "ModuleLoader",
    "ModuleSpec",
    "ModuleValidationError",
    "MountedModule",
    "discover_modules",
    "module_type_of",
]

logger = logging.getLogger(__name__)

DEFAULT_GROUP: Final = "amplifier.modules"
CONFIG_SCHEMA_ATTR: Final = "config_schema"
"""The module attribute beside ``mount`` that names its config model (a pydantic model class):
what ``validate`` checks a bundle's config against without mounting."""
STRICT_ENV: Final = "AMPLIFIER_MODULES_STRICT"
ALLOW_ENV: Final = "AMPLIFIER_MODULES_ALLOW"
DENY_ENV: Final = "AMPLIFIER_MODULES_DENY"
SOURCE_RESOLVER: Final = "module-source-resolver"
"""The mount point where an application (amplifier-foundation) mounts the object that maps a
module id to the directory to load it from; a module it maps is validated before it mounts."""

_T = TypeVar("_T")

FailureStage = Literal["resolve", "import", "mount", "on_session_ready", "cleanup"]

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_ENTRY_VALUE: Final = re.compile(
    r"(?P<module>[\w.]+)\s*(?::\s*(?P<attr>[\w.]+)\s*)?(?:\[[^\]]*\]\s*)?$"
)
_REFERENCE: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_REMOTE: Final = re.compile(r"^(?:git\+|hg\+|svn\+|bzr\+|https?://|ssh://|git@|git://)")
_IMPORTLIB_DIR: Final = os.path.dirname(importlib.__file__)


class HookEmitter(Protocol):
    """The part of a hook registry the loader uses."""

    def emit(self, event: str, data: dict[str, Any]) -> Awaitable[Any]: ...


class LoaderCoordinator(Protocol):
    """The part of a coordinator the loader uses: something with ``hooks``."""

    @property
    def hooks(self) -> HookEmitter: ...


class ModuleEntryLike(Protocol):
    """One module entry of a bundle (``{module, config, source}``)."""

    @property
    def module(self) -> str: ...

    @property
    def config(self) -> Mapping[str, Any]: ...

    @property
    def source(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class ModuleSpec:
    """Where a module comes from, known without importing it.

    ``value`` is the entry point's target (``package.module:attr``). For a module mounted
    from a bundle ``source``, ``source`` is that source and ``path`` the directory put on
    ``sys.path`` (if any); ``distribution`` and ``version`` are then ``None``.
    """

    id: str
    value: str
    distribution: str | None = None
    version: str | None = None
    group: str = DEFAULT_GROUP
    source: str | None = None
    path: str | None = None

    @property
    def module_name(self) -> str:
        """The importable module the target lives in."""
        match = _ENTRY_VALUE.match(self.value.strip())
        return match.group("module") if match else self.value.partition(":")[0].strip()

    @property
    def attr(self) -> str | None:
        """The attribute path inside the module, or ``None`` (then ``mount`` is used)."""
        match = _ENTRY_VALUE.match(self.value.strip())
        return match.group("attr") if match else None

    @property
    def entry_point(self) -> str:
        """``name = value``, as written in the distribution's metadata."""
        return f"{self.id} = {self.value}"

    @property
    def origin(self) -> str:
        """The distribution (``name version``) or the source the module comes from."""
        if self.source is not None:
            return f"source {self.source}"
        if self.distribution is None:
            return "unknown distribution"
        version = f" {self.version}" if self.version else ""
        return f"distribution {self.distribution}{version}"


@dataclass(frozen=True, slots=True)
class ModuleFailure:
    """A module that could not be loaded, or whose lifecycle callback failed."""

    module_id: str
    stage: FailureStage
    message: str
    cause: str
    error_type: str | None = None
    entry_point: str | None = None
    distribution: str | None = None
    location: str | None = None
    exception: BaseException | None = field(default=None, compare=False, repr=False)

    def event_data(self) -> dict[str, Any]:
        """The data sent with ``module:load_failed`` / ``module:on_session_ready_failed``."""
        return {
            "module_id": self.module_id,
            "entry_point": self.entry_point,
            "distribution": self.distribution,
            "error": self.cause,
            "error_type": self.error_type,
            "stage": self.stage,
            "location": self.location,
            "message": self.message,
        }


@dataclass(slots=True)
class MountedModule:
    """A module whose ``mount`` succeeded, with what the loader keeps of it."""

    spec: ModuleSpec
    config: dict[str, Any]
    module: ModuleType
    cleanup: Callable[[], Any] | None = None
    on_session_ready: Callable[[Any], Any] | None = None
    ready_called: bool = False
    observe: bool = False
    """Mounted in observe mode: its decisions are recorded, not applied (``observe: true``)."""

    @property
    def id(self) -> str:
        """The module id."""
        return self.spec.id


class _LoadFailure(Exception):
    """Internal: carries one stage's failure up to :meth:`ModuleLoader._report`."""

    def __init__(
        self,
        stage: LoadStage,
        cause: str,
        *,
        spec: ModuleSpec | None = None,
        error: BaseException | None = None,
        error_type: str | None = None,
        location: str | None = None,
    ) -> None:
        super().__init__(cause)
        self.stage: LoadStage = stage
        self.cause = cause
        self.spec = spec
        self.error = error
        self.error_type = error_type or (type(error).__name__ if error is not None else None)
        self.location = location if location is not None else _location(error)


_DISCOVERED: dict[str, tuple[tuple[object, ...], dict[str, ModuleSpec]]] = {}
"""Per entry-point group: the :func:`_installed_state` it was read in, and what was read."""
_DISCOVERED_GROUPS: Final = 8
_SETTLED_NS: Final = 2_000_000_000
"""A directory changed less than this long ago may change again within the same tick of the
file system's clock (a few milliseconds) without its time changing: it is read every time."""


def _installed_state() -> tuple[object, ...] | None:
    """What the installed distributions depend on: each ``sys.path`` entry with its
    modification time, inode and device; ``None`` when one changed too recently to tell a
    later change by its time. Installing, removing or upgrading a distribution adds or
    removes a ``*.dist-info`` directory in one of them (and so changes its modification
    time); changing ``sys.path`` changes the entries."""
    state: list[object] = [os.getcwd()]  # what "" on sys.path means
    recent = time.time_ns() - _SETTLED_NS
    for entry in sys.path:
        try:
            found = os.stat(entry or ".")
        except (OSError, ValueError, TypeError):
            state.append((entry, None))
            continue
        if found.st_mtime_ns > recent:
            return None
        state.append((entry, found.st_mtime_ns, found.st_ino, found.st_dev))
    return tuple(state)


def discover_modules(group: str = DEFAULT_GROUP) -> dict[str, ModuleSpec]:
    """Module id -> :class:`ModuleSpec` for every entry point in ``group``, importing nothing.

    The first distribution on ``sys.path`` wins when two declare the same id (the other is
    logged). Reading every distribution's metadata takes milliseconds, so what was read is
    kept per group and read again when ``sys.path`` or one of its directories changed, or
    changed in the last two seconds (:func:`_installed_state`): every session of a process
    shares one reading.
    """
    state = _installed_state()
    known = _DISCOVERED.get(group)
    if state is not None and known is not None and known[0] == state:
        return dict(known[1])
    specs = _read_entry_points(group)
    if state is None:
        _DISCOVERED.pop(group, None)
        return specs
    if len(_DISCOVERED) >= _DISCOVERED_GROUPS and group not in _DISCOVERED:
        _DISCOVERED.pop(next(iter(_DISCOVERED)))
    _DISCOVERED[group] = (state, specs)
    return dict(specs)


def _read_entry_points(group: str) -> dict[str, ModuleSpec]:
    specs: dict[str, ModuleSpec] = {}
    for ep in importlib_metadata.entry_points(group=group):
        dist = ep.dist
        spec = ModuleSpec(
            id=ep.name,
            value=ep.value,
            distribution=dist.name if dist is not None else None,
            version=dist.version if dist is not None else None,
            group=group,
        )
        first = specs.get(ep.name)
        if first is not None:
            logger.warning(
                "module id %r is declared by %s and by %s; using %s (first on sys.path)",
                ep.name,
                first.origin,
                spec.origin,
                first.origin,
            )
            continue
        specs[ep.name] = spec
    return specs


class ModuleLoader:
    """Discovers, mounts and cleans up modules for one session (see the module docstring).

    :param coordinator: what each ``mount(coordinator, config)`` receives; the loader itself
        only uses ``coordinator.hooks.emit`` to report failures.
    :param strict: raise :class:`ModuleLoadError` on a load failure; ``None`` reads
        ``AMPLIFIER_MODULES_STRICT``.
    :param allow: module ids or patterns allowed; ``None`` reads ``AMPLIFIER_MODULES_ALLOW``.
    :param deny: module ids or patterns denied; ``None`` reads ``AMPLIFIER_MODULES_DENY``.
    :param group: the entry-point group to discover.
    :param search_paths: directories :meth:`discover` lists ``amplifier-module-<id>``
        directories from (``AMPLIFIER_MODULES`` when ``None``), as amplifier-core 2.0.2's does;
        modules are mounted by entry point, by source, through the coordinator's
        ``module-source-resolver``, or as importable ``amplifier_module_<id>``.
    """

    def __init__(
        self,
        coordinator: LoaderCoordinator | None = None,
        search_paths: Iterable[str | os.PathLike[str]] | None = None,
        *,
        strict: bool | None = None,
        allow: Iterable[str] | str | None = None,
        deny: Iterable[str] | str | None = None,
        group: str = DEFAULT_GROUP,
    ) -> None:
        self._coordinator = coordinator
        self._search_paths = [Path(p) for p in search_paths] if search_paths else None
        self.group = group
        self.strict = _env_flag(STRICT_ENV) if strict is None else strict
        self.allow, self._allow_label = _patterns(allow, ALLOW_ENV, "the allow list")
        self.deny, self._deny_label = _patterns(deny, DENY_ENV, "the deny list")
        self.failures: list[ModuleFailure] = []
        self.unknown_events: list[UnknownRegistration] = []
        """Handlers mounted modules registered for events that exist nowhere
        (:meth:`check_events`), in the order they were found."""
        # id(registration) -> (the registration, the module that made it)
        self._owners: dict[int, tuple[HandlerInfo, str]] = {}
        self._checked: set[int] = set()
        self._specs: dict[str, ModuleSpec] | None = None
        self._mounted: list[MountedModule] = []
        self._added_paths: list[str] = []
        self._loaded_modules: dict[str, Callable[..., Any]] = {}
        self._on_session_ready_queue: list[tuple[str, Callable[..., Any]]] = []

    @property
    def coordinator(self) -> LoaderCoordinator:
        """What mounted modules receive; a loader made without one cannot mount."""
        if self._coordinator is None:
            raise RuntimeError(
                "ModuleLoader: no coordinator; give one (ModuleLoader(coordinator)) to mount, "
                "or use load() and call the mount function it returns with a coordinator"
            )
        return self._coordinator

    @coordinator.setter
    def coordinator(self, coordinator: LoaderCoordinator) -> None:
        self._coordinator = coordinator

    # -- amplifier-core 2.0.2's loading API: mount functions to call -------------------

    async def load(
        self,
        module_id: str,
        config: Mapping[str, Any] | None = None,
        source_hint: str | Mapping[str, Any] | None = None,
        coordinator: Any = None,
    ) -> Callable[[Any], Awaitable[Any]]:
        """A mount function for ``module_id`` with ``config`` bound: ``await fn(coordinator)``
        mounts the module and returns its cleanup, as amplifier-core 2.0.2's loader does.

        The module is found from ``source_hint`` (a directory or ``package:attr``), else its
        entry point, else an importable ``amplifier_module_<id>`` package; the resolution is
        kept, so loading one module twice with two configs gives two mount functions. An
        async ``on_session_ready`` of the module rides along as ``fn.__on_session_ready__``.

        :raises ValueError: the module cannot be found or imported (the message says why).
        """
        reason = self._filtered(module_id)
        if reason is not None:
            raise ValueError(f"Module '{module_id}': {reason}")
        raw = self._loaded_modules.get(module_id)
        if raw is None:
            raw = await self._mount_from_resolver(module_id, source_hint, config)
        if raw is None:
            raw = self._raw_mount(module_id, source_hint)
            self._loaded_modules[module_id] = raw
        bound = dict(config or {})

        async def mount_with_config(target: Any) -> Any:
            outcome = raw(target, bound)
            return await outcome if inspect.isawaitable(outcome) else outcome

        ready = getattr(raw, "__on_session_ready__", None)
        if ready is not None:
            mount_with_config.__on_session_ready__ = ready  # type: ignore[attr-defined]
        return mount_with_config

    async def initialize(self, module: Callable[[Any], Awaitable[Any]], coordinator: Any) -> Any:
        """Call a mount function :meth:`load` returned; its cleanup, if any."""
        return await module(coordinator)

    def get_on_session_ready_queue(self) -> list[tuple[str, Callable[..., Any]]]:
        """A copy of the ``(module_id, on_session_ready)`` pairs waiting to run."""
        return list(self._on_session_ready_queue)

    def enqueue_on_session_ready(self, module_id: str, fn: Callable[..., Any]) -> None:
        """Queue a mounted module's ``on_session_ready`` (session initialisation does it)."""
        self._on_session_ready_queue.append((module_id, fn))

    def clear_on_session_ready_queue(self) -> None:
        self._on_session_ready_queue.clear()

    async def _mount_from_resolver(
        self,
        module_id: str,
        source_hint: str | Mapping[str, Any] | None,
        config: Mapping[str, Any] | None,
    ) -> Callable[..., Any] | None:
        """The mount function of the directory the ``module-source-resolver`` maps
        ``module_id`` to, after validation; ``None`` without a resolver or when it does not
        know the module (then the entry point is used, as 2.0.2 does).

        :raises ModuleValidationError: the module in that directory fails validation.
        """
        try:
            spec = await self._resolve_through_resolver(module_id, source_hint, config)
        except _LoadFailure as failure:
            if isinstance(failure.error, ModuleValidationError):
                raise failure.error from None
            raise ValueError(f"Module '{module_id}': {failure.cause}") from failure
        if spec is None:
            return None
        try:
            module, mount = self._import(spec)
        except _LoadFailure as failure:
            raise ValueError(f"Module '{module_id}': {failure.cause}") from failure
        raw = _with_ready(mount, module, module_id)
        self._loaded_modules[module_id] = raw
        return raw

    async def _resolve_through_resolver(
        self, module_id: str, source: Any, config: Mapping[str, Any] | None
    ) -> ModuleSpec | None:
        """Where the coordinator's ``module-source-resolver`` puts ``module_id``, validated
        (as 2.0.2's loader does); ``None`` without a resolver or when it does not know the
        module (its ``ModuleNotFoundError``)."""
        resolver = self._source_resolver()
        if resolver is None:
            return None
        reason = self._filtered(module_id)
        if reason is not None:
            raise _LoadFailure("resolve", reason)
        from .module_sources import ModuleNotFoundError as SourceNotFoundError

        try:
            if hasattr(resolver, "async_resolve"):
                found = await resolver.async_resolve(
                    module_id, source_hint=source, profile_hint=source
                )
            else:
                found = resolver.resolve(module_id, source_hint=source, profile_hint=source)
            path = Path(found.resolve())
        except SourceNotFoundError as err:
            logger.debug("module %r: the source resolver does not know it (%s)", module_id, err)
            return None
        except Exception as err:
            raise _LoadFailure("resolve", _describe(err), error=err) from err
        origin = str(found)
        logger.info("[module:mount] %s from %s", module_id, origin)
        try:
            package = await validate_at_load(module_id, path, dict(config or {}))
        except ModuleValidationError as err:
            spec = ModuleSpec(id=module_id, value="", group=self.group, source=str(path))
            raise _LoadFailure(
                "import", str(err), spec=spec, error=err, location=str(path)
            ) from err
        except Exception as err:
            spec = ModuleSpec(id=module_id, value="", group=self.group, source=str(path))
            raise _LoadFailure("import", _describe(err), spec=spec, error=err) from err
        if package is None:
            raise _LoadFailure("resolve", f"no amplifier_module_* package in {path}")
        return ModuleSpec(
            id=module_id,
            value=f"{package.name}:mount",
            group=self.group,
            source=str(path),
            path=str(package.parent),
        )

    def _source_resolver(self) -> Any:
        """The ``module-source-resolver`` mounted on the coordinator, or ``None``."""
        coordinator = self._coordinator
        getter = getattr(coordinator, "get", None) if coordinator is not None else None
        if getter is None:
            return None
        try:
            return getter(SOURCE_RESOLVER)
        except Exception:  # a coordinator without that mount point
            return None

    def _raw_mount(
        self, module_id: str, source_hint: str | Mapping[str, Any] | None
    ) -> Callable[..., Any]:
        source = source_hint.get("source") if isinstance(source_hint, Mapping) else source_hint
        if isinstance(source, str) and source.strip():
            try:
                module, mount = self._import(self._resolve_source(module_id, source, None))
            except _LoadFailure as failure:
                raise ValueError(f"Module '{module_id}': {failure.cause}") from failure
            return _with_ready(mount, module, module_id)
        found = self._load_entry_point(module_id) or self._load_filesystem(module_id)
        if found is None:
            package = "amplifier_module_" + module_id.replace("-", "_")
            raise ValueError(
                f"Module '{module_id}' not found: no entry point named {module_id!r} in group "
                f"{self.group!r} and no importable package {package!r}"
            )
        return found

    def _load_entry_point(self, module_id: str) -> Callable[..., Any] | None:
        """The mount function of the entry point named ``module_id``, or None."""
        import importlib.metadata as stdlib_metadata

        for entry in stdlib_metadata.entry_points(group=self.group):
            if entry.name != module_id:
                continue
            with collector_paused():
                mount = entry.load()
            module = sys.modules.get(getattr(mount, "__module__", "") or "")
            return _with_ready(mount, module, module_id)
        return None

    def _load_filesystem(
        self, module_id: str, module_name: str | None = None
    ) -> Callable[..., Any] | None:
        """The ``mount`` of the importable package ``amplifier_module_<id>``, or None; its
        async ``on_session_ready`` is attached as ``__on_session_ready__`` (a sync one is
        refused with a warning)."""
        name = module_name or "amplifier_module_" + module_id.replace("-", "_")
        try:
            with collector_paused():
                module = importlib.import_module(name)
        except Exception as err:
            logger.debug("module %r: %s cannot be imported: %s", module_id, name, err)
            return None
        mount = getattr(module, "mount", None)
        if not callable(mount):
            return None
        return _with_ready(mount, module, module_id)

    def _find_package_dir(self, module_id: str, module_path: Path) -> Path | None:
        """The ``amplifier_module_*`` package in ``module_path`` (or its ``src``), or None."""
        if not module_path.is_dir():
            return None
        package = "amplifier_module_" + module_id.replace("-", "_")
        root = _package_root(module_path, package)
        return None if root is None else root / package

    # -- discovery ---------------------------------------------------------------------

    async def discover(self) -> list[ModuleInfo]:
        """Every module found, as amplifier-core 2.0.2's ``discover`` lists them: each entry
        point of the group, then each ``amplifier-module-<id>`` directory in the search paths
        (``AMPLIFIER_MODULES``, colon-separated, when the loader was given none).

        The type comes from the id (see :func:`module_type_of`) or, for a directory, from its
        package's ``__amplifier_module_type__``; ``name``, ``version`` and ``description`` are
        2.0.2's placeholders (``"Hooks Logging"``, ``"1.0.0"``, ``"Module: hooks-logging"``).
        The entry points are read from metadata, nothing is imported;
        :meth:`discover_specs` gives where each one comes from.
        """
        found = [_module_info(ep.name, module_type_of(ep.name)) for ep in self._entry_points()]
        paths: Iterable[str | os.PathLike[str]] = self._search_paths or [
            p for p in os.environ.get(MODULES_ENV, "").split(":") if p
        ]
        for path in paths:
            found.extend(_discover_directory(Path(path)))
        return found

    def _entry_points(self) -> list[Any]:
        try:
            return list(importlib_metadata.entry_points(group=self.group))
        except Exception as err:  # broken metadata must not break a listing
            logger.warning("could not read the entry points of group %r: %s", self.group, err)
            return []

    def discover_specs(self, *, refresh: bool = False) -> dict[str, ModuleSpec]:
        """Module id -> :class:`ModuleSpec` for every entry point in the group.

        Reads distribution metadata only; no module is imported. The first distribution on
        ``sys.path`` wins when two declare the same id (the other is logged). The result is
        cached; ``refresh=True`` reads the metadata again.
        """
        if self._specs is None or refresh:
            self._specs = discover_modules(self.group)
        return dict(self._specs)

    # -- state -------------------------------------------------------------------------

    @property
    def mounted(self) -> tuple[MountedModule, ...]:
        """The modules mounted so far, in mount order."""
        return tuple(self._mounted)

    def get(self, module_id: str) -> MountedModule | None:
        """The mounted module with this id, if any."""
        for mounted in self._mounted:
            if mounted.id == module_id:
                return mounted
        return None

    def is_allowed(self, module_id: str) -> bool:
        """Whether the allow and deny lists let this module id through."""
        return self._filtered(module_id) is None

    # -- config schemas ----------------------------------------------------------------

    def config_schema(
        self,
        module_id: str,
        source: str | None = None,
        *,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> Any | None:
        """The config model a module declares as ``config_schema`` beside its ``mount``.

        The module is resolved and imported as :meth:`mount` would, but not mounted; ``None``
        when it declares none.

        :raises ModuleLoadError: it cannot be resolved or imported (the message says why).
        """
        try:
            spec = self._resolve(module_id, source, base_dir)
            module, _mount = self._import(spec)
        except _LoadFailure as failure:
            raise ModuleLoadError(
                f"module {module_id!r}: {failure.cause}",
                module_id=module_id,
                stage=failure.stage,
                error_type=failure.error_type,
                location=failure.location,
            ) from failure
        return getattr(module, CONFIG_SCHEMA_ATTR, None)

    # -- mounting ----------------------------------------------------------------------

    async def mount(
        self,
        module_id: str,
        config: Mapping[str, Any] | None = None,
        source: str | None = None,
        *,
        base_dir: str | os.PathLike[str] | None = None,
        observe: bool = False,
    ) -> MountedModule | None:
        """Resolve, import and mount one module; ``None`` if it failed (not in strict mode).

        :param source: a local directory holding the module (``src/`` layout or flat), or a
            ``package.module:attr`` reference; ``None`` uses the entry point.
        :param base_dir: the directory a relative ``source`` path is relative to (the
            bundle's directory); the working directory by default.
        :param observe: mount it in observe mode (:mod:`amplifier_core.observe_mode`): its hook
            handlers' decisions are emitted as ``hook:observed`` and not applied.
        """
        settings = dict(config or {})
        before = self._registrations()
        try:
            spec = await self._resolve_through_resolver(module_id, source, settings)
            if spec is None:
                spec = self._resolve(module_id, source, base_dir)
            module, mount_fn = self._import(spec)
            if observe:
                cleanup = await self._observed(
                    spec, lambda: self._call_mount(spec, mount_fn, settings)
                )
            else:
                cleanup = await self._call_mount(spec, mount_fn, settings)
        except _LoadFailure as failure:
            await self._report(module_id, failure)
            return None
        self._own(before, module_id)
        mounted = MountedModule(
            spec=spec,
            config=settings,
            module=module,
            cleanup=cleanup,
            on_session_ready=_find_on_session_ready(module, mount_fn),
            observe=observe,
        )
        self._mounted.append(mounted)
        logger.debug("mounted module %r (%s, %s)", module_id, spec.entry_point, spec.origin)
        return mounted

    async def mount_all(
        self,
        entries: Iterable[ModuleEntryLike | Mapping[str, Any]],
        *,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> list[MountedModule]:
        """Mount each entry (``{module, config, source}``) in order; return those mounted."""
        mounted: list[MountedModule] = []
        for index, entry in enumerate(entries):
            module_id, config, source = _entry_fields(entry, index)
            observe = bool(
                entry.get("observe") if isinstance(entry, Mapping) else getattr(entry, "observe", 0)
            )
            result = await self.mount(module_id, config, source, base_dir=base_dir, observe=observe)
            if result is not None:
                mounted.append(result)
        await self.check_events()
        return mounted

    def _registrations(self) -> dict[int, HandlerInfo]:
        """The hook registry's registrations by identity (none when it cannot list them)."""
        listing = getattr(getattr(self._coordinator, "hooks", None), "registrations", None)
        if not callable(listing):
            return {}
        try:
            return {id(info): info for info in listing()}
        except Exception:
            return {}

    def _own(self, before: Mapping[int, HandlerInfo], module_id: str) -> None:
        """Attribute the registrations made since ``before`` to ``module_id``."""
        for key, info in self._registrations().items():
            if key not in before:
                self._owners[key] = (info, module_id)

    def registrations_of(self, module_id: str) -> list[HandlerInfo]:
        """The hook registrations ``module_id`` made (at mount and in ``on_session_ready``)
        that are still registered, in registration order."""
        current = self._registrations()
        return sorted(
            (
                info
                for key, (info, owner) in self._owners.items()
                if owner == module_id and current.get(key) is info
            ),
            key=lambda info: info.seq,
        )

    async def check_events(self) -> list[UnknownRegistration]:
        """Report each handler a mounted module registered for an event no catalogue lists
        and no mounted module declares (:mod:`amplifier_core.declared_events`), once: a
        warning naming the module, the handler, the file and line of the ``register`` call
        and the closest existing events. Returns those found now (also kept in
        :attr:`unknown_events`)."""
        from .declared_events import declared_events, unknown_registrations

        current = self._registrations()
        owned = [
            (key, info, module_id)
            for key, (info, module_id) in self._owners.items()
            if key not in self._checked and current.get(key) is info
        ]
        if not owned:
            return []
        declared = await declared_events(self._coordinator)
        modules = {id(info): module_id for _, info, module_id in owned}
        found = unknown_registrations(
            [info for _, info, _ in owned], declared, module_of=lambda info: modules[id(info)]
        )
        for unknown in found:
            logger.warning("%s", unknown.message())
        self._checked.update(key for key, _, _ in owned)
        self.unknown_events.extend(found)
        return found

    async def session_ready(self) -> None:
        """Call each mounted module's ``on_session_ready(coordinator)``, once, in mount order."""
        for mounted in list(self._mounted):
            callback = mounted.on_session_ready
            if callback is None or mounted.ready_called:
                continue
            mounted.ready_called = True
            before = self._registrations()
            try:
                if mounted.observe:
                    ready = functools.partial(_ready, callback, self.coordinator)
                    await self._observed(mounted.spec, ready)
                else:
                    await _ready(callback, self.coordinator)
            except Exception as err:
                failure = self._record(mounted.spec, "on_session_ready", err, "on_session_ready()")
                logger.warning(failure.message, exc_info=err)
                await self._emit(events.MODULE_ON_SESSION_READY_FAILED, failure.event_data())
            self._own(before, mounted.id)
        await self.check_events()

    async def unmount(self, module_id: str) -> bool:
        """Run one module's cleanup and forget it; ``False`` if it was not mounted."""
        mounted = self.get(module_id)
        if mounted is None:
            return False
        self._mounted.remove(mounted)
        await self._run_cleanup(mounted)
        return True

    async def cleanup(self) -> None:
        """Run every cleanup in reverse mount order; a failing one does not stop the rest."""
        while self._mounted:
            await self._run_cleanup(self._mounted.pop())
        for path in self._added_paths:
            if path in sys.path:
                sys.path.remove(path)
        self._added_paths.clear()

    # -- stages ------------------------------------------------------------------------

    def _filtered(self, module_id: str) -> str | None:
        for pattern in self.deny or ():
            if fnmatchcase(module_id, pattern):
                return f"denied by {self._deny_label} (pattern {pattern!r})"
        if self.allow and not any(fnmatchcase(module_id, p) for p in self.allow):
            return f"not in {self._allow_label} ({', '.join(self.allow)})"
        return None

    def _resolve(
        self,
        module_id: str,
        source: str | None,
        base_dir: str | os.PathLike[str] | None,
    ) -> ModuleSpec:
        remote = source is not None and _REMOTE.match(source.strip()) is not None
        specs = self.discover_specs() if source is None or remote else {}
        spec = specs.get(module_id)
        reason = self._filtered(module_id)
        if reason is not None:
            raise _LoadFailure("resolve", reason, spec=spec)
        if self.get(module_id) is not None:
            raise _LoadFailure("resolve", "already mounted in this session", spec=spec)
        if source is not None and not (remote and spec is not None):
            return self._resolve_source(module_id, source, base_dir)
        if spec is None:
            importable = _importable_package(module_id)
            if importable is not None:  # as amplifier-core 2.0.2: an importable package
                return ModuleSpec(id=module_id, value=f"{importable}:mount", group=self.group)
            cause = f"no entry point named {module_id!r} in group {self.group!r}"
            close = difflib.get_close_matches(module_id, specs, n=1)
            if close:
                cause += f" (did you mean {close[0]!r}?)"
            cause += "; install the distribution that provides it, or give the module a source"
            raise _LoadFailure("resolve", cause)
        return spec

    def _resolve_source(
        self, module_id: str, source: str, base_dir: str | os.PathLike[str] | None
    ) -> ModuleSpec:
        text = source.strip()
        if _REMOTE.match(text):
            raise _LoadFailure(
                "resolve",
                f"source {text!r} is remote, the kernel does not fetch code and no installed "
                f"entry point is named {module_id!r}; "
                f"install it with pip: pip install {shlex.quote(_pip_target(text))}",
                spec=ModuleSpec(id=module_id, value="", group=self.group, source=text),
            )
        text = text.removeprefix("file://")
        where = Path(text).expanduser()
        if not where.is_absolute() and base_dir is not None:
            where = Path(base_dir) / where
        if _REFERENCE.fullmatch(text) and not where.exists():
            return ModuleSpec(id=module_id, value=text, group=self.group, source=text)
        package = "amplifier_module_" + re.sub(r"\W", "_", module_id)
        spec = ModuleSpec(id=module_id, value=f"{package}:mount", group=self.group, source=text)
        if not where.is_dir():
            state = "is not a directory" if where.exists() else "does not exist"
            raise _LoadFailure("resolve", f"source directory {where} {state}", spec=spec)
        root = _package_root(where, package)
        if root is None:
            raise _LoadFailure(
                "resolve",
                f"no package {package!r} in {where / 'src'} or {where}",
                spec=spec,
            )
        return ModuleSpec(
            id=module_id,
            value=f"{package}:mount",
            group=self.group,
            source=text,
            path=str(root),
        )

    def _import(self, spec: ModuleSpec) -> tuple[ModuleType, Callable[..., Any]]:
        if spec.path is not None:
            self._put_on_path(spec)
        try:
            with collector_paused():  # its classes and tables live as long as the process
                module = importlib.import_module(spec.module_name)
        except Exception as err:
            raise _LoadFailure("import", _describe(err), spec=spec, error=err) from err
        target: Any = module
        attr = spec.attr or "mount"
        for part in attr.split("."):
            if not hasattr(target, part):
                raise _LoadFailure(
                    "import",
                    f"AttributeError: {spec.module_name!r} has no attribute {attr!r}; a module "
                    "must define `async def mount(coordinator, config)`",
                    spec=spec,
                    error_type="AttributeError",
                    location=getattr(module, "__file__", None),
                )
            target = getattr(target, part)
        if not callable(target):
            raise _LoadFailure(
                "import",
                f"TypeError: {spec.module_name}:{attr} is a {type(target).__name__}, not a "
                "callable `mount(coordinator, config)`",
                spec=spec,
                error_type="TypeError",
                location=getattr(module, "__file__", None),
            )
        return module, target

    def _put_on_path(self, spec: ModuleSpec) -> None:
        assert spec.path is not None
        top = spec.module_name.partition(".")[0]
        loaded = sys.modules.get(top)
        loaded_from = getattr(loaded, "__file__", None) if loaded is not None else None
        if loaded_from is not None and not _is_under(loaded_from, spec.path):
            raise _LoadFailure(
                "import",
                f"package {top!r} is already imported from {loaded_from}, not from {spec.path}",
                spec=spec,
                error_type="ImportError",
            )
        if spec.path not in sys.path:
            sys.path.insert(0, spec.path)
            self._added_paths.append(spec.path)
            importlib.invalidate_caches()

    async def _observed(self, spec: ModuleSpec, mount: Callable[[], Awaitable[_T]]) -> _T:
        """``mount()`` with the handlers it registers put in observe mode."""
        from .observe_mode import ObserveError, observed_mount

        try:
            return await observed_mount(self.coordinator.hooks, spec.id, mount)  # type: ignore[arg-type]
        except ObserveError as err:
            raise _LoadFailure("mount", str(err), spec=spec, error=err) from err

    async def _call_mount(
        self, spec: ModuleSpec, mount_fn: Callable[..., Any], config: dict[str, Any]
    ) -> Callable[[], Any] | None:
        try:
            result = mount_fn(self.coordinator, config)
            if inspect.isawaitable(result):
                result = await result
        except Exception as err:
            raise _LoadFailure("mount", _describe(err), spec=spec, error=err) from err
        if result is None:
            return None
        if callable(result):
            cleanup: Callable[[], Any] = result
            return cleanup
        logger.debug(
            "mount() of module %r returned a %s, not a cleanup callable; it is ignored",
            spec.id,
            type(result).__name__,
        )
        return None

    async def _run_cleanup(self, mounted: MountedModule) -> None:
        if mounted.cleanup is None:
            return
        try:
            outcome = mounted.cleanup()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as err:
            failure = self._record(mounted.spec, "cleanup", err, "cleanup")
            logger.error(failure.message, exc_info=err)

    # -- reporting ---------------------------------------------------------------------

    async def _report(self, module_id: str, failure: _LoadFailure) -> None:
        spec = failure.spec
        verb = {
            "resolve": "could not be resolved",
            "import": "failed to import",
            "mount": "failed to mount",
        }[failure.stage]
        record = ModuleFailure(
            module_id=module_id,
            stage=failure.stage,
            message=_message(module_id, verb, failure.cause, failure.location, spec),
            cause=failure.cause,
            error_type=failure.error_type,
            entry_point=spec.entry_point if spec is not None and spec.value else None,
            distribution=_distribution(spec),
            location=failure.location,
            exception=failure.error,
        )
        self.failures.append(record)
        if not self.strict:
            logger.error(record.message)
        await self._emit(events.MODULE_LOAD_FAILED, record.event_data())
        if self.strict:
            raise ModuleLoadError(
                record.message,
                module_id=module_id,
                stage=failure.stage,
                entry_point=record.entry_point,
                distribution=record.distribution,
                error_type=record.error_type,
                location=record.location,
            ) from failure.error

    def _record(
        self, spec: ModuleSpec, stage: FailureStage, err: Exception, what: str
    ) -> ModuleFailure:
        cause = _describe(err)
        location = _location(err)
        record = ModuleFailure(
            module_id=spec.id,
            stage=stage,
            message=_message(spec.id, f"{what} failed", cause, location, spec),
            cause=cause,
            error_type=type(err).__name__,
            entry_point=spec.entry_point,
            distribution=_distribution(spec),
            location=location,
            exception=err,
        )
        self.failures.append(record)
        return record

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        if self._coordinator is None:
            return
        try:
            await self._coordinator.hooks.emit(event, data)
        except Exception:
            logger.exception("could not emit %s for module %r", event, data.get("module_id"))


# -- helpers ---------------------------------------------------------------------------


def _importable_package(module_id: str) -> str | None:
    """``amplifier_module_<id>`` when it can be imported from ``sys.path``, else None."""
    import importlib.util

    package = "amplifier_module_" + re.sub(r"\W", "_", module_id)
    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    return package if found is not None else None


def _with_ready(
    mount: Callable[..., Any], module: ModuleType | None, module_id: str
) -> Callable[..., Any]:
    """``mount`` with the module's async ``on_session_ready`` attached (2.0.2's way)."""
    ready = getattr(module, "on_session_ready", None) if module is not None else None
    if ready is None:
        return mount
    if not inspect.iscoroutinefunction(ready):
        logger.warning(
            "module %r defines on_session_ready() as a sync function; it must be "
            "`async def on_session_ready(coordinator)` and is skipped",
            module_id,
        )
        return mount
    try:
        mount.__on_session_ready__ = (module_id, ready)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # a bound method or builtin: wrap it
        original = mount

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return original(*args, **kwargs)

        wrapper.__on_session_ready__ = (module_id, ready)  # type: ignore[attr-defined]
        return wrapper
    return mount


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def _patterns(
    given: Iterable[str] | str | None, env: str, label: str
) -> tuple[tuple[str, ...], str]:
    if given is None:
        given, label = os.environ.get(env, ""), env
    items = given.split(",") if isinstance(given, str) else given
    return tuple(p.strip() for p in items if p.strip()), label


async def _ready(callback: Callable[[Any], Any], coordinator: Any) -> None:
    outcome = callback(coordinator)
    if inspect.isawaitable(outcome):
        await outcome


def _entry_fields(
    entry: ModuleEntryLike | Mapping[str, Any], index: int
) -> tuple[str, Mapping[str, Any] | None, str | None]:
    if isinstance(entry, Mapping):
        module_id = entry.get("module")
        if not isinstance(module_id, str) or not module_id:
            raise ValueError(f"module entry #{index} has no 'module' id: {dict(entry)!r}")
        return module_id, entry.get("config"), entry.get("source")
    return entry.module, entry.config, entry.source


def _package_root(where: Path, package: str) -> Path | None:
    if where.name == package and (where / "__init__.py").is_file():
        return where.parent
    for root in (where / "src", where):
        if (root / package).is_dir() or (root / f"{package}.py").is_file():
            return root
    return None


def _is_under(file: str, directory: str) -> bool:
    try:
        Path(file).resolve().relative_to(Path(directory).resolve())
    except ValueError:
        return False
    return True


def _pip_target(source: str) -> str:
    if source.startswith("git@"):
        return "git+ssh://" + source.replace(":", "/", 1)
    if source.startswith(("ssh://", "git://")):
        return "git+" + source
    return source


def _describe(err: BaseException) -> str:
    text = str(err)
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _location(err: BaseException | None) -> str | None:
    """``file:line`` of the innermost frame that is neither importlib's nor the loader's."""
    if err is None:
        return None
    if isinstance(err, SyntaxError) and err.filename and err.lineno:
        return f"{err.filename}:{err.lineno}"
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        name = frame.filename
        if name == __file__ or name.startswith(("<frozen", _IMPORTLIB_DIR)):
            continue
        return f"{name}:{frame.lineno}"
    return None


def _distribution(spec: ModuleSpec | None) -> str | None:
    if spec is None or spec.distribution is None:
        return None
    return f"{spec.distribution} {spec.version}" if spec.version else spec.distribution


def _message(
    module_id: str, verb: str, cause: str, location: str | None, spec: ModuleSpec | None
) -> str:
    where = f" at {location}" if location else ""
    if spec is None:
        origin = "no entry point"
    elif spec.source is None:
        origin = f"entry point '{spec.entry_point}' from {spec.origin}"
    elif spec.value:
        origin = f"source {spec.source!r}, target {spec.value}"
    else:
        origin = f"source {spec.source!r}"
    return f"module {module_id!r} {verb}: {cause}{where} [{origin}]"


def _find_on_session_ready(
    module: ModuleType, mount_fn: Callable[..., Any]
) -> Callable[[Any], Any] | None:
    candidates = [module]
    home = sys.modules.get(getattr(mount_fn, "__module__", "") or "")
    if home is not None and home is not module:
        candidates.append(home)
    for candidate in candidates:
        callback = getattr(candidate, "on_session_ready", None)
        if callable(callback):
            return callback  # type: ignore[no-any-return]
    return None
