"""One turn of the agent loop, and how every hook result takes effect in it.

A turn: ``prompt:submit`` -> ``execution:start`` -> (``provider:request`` -> provider ->
``provider:response`` -> for each tool call ``tool:pre`` -> tool -> ``tool:post`` |
``tool:error``)* -> ``prompt:complete`` -> ``execution:end`` -> ``orchestrator:complete``.
What each result does at each event is written down in ``docs/orchestrator.md``; in short:
a deny blocks (the model sees it as the tool's error), a modify replaces what the event
carries, ``ask_user`` goes to the approval system where something can be gated, injections
reach the next provider request, and a deny at ``prompt:complete`` with ``keep_working: true``
in its data (a Stop hook's block) sends the agent back to work with the reason as its next
instruction, at most ``max_stop_continuations`` times a turn. A hook never crashes a turn; a
gate that cannot be decided denies.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

from amplifier_core.message_models import ChatResponse

from . import names as ev
from .effects import HookEffects
from .names import ORCHESTRATOR_NAME
from .provider_call import ProviderCall
from .results import TurnOutcome, hook_source
from .tool_call import ToolCalls
from .view import LoopView

__all__ = ["ORCHESTRATOR_NAME", "TurnRunner"]

logger = logging.getLogger(__name__)

_MENTION = re.compile(r"(?<![\w/])@([\w./-]+)")
_MAX_MENTION_BYTES = 100_000


def _keeps_working(result: Any) -> bool:
    """A ``prompt:complete`` result that sends the agent back to work: a ``deny`` whose data
    holds ``keep_working: true`` (a stop hook's block, not a failing or unrelated hook)."""
    data = getattr(result, "data", None)
    return (
        getattr(result, "action", None) == "deny"
        and isinstance(data, dict)
        and data.get("keep_working") is True
    )


class TurnRunner:
    """Runs the turns of one orchestrator, seen through a :class:`~.view.LoopView`: the model
    calls (:class:`~.provider_call.ProviderCall`), the tool calls
    (:class:`~.tool_call.ToolCalls`) and the hook results (:class:`~.effects.HookEffects`)
    are its parts; it holds nothing between turns but what makes requests cheaper."""

    def __init__(self, loop: LoopView) -> None:
        self.loop = loop
        self.effects = HookEffects(loop)
        self.provider_call = ProviderCall(loop, self.effects)
        self.tool_calls = ToolCalls(loop, self.effects)
        self.outcome: TurnOutcome | None = None  # of the running (else the last) turn
        self.finishing = False  # the turn stopped and fires its closing events
        self.stop_continuations = 0  # times stop hooks sent the agent back to work this turn

    @property
    def hooks(self) -> Any:
        return self.loop.coordinator.hooks

    @property
    def running_tools(self) -> list[str]:
        """The names of the tools running now."""
        return self.tool_calls.running

    async def process(self, result: Any, event: str, *, gate: bool = True) -> Any:
        """Act on a combined hook result (see :meth:`.HookEffects.process`)."""
        return await self.effects.process(result, event, gate=gate)

    async def notify(self, message: str, level: str) -> None:
        """Fire ``user:notification`` from the session."""
        await self.effects.notify(message, level)

    # -- a turn --------------------------------------------------------------------------

    async def run(self, prompt: str, turn: int, context: Any) -> TurnOutcome:
        """Run one turn; never raises for a hook, tool or provider failure.

        While :attr:`finishing` is true the turn is past the point where a cancel can stop
        it: it is firing its closing events, which a cancel must not cut short.
        """
        started = time.perf_counter()
        outcome = self.outcome = TurnOutcome(status="completed")
        self.finishing = False
        self.stop_continuations = 0
        submitted = await self.hooks.emit(ev.PROMPT_SUBMIT, {"prompt": prompt, "turn": turn})
        handled = await self.process(submitted, ev.PROMPT_SUBMIT)
        if handled.action == "deny":
            self.finishing = True
            await self.effects.violation(ev.PROMPT_SUBMIT, handled, None)
            reason = handled.reason or "the prompt was denied by a hook"
            await self.effects.show(f"Prompt blocked: {reason}", "warning")
            outcome.status = "denied"
            outcome.reason = reason
            return outcome
        if submitted.data is not None and isinstance(submitted.data.get("prompt"), str):
            prompt = submitted.data["prompt"]

        completed = False  # prompt:complete has fired for the turn's final answer
        try:
            await self.hooks.emit(ev.EXECUTION_START, {"prompt": prompt, "turn": turn})
            await self._include_mentions(prompt, context)
            await context.add_message({"role": "user", "content": prompt})
            await self._loop(outcome, turn, context)
            completed = await self._keep_working(outcome, prompt, turn, started, context)
        except asyncio.CancelledError:
            outcome.status = "cancelled"
            raise
        finally:
            self.finishing = True
            await self._finish(outcome, prompt, turn, started, completed=completed)
        return outcome

    async def _complete(
        self, outcome: TurnOutcome, prompt: str, turn: int, started: float, *, again: bool
    ) -> Any:
        """Fire ``prompt:complete`` (``stop_hook_active`` says a stop hook already sent the
        agent back to work in this turn); return the combined result. A cancel cannot cut it
        short (:attr:`finishing`)."""
        self.finishing = True
        await self.loop.check_memory(None)
        data: dict[str, Any] = {
            "prompt": prompt,
            "response": outcome.response,
            "turn": turn,
            "duration": time.perf_counter() - started,
            "iterations": outcome.iterations,
            "usage": dict(outcome.usage),
            "status": outcome.status,
        }
        if again:
            data["stop_hook_active"] = True
        return await self.hooks.emit(ev.PROMPT_COMPLETE, data)

    async def _keep_working(
        self, outcome: TurnOutcome, prompt: str, turn: int, started: float, context: Any
    ) -> bool:
        """Stop hooks: while ``prompt:complete`` is denied with ``keep_working: true`` in the
        result's data (Claude Code's Stop ``decision: block``), the agent goes on working with
        the reason as its next instruction, at most ``max_stop_continuations`` times per turn
        and within ``max_iterations`` provider requests. Any other deny is not acted on.
        Returns True once ``prompt:complete`` has fired for the final answer; False when the
        turn did not end normally (the closing events then fire it)."""
        limit = self.loop.config.max_stop_continuations
        continued = 0
        while outcome.status == "completed" and not self.loop.cancelled:
            result = await self._complete(outcome, prompt, turn, started, again=continued > 0)
            if not _keeps_working(result):
                return True
            reason = result.reason or "a stop hook asks you to continue"
            source = hook_source(result)
            spent = outcome.iterations >= self.loop.config.max_iterations
            if continued >= limit or spent or self.loop.cancelled:
                why = (
                    "the turn was cancelled"
                    if self.loop.cancelled
                    else f"max_iterations ({self.loop.config.max_iterations}) is used up"
                    if spent
                    else f"the turn ends after {limit} continuation(s) (max_stop_continuations)"
                )
                await self.notify(
                    f"stop hook {source!r} asked the agent to go on ({reason}); {why}", "warning"
                )
                if getattr(result, "context_injections", None):  # read at the next request
                    aside = result.model_copy(update={"action": "inject_context"})
                    await self.process(aside, ev.PROMPT_COMPLETE, gate=False)
                return True
            continued += 1
            self.stop_continuations = continued
            await self.hooks.emit(
                ev.USER_NOTIFICATION,
                {
                    "message": f"A stop hook sent the agent back to work: {reason}",
                    "level": "info",
                    "source": source or "hooks",
                },
            )
            await context.add_message({"role": "user", "content": reason})
            self.finishing = False
            await self._loop(outcome, turn, context)
        return False

    async def _finish(
        self,
        outcome: TurnOutcome,
        prompt: str,
        turn: int,
        started: float,
        *,
        completed: bool = False,
    ) -> None:
        duration = time.perf_counter() - started
        if self.loop.cancelled:
            outcome.status = "cancelled"
        if not completed:
            again = self.stop_continuations > 0
            await self._complete(outcome, prompt, turn, started, again=again)
        execution_status = {  # a model call a hook denied stopped the turn, as a cancel does
            "cancelled": "cancelled",
            "denied": "cancelled",
            "error": "error",
        }.get(outcome.status, "completed")
        await self.hooks.emit(
            ev.EXECUTION_END,
            {"response": outcome.response, "status": execution_status, "turn": turn},
        )
        loop_status = {
            "cancelled": "cancelled",
            "denied": "cancelled",
            "error": "error",
            "incomplete": "incomplete",
        }.get(outcome.status, "success")
        await self.hooks.emit(
            ev.ORCHESTRATOR_COMPLETE,
            {
                "orchestrator": ORCHESTRATOR_NAME,
                "turn_count": outcome.iterations,
                "iterations": outcome.iterations,
                "status": loop_status,
                "duration_ms": int(duration * 1000),
                "tokens": outcome.usage["input_tokens"] + outcome.usage["output_tokens"],
            },
        )

    async def _include_mentions(self, prompt: str, context: Any) -> None:
        workspace = self.loop.working_dir
        for mention in dict.fromkeys(_MENTION.findall(prompt)):
            try:
                path = (workspace / mention).resolve()
                if not path.is_file():
                    continue
                with path.open("rb") as stream:
                    data = stream.read(_MAX_MENTION_BYTES)
            except (OSError, RuntimeError) as err:  # unreadable, or a symlink loop
                logger.warning("@%s is not included: %s", mention, err)
                continue
            text = data.decode("utf-8", errors="replace")
            await context.add_message(
                {
                    "role": "user",
                    "content": f"Contents of @{mention}:\n{text}",
                    "metadata": {"source": "mention", "path": str(path)},
                }
            )
            await self.hooks.emit(
                ev.CONTEXT_INCLUDE, {"path": str(path), "source": "mention", "size": len(data)}
            )

    async def _loop(self, outcome: TurnOutcome, turn: int, context: Any) -> None:
        max_iterations = self.loop.config.max_iterations
        while True:
            if self.loop.cancelled:
                outcome.status = "cancelled"
                return
            if outcome.iterations >= max_iterations:
                outcome.status = "incomplete"
                outcome.reason = f"stopped after {max_iterations} provider requests"
                await self.notify(outcome.reason, "warning")
                return
            outcome.iterations += 1
            answer = await self.provider_call(outcome, turn, context)
            if answer is None:
                return
            response, text = answer
            outcome.response = text
            calls = response.tool_calls or []
            await context.add_message(self._assistant_message(response, text))
            if not calls:
                return
            await self.tool_calls.run_all(calls, context)

    @staticmethod
    def _assistant_message(response: ChatResponse, text: str) -> dict[str, Any]:
        """The assistant message a response adds to the conversation (Amplifier's shape)."""
        blocks = response.content or []
        plain = all(getattr(b, "type", None) == "text" for b in blocks)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": text if plain else [b.model_dump() for b in blocks],
        }
        if response.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "tool": c.name, "arguments": c.arguments} for c in response.tool_calls
            ]
        if response.metadata:
            message["metadata"] = response.metadata
        return message
