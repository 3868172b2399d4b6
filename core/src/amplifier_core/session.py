"""``AmplifierSession``: a real agent session in which every event fires.

A session mounts a bundle (its hook modules through the entry-point loader, its provider and
tools), then runs turns (see :mod:`amplifier_core.orchestrator`). Around the turns it fires the
lifecycle events: ``session:start`` once (``session:resume`` instead for a restored session,
``session:fork`` first for a child), ``session:end`` always (also after an error or a cancel),
``session:checkpoint`` after each completed turn, ``provider:resolve`` / ``provider:switch`` when
the model changes, ``memory:update`` when a memory file changes, ``context:include`` for the
workspace's instruction files, and ``cancel:requested`` / ``cancel:completed``.

Session config (the bundle's ``session:`` mapping): ``injection_size_limit``,
``injection_budget_per_turn``, ``audit_log`` (coordinator); ``max_iterations`` (20),
``context_max_tokens`` (100000), ``hook_timeout`` (60 s per async handler, ``null`` = none),
``checkpoint_dir`` (``.amplifier/sessions/{session_id}`` in the workspace),
``checkpoint_every_turn`` (true), ``memory_files`` (``AGENTS.md``, ``AMPLIFIER.md``,
``CLAUDE.md``, ``.amplifier/memory/*.md``), ``metadata``; tool settings under ``tools``.

A session runs one turn at a time. :meth:`AmplifierSession.cancel` acts on the running turn
only (between turns it does nothing); :meth:`AmplifierSession.close` cancels a running turn
and waits for it before ``session:end``. A checkpoint that cannot be written is reported
(``user:notification``) and does not fail the turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

from . import events as ev
from .bundle import Bundle
from .chat import Provider, ProviderError, Tool, ToolSpec
from .checkpoint import Checkpoint, read_checkpoint
from .coordinator import ModuleCoordinator
from .loader import ModuleLoader
from .memory import DEFAULT_MEMORY_FILES, MemoryWatcher
from .orchestrator import TurnOutcome, TurnRunner
from .providers import make_provider
from .session_context import SessionContext
from .tools import builtin_tools

__all__ = ["AmplifierSession", "SessionStatus"]

logger = logging.getLogger(__name__)

SessionStatus = Literal["completed", "failed", "cancelled"]
_PROVIDER_MODULES = {
    "provider-scripted": "scripted",
    "provider-anthropic": "anthropic",
    "provider-openai": "openai",
}
_SECRET_KEYS = ("key", "token", "secret", "password", "authorization")


def _redacted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            k: "[REDACTED]" if any(s in str(k).lower() for s in _SECRET_KEYS) else _redacted(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return value


class AmplifierSession:
    """One agent session: a coordinator, mounted modules, a provider, tools and turns.

    Use it as an async context manager, or call :meth:`start` and :meth:`close`::

        async with AmplifierSession(bundle, workspace=path) as session:
            outcome = await session.run("Fix the failing test")
    """

    def __init__(
        self,
        bundle: Bundle | None = None,
        *,
        workspace: str | Path = ".",
        provider: Provider | None = None,
        tools: Mapping[str, Tool] | None = None,
        approval_system: Any = None,
        display_system: Any = None,
        session_id: str | None = None,
        parent_id: str | None = None,
        strict: bool | None = None,
    ) -> None:
        self.bundle = bundle or Bundle()
        self.workspace = Path(workspace).resolve()
        settings: dict[str, Any] = dict(self.bundle.session or {})
        self.settings = settings
        self.session_id = session_id or str(uuid.uuid4())
        self.coordinator = ModuleCoordinator(
            approval_system=approval_system,
            display_system=display_system,
            config={"session": settings},
            session_id=self.session_id,
            parent_id=parent_id,
        )
        hooks = self.coordinator.hooks
        hook_timeout = settings.get("hook_timeout", 60.0)
        if hook_timeout is not None and (
            isinstance(hook_timeout, bool)
            or not isinstance(hook_timeout, int | float)
            or hook_timeout <= 0
        ):
            raise ValueError(
                f"session.hook_timeout: expected seconds > 0 or null, got {hook_timeout!r}"
            )
        hooks.default_timeout = hook_timeout
        self.context = SessionContext(hooks, max_tokens=settings.get("context_max_tokens", 100_000))
        self.coordinator.mount_points["context"] = self.context
        self.max_iterations = int(settings.get("max_iterations", 20))
        self.provider = provider or self._provider_from_bundle()
        # providers built here (from the bundle or a switch_model mapping) are closed here
        self._owned_providers: list[Provider] = [] if provider is not None else [self.provider]
        self._attach_retry_events(self.provider)
        mounted_tools: dict[str, Tool] = self.coordinator.mount_points["tools"]
        mounted_tools.update(dict(tools) if tools is not None else self._builtin_tools())
        self.tools = mounted_tools  # the coordinator's table: tools modules mount are callable
        self.coordinator.mount_points["providers"][self.provider.name] = self.provider
        self.loader = ModuleLoader(self.coordinator, strict=strict)
        self.coordinator.register_capability("session", self)
        self.coordinator.register_capability("session.working_dir", str(self.workspace))
        memory_files = settings.get("memory_files", DEFAULT_MEMORY_FILES)
        self.memory = MemoryWatcher(
            self.workspace,
            (memory_files,) if isinstance(memory_files, str) else tuple(memory_files),
            where="session.memory_files",
        )
        self.turns = 0
        self.current_request_id: str | None = None
        self.status: SessionStatus = "completed"
        self._runner = TurnRunner(self)
        self._started_at: float | None = None
        self._closed = False
        self._turn_running = False
        self._turn_task: asyncio.Task[TurnOutcome] | None = None
        self._resumed_from: Checkpoint | None = None
        self._resumed_path: Path | None = None
        self._fork_of: str | None = None
        hooks.register(ev.APPROVAL_REQUIRED, self._before_approval, name="session.notify")

    # -- construction helpers ------------------------------------------------------------

    def _provider_from_bundle(self) -> Provider:
        entries = self.bundle.providers
        if not entries:
            return make_provider(
                {"type": "scripted", "script": [{"text": "(no provider configured)"}]}
            )
        entry = entries[0]
        config = dict(entry.config)
        config.setdefault("type", _PROVIDER_MODULES.get(entry.module, entry.module))
        return make_provider(
            config,
            base_dir=self.bundle.base_dir,
            on_retry=self._on_retry,
            where=f"providers[0] ({entry.module})",
        )

    def _attach_retry_events(self, provider: Provider) -> None:
        """Let an HTTP provider's retries fire provider:retry / provider:throttle."""
        if hasattr(provider, "on_retry") and getattr(provider, "on_retry", None) is None:
            provider.on_retry = self._on_retry

    def _builtin_tools(self) -> dict[str, Tool]:
        config = dict(self.settings.get("tools", {}))
        available = builtin_tools(self.workspace, self.coordinator, config)
        wanted = [e.module.removeprefix("tool-").replace("-", "_") for e in self.bundle.tools]
        if not wanted:
            return dict(available)
        missing = [name for name in wanted if name not in available]
        if missing:
            raise ValueError(
                f"bundle tools: unknown tool(s) {', '.join(missing)}; "
                f"available: {', '.join(sorted(available))}"
            )
        return {name: available[name] for name in wanted}

    def tool_specs(self) -> list[ToolSpec]:
        """What the model is told about the mounted tools (by the names they are called by)."""
        specs: list[ToolSpec] = []
        for name, tool in self.tools.items():
            description = getattr(tool, "description", "")
            schema = getattr(tool, "input_schema", None)
            specs.append(
                ToolSpec(
                    name=name,
                    description=description if isinstance(description, str) else "",
                    input_schema=schema if isinstance(schema, dict) else {"type": "object"},
                )
            )
        return specs

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
        """Mount the bundle's hook modules and fire the session's opening events (once)."""
        if self._closed:
            raise RuntimeError(f"session {self.session_id} is closed")
        if self._started_at is not None:
            return
        self._started_at = time.perf_counter()
        hooks = self.coordinator.hooks
        await self.loader.mount_all(self.bundle.hooks, base_dir=self.bundle.base_dir)
        if self._fork_of is not None:
            await hooks.emit(
                ev.SESSION_FORK,
                {"parent": self._fork_of, "metadata": self.settings.get("metadata", {})},
            )
        await self._resolve(None)
        if self._resumed_from is not None:
            checkpoint = self._resumed_from
            resumed = await hooks.emit(
                ev.SESSION_RESUME,
                {
                    "parent_id": self.coordinator.parent_id,
                    "checkpoint_id": checkpoint.checkpoint_id,
                    "path": str(self._resumed_path),
                    "turn": checkpoint.turn,
                    "messages": len(checkpoint.messages),
                    "provider": self.provider.name,
                    "model": self.provider.model,
                },
            )
            await self._runner.process(resumed, ev.SESSION_RESUME, gate=False)
        else:
            await self._include_instructions()
            start = await hooks.emit(ev.SESSION_START, self._start_data())
            await self._runner.process(start, ev.SESSION_START, gate=False)
        await self.loader.session_ready()

    def _start_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "parent_id": self.coordinator.parent_id,
            "mount_plan": _redacted(
                {
                    "hooks": [{"module": h.module, "config": h.config} for h in self.bundle.hooks],
                    "provider": self.provider.name,
                    "model": self.provider.model,
                    "tools": sorted(self.tools),
                }
            ),
            "provider": self.provider.name,
            "model": self.provider.model,
            "tools": sorted(self.tools),
            "cwd": str(self.workspace),
        }
        if "metadata" in self.settings:
            data["metadata"] = self.settings["metadata"]
        return data

    async def _include_instructions(self) -> None:
        context = self.coordinator.context
        present = set()  # a fork starts with its parent's conversation, instructions included
        for message in await context.get_messages():
            metadata = message.get("metadata")
            if isinstance(metadata, dict) and metadata.get("source") == "instructions":
                present.add(metadata.get("path"))
        for path, text in self.memory.snapshot().items():
            if str(path) in present:
                continue
            await context.add_message(
                {
                    "role": "system",
                    "content": f"Instructions from {path.name}:\n{text}",
                    "metadata": {"source": "instructions", "path": str(path)},
                }
            )
            await self.coordinator.hooks.emit(
                ev.CONTEXT_INCLUDE,
                {"path": str(path), "source": "instructions", "size": len(text.encode())},
            )

    async def _resolve(self, requested: str | None) -> None:
        await self.coordinator.hooks.emit(
            ev.PROVIDER_RESOLVE,
            {
                "requested": requested,
                "provider": self.provider.name,
                "model": self.provider.model,
                "candidates": sorted(self.coordinator.mount_points["providers"]),
            },
        )

    async def close(
        self, status: SessionStatus | None = None, error: BaseException | None = None
    ) -> None:
        """Fire ``session:end`` (always, once) and clean up every mounted module.

        A turn still running is cancelled at once and finishes (with its closing events)
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
        duration = time.perf_counter() - (self._started_at or time.perf_counter())
        data: dict[str, Any] = {"status": self.status, "duration": duration, "turns": self.turns}
        if error is not None:
            data["error"] = {"type": type(error).__name__, "message": str(error)}
        try:
            await self.coordinator.hooks.emit(ev.SESSION_END, data)
        finally:
            await self.loader.cleanup()
            await self.coordinator.cleanup()
            for provider in dict.fromkeys(self._owned_providers):
                aclose = getattr(provider, "aclose", None)
                if callable(aclose):
                    await aclose()  # the HTTP providers' connection pools

    # -- turns ---------------------------------------------------------------------------

    async def run(self, prompt: str) -> TurnOutcome:
        """Run one turn for ``prompt``; a cancel ends it with status ``cancelled``.

        One turn at a time: calling it while a turn runs is a :class:`RuntimeError`.
        """
        if self._closed:
            raise RuntimeError(f"session {self.session_id} is closed")
        if self._turn_running:
            raise RuntimeError(
                f"session {self.session_id}: a turn is already running; await it (or cancel "
                "it) before the next prompt"
            )
        self._turn_running = True
        try:
            outcome = await self._run_turn(prompt)
        finally:
            self._turn_running = False
        self.status = "cancelled" if outcome.status == "cancelled" else "completed"
        if (
            outcome.status in ("completed", "incomplete")
            and self.settings.get("checkpoint_every_turn", True)
            and not self._closed
        ):
            await self._checkpoint_after_turn()
        return outcome

    async def _run_turn(self, prompt: str) -> TurnOutcome:
        if self._started_at is None:
            await self.start()
        self.turns += 1
        self.coordinator.reset_turn()
        self.coordinator.clear_cancel()
        await self.check_memory(None)  # what changed outside since the last turn
        if self._closed:  # closed while the turn was getting ready
            raise RuntimeError(f"session {self.session_id} is closed")
        self._runner.outcome = None
        self._turn_task = asyncio.create_task(self._runner.run(prompt, self.turns))
        try:
            return await self._turn_task
        except asyncio.CancelledError:
            if not self.coordinator.cancel_requested:
                raise  # the caller itself was cancelled
            outcome = self._runner.outcome or TurnOutcome(status="cancelled")
            outcome.status = "cancelled"
            outcome.reason = outcome.reason or "cancelled"
            return outcome
        finally:
            self._turn_task = None

    async def _checkpoint_after_turn(self) -> None:
        try:
            await self.checkpoint()
        except (OSError, ValueError) as err:  # ValueError: content that is not JSON
            message = f"the checkpoint after turn {self.turns} was not saved: {err}"
            logger.error("%s", message)
            await self.coordinator.hooks.emit(
                ev.USER_NOTIFICATION, {"message": message, "level": "error", "source": "session"}
            )

    async def execute(self, prompt: str) -> str:
        """Run one turn and return the final assistant text (the ecosystem's name)."""
        return (await self.run(prompt)).response

    async def cancel(self, immediate: bool = False) -> None:
        """Ask the running turn to stop: after the running tool, or at once (``immediate``).

        Without a running turn this does nothing. A turn that already stopped and is firing
        its closing events is never interrupted, so every closing event still fires.
        """
        task = self._turn_task
        if task is None or task.done():
            return
        await self.coordinator.hooks.emit(
            ev.CANCEL_REQUESTED,
            {"immediate": immediate, "running_tools": list(self._runner.running_tools)},
        )
        await self.coordinator.request_cancel(immediate)
        if immediate and not self._runner.finishing and not task.done() and not task.cancelling():
            task.cancel()

    async def check_memory(self, tool_name: str | None) -> None:
        """Fire ``memory:update`` for every memory file that changed since the last look."""
        for change in self.memory.check():
            await self.coordinator.hooks.emit(
                ev.MEMORY_UPDATE,
                {
                    "path": str(change.path),
                    "change": change.change,
                    "diff": change.diff,
                    "added_lines": change.added_lines,
                    "removed_lines": change.removed_lines,
                    "tool_name": tool_name,
                },
            )

    async def _before_approval(self, event: str, data: dict[str, Any]) -> None:
        if data.get("cache_hit") or self.coordinator.approval_system is None:
            return
        await self.coordinator.hooks.emit(
            ev.USER_NOTIFICATION,
            {"message": str(data.get("prompt", "")), "level": "warning", "source": "approval"},
        )

    def _on_retry(self, attempt: int, error: ProviderError, delay: float) -> Any:
        hooks = self.coordinator.hooks
        common = {
            "provider": self.provider.name if hasattr(self, "provider") else error.provider,
            "model": error.model or "",
            "request_id": self.current_request_id,
        }
        if error.status in (429, 529):
            return hooks.emit(
                ev.PROVIDER_THROTTLE,
                {**common, "status_code": error.status, "retry_after": delay},
            )
        max_retries = int(getattr(getattr(self, "provider", None), "max_retries", attempt))
        return hooks.emit(
            ev.PROVIDER_RETRY,
            {
                **common,
                "attempt": attempt + 1,
                "max_attempts": max_retries + 1,
                "delay": delay,
                "error": {"type": type(error).__name__, "message": error.message},
            },
        )

    # -- model switch, checkpoints, forks ------------------------------------------------

    async def switch_model(
        self,
        model: str,
        *,
        provider: Provider | Mapping[str, Any] | None = None,
        reason: Literal["user", "fallback", "config"] = "user",
    ) -> None:
        """Continue with another model (and optionally another provider)."""
        old = self.provider
        if provider is None:
            new = old
            if hasattr(old, "model"):
                old_model = old.model
                new.model = model
            else:  # pragma: no cover - every provider has a model
                old_model = ""
        else:
            old_model = old.model
            new = (
                make_provider({**provider, "model": model}, on_retry=self._on_retry)
                if isinstance(provider, Mapping)
                else provider
            )
            if isinstance(provider, Mapping):
                self._owned_providers.append(new)
        self.provider = new
        self._attach_retry_events(new)
        self.coordinator.mount_points["providers"][new.name] = new
        await self._resolve(f"{new.name}/{model}")
        await self.coordinator.hooks.emit(
            ev.PROVIDER_SWITCH,
            {
                "old_model": old_model,
                "new_model": new.model,
                "old_provider": old.name,
                "new_provider": new.name,
                "reason": reason,
            },
        )

    def checkpoint_dir(self) -> Path:
        template = str(self.settings.get("checkpoint_dir", ".amplifier/sessions/{session_id}"))
        path = Path(template.format(session_id=self.session_id)).expanduser()
        return path if path.is_absolute() else self.workspace / path

    async def checkpoint(self, path: Path | None = None) -> Path:
        """Save the conversation; fires ``session:checkpoint``."""
        checkpoint_id = f"ckpt_{self.turns}_{uuid.uuid4().hex[:8]}"
        target = path or self.checkpoint_dir() / f"checkpoint-{self.turns:04d}.json"
        messages = list(await self.coordinator.context.get_messages())
        todo = getattr(self.coordinator, "todo_state", None)
        Checkpoint(
            checkpoint_id=checkpoint_id,
            session_id=self.session_id,
            parent_id=self.coordinator.parent_id,
            turn=self.turns,
            provider=self.provider.name,
            model=self.provider.model,
            messages=messages,
            todo_state=list(todo) if isinstance(todo, list) else [],
            created=datetime.now(UTC).isoformat(),
        ).write(target)
        await self.coordinator.hooks.emit(
            ev.SESSION_CHECKPOINT,
            {
                "checkpoint_id": checkpoint_id,
                "path": str(target),
                "turn": self.turns,
                "messages": len(messages),
            },
        )
        return target

    @classmethod
    async def resume(
        cls,
        checkpoint_path: str | Path,
        bundle: Bundle | None = None,
        *,
        start: bool = True,
        **kwargs: Any,
    ) -> AmplifierSession:
        """A session restored from a checkpoint; ``start()`` fires ``session:resume``.

        With ``start=False`` the caller may register handlers before starting it.
        """
        path = Path(checkpoint_path)
        checkpoint = read_checkpoint(path)
        kwargs.setdefault("session_id", checkpoint.session_id)
        kwargs.setdefault("parent_id", checkpoint.parent_id)
        session = cls(bundle, **kwargs)
        provider = session.provider
        if kwargs.get("provider") is None and provider.name == checkpoint.provider:
            provider.model = checkpoint.model  # continue with the model in use at the checkpoint
        await session.context.set_messages(checkpoint.messages)
        if checkpoint.todo_state:
            session.coordinator.todo_state = list(checkpoint.todo_state)  # type: ignore[attr-defined]
        session.turns = checkpoint.turn
        session._resumed_from = checkpoint
        session._resumed_path = path
        if start:
            await session.start()
        return session

    async def fork(self, *, start: bool = True, **kwargs: Any) -> AmplifierSession:
        """A child session with this conversation; ``start()`` fires ``session:fork`` first.

        With ``start=False`` the caller may register handlers before starting it.
        """
        kwargs.setdefault("workspace", self.workspace)
        kwargs.setdefault("provider", self.provider)
        kwargs.setdefault("approval_system", self.coordinator.approval_system)
        kwargs.setdefault("display_system", self.coordinator.display_system)
        child = AmplifierSession(self.bundle, parent_id=self.session_id, **kwargs)
        await child.context.set_messages(list(await self.coordinator.context.get_messages()))
        child._fork_of = self.session_id
        if start:
            await child.start()
        return child
