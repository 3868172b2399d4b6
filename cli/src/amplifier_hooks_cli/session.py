"""``AgentSession``: the application's session, composed from modules by a bundle.

It turns a bundle into a mount plan (:func:`~amplifier_hooks_cli.plan.mount_plan`), hands the
plan to the kernel's ``AmplifierSession``, and adds what an application needs around the
kernel's ``execute``: how each turn ended (:class:`TurnOutcome`), cancelling the running turn,
checkpoints and resuming from them, forks, model switches, and one ``close`` that always ends
the session. The turn itself belongs to the orchestrator mounted at ``"orchestrator"``
(``loop-session`` by default); this class drives it::

    async with AgentSession(load_bundle("bundle.yaml"), workspace=".") as session:
        outcome = await session.run("Fix the failing test")
        print(outcome.status, outcome.response)

A ``provider`` or ``tools`` passed in replaces the bundle's: they are mounted on the
coordinator directly, after the plan's modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, Self

from amplifier_hooks_bundle import Bundle

from amplifier_core import events as ev
from amplifier_core.errors import ModuleLoadError
from amplifier_module_loop_session import Checkpoint, TurnOutcome, read_checkpoint

from .load_advice import load_advice
from .managed import check_first, mount_policy
from .missing import missing_modules
from .plan import mount_plan

if TYPE_CHECKING:
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.loader import ModuleLoader
    from amplifier_core.session_settings import SessionSettings

__all__ = [
    "HOST_HANDLERS",
    "HOST_HANDLERS_CAPABILITY",
    "AgentSession",
    "SessionStatus",
    "TurnOutcome",
]

HOST_HANDLERS_CAPABILITY: Final = "session.host_handlers"
"""The coordinator capability naming the application's own handlers (hooks-otel's name)."""
HOST_HANDLERS: Final = frozenset({"session.notify", "amplifier-hooks.view"})
"""The handlers the command line registers for itself (its notifications, its view): they
are not hooks, so telemetry makes no hook span of them."""

SessionStatus = Literal["completed", "failed", "cancelled"]
SwitchReason = Literal["user", "fallback", "config"]


def _kernel_session_class() -> Any:
    from amplifier_core import AmplifierSession

    return AmplifierSession


class AgentSession:
    """One agent session: the modules a bundle names, mounted, and the turns run on them.

    Use it as an async context manager, or call :meth:`start` and :meth:`close`. One turn
    runs at a time.

    :param bundle: the modules and settings; without one, the default runtime and no hooks.
    :param workspace: where tools run and files are read and written.
    :param provider: a provider object to use instead of the bundle's providers.
    :param tools: tool objects by name to use instead of the bundle's tools.
    :param strict: a module that fails to load raises (``None``: ``AMPLIFIER_MODULES_STRICT``).
    """

    def __init__(
        self,
        bundle: Bundle | None = None,
        *,
        workspace: str | Path = ".",
        provider: Any = None,
        tools: Mapping[str, Any] | None = None,
        approval_system: Any = None,
        display_system: Any = None,
        session_id: str | None = None,
        parent_id: str | None = None,
        strict: bool | None = None,
        _resumed: tuple[Checkpoint, Path] | None = None,
    ) -> None:
        self.bundle = bundle or Bundle()
        self.workspace = Path(workspace).resolve()
        self.settings: SessionSettings = self.bundle.session
        plan = mount_plan(self.bundle, workspace=self.workspace)
        if provider is not None:
            plan["providers"] = []
        if tools is not None:
            plan["tools"] = []
        self.plan = plan
        self._kernel = _kernel_session_class()(
            plan,
            session_id=session_id,
            parent_id=parent_id,
            approval_system=approval_system,
            display_system=display_system,
            is_resumed=_resumed is not None,
        )
        if strict is not None:
            self._kernel.loader.strict = strict
        self.coordinator: ModuleCoordinator = self._kernel.coordinator
        self.status: SessionStatus = "completed"
        self._provider = provider
        self._tools = dict(tools) if tools is not None else None
        self._resumed = _resumed
        self._fork_messages: list[dict[str, Any]] | None = None
        self._started_at: float | None = None
        self._closed = False
        self._turn_task: asyncio.Task[str] | None = None
        self._managed: Callable[[], Awaitable[None]] | None = None
        self.coordinator.register_capability(HOST_HANDLERS_CAPABILITY, HOST_HANDLERS)
        self.coordinator.hooks.register(
            ev.APPROVAL_REQUIRED, self._before_approval, name="session.notify"
        )

    # -- what is mounted -----------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return str(self._kernel.session_id)

    @property
    def parent_id(self) -> str | None:
        return self._kernel.parent_id  # type: ignore[no-any-return]

    @property
    def loader(self) -> ModuleLoader:
        """The loader that mounted the plan's modules (``loader.mounted``, ``.failures``)."""
        return self._kernel.loader  # type: ignore[no-any-return]

    @property
    def orchestrator(self) -> Any:
        """The mounted orchestrator (``None`` before :meth:`start`)."""
        return self.coordinator.get("orchestrator")

    @property
    def context(self) -> Any:
        """The mounted context manager (``None`` before :meth:`start`)."""
        return self.coordinator.get("context")

    @property
    def tools(self) -> dict[str, Any]:
        """The mounted tools by name."""
        return dict(self.coordinator.get("tools") or {})

    @property
    def provider(self) -> Any:
        """The provider the next turn uses (``None`` when none is mounted)."""
        loop = self.orchestrator
        if loop is not None and getattr(loop, "providers", None):
            return loop.provider
        mounted = self.coordinator.get("providers") or {}
        return next(iter(mounted.values()), None)

    @property
    def turns(self) -> int:
        """Turns run so far (those before a resumed checkpoint included)."""
        loop = self.orchestrator
        if loop is not None:
            return int(getattr(loop, "turns", 0))
        return self._resumed[0].turn if self._resumed is not None else 0

    # -- lifecycle -----------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is None:
            await self.close()
        elif isinstance(error, asyncio.CancelledError | KeyboardInterrupt):
            await self.close("cancelled")
        else:
            await self.close("failed", error)

    async def start(self) -> None:
        """Mount every module of the plan, then the given provider and tools (once).

        A resumed session gets its checkpoint's conversation, turn count and model back; a
        fork gets its parent's conversation.
        """
        if self._closed:
            raise RuntimeError(f"session {self.session_id} is closed")
        if self._started_at is not None:
            return
        self._started_at = time.perf_counter()
        try:
            await self._mount()
        except BaseException as err:  # what did mount is cleaned up; session:end says why
            await self.close(
                "cancelled" if isinstance(err, asyncio.CancelledError) else "failed", err
            )
            raise

    async def _mount(self) -> None:
        # the machine's managed policy: registered first, where no bundle entry reaches it
        stopped = f"session {self.session_id} stopped before its first turn"
        self._managed = await mount_policy(self.coordinator, stopped)
        await self._kernel.initialize()
        check_first(self.coordinator, stopped)
        if self._provider is not None:
            await self.coordinator.mount("providers", self._provider, name=self._provider.name)
        for name, tool in (self._tools or {}).items():
            await self.coordinator.mount("tools", tool, name=name)
        if not self.coordinator.get("providers"):
            planned = {entry["module"] for entry in self.plan["providers"]}
            failed = [f.message for f in self.loader.failures if f.module_id in planned]
            raise RuntimeError(
                f"session {self.session_id}: no provider is mounted, so no model can answer"
                + (f": {'; '.join(failed)}" if failed else "")
            )
        self._check_required()
        if self._fork_messages is not None:  # after what session:fork hooks gave the child
            added = list(await self.context.get_messages())
            await self.context.set_messages([*self._fork_messages, *added])
        if self._resumed is not None:
            await self._restore(*self._resumed)

    def _check_required(self) -> None:
        """Stop the session when a module the bundle names failed to load, mount or get
        ready, unless its entry says ``optional: true`` or the loader's deny list
        (``AMPLIFIER_MODULES_DENY``) or allow list keeps it out: then the loader's warning
        stands."""
        optional = {
            entry["module"]
            for kind in ("providers", "tools", "hooks")
            for entry in self.plan[kind]
            if entry.get("optional")
        }
        failed = [
            f
            for f in self.loader.failures
            if f.module_id not in optional and self.loader.is_allowed(f.module_id)
        ]
        if not failed:
            return
        missing = missing_modules(failed, self.plan)
        reasons = [missing.message()] if missing else []
        reasons += [
            f.message for f in failed if not (f.stage == "resolve" and f.module_id in missing.ids)
        ]
        advice = load_advice(failed, self.workspace, None)
        raise ModuleLoadError(
            f"session {self.session_id} stopped before its first turn: "
            + "; ".join(reasons)
            + f". {advice[:1].upper()}{advice[1:]}",
            module_id=failed[0].module_id,
            stage=failed[0].stage if failed[0].stage in ("resolve", "import") else "mount",
            entry_point=failed[0].entry_point,
            distribution=failed[0].distribution,
            error_type=failed[0].error_type,
            location=failed[0].location,
        )

    async def _restore(self, checkpoint: Checkpoint, path: Path) -> None:
        await self.context.set_messages(list(checkpoint.messages))
        if checkpoint.todo_state:
            # the todo tool keeps its list on the coordinator
            setattr(self.coordinator, "todo_state", list(checkpoint.todo_state))  # noqa: B010
        mounted = self.coordinator.get("providers") or {}
        if self._provider is not None or checkpoint.provider not in mounted:
            # another provider than the checkpoint's: its model would mean nothing here
            checkpoint = checkpoint.model_copy(update={"provider": "", "model": ""})
        self.orchestrator.restore(checkpoint)
        restored = mounted.get(checkpoint.provider)
        if checkpoint.model and restored is not None and hasattr(restored, "model"):
            with contextlib.suppress(AttributeError):  # a read-only model: requests name it
                restored.model = checkpoint.model
        self._kernel.resumed_from = {
            "checkpoint_id": checkpoint.checkpoint_id,
            "path": str(path),
            "turn": checkpoint.turn,
            "messages": len(checkpoint.messages),
            "provider": checkpoint.provider or next(iter(mounted), ""),
            "model": checkpoint.model or str(getattr(self.provider, "model", "") or ""),
        }

    async def close(
        self, status: SessionStatus | None = None, error: BaseException | None = None
    ) -> None:
        """End the session (once): ``session:end``, then every module's cleanup.

        A turn still running is cancelled at once and finishes, with its closing events,
        before ``session:end``; the session then ends ``cancelled`` unless told otherwise.
        """
        if self._closed:
            return
        self._closed = True
        task = self._turn_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            await self.cancel(immediate=True)
            await asyncio.wait({task})
            status = status or "cancelled"
        self.status = status or self.status
        kernel_status = getattr(self._kernel, "status", None)
        if kernel_status is not None and hasattr(kernel_status, "status"):
            kernel_status.status = self.status
            if error is not None:
                kernel_status.last_error = {"type": type(error).__name__, "message": str(error)}
        await self._kernel.cleanup()
        if self._managed is not None:
            await self._managed()

    # -- turns ---------------------------------------------------------------------------

    async def run(self, prompt: str) -> TurnOutcome:
        """Run one turn for ``prompt``; a cancel ends it with status ``cancelled``.

        One turn at a time: calling it while a turn runs is a :class:`RuntimeError`.
        """
        if self._closed:
            raise RuntimeError(f"session {self.session_id} is closed")
        if self._turn_task is not None:
            raise RuntimeError(
                f"session {self.session_id}: a turn is already running; await it (or cancel "
                "it) before the next prompt"
            )
        if self._started_at is None:
            await self.start()
        before = getattr(self.orchestrator, "last_outcome", None)
        task = asyncio.ensure_future(self._kernel.execute(prompt))
        self._turn_task = task
        try:
            await task
        except asyncio.CancelledError:
            if not self._cancel_requested():
                raise  # the caller itself was cancelled
        finally:
            self._turn_task = None
        outcome = getattr(self.orchestrator, "last_outcome", None)
        if outcome is None or outcome is before:  # no outcome of this turn: its answer is all
            outcome = TurnOutcome(status="cancelled" if self._cancel_requested() else "completed")
            if not task.cancelled() and task.exception() is None:
                outcome.response = task.result()
        elif task.cancelled():
            outcome.status = "cancelled"
            outcome.reason = outcome.reason or "cancelled"
        self.status = "cancelled" if outcome.status == "cancelled" else "completed"
        return outcome

    def _cancel_requested(self) -> bool:
        return bool(self.coordinator.cancellation.is_cancelled)

    async def execute(self, prompt: str) -> str:
        """Run one turn and return the final assistant text (the ecosystem's name)."""
        return (await self.run(prompt)).response

    async def cancel(self, immediate: bool = False) -> None:
        """Ask the running turn to stop: after the running tool, or at once (``immediate``).

        Without a running turn this does nothing. A turn that already stopped and is firing
        its closing events is never interrupted, so every closing event still fires.
        """
        task = self._turn_task
        loop = self.orchestrator
        if task is None or task.done() or loop is None:
            return
        await loop.cancel(immediate)
        finishing = bool(getattr(loop, "finishing", False))
        if immediate and not finishing and not task.done() and not task.cancelling():
            task.cancel()

    async def check_memory(self, tool_name: str | None) -> None:
        """Fire ``memory:update`` for every memory file that changed since the last look."""
        await self.orchestrator.check_memory(tool_name)

    async def _before_approval(self, event: str, data: dict[str, Any]) -> None:
        if data.get("cache_hit") or self.coordinator.approval_system is None:
            return
        await self.coordinator.hooks.emit(
            ev.USER_NOTIFICATION,
            {"message": str(data.get("prompt", "")), "level": "warning", "source": "approval"},
        )

    # -- models, checkpoints, forks ------------------------------------------------------

    async def switch_model(
        self, model: str, *, provider: Any = None, reason: SwitchReason = "user"
    ) -> None:
        """Continue with another model, and optionally another provider.

        ``provider`` is the name of a mounted provider, a provider object (mounted under its
        ``name``), or a module entry ``{module, config, source}`` mounted through the loader.
        """
        if self._started_at is None:
            await self.start()
        name: str | None
        if provider is None or isinstance(provider, str):
            name = provider
        elif isinstance(provider, Mapping):
            name = await self._mount_provider_module(provider)
        else:
            name = str(provider.name)
            await self.coordinator.mount("providers", provider, name=name)
        await self.orchestrator.switch_model(model, provider_name=name, reason=reason)

    async def _mount_provider_module(self, entry: Mapping[str, Any]) -> str:
        module = entry.get("module")
        if not isinstance(module, str) or not module:
            raise ValueError(f"switch_model provider: expected {{module, config}}, got {entry!r}")
        before = set(self.coordinator.get("providers") or {})
        mounted = await self.loader.mount(
            module, entry.get("config") or {}, entry.get("source"), base_dir=self.bundle.base_dir
        )
        added = [n for n in (self.coordinator.get("providers") or {}) if n not in before]
        if mounted is None or not added:
            failure = next(
                (f for f in reversed(self.loader.failures) if f.module_id == module), None
            )
            cause = failure.message if failure is not None else "it mounted no provider"
            raise ValueError(f"switch_model: provider module {module!r} did not mount: {cause}")
        return str(added[0])

    async def checkpoint(self, path: Path | None = None) -> Path:
        """Save the conversation now; fires ``session:checkpoint``."""
        saved: Path = await self.orchestrator.checkpoint(path)
        return saved

    @classmethod
    async def resume(
        cls,
        checkpoint_path: str | Path,
        bundle: Bundle | None = None,
        *,
        start: bool = True,
        **kwargs: Any,
    ) -> AgentSession:
        """A session continuing from a checkpoint; it fires ``session:resume``, not ``:start``.

        With ``start=False`` the caller may register handlers before starting it.
        """
        path = Path(checkpoint_path)
        checkpoint = read_checkpoint(path)
        kwargs.setdefault("session_id", checkpoint.session_id)
        kwargs.setdefault("parent_id", checkpoint.parent_id)
        session = cls(bundle, _resumed=(checkpoint, path), **kwargs)
        if start:
            await session.start()
        return session

    async def fork(self, *, start: bool = True, **kwargs: Any) -> AgentSession:
        """A child session with this conversation; it fires ``session:fork`` when started.

        With ``start=False`` the caller may register handlers before starting it.
        """
        kwargs.setdefault("workspace", self.workspace)
        kwargs.setdefault("provider", self.provider)
        kwargs.setdefault("approval_system", self.coordinator.approval_system)
        kwargs.setdefault("display_system", self.coordinator.display_system)
        child = AgentSession(self.bundle, parent_id=self.session_id, **kwargs)
        context = self.context
        child._fork_messages = list(await context.get_messages()) if context is not None else []
        if start:
            await child.start()
        return child
