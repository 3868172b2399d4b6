"""``AmplifierSession``: a mount plan in, mounted modules, prompts handed to the orchestrator.

The session mounts the plan's orchestrator and context manager (both required), then its
providers, tools and hooks, through the :class:`~amplifier_core.loader.ModuleLoader`, and
hands each ``execute(prompt)`` to the orchestrator. It fires ``session:fork`` at initialize for
a child session, ``session:start`` (``session:resume`` when resumed) once before the first
prompt, ``session:config`` with the whole plan (secrets masked) before every prompt when
``session.raw`` is true, ``cancel:completed`` after a cancelled prompt and ``session:end`` at
cleanup. Every other event belongs to the mounted modules. The shape and the behaviour are
amplifier-core 2.0.2's; see docs/architecture.md.
"""

from __future__ import annotations

import logging
import time
import uuid
from types import TracebackType
from typing import Any, Self

from . import _session_init
from . import events as ev
from ._session_init import _safe_exception_str, initialize_session
from .coordinator import ModuleCoordinator
from .descriptions import SessionStatus
from .loader import ModuleLoader
from .models import HookResult
from .session_data import end_data, opening_data, raw_plan
from .session_settings import SessionSettings

__all__ = ["AmplifierSession"]

_INITIALIZE = initialize_session

logger = logging.getLogger(__name__)


