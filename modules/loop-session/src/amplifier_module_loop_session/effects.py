"""How a combined hook result takes effect in a turn: :class:`HookEffects`.

The coordinator acts on a result (``process_hook_result``); what it cannot act on is done
here: a failure to act never crashes a turn (a gate that cannot be decided denies), ephemeral
injections are queued where the kernel does not queue them (amplifier-core 2.0.2) and added
to the next request, and a deny is reported (``policy:violation``, a message to the user).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from amplifier_core import HookResult

from . import names as ev
from .results import TurnOutcome, hook_source
from .view import LoopView

__all__ = ["HookEffects"]

logger = logging.getLogger(__name__)


class HookEffects:
    """Acts on hook results for the turns of one loop; keeps the ephemeral injections a
    kernel without a queue of its own leaves to the orchestrator."""

    def __init__(self, loop: LoopView) -> None:
        self.loop = loop
        self._ephemeral: list[dict[str, Any]] = []  # where the kernel does not queue them

    @property
    def hooks(self) -> Any:
        return self.loop.coordinator.hooks

    async def process(self, result: Any, event: str, *, gate: bool = True) -> Any:
        """Route a combined result through the coordinator; never let it crash a turn.

        ``gate`` says whether ``event`` can block an operation; where it cannot, an
        ``ask_user`` is ignored instead of asking the user a question whose answer is unused.
        """
        if not gate and result.action == "ask_user":
            logger.warning(
                "hook %r asked the user on %r, where nothing can be gated; ignored",
                hook_source(result),
                event,
            )
            result = result.model_copy(update={"action": "continue"})
        coordinator = self.loop.coordinator
        queues = self.loop.kernel.take_ephemeral is not None
        try:
            handled = await coordinator.process_hook_result(result, event, "hooks")
        except Exception as err:
            message = (
                f"acting on the hook result of {event!r} (action {result.action!r}) failed: "
                f"{type(err).__name__}: {err}"
            )
            logger.error("%s", message, exc_info=not isinstance(err, ValueError))
            await self.notify(message, "error")
            if result.action in ("deny", "ask_user"):  # a gate that cannot be decided denies
                return HookResult(action="deny", reason=message, data=result.data)
            return HookResult(action="continue", data=result.data)
        if not queues:
            self._keep_ephemeral(result)
        return handled

    def _keep_ephemeral(self, result: Any) -> None:
        """Queue a result's ephemeral injections where the kernel does not (amplifier-core)."""
        if result.action != "inject_context":
            return
        injections = getattr(result, "context_injections", None) or []
        if not injections and result.ephemeral and result.context_injection:
            injections = [result]
        for item in injections:
            if not getattr(item, "ephemeral", False):
                continue
            content = getattr(item, "content", None) or getattr(item, "context_injection", "")
            role = getattr(item, "role", None) or getattr(item, "context_injection_role", "system")
            self._ephemeral.append(
                {
                    "content": content,
                    "role": role,
                    "append": bool(getattr(item, "append_to_last_tool_result", False)),
                    "hook_name": getattr(item, "hook_name", "hooks"),
                    "event": getattr(item, "event", ""),
                }
            )

    def take_ephemeral(self) -> list[dict[str, Any]]:
        """The ephemeral injections waiting for the next request (the queue empties)."""
        take = self.loop.kernel.take_ephemeral
        if take is None:
            taken, self._ephemeral = self._ephemeral, []
            return taken
        return [
            {
                "content": i.content,
                "role": i.role,
                "append": i.append_to_last_tool_result,
                "hook_name": i.hook_name,
                "event": i.event,
            }
            for i in take()
        ]

    def with_ephemeral(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` with the ephemeral injections waiting for this request."""
        injections = self.take_ephemeral()
        if not injections:
            return messages
        messages = list(messages)
        for injection in injections:
            last = messages[-1] if messages else None
            if injection["append"] and last and last.get("role") == "tool":
                messages[-1] = {
                    **last,
                    "content": f"{last.get('content', '')}\n\n{injection['content']}",
                }
                continue
            messages.append(
                {
                    "role": injection["role"],
                    "content": injection["content"],
                    "metadata": {
                        "source": "hook",
                        "hook_name": injection["hook_name"],
                        "event": injection["event"],
                        "ephemeral": True,
                    },
                }
            )
        return messages

    # -- reporting -----------------------------------------------------------------------

    async def violation(self, event: str, result: Any, tool_name: str | None) -> None:
        """Fire ``policy:violation`` for a deny at ``event``."""
        await self.hooks.emit(
            ev.POLICY_VIOLATION,
            {
                "event": event,
                "hook": hook_source(result),
                "reason": result.reason or "denied",
                "tool_name": tool_name,
            },
        )

    async def notify(self, message: str, level: str) -> None:
        """Fire ``user:notification`` from the session."""
        await self.hooks.emit(
            ev.USER_NOTIFICATION, {"message": message, "level": level, "source": "session"}
        )

    async def show(self, message: str, level: Literal["info", "warning", "error"]) -> None:
        """Show ``message`` on the coordinator's display (or log it, where there is none)."""
        display = getattr(self.loop.coordinator, "display_system", None)
        if display is None:
            logger.warning("%s", message)
            return
        shown = display.show_message(message=message, level=level, source="session")
        if asyncio.iscoroutine(shown):
            await shown

    async def refuse(self, outcome: TurnOutcome, event: str, handled: Any) -> None:
        """End the turn ``denied``: a hook blocked the model call (or its answer)."""
        await self.violation(event, handled, None)
        source = hook_source(handled)
        who = f" by hook {source!r}" if source else ""
        reason = handled.reason or "denied"
        await self.show(f"Model call blocked{who} at {event}: {reason}", "warning")
        outcome.status = "denied"
        outcome.reason = reason
        outcome.response = ""
