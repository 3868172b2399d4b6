"""The module coordinator: where modules mount, and where hook results are acted on.

What ``process_hook_result`` does with each part of a result (user messages, injections with
their size limit and budget, approvals, denies) is in docs/coordinator.md.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Callable, Mapping, MutableMapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Self, TypeAlias

from .approval import ApprovalGate
from .audit import AuditTrail
from .context import InMemoryContext
from .display import log_level
from .errors import AmplifierError
from .hooks import HookRegistry
from .models import ContextInjection, HookResult, UserMessage

if TYPE_CHECKING:
    from .cancellation import CancellationState, CancellationToken

__all__ = [
    "DEFAULT_INJECTION_BUDGET_PER_TURN",
    "DEFAULT_INJECTION_SIZE_LIMIT",
    "MOUNT_POINTS",
    "InjectionTooLargeError",
    "ModuleCoordinator",
    "strip_control_characters",
]

logger = logging.getLogger(__name__)

# The limits an application is advised to set (the command line's sessions do); the kernel's
# default is no limit, as amplifier-core 2.0.2 has it.
DEFAULT_INJECTION_SIZE_LIMIT: Final = 10 * 1024
DEFAULT_INJECTION_BUDGET_PER_TURN: Final = 10_000

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

_CONTROL: Final = dict.fromkeys(c for c in (*range(32), *range(127, 160)) if c not in (9, 10))

Cleanup: TypeAlias = Callable[[], Any]


def strip_control_characters(text: str) -> str:
    """``text`` without C0/C1 control characters, except newline and tab."""
    return text.translate(_CONTROL)


def _now() -> str:
    return datetime.now(UTC).isoformat()


class InjectionTooLargeError(AmplifierError, ValueError):
    """A hook's context injection is over ``session.injection_size_limit``."""

    def __init__(self, *, hook_name: str, event: str, size: int, limit: int) -> None:
        super().__init__(
            f"context injection from hook {hook_name!r} on event {event!r} exceeds {limit} "
            f"characters ({size} characters; config key session.injection_size_limit; "
            "None means unlimited)"
        )
        self.hook_name = hook_name
        self.event = event
        self.size = size
        self.limit = limit


def _limit(config: Mapping[str, Any], key: str) -> int | None:
    session = config.get("session")
    if session is None:
        return None
    if not isinstance(session, Mapping):
        raise ValueError(f"config key session: expected a mapping, got {type(session).__name__}")
    value = session.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"config key session.{key}: expected a whole number >= 0 or null (unlimited), "
            f"got {value!r}"
        )
    return value