class AmplifierSession:
    """One session: a coordinator, the mounted modules, and ``execute`` for each prompt.

    :param config: the mount plan: ``session.orchestrator`` and ``session.context`` (a module
        id or ``{module, config, source}``), ``providers``, ``tools`` and ``hooks`` (lists of
        ``{module, config, source}``), and session settings under ``session``.
    :param is_resumed: fire ``session:resume`` instead of ``session:start``.
    """

    def __init__(
        self,
        config: dict[str, Any],
        loader: ModuleLoader | None = None,
        session_id: str | None = None,
        parent_id: str | None = None,
        approval_system: Any = None,
        display_system: Any = None,
        is_resumed: bool = False,
    ) -> None:
        if not config:
            raise ValueError("Configuration is required")
        settings = SessionSettings.from_config(config)
        if not settings.orchestrator:
            raise ValueError("Configuration must specify session.orchestrator")
        if not settings.context:
            raise ValueError("Configuration must specify session.context")
        self.session_id = session_id or str(uuid.uuid4())
        self.parent_id = parent_id
        self.config = config
        self.status = SessionStatus(session_id=self.session_id)
        self.is_resumed = is_resumed
        """Whether the session continues an earlier one (``session:resume`` at the start)."""
        self._initialized = False
        self._started = False
        self._started_at: float | None = None
        self._prompts = 0
        self.resumed_from: dict[str, Any] | None = None
        """What a resumed session was restored from (``checkpoint_id``, ``path``, ``turn``,
        ``messages``, ``provider``, ``model``), set by the host before the first prompt; it
        goes into ``session:resume``."""
        self.coordinator = ModuleCoordinator(
            session=self, approval_system=approval_system, display_system=display_system
        )
        hooks = self.coordinator.hooks
        hooks.set_default_fields(session_id=self.session_id, parent_id=self.parent_id)
        hooks.default_timeout = settings.hook_timeout
        hooks.json_data = settings.json_event_data
        if settings.working_dir is not None:
            self.coordinator.register_capability("session.working_dir", settings.working_dir)
        self.loader = loader or ModuleLoader(self.coordinator)
        self.coordinator.loader = self.loader

    # -- mounting ------------------------------------------------------------------------

    @property
    def initialized(self) -> bool:
        """Whether :meth:`initialize` has mounted the plan."""
        return self._initialized

    async def initialize(self) -> None:
        """Mount every module of the plan (once), through
        :func:`~amplifier_core._session_init.initialize_session`; it fires ``session:fork`` for
        a child."""
        if self._initialized:
            return
        # amplifier-core 2.0.2's suites replace initialize_session on this module or on
        # _session_init to run a session without modules: either replacement is called.
        initialize = initialize_session
        if initialize is _INITIALIZE:
            initialize = _session_init.initialize_session
        await initialize(self.config, self.coordinator, self.session_id, self.parent_id)
        self._initialized = True
        self._started_at = time.monotonic()

    async def _opening(self) -> None:
        """Fire ``session:start`` (``session:resume``) and act on what its hooks return: an
        injection enters the context; a result that cannot be acted on is reported, never
        raised (``ask_user`` and ``deny`` have nothing to gate here)."""
        coordinator = self.coordinator
        event = ev.SESSION_RESUME if self.is_resumed else ev.SESSION_START
        payload: dict[str, Any] = {"session_id": self.session_id, "parent_id": self.parent_id}
        payload.update(self._metadata())
        for key, value in opening_data(self.config, coordinator).items():
            payload.setdefault(key, value)
        if self.is_resumed and self.resumed_from:
            payload.update(self.resumed_from)
        result = await coordinator.hooks.emit(event, payload)
        if not isinstance(result, HookResult) or result.action in ("deny", "ask_user"):
            return
        if result.action == "continue" and not result.user_message and not result.user_messages:
            return
        try:
            await coordinator.process_hook_result(result, event, "hooks")
        except Exception as err:
            message = f"acting on the hook result of {event!r} failed: {err}"
            logger.error("session %s: %s", self.session_id, message)
            await coordinator.hooks.emit(
                ev.USER_NOTIFICATION, {"message": message, "level": "error", "source": "session"}
            )

    def _metadata(self) -> dict[str, Any]:
        metadata = self.coordinator.settings.metadata
        return {"metadata": metadata} if metadata else {}

    # -- prompts -------------------------------------------------------------------------

    async def execute(self, prompt: str) -> str:
        """Hand ``prompt`` to the mounted orchestrator; its answer is the final text.

        :raises RuntimeError: :meth:`initialize` has not run (as on amplifier-core 2.0.2).
        """
        if not self._initialized:
            raise RuntimeError("Session not initialized. Call initialize() first.")
        coordinator = self.coordinator
        if not self._started:
            self._started = True
            await self._opening()
        if coordinator.settings.raw:  # before every prompt, as 2.0.2
            await coordinator.hooks.emit(
                ev.SESSION_CONFIG, {"session_id": self.session_id, "raw": raw_plan(self.config)}
            )
        orchestrator = coordinator.get("orchestrator")
        if not orchestrator:
            raise RuntimeError("No orchestrator module mounted")
        context = coordinator.get("context")
        if not context:
            raise RuntimeError("No context manager mounted")
        providers = coordinator.get("providers")
        if not providers:
            raise RuntimeError("No providers mounted")
        tools = coordinator.get("tools") or {}
        cancellation = coordinator.cancellation
        self._prompts += 1
        try:
            self.status.status = "running"
            result: str = await orchestrator.execute(
                prompt=prompt,
                context=context,
                providers=providers,
                tools=tools,
                hooks=coordinator.hooks,
                coordinator=coordinator,
            )
        except BaseException as err:
            if cancellation.is_cancelled:
                self.status.status = "cancelled"
                await coordinator.hooks.emit(
                    ev.CANCEL_COMPLETED,
                    {"was_immediate": cancellation.is_immediate, "error": _safe_exception_str(err)},
                )
            else:
                self.status.status = "failed"
                self.status.last_error = {
                    "type": type(err).__name__,
                    "message": _safe_exception_str(err),
                }
            raise
        if cancellation.is_cancelled:
            self.status.status = "cancelled"
            await coordinator.hooks.emit(
                ev.CANCEL_COMPLETED, {"was_immediate": cancellation.is_immediate}
            )
        else:
            self.status.status = "completed"
        return result

    # -- the end -------------------------------------------------------------------------

    async def cleanup(self) -> None:
        """Fire ``session:end`` (when initialized), then run every module's cleanup."""
        try:
            if self._initialized:
                try:
                    started = self._started_at or time.monotonic()
                    payload = {"session_id": self.session_id, "status": self.status.status}
                    payload.update(
                        end_data(time.monotonic() - started, self._prompts, self.status.last_error)
                    )
                    await self.coordinator.hooks.emit(ev.SESSION_END, payload)
                except Exception:
                    logger.exception(
                        "session %s: session:end could not be emitted", self.session_id
                    )
            await self.loader.cleanup()
        finally:
            self._initialized = False
            await self.coordinator.cleanup()

    async def __aenter__(self) -> Self:
        await self.initialize()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.cleanup()
