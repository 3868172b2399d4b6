"""The module coordinator: where modules mount, what they share, and where hook results land.

The coordinator keeps the mount points, the capabilities, the contributors and the cleanups of
one session. ``process_hook_result`` hands each part of a result to its owner: user messages to
the display system, context injections to the :class:`~amplifier_core.injections.
InjectionAdmission` (size limit, per-turn budget), ``ask_user`` to the approval gate, and every
outcome to the audit trail (docs/coordinator.md). Cancellation lives on the session's
:class:`~amplifier_core.cancellation.CancellationToken` (``coordinator.cancellation``). The
names amplifier-core 2.0.2 has beyond these are kept in one section at the end of the class.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Final, Self, TypeAlias

from .approval import ApprovalGate
from .audit import AuditTrail
from .display import show_messages
from .hooks import HookRegistry
from .injections import (
    DEFAULT_INJECTION_BUDGET_PER_TURN,
    DEFAULT_INJECTION_SIZE_LIMIT,
    InjectionAdmission,
    InjectionTooLargeError,
    strip_control_characters,
)
from .models import HookResult
from .session_settings import SessionSettings

if TYPE_CHECKING:
    from .cancellation import CancellationToken
    from .receipts import Receipts

__all__ = [
    "DEFAULT_INJECTION_BUDGET_PER_TURN",
    "DEFAULT_INJECTION_SIZE_LIMIT",
    "MOUNT_POINTS",
    "InjectionTooLargeError",
    "ModuleCoordinator",
    "strip_control_characters",
]

logger = logging.getLogger(__name__)

_SINGLE: Final = ("orchestrator", "context", "module-source-resolver")
_MULTI: Final = ("providers", "tools")
MOUNT_POINTS: Final = (
    "orchestrator",
    "providers",
    "tools",
    "context",
    "hooks",
    "module-source-resolver",
)

Cleanup: TypeAlias = Callable[[], Any]


class ModuleCoordinator:
    """Mount points, capabilities, contributors and cleanups of one session.

    ``session`` (optional) may carry ``session_id``, ``parent_id`` and ``config`` as an
    amplifier session does; the keyword arguments override it. ``config`` is the mount plan;
    its ``session`` block is parsed once into :attr:`settings` (a wrong value raises
    :class:`~amplifier_core.session_settings.SessionSettingsError` naming its key). ``hooks``
    defaults to a new :class:`HookRegistry`, ``audit`` to the trail ``session.audit_log``
    asks for.

    What modules may read or replace as plain attributes: ``approval_system`` (asks the human
    on ``ask_user``; ``None`` denies), ``display_system`` (shows hook messages; ``None`` logs
    them), ``loader``, ``session_state`` (a dict modules share), and the parts that act on hook
    results: ``audit`` (:class:`AuditTrail`), ``injections`` (:class:`InjectionAdmission`) and
    ``approval_gate`` (:class:`ApprovalGate`).
    """

    def __init__(
        self,
        session: Any = None,
        approval_system: Any = None,
        display_system: Any = None,
        *,
        config: MutableMapping[str, Any] | None = None,
        session_id: str | None = None,
        parent_id: str | None = None,
        hooks: HookRegistry | None = None,
        audit: AuditTrail | None = None,
    ) -> None:
        arguments = (session, approval_system, display_system, config, session_id, parent_id)
        if "_hooks" in self.__dict__ and all(a is None for a in (*arguments, hooks, audit)):
            return  # already set up by __new__ (an amplifier-core style subclass, see below)
        config = _plan(session, config)
        self._session = session
        self._config: MutableMapping[str, Any] = config
        self._settings = SessionSettings.from_config(config)
        self._session_id: str = str(
            session_id or getattr(session, "session_id", None) or uuid.uuid4()
        )
        self._parent_id: str | None = (
            parent_id if parent_id is not None else getattr(session, "parent_id", None)
        )
        self._hooks = hooks if hooks is not None else HookRegistry()
        self._hooks.set_default_fields(session_id=self._session_id, parent_id=self._parent_id)
        self._owns_audit = audit is None
        if audit is None:
            audit = AuditTrail(self._settings.audit_log, session_id=self._session_id)
        elif audit.session_id is None:
            audit.session_id = self._session_id
        self.audit = audit
        self._remove_failure_listener = self._hooks.add_failure_listener(audit.on_hook_failure)
        self.receipts: Receipts | None = None
        """The session's receipts (:mod:`amplifier_core.receipts`), when it keeps them."""

        self._mount_points: dict[str, Any] = {
            "orchestrator": None,
            "providers": {},
            "tools": {},
            "context": None,
            "hooks": self._hooks,
            "module-source-resolver": None,
        }
        self._capabilities: dict[str, Any] = {}
        self._watchers: dict[str, list[Callable[[Any], None]]] = {}
        if self._settings.keeps_receipts:
            from .receipts import RECEIPTS_CAPABILITY, Receipts

            self.receipts = Receipts(
                audit,
                self._hooks,
                required=self._settings.require_guards,
            )
            self.receipts.start()
            self._capabilities[RECEIPTS_CAPABILITY] = self.receipts
        self._channels: dict[str, list[dict[str, Any]]] = {}
        self._cleanup_fns: list[Cleanup] = []
        """The registered cleanups (amplifier-core 2.0.2's name; its suites append to it)."""
        self._cancellation: CancellationToken | None = None
        self.session_state: dict[str, Any] = {}
        """Per-session state modules share (a plain dict, as amplifier-core 2.0.2 has it)."""
        self.loader: Any = None
        self.approval_system = approval_system
        self.display_system = display_system
        self.injections = InjectionAdmission(
            audit,
            lambda: self._mount_points["context"],
            size_limit=self._settings.injection_size_limit,
            budget_per_turn=self._settings.injection_budget_per_turn,
        )
        self.approval_gate = ApprovalGate(audit, self._hooks)

    # ------------------------------------------------------------------ the session

    @property
    def session(self) -> Any:
        """The session object passed in, if any."""
        return self._session

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    @property
    def config(self) -> MutableMapping[str, Any]:
        """The session configuration (mount plan)."""
        return self._config

    @property
    def settings(self) -> SessionSettings:
        """The mount plan's ``session`` block, parsed once when the coordinator was made."""
        return self._settings

    @property
    def hooks(self) -> HookRegistry:
        """The hook registry modules register their handlers with."""
        return self._hooks

    @property
    def cancellation(self) -> CancellationToken:
        """This session's cancellation token (made on first use: most hook-only coordinators
        never ask)."""
        if self._cancellation is None:
            from .cancellation import CancellationToken

            self._cancellation = CancellationToken()
        return self._cancellation

    async def request_cancel(self, immediate: bool = False) -> None:
        """Ask the session to stop (after the running tools, or at once when ``immediate``)."""
        if immediate:
            self.cancellation.request_immediate()
        else:
            self.cancellation.request_graceful()

    # ------------------------------------------------------------------ mount points

    @property
    def mount_points(self) -> dict[str, Any]:
        """The live mount-point table (``providers`` and ``tools`` are dicts by name)."""
        return self._mount_points

    def _check_mount_point(self, mount_point: str, operation: str) -> None:
        if mount_point not in self._mount_points:
            raise ValueError(
                f"Unknown mount point: {mount_point} (ModuleCoordinator.{operation}; "
                f"expected one of {', '.join(MOUNT_POINTS)})"
            )

    async def mount(self, mount_point: str, module: Any, name: str | None = None) -> None:
        """Mount ``module`` at ``mount_point`` (``name`` for providers and tools).

        A provider or tool without ``name`` is mounted under its ``name`` attribute.
        """
        self._check_mount_point(mount_point, "mount")
        if mount_point == "hooks":
            raise ValueError(
                "Hooks should be registered directly with the HookRegistry: "
                "ModuleCoordinator.mount('hooks', ...) is not a mount; call "
                "coordinator.hooks.register(event, handler)"
            )
        if mount_point in _SINGLE:
            current = self._mount_points[mount_point]
            if current is not None and current is not module:
                logger.warning(
                    "replacing %s at mount point %r with %s",
                    type(current).__name__,
                    mount_point,
                    type(module).__name__,
                )
            self._mount_points[mount_point] = module
            return
        if name is None:
            name = getattr(module, "name", None)
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"Name required for {mount_point}: ModuleCoordinator.mount({mount_point!r}, "
                    f"{type(module).__name__}) needs name=... or a module with a non-empty "
                    "'name' attribute"
                )
        self._mount_points[mount_point][name] = module

    async def unmount(self, mount_point: str, name: str | None = None) -> None:
        """Remove what is mounted at ``mount_point`` (``name`` for providers and tools)."""
        self._check_mount_point(mount_point, "unmount")
        if mount_point == "hooks":
            raise ValueError(
                "ModuleCoordinator.unmount('hooks'): remove handlers with the function "
                "coordinator.hooks.register returned, or coordinator.hooks.unregister(name)"
            )
        if mount_point in _SINGLE:
            self._mount_points[mount_point] = None
            return
        if name is None:
            raise ValueError(
                f"Name required to unmount from {mount_point}: "
                f"ModuleCoordinator.unmount({mount_point!r}, name=...)"
            )
        self._mount_points[mount_point].pop(name, None)

    def get(self, mount_point: str, name: str | None = None) -> Any:
        """What is mounted at ``mount_point``: the module, the registry, or a dict by name.

        With ``name`` a provider or tool is looked up (``None`` when absent).
        """
        self._check_mount_point(mount_point, "get")
        value = self._mount_points[mount_point]
        if name is not None and mount_point in _MULTI:
            return value.get(name)
        return value

    # ------------------------------------------------------------------ capabilities

    def register_capability(self, name: str, value: Any) -> None:
        """Offer ``value`` to other modules under ``name`` (replacing an earlier one)."""
        self._capabilities[name] = value
        if self.receipts is not None:
            self.receipts.capability_changed(name, value)
        for watcher in list(self._watchers.get(name, ())):
            try:
                watcher(value)
            except Exception:  # a module's watcher must not break the registration
                logger.exception("capability watcher %r failed on %r", watcher, name)

    def get_capability(self, name: str, *, watch: Callable[[Any], None] | None = None) -> Any:
        """The capability registered under ``name``, or ``None``. ``watch``: also called with
        the new value each time ``name`` is registered again, so a module resolves it once
        instead of on each use."""
        if watch is not None:
            self._watchers.setdefault(name, []).append(watch)
        return self._capabilities.get(name)

    # ------------------------------------------------------------------ contributions

    @property
    def channels(self) -> dict[str, list[dict[str, Any]]]:
        """Contributors per channel: ``{channel: [{"name", "callback"}, ...]}``."""
        return self._channels

    def register_contributor(self, channel: str, name: str, callback: Callable[[], Any]) -> None:
        """Add ``callback`` (sync or async, no arguments) to ``channel``."""
        if not callable(callback):
            raise TypeError(
                f"register_contributor({channel!r}, {name!r}): callback must be callable, "
                f"got {type(callback).__name__}"
            )
        self._channels.setdefault(channel, []).append({"name": name, "callback": callback})

    async def collect_contributions(self, channel: str) -> list[Any]:
        """Call every contributor of ``channel`` in order; keep what is not ``None``.

        A contributor that raises is logged with its name and skipped; one that raises
        ``CancelledError`` ends the collection with what was collected so far (2.0.2).
        """
        collected: list[Any] = []
        for contributor in list(self._channels.get(channel, ())):
            try:
                value = contributor["callback"]()
                if inspect.isawaitable(value):
                    value = await value
            except asyncio.CancelledError:
                logger.warning(
                    "contributor %r of channel %r was cancelled; collection ends there",
                    contributor["name"],
                    channel,
                )
                break
            except Exception:
                logger.warning(
                    "contributor %r of channel %r failed; skipped",
                    contributor["name"],
                    channel,
                    exc_info=True,
                )
                continue
            if value is not None:
                collected.append(value)
        return collected

    # ------------------------------------------------------------------ cleanup

    def register_cleanup(self, cleanup_fn: Cleanup | None) -> None:
        """Run ``cleanup_fn`` (sync or async) at :meth:`cleanup`; ``None`` is ignored."""
        if cleanup_fn is None:
            return
        if not callable(cleanup_fn):
            raise TypeError(
                f"register_cleanup: expected a callable, got {type(cleanup_fn).__name__}"
            )
        self._cleanup_fns.append(cleanup_fn)

    async def cleanup(self) -> None:
        """Run the registered cleanups, last registered first.

        A cleanup that raises is logged with its name and the rest still run; one that raises
        ``KeyboardInterrupt`` or ``SystemExit`` (or another exception that is not an
        ``Exception``) does not stop the others either, and the first such is raised again once
        all have run. Something that is not callable (appended to ``_cleanup_fns`` directly) is
        skipped. Each cleanup runs once: a second call does nothing.
        """
        cleanups: list[object] = list(self._cleanup_fns)
        self._cleanup_fns = []
        fatal: BaseException | None = None
        for cleanup_fn in reversed(cleanups):
            if not callable(cleanup_fn):
                continue
            try:
                outcome = cleanup_fn()
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("cleanup %s failed; continuing with the rest", _name(cleanup_fn))
            except BaseException as err:  # KeyboardInterrupt, SystemExit, a cancellation
                logger.warning(
                    "cleanup %s raised %s; running the rest first",
                    _name(cleanup_fn),
                    type(err).__name__,
                )
                fatal = fatal or err
        if self.receipts is not None:
            self.receipts.close()
        if self._owns_audit:
            self.audit.close()  # the chain's end record; records after it stay in memory
        if fatal is not None:
            raise fatal

    # ------------------------------------------------------------------ introspection

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary of the coordinator's state: amplifier-core 2.0.2's keys
        (``tools``, ``providers``, ``has_orchestrator``, ``has_context``, ``capabilities``,
        ``has_approval_provider``, ``has_display_service``) and ours beside them."""
        points: dict[str, Any] = {}
        for point, value in self._mount_points.items():
            if point == "hooks":
                points[point] = self._hooks.list_handlers()
            elif point in _MULTI:
                points[point] = sorted(value)
            else:
                points[point] = None if value is None else type(value).__name__
        injections = self.injections
        return {
            "tools": sorted(self._mount_points["tools"]),
            "providers": sorted(self._mount_points["providers"]),
            "has_orchestrator": self._mount_points["orchestrator"] is not None,
            "has_context": self._mount_points["context"] is not None,
            "has_approval_provider": self.approval_system is not None,
            "has_display_service": self.display_system is not None,
            "session_id": self._session_id,
            "parent_id": self._parent_id,
            "mount_points": points,
            "capabilities": sorted(self._capabilities),
            "channels": {c: [e["name"] for e in v] for c, v in self._channels.items()},
            "injection_size_limit": injections.size_limit,
            "injection_budget_per_turn": injections.budget_per_turn,
            "current_turn_injection_tokens": injections.turn_tokens,
            "pending_ephemeral_injections": injections.pending_ephemeral,
            "approval_system": _type_name(self.approval_system),
            "display_system": _type_name(self.display_system),
            "always_allowed": self.approval_gate.remembered,
            "cancel_requested": self._cancellation is not None and self._cancellation.is_cancelled,
        }

    # ------------------------------------------------------------------ hook results

    async def process_hook_result(
        self, result: Any, event: str, hook_name: str = "unknown"
    ) -> HookResult:
        """Act on ``result`` (see the module docstring) and return what the caller should do.

        ``hook_name`` names the hook when the result does not: a result from
        :meth:`HookRegistry.emit` names each injection's handler, and a deny or ask_user
        result its ``source``.
        """
        if isinstance(result, Mapping):  # as amplifier-core 2.0.2: a dict is not a result
            raise AttributeError(
                f"process_hook_result: hook {hook_name!r} on {event!r} gave a "
                f"{type(result).__name__}, not a HookResult (build one: HookResult(**data))"
            )
        if not isinstance(result, HookResult):
            result = _coerce(result, event, hook_name)
        return await self._process(result, event, hook_name)

    async def _process(self, result: HookResult, event: str, hook_name: str) -> HookResult:
        action = result.action
        injections = result.context_injections  # the result keeps its scalar forms in step
        messages = result.user_messages
        if messages and action != "ask_user":  # an ask speaks through its prompt (2.0.2)
            await show_messages(self.display_system, self.audit, messages, event, hook_name)
        if injections:
            await self.injections.admit(
                injections,
                event,
                result.source or hook_name,
                strict=action not in ("deny", "ask_user"),
            )
        if action == "ask_user":
            return await self.approval_gate.decide(result, event, hook_name, self.approval_system)
        if action == "deny":
            self.audit.record(
                "deny", hook=result.source or hook_name, event=event, reason=result.reason
            )
        return result

    # ------------------------------------------------------------------ amplifier-core 2.0.2
    # The names and shapes amplifier-core 2.0.2's ModuleCoordinator has beyond the above (and
    # the ecosystem's ``hook_registry`` alias), kept so that modules and tests written for it
    # run unchanged. Each delegates to its owner.

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Accept the constructor arguments here too: on 2.0.2 (a Rust class) they go to
        ``__new__``, and a subclass written for it (its ``testing.MockCoordinator``) overrides
        ``__new__``, passes them to ``super().__new__`` and never calls ``__init__``; such a
        subclass is set up here."""
        instance = super().__new__(cls)
        if cls.__new__ is not ModuleCoordinator.__new__:
            ModuleCoordinator.__init__(instance, *args, **kwargs)
        return instance

    @property
    def hook_registry(self) -> HookRegistry:
        """Alias of :attr:`hooks`."""
        return self._hooks

    @property
    def injection_size_limit(self) -> int | None:
        """``injections.size_limit``: characters per injection (``session.
        injection_size_limit``); None (the default) is unlimited."""
        return self.injections.size_limit

    @property
    def injection_budget_per_turn(self) -> int | None:
        """``injections.budget_per_turn``: estimated tokens per turn before a warning; None
        (the default) is unlimited."""
        return self.injections.budget_per_turn

    @property
    def _current_turn_injections(self) -> int:
        """``injections.turn_tokens``: estimated tokens injected this turn."""
        return self.injections.turn_tokens

    @_current_turn_injections.setter
    def _current_turn_injections(self, tokens: int) -> None:
        self.injections.turn_tokens = tokens

    def reset_turn(self) -> None:
        """``injections.reset_turn()``: the injection budget is counted from zero again."""
        self.injections.reset_turn()


def _plan(session: Any, config: Any) -> MutableMapping[str, Any]:
    """The mount plan: ``config``, else the session's; a pydantic model as its dump (as
    amplifier-core 2.0.2 takes it)."""
    if config is None:
        config = getattr(session, "config", None)
        if config is None:
            config = {}
    if not isinstance(config, MutableMapping) and callable(getattr(config, "model_dump", None)):
        config = config.model_dump()
    if not isinstance(config, MutableMapping):
        raise TypeError(f"ModuleCoordinator: config must be a dict, got {type(config).__name__}")
    return config


def _coerce(result: object, event: str, hook_name: str) -> HookResult:
    """A HookResult from another implementation (or a dict) as ours, or a clear TypeError."""
    dump = getattr(result, "model_dump", None)
    raw = dump() if callable(dump) else result
    try:
        return HookResult.model_validate(raw)
    except Exception as err:
        raise TypeError(
            f"process_hook_result: hook {hook_name!r} on {event!r} gave "
            f"{type(result).__name__}, not a HookResult: {err}"
        ) from err


def _name(fn: Callable[..., Any]) -> str:
    return str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn))


def _type_name(value: object) -> str | None:
    return None if value is None else type(value).__name__