class ModuleCoordinator:
    """Mount points, capabilities, cleanup and hook-result processing for one session.

    ``session`` (optional) may carry ``session_id``, ``parent_id`` and ``config`` as an
    amplifier session does; the keyword arguments override it. ``hooks`` defaults to a new
    :class:`HookRegistry`, ``audit`` to the trail that ``session.audit_log`` asks for.

    Subclasses written for amplifier-core pass the constructor arguments to ``__new__`` (as
    its ``testing.MockCoordinator`` does); that works here too.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        instance = super().__new__(cls)
        if cls.__new__ is not ModuleCoordinator.__new__:
            ModuleCoordinator.__init__(instance, *args, **kwargs)
        return instance

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
            return  # already set up by __new__ (amplifier-core style subclass)
        if config is None:
            config = getattr(session, "config", None)
            if config is None:
                config = {}
        if not isinstance(config, MutableMapping) and callable(getattr(config, "model_dump", None)):
            config = config.model_dump()  # a pydantic model, as amplifier-core 2.0.2 takes it
        if not isinstance(config, MutableMapping):
            raise TypeError(
                f"ModuleCoordinator: config must be a dict, got {type(config).__name__}"
            )
        self._session = session
        self._config: MutableMapping[str, Any] = config
        self._session_id: str = str(
            session_id or getattr(session, "session_id", None) or uuid.uuid4()
        )
        self._parent_id: str | None = (
            parent_id if parent_id is not None else getattr(session, "parent_id", None)
        )
        # Read both limits once so that a bad value fails here, naming its key.
        _limit(config, "injection_size_limit")
        _limit(config, "injection_budget_per_turn")

        self._hooks = hooks if hooks is not None else HookRegistry()
        self._hooks.set_default_fields(session_id=self._session_id, parent_id=self._parent_id)
        if audit is None:
            audit = AuditTrail.from_config(config, session_id=self._session_id)
        elif audit.session_id is None:
            audit.session_id = self._session_id
        self._audit = audit
        self._remove_failure_listener = self._hooks.add_failure_listener(audit.on_hook_failure)

        self._mount_points: dict[str, Any] = {
            "orchestrator": None,
            "providers": {},
            "tools": {},
            "context": None,
            "hooks": self._hooks,
            "module-source-resolver": None,
        }
        self._capabilities: dict[str, Any] = {}
        self.session_state: dict[str, Any] = {}
        """Per-session state modules share (a plain dict, as amplifier-core 2.0.2 has it)."""
        self._cleanup_fns: list[Cleanup] = []
        """The registered cleanups (amplifier-core 2.0.2's name; its suites append to it)."""
        self._channels: dict[str, list[dict[str, Any]]] = {}
        self._approval_system = approval_system
        self._display_system = display_system
        self._own_context = InMemoryContext()
        self._ephemeral: list[ContextInjection] = []
        self._turn_tokens = 0
        self._budget_warned = False
        self._gate = ApprovalGate(audit, self._hooks)
        self._cancellation: CancellationToken | None = None
        self._cancel_event = asyncio.Event()
        self.loader: Any = None

    # ------------------------------------------------------------------ infrastructure

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
    def hooks(self) -> HookRegistry:
        """The hook registry modules register their handlers with."""
        return self._hooks

    @property
    def hook_registry(self) -> HookRegistry:
        """Alias of :attr:`hooks`."""
        return self._hooks

    @property
    def audit(self) -> AuditTrail:
        """The audit trail every hook outcome is recorded in."""
        return self._audit

    @property
    def approval_system(self) -> Any:
        """Asks the human on ``ask_user``; ``None`` denies every request."""
        return self._approval_system

    @approval_system.setter
    def approval_system(self, value: Any) -> None:
        self._approval_system = value

    @property
    def display_system(self) -> Any:
        """Shows hook messages to the human; ``None`` logs them."""
        return self._display_system

    @display_system.setter
    def display_system(self, value: Any) -> None:
        self._display_system = value

    @property
    def injection_size_limit(self) -> int | None:
        """Characters allowed per injection (``session.injection_size_limit``); None (the
        default) = unlimited."""
        return _limit(self._config, "injection_size_limit")

    @property
    def injection_budget_per_turn(self) -> int | None:
        """Estimated tokens per turn before a warning; None (the default) = unlimited."""
        return _limit(self._config, "injection_budget_per_turn")

    @property
    def _current_turn_injections(self) -> int:
        """amplifier-core 2.0.2's name of :attr:`current_turn_injection_tokens`."""
        return self._turn_tokens

    @_current_turn_injections.setter
    def _current_turn_injections(self, tokens: int) -> None:
        self._turn_tokens = tokens

    @property
    def current_turn_injection_tokens(self) -> int:
        """Estimated tokens injected since the last :meth:`reset_turn`."""
        return self._turn_tokens

    def reset_turn(self) -> None:
        """Start a new turn: the injection budget is counted from zero again."""
        self._turn_tokens = 0
        self._budget_warned = False

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

    @property
    def context(self) -> Any:
        """The context manager mounted at ``context``, else the coordinator's own store."""
        mounted = self._mount_points["context"]
        return mounted if mounted is not None else self._own_context

    # ------------------------------------------------------------------ capabilities

    def register_capability(self, name: str, value: Any) -> None:
        """Offer ``value`` to other modules under ``name`` (replacing an earlier one)."""
        self._capabilities[name] = value

    def get_capability(self, name: str) -> Any:
        """The capability registered under ``name``, or ``None``."""
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
        if fatal is not None:
            raise fatal

    # ------------------------------------------------------------------ cancellation

    @property
    def cancellation(self) -> CancellationToken:
        """This session's cancellation token; the methods below read and write the same state."""
        if self._cancellation is None:  # made on first use: most hook-only coordinators never ask
            from .cancellation import CancellationToken

            token = CancellationToken()
            token._watch(self._on_cancellation_state)
            self._cancellation = token
        return self._cancellation

    def _on_cancellation_state(self, state: CancellationState) -> None:
        if state.value == "none":
            self._cancel_event.clear()
        else:
            self._cancel_event.set()

    async def request_cancel(self, immediate: bool = False) -> None:
        """Ask the session to stop (after the running tools, or at once when ``immediate``)."""
        if immediate:
            self.cancellation.request_immediate()
        else:
            self.cancellation.request_graceful()

    @property
    def cancel_requested(self) -> bool:
        return self._cancellation is not None and self._cancellation.is_cancelled

    @property
    def cancel_immediate(self) -> bool:
        return self._cancellation is not None and self._cancellation.is_immediate

    @property
    def cancel_event(self) -> asyncio.Event:
        """Set while cancellation is requested; ``await coordinator.cancel_event.wait()``."""
        return self._cancel_event

    def clear_cancel(self) -> None:
        """Forget a cancellation request (a new turn starts): the token is reset."""
        if self._cancellation is not None:
            self._cancellation.reset()

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
        return {
            "tools": sorted(self._mount_points["tools"]),
            "providers": sorted(self._mount_points["providers"]),
            "has_orchestrator": self._mount_points["orchestrator"] is not None,
            "has_context": self._mount_points["context"] is not None,
            "has_approval_provider": self._approval_system is not None,
            "has_display_service": self._display_system is not None,
            "session_id": self._session_id,
            "parent_id": self._parent_id,
            "mount_points": points,
            "capabilities": sorted(self._capabilities),
            "channels": {c: [e["name"] for e in v] for c, v in self._channels.items()},
            "injection_size_limit": self.injection_size_limit,
            "injection_budget_per_turn": self.injection_budget_per_turn,
            "current_turn_injection_tokens": self._turn_tokens,
            "pending_ephemeral_injections": len(self._ephemeral),
            "approval_system": _type_name(self._approval_system),
            "display_system": _type_name(self._display_system),
            "always_allowed": self._gate.remembered,
            "cancel_requested": self.cancel_requested,
        }

    # ------------------------------------------------------------------ hook results

    def take_ephemeral_injections(self) -> list[ContextInjection]:
        """The ephemeral injections waiting for the next provider request (the queue empties)."""
        taken, self._ephemeral = self._ephemeral, []
        return taken

    def clear_approval_cache(self) -> None:
        """Forget every "allow always" answer of this session."""
        self._gate.forget()

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
            await self._show_messages(messages, event, hook_name)
        if injections:
            await self._inject(
                injections,
                event,
                result.source or hook_name,
                strict=action not in ("deny", "ask_user"),
            )
        if action == "ask_user":
            return await self._gate.decide(result, event, hook_name, self._approval_system)
        if action == "deny":
            self._audit.record(
                "deny", hook=result.source or hook_name, event=event, reason=result.reason
            )
        return result

    # -- user messages

    async def _show_messages(self, messages: list[UserMessage], event: str, hook_name: str) -> None:
        display = self._display_system
        for item in messages:
            source = hook_name if item.source == "hook" and hook_name != "unknown" else item.source
            self._audit.record(
                "user_message",
                hook=source,
                event=event,
                level=item.level,
                source=source,
                size=len(item.message),
            )
            if display is not None:
                try:
                    shown = display.show_message(
                        message=item.message, level=item.level, source=source
                    )
                    if inspect.isawaitable(shown):
                        await shown
                    continue
                except Exception:
                    logger.warning(
                        "display system %s failed to show a message from %r; logging it instead",
                        type(display).__name__,
                        source,
                        exc_info=True,
                    )
            logger.log(log_level(item.level), "[%s] %s", source, item.message)

    # -- context injection

    async def _inject(
        self, injections: list[ContextInjection], event: str, hook_name: str, *, strict: bool
    ) -> None:
        limit = self.injection_size_limit
        accepted: list[tuple[ContextInjection, str, str, str, int]] = []
        for item in injections:
            hook = item.hook_name if item.hook_name != "unknown" else hook_name
            where = item.event or event
            content = strip_control_characters(item.content)
            size = len(content)  # characters, as amplifier-core 2.0.2 counts them
            if limit is not None and size > limit:
                self._audit.record(
                    "injection_rejected",
                    hook=hook,
                    event=where,
                    size=size,
                    limit=limit,
                    reason="too_large",
                )
                error = InjectionTooLargeError(hook_name=hook, event=where, size=size, limit=limit)
                if strict:
                    raise error
                logger.error("%s; dropped so that the gate decision stands", error)
                continue
            if not content.strip():
                self._audit.record(
                    "injection_rejected",
                    hook=hook,
                    event=where,
                    size=size,
                    limit=limit,
                    reason="empty",
                )
                continue
            accepted.append((item, hook, where, content, size))

        budget = self.injection_budget_per_turn
        for item, hook, where, content, size in accepted:
            tokens = (len(content) + 3) // 4
            if budget is not None and self._turn_tokens + tokens > budget:
                self._audit.record(
                    "injection_budget_exceeded",
                    hook=hook,
                    event=where,
                    tokens=tokens,
                    turn_tokens=self._turn_tokens + tokens,
                    budget=budget,
                )
                if not self._budget_warned:  # once per turn in the log; every time in the audit
                    self._budget_warned = True
                    logger.warning(
                        "context injection budget exceeded: hook %r on %r adds ~%d tokens, ~%d "
                        "this turn, budget %d (config key session.injection_budget_per_turn)",
                        hook,
                        where,
                        tokens,
                        self._turn_tokens + tokens,
                        budget,
                    )
            self._turn_tokens += tokens
            if item.ephemeral:
                self._ephemeral.append(
                    item.model_copy(update={"content": content, "hook_name": hook, "event": where})
                )
                stored_in: str | None = "ephemeral"
            else:
                stored_in = await self._add_to_context(item, hook, where, content)
                if stored_in is None:
                    continue
            self._audit.record(
                "injection",
                hook=hook,
                event=where,
                role=item.role,
                ephemeral=item.ephemeral,
                size=size,
                tokens=tokens,
                stored_in=stored_in,
            )

    async def _add_to_context(
        self, item: ContextInjection, hook: str, event: str, content: str
    ) -> str | None:
        metadata: dict[str, Any] = {
            "source": "hook",
            "hook_name": hook,
            "event": event,
            "timestamp": _now(),
        }
        if item.append_to_last_tool_result:
            metadata["append_to_last_tool_result"] = True
        message = {"role": item.role, "content": content, "metadata": metadata}
        mounted = self._mount_points["context"]
        target = mounted if mounted is not None else self._own_context
        try:
            added = target.add_message(message)
            if inspect.isawaitable(added):
                await added
        except Exception as err:
            self._audit.record(
                "injection_failed",
                hook=hook,
                event=event,
                error=f"{type(err).__name__}: {err}",
            )
            logger.error(
                "context manager %s failed to add an injection from hook %r on %r: %s",
                type(target).__name__,
                hook,
                event,
                err,
                exc_info=True,
            )
            return None
        return "context" if mounted is not None else "coordinator"


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
