"""``SessionLoop``: the orchestrator a session hands each prompt to.

Around the turns of :mod:`.turn` it keeps what lasts from one turn to the next: the turn count,
the provider and model in use (``provider:resolve``, ``provider:switch``), the workspace's
instruction files (``context:include`` on the first turn) and memory files (``memory:update``
whenever one changes), a checkpoint after each turn (``session:checkpoint``), and the
cancellation of a running turn (``cancel:requested``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from amplifier_hooks_util.kernel import Kernel
from amplifier_hooks_util.state import render_template

from . import names as ev
from .config import LoopConfig
from .memory import MemoryWatcher
from .results import TurnOutcome

if TYPE_CHECKING:  # imported at first use: the turn machinery and the models come with a turn
    from amplifier_core.message_models import ToolSpec

    from .checkpoint import Checkpoint
    from .turn import TurnRunner

__all__ = ["SessionLoop"]

logger = logging.getLogger(__name__)


class SessionLoop:
    """The orchestrator: ``execute(prompt, context, providers, tools, hooks, coordinator=...)``.

    One turn at a time. :attr:`last_outcome` says how the last turn ended (``execute`` returns
    only its text, as the protocol asks).
    """

    def __init__(self, config: LoopConfig, coordinator: Any) -> None:
        self.config = config
        self.coordinator = coordinator
        self.kernel = Kernel.of(coordinator)
        self.working_dir = self._working_dir(config, coordinator)
        self.memory = MemoryWatcher(
            self.working_dir, config.memory_files, where="loop-session config memory_files"
        )
        self.turns = 0
        self.last_outcome: TurnOutcome | None = None
        self.current_request_id: str | None = None
        self.providers: dict[str, Any] = {}
        self.tools: dict[str, Any] = {}
        self._provider_name: str | None = config.default_provider
        self._model: str | None = config.model
        self._resolved = False
        self._instructions_included = False
        self._turn_runner: TurnRunner | None = None
        self._context: Any = None

    @property
    def _runner(self) -> TurnRunner:
        """The turn machinery, made (and its modules imported) when first needed."""
        runner = self._turn_runner
        if runner is None:
            from .turn import TurnRunner

            runner = self._turn_runner = TurnRunner(self)
        return runner

    @staticmethod
    def _working_dir(config: LoopConfig, coordinator: Any) -> Path:
        where = config.working_dir
        if where is None:
            getter = getattr(coordinator, "get_capability", None)
            where = getter("session.working_dir") if callable(getter) else None
        return Path(where or ".").resolve()

    # -- what the turn uses --------------------------------------------------------------

    @property
    def provider_name(self) -> str:
        if self._provider_name in self.providers:
            return str(self._provider_name)
        if not self.providers:
            raise RuntimeError("loop-session: no provider is mounted")
        return next(iter(self.providers))

    @property
    def provider(self) -> Any:
        return self.providers[self.provider_name]

    @property
    def model(self) -> str:
        if self._model:
            return self._model
        return str(getattr(self.provider, "model", "") or "")

    @property
    def running_tools(self) -> list[str]:
        return list(self._runner.running_tools)

    @property
    def finishing(self) -> bool:
        return self._runner.finishing

    @property
    def cancelled(self) -> bool:
        cancellation = self.kernel.cancellation
        return bool(cancellation is not None and cancellation.is_cancelled)

    def tool_specs(self) -> list[ToolSpec]:
        """What the model is told about the mounted tools (by the names they are called by)."""
        from amplifier_core.message_models import ToolSpec

        specs: list[ToolSpec] = []
        for name, tool in self.tools.items():
            description = getattr(tool, "description", "")
            schema = getattr(tool, "input_schema", None)
            specs.append(
                ToolSpec(
                    name=name,
                    description=description if isinstance(description, str) else "",
                    parameters=schema if isinstance(schema, dict) else {"type": "object"},
                )
            )
        return specs

    # -- the protocol --------------------------------------------------------------------

    async def execute(
        self,
        prompt: str,
        context: Any,
        providers: dict[str, Any],
        tools: dict[str, Any],
        hooks: Any,
        coordinator: Any = None,
        **kwargs: Any,
    ) -> str:
        """Run one turn for ``prompt`` and return the final assistant text."""
        if coordinator is not None and coordinator is not self.coordinator:
            self.coordinator = coordinator
            self.kernel = Kernel.of(coordinator)
        self.providers = providers
        self.tools = tools
        self._context = context
        if self._model and self._provider_name in providers:
            self._adopt_model(self._model)  # a model restored before the providers were known
        cancellation = self.kernel.cancellation
        if cancellation is not None and cancellation.is_cancelled:
            cancellation.reset()  # a cancel between turns does nothing
        self.kernel.reset_turn()
        if not self._resolved:
            self._resolved = True
            await self._resolve(None)
        if not self._instructions_included:
            self._instructions_included = True
            if self.config.include_instructions:
                await self._include_instructions(context)
        await self.check_memory(None)  # what changed outside since the last turn
        self.turns += 1
        try:
            outcome = await self._runner.run(prompt, self.turns, context)
        except asyncio.CancelledError:
            outcome = self._runner.outcome or TurnOutcome(status="cancelled")
            outcome.status = "cancelled"
            outcome.reason = outcome.reason or "cancelled"
            self.last_outcome = outcome
            raise
        self.last_outcome = outcome
        if outcome.status in ("completed", "incomplete") and self.config.checkpoint_every_turn:
            await self._checkpoint_after_turn()
        return outcome.response

    # -- cancellation --------------------------------------------------------------------

    async def cancel(self, immediate: bool = False) -> None:
        """Ask the running turn to stop: after the running tool, or at once (``immediate``).

        Fires ``cancel:requested`` and sets the coordinator's cancellation token; stopping
        the running task at once is the caller's part (it owns the task).
        """
        await self.coordinator.hooks.emit(
            ev.CANCEL_REQUESTED,
            {"immediate": immediate, "running_tools": self.running_tools},
        )
        cancellation = self.kernel.cancellation
        if cancellation is not None:
            if immediate:
                cancellation.request_immediate()
            else:
                cancellation.request_graceful()

    # -- memory and instructions ---------------------------------------------------------

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

    async def _include_instructions(self, context: Any) -> None:
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

    # -- providers and models ------------------------------------------------------------

    async def _resolve(self, requested: str | None) -> None:
        await self.coordinator.hooks.emit(
            ev.PROVIDER_RESOLVE,
            {
                "requested": requested,
                "provider": self.provider_name,
                "model": self.model,
                "candidates": sorted(self.providers),
            },
        )

    async def switch_model(
        self,
        model: str,
        *,
        provider_name: str | None = None,
        reason: Literal["user", "fallback", "config"] = "user",
    ) -> None:
        """Continue with another model, and optionally another mounted provider."""
        if not self.providers:
            self.providers = dict(self.coordinator.get("providers") or {})
        if provider_name is not None and provider_name not in self.providers:
            raise ValueError(
                f"loop-session: no provider named {provider_name!r} is mounted; "
                f"mounted: {', '.join(sorted(self.providers)) or 'none'}"
            )
        old_provider, old_model = self.provider_name, self.model
        if provider_name is not None:
            self._provider_name = provider_name
        self._model = model
        self._adopt_model(model)
        await self._resolve(f"{self.provider_name}/{model}")
        await self.coordinator.hooks.emit(
            ev.PROVIDER_SWITCH,
            {
                "old_model": old_model,
                "new_model": model,
                "old_provider": old_provider,
                "new_provider": self.provider_name,
                "reason": reason,
            },
        )

    # -- checkpoints ---------------------------------------------------------------------

    def checkpoint_dir(self) -> Path:
        session_id = str(getattr(self.coordinator, "session_id", "") or "session")
        return render_template(self.config.checkpoint_dir, session_id, working_dir=self.working_dir)

    async def checkpoint(self, path: Path | None = None) -> Path:
        """Save the conversation; fires ``session:checkpoint``."""
        context = self._context or self.coordinator.get("context")
        checkpoint_id = f"ckpt_{self.turns}_{uuid.uuid4().hex[:8]}"
        target = path or self.checkpoint_dir() / f"checkpoint-{self.turns:04d}.json"
        messages = list(await context.get_messages())
        todo = getattr(self.coordinator, "todo_state", None)
        todo_state = list(todo) if isinstance(todo, list) else []
        from .checkpoint import Checkpoint, redacted_strings

        shown = self._shown_redaction()
        if shown is not None:  # the file is read by people and tools: redacted alike
            messages = redacted_strings(messages, shown)
            todo_state = redacted_strings(todo_state, shown)
        if not self.providers:
            self.providers = dict(self.coordinator.get("providers") or {})
        Checkpoint(
            checkpoint_id=checkpoint_id,
            session_id=str(self.coordinator.session_id),
            parent_id=getattr(self.coordinator, "parent_id", None),
            turn=self.turns,
            provider=self.provider_name if self.providers else "",
            model=self.model if self.providers else "",
            messages=messages,
            todo_state=todo_state,
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

    def _shown_redaction(self) -> Callable[[str], str] | None:
        """The redaction a mounted hooks-redaction offers for text a person may see
        (``redaction.redact_text``), or None where none is mounted."""
        getter = getattr(self.coordinator, "get_capability", None)
        redact = getter("redaction.redact_text") if callable(getter) else None
        return redact if callable(redact) else None

    async def _checkpoint_after_turn(self) -> None:
        try:
            await self.checkpoint()
        except (OSError, ValueError) as err:  # ValueError: content that is not JSON
            message = f"the checkpoint after turn {self.turns} was not saved: {err}"
            logger.error("%s", message)
            await self._runner.notify(message, "error")

    def _adopt_model(self, model: str) -> None:
        """Tell the current provider its model, where it has a settable one (a read-only one
        stays as it is: each request carries the model anyway)."""
        provider = self.provider if self.providers else None
        if provider is not None and hasattr(provider, "model"):
            with contextlib.suppress(AttributeError):
                provider.model = model

    def restore(self, checkpoint: Checkpoint) -> None:
        """Continue from ``checkpoint``: its turn count, provider and model.

        The conversation itself goes back into the context manager (``set_messages``) and
        the todo list onto the coordinator; the caller does both (it owns them).
        """
        self.turns = checkpoint.turn
        if checkpoint.provider:
            self._provider_name = checkpoint.provider
        if checkpoint.model:
            self._model = checkpoint.model
            self._adopt_model(checkpoint.model)
