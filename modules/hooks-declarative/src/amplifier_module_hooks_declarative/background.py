"""The ``async: true`` hooks of a dispatcher still running (:class:`BackgroundHooks`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Final

from .plan import PlannedHook
from .specs import CommandHookSpec
from .types import Decision

__all__ = ["BackgroundHooks", "Rewake"]

logger = logging.getLogger("amplifier_module_hooks_declarative")

_SETTLE_CANCEL_S: Final = 1.0
_PREFIX: Final = "hooks-declarative"

Rewake = Callable[[PlannedHook, Decision, str], Coroutine[Any, Any, None]]
"""Hands a background hook's block to the agent: ``rewake(hook, decision, event)``."""


class BackgroundHooks:
    """The ``async: true`` hooks still running; their outcomes are logged, never applied,
    except a block of an ``asyncRewake`` hook (Claude Code's key), which ``rewake`` hands to
    the agent as context: ``rewake(hook, decision, event)``."""

    def __init__(
        self,
        rewake: Callable[[PlannedHook, Decision, str], Coroutine[Any, Any, None]] | None = None,
    ) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._rewake = rewake

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(
        self, hook: PlannedHook, work: Coroutine[Any, Any, Decision], event: str = ""
    ) -> None:
        task: asyncio.Task[Decision] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._finished(hook, done, event))

    def _finished(self, hook: PlannedHook, task: asyncio.Task[Decision], event: str = "") -> None:
        self._tasks.discard(task)
        if task.cancelled():
            logger.info("async hook %s was cancelled", hook.label)
            return
        error = task.exception()
        if error is not None:  # run_hook converts failures; this is a last resort
            logger.warning("async hook %s failed: %r", hook.label, error)
            return
        decision = task.result()
        note = f": {decision.message}" if decision.message else ""
        rewakes = isinstance(hook.spec, CommandHookSpec) and hook.spec.rewake
        if rewakes and decision.action == "block" and self._rewake is not None:
            logger.info("async hook %s asks the agent to react%s", hook.label, note)
            delivery = asyncio.ensure_future(self._rewake(hook, decision, event))
            self._tasks.add(delivery)
            delivery.add_done_callback(self._tasks.discard)
            return
        if decision.action in ("block", "ask", "modify") or decision.stop:
            logger.warning(
                "async hook %s decided %r after the event went on (async hooks cannot change it)%s",
                hook.label,
                decision.action,
                note,
            )
        else:
            logger.info("async hook %s finished: %s%s", hook.label, decision.action, note)

    async def settle(self, grace_s: float) -> tuple[int, int]:
        """Wait up to ``grace_s`` for running hooks, cancel the rest; (finished, cancelled)."""
        tasks = set(self._tasks)
        if not tasks:
            return 0, 0
        done, pending = (
            await asyncio.wait(tasks, timeout=grace_s)
            if grace_s > 0
            else (
                {t for t in tasks if t.done()},
                {t for t in tasks if not t.done()},
            )
        )
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=_SETTLE_CANCEL_S)
            logger.warning(
                "%s: cancelled %d async hook(s) still running after %gs",
                _PREFIX,
                len(pending),
                grace_s,
            )
        return len(done), len(pending)
