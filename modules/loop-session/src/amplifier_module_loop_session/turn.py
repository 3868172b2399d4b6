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
import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from amplifier_hooks_util.deep import tree_copy

from amplifier_core import HookResult
from amplifier_core.message_models import ChatRequest, ChatResponse, Message

from . import names as ev
from .conversation import CheckedPrefix, DumpCache, MessageCache
from .model_hooks import answered, request_changes
from .results import (
    TurnOutcome,
    as_result_dict,
    hook_source,
    render_tool_result,
    tool_event_data,
    whole_number,
)

if TYPE_CHECKING:
    from .orchestrator import SessionLoop

__all__ = ["ORCHESTRATOR_NAME", "TurnRunner"]

logger = logging.getLogger(__name__)

ORCHESTRATOR_NAME = "loop-session"
_MENTION = re.compile(r"(?<![\w/])@([\w./-]+)")
_MAX_MENTION_BYTES = 100_000
_FILE_TOOLS = ("read_file", "write_file", "edit_file")


def _keeps_working(result: Any) -> bool:
    """A ``prompt:complete`` result that sends the agent back to work: a ``deny`` whose data
    holds ``keep_working: true`` (a stop hook's block, not a failing or unrelated hook)."""
    data = getattr(result, "data", None)
    return (
        getattr(result, "action", None) == "deny"
        and isinstance(data, dict)
        and data.get("keep_working") is True
    )


def _split_injections(result: Any) -> tuple[Any, Any | None]:
    """``result`` without its injections, and a result that carries only them (or None)."""
    injections = list(getattr(result, "context_injections", None) or [])
    if not injections:
        return result, None
    gate = result.model_copy(update={"context_injections": [], "context_injection": None})
    later = HookResult(context_injections=injections)
    return gate, later


def _usable_messages(messages: object) -> bool:
    return isinstance(messages, list) and all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages
    )


def _listened(hooks: Any, event: str) -> bool:
    """Whether a handler runs for ``event`` (a hook registry that cannot say: assume so)."""
    lister = getattr(hooks, "list_handlers", None)
    if not callable(lister):
        return True
    try:
        found = lister(event)
    except Exception:
        return True
    if isinstance(found, dict):
        return any(found.values())
    return bool(found)


def _response_text(response: ChatResponse) -> tuple[str, str]:
    """The response's text and its thinking, each joined from its blocks."""
    text: list[str] = []
    thinking: list[str] = []
    for block in response.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            text.append(block.text)  # type: ignore[union-attr]
        elif kind == "thinking":
            thinking.append(block.thinking)  # type: ignore[union-attr]
    return "\n\n".join(text), "\n\n".join(thinking)


def _readable(response: object, provider: str) -> ChatResponse:
    """``response`` as a :class:`ChatResponse`, or a TypeError saying why it is not one."""
    if isinstance(response, ChatResponse):
        return response
    dump = getattr(response, "model_dump", None)
    raw = dump() if callable(dump) else response
    try:
        return ChatResponse.model_validate(raw)
    except Exception as err:
        raise TypeError(
            f"provider {provider!r} returned {type(response).__name__}, not a ChatResponse: {err}"
        ) from err


class TurnRunner:
    """Runs the turns of one orchestrator; holds nothing between turns but the loop itself."""

    def __init__(self, loop: SessionLoop) -> None:
        self.loop = loop
        self.running_tools: list[str] = []
        self.outcome: TurnOutcome | None = None  # of the running (else the last) turn
        self.finishing = False  # the turn stopped and fires its closing events
        self.stop_continuations = 0  # times stop hooks sent the agent back to work this turn
        self._ephemeral: list[dict[str, Any]] = []  # where the kernel does not queue them
        self._requests = MessageCache(Message.model_validate)
        self._dumps = DumpCache(_json_dump)
        self._checked = CheckedPrefix()

    @property
    def hooks(self) -> Any:
        return self.loop.coordinator.hooks

    @property
    def coordinator(self) -> Any:
        return self.loop.coordinator

    # -- hook plumbing -------------------------------------------------------------------

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
        queues = _kernel_queue(self.coordinator) is not None
        try:
            handled = await self.coordinator.process_hook_result(result, event, "hooks")
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

    def _take_ephemeral(self) -> list[dict[str, Any]]:
        take = _kernel_queue(self.coordinator)
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

    async def _violation(self, event: str, result: Any, tool_name: str | None) -> None:
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
        await self.hooks.emit(
            ev.USER_NOTIFICATION, {"message": message, "level": level, "source": "session"}
        )

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
            await self._violation(ev.PROMPT_SUBMIT, handled, None)
            reason = handled.reason or "the prompt was denied by a hook"
            await self._show(f"Prompt blocked: {reason}", "warning")
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

    async def _show(self, message: str, level: Literal["info", "warning", "error"]) -> None:
        display = getattr(self.coordinator, "display_system", None)
        if display is None:
            logger.warning("%s", message)
            return
        shown = display.show_message(message=message, level=level, source="session")
        if asyncio.iscoroutine(shown):
            await shown

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
            answer = await self._call_provider(outcome, turn, context)
            if answer is None:
                return
            response, text = answer
            outcome.response = text
            calls = response.tool_calls or []
            await context.add_message(self._assistant_message(response, text))
            if not calls:
                return
            await self._run_tools(calls, context)

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

    # -- provider ------------------------------------------------------------------------

    def _with_ephemeral(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` with the ephemeral injections waiting for this request."""
        injections = self._take_ephemeral()
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

    async def _repair_tool_sequence(
        self, messages: list[dict[str, Any]], context: Any
    ) -> list[dict[str, Any]]:
        """Answer every tool call that has no result (an interrupted turn), once.

        Only the messages added since the last check are looked at (see :mod:`.conversation`).
        """
        start = self._checked.start(messages)
        answered = {m.get("tool_call_id") for m in messages[start:] if m.get("role") == "tool"}
        repairs: list[dict[str, str]] = []
        repaired: list[dict[str, Any]] = list(messages[:start])
        for message in messages[start:]:
            repaired.append(message)
            calls = message.get("tool_calls") if message.get("role") == "assistant" else None
            if not calls or not isinstance(calls, list):
                continue
            for call in calls:
                call_id = call.get("id") if isinstance(call, dict) else None
                if not isinstance(call_id, str) or call_id in answered:
                    continue
                answered.add(call_id)
                name = call.get("tool") or call.get("name")
                name = name if isinstance(name, str) and name else "unknown"
                repairs.append({"tool_call_id": call_id, "tool_name": name})
                repaired.append(
                    self._tool_message(
                        call_id,
                        name,
                        "Error: the tool call was interrupted and has no result",
                        error=True,
                    )
                )
        if not repairs:
            self._checked.checked(messages)
            return messages
        await context.set_messages(repaired)
        self._checked.checked(repaired)
        await self.hooks.emit(
            ev.PROVIDER_TOOL_SEQUENCE_REPAIRED,
            {
                "provider": self.loop.provider_name,
                "repaired_count": len(repairs),
                "repairs": repairs,
            },
        )
        return repaired

    async def _outgoing(
        self, requested: Any, messages: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The messages a ``provider:request`` modify asks for, when they are usable."""
        modified = requested.data.get("messages") if requested.data is not None else None
        if modified is None or modified is messages:
            return messages
        if _usable_messages(modified):
            assert isinstance(modified, list)
            return modified
        message = (
            f"a {ev.PROVIDER_REQUEST!r} hook modified the messages into "
            f"{type(modified).__name__} {modified!r:.80}, not a list of messages with a "
            "'role'; the request was sent with the messages as they were"
        )
        logger.error("%s", message)
        await self.notify(message, "warning")
        return messages

    async def _call_provider(
        self, outcome: TurnOutcome, turn: int, context: Any
    ) -> tuple[ChatResponse, str] | None:
        loop = self.loop
        provider = loop.provider
        name, model = loop.provider_name, loop.model
        specs = loop.tool_specs()
        messages = await context.get_messages_for_request(provider=provider)
        messages = self._with_ephemeral(await self._repair_tool_sequence(list(messages), context))
        asked: dict[str, Any] = {
            "provider": name,
            "model": model,
            "turn": turn,
            "iteration": outcome.iterations,
            "messages": messages,
            "tools": [s.name for s in specs],
        }
        requested = await self.hooks.emit(ev.PROVIDER_REQUEST, asked)
        persistent = any(
            not getattr(i, "ephemeral", False)
            for i in getattr(requested, "context_injections", None) or []
        )
        known = len(await context.get_messages()) if persistent else 0
        handled = await self.process(requested, ev.PROVIDER_REQUEST, gate=False)
        if handled.action == "deny":  # a hook blocked the model call: the turn ends
            await self._refuse(outcome, ev.PROVIDER_REQUEST, handled)
            return None
        changes = request_changes(requested.data, asked)
        specs = changes.offered(specs)
        model = changes.model or model
        outgoing = await self._outgoing(requested, messages)
        if persistent:  # what the hooks just added to the context reaches this request too
            outgoing = [*outgoing, *(await context.get_messages())[known:]]
        outgoing = self._with_ephemeral(outgoing)  # injections made by provider:request hooks
        request_id = f"req_{uuid.uuid4().hex[:16]}"
        started = time.perf_counter()
        try:
            request = ChatRequest(
                messages=self._requests.messages(outgoing),
                tools=specs or None,
                model=model or None,
                metadata={"request_id": request_id},
                tool_choice=changes.tool_choice,
                **changes.options,
            )
            sent: dict[str, Any] = {
                "provider": name,
                "model": model,
                "request_id": request_id,
                "endpoint": str(getattr(provider, "endpoint_url", f"{name}:")),
                "messages": len(outgoing),
                "tools": len(specs),
            }
            if _listened(self.hooks, ev.LLM_REQUEST):  # the body costs a copy of the request
                rest = request.model_dump(
                    mode="json", exclude_none=True, warnings=False, exclude={"messages"}
                )
                sent["request"] = {"messages": self._dumps.dumps(request.messages), **rest}
            if changes.response is not None:  # a hook answered: the provider is not called
                response = changes.response
            else:
                await self.hooks.emit(ev.LLM_REQUEST, sent)
                loop.current_request_id = request_id
                response = _readable(await provider.complete(request), name)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            status = getattr(err, "status_code", None)
            error = {"type": type(err).__name__, "message": str(err)}
            await self.hooks.emit(
                ev.PROVIDER_ERROR,
                {
                    "provider": name,
                    "model": model,
                    "error": error,
                    "status_code": status if isinstance(status, int) else None,
                    "request_id": request_id,
                },
            )
            await self.notify(f"{name} provider failed: {err}", "error")
            outcome.status = "error"
            outcome.error = error
            outcome.response = ""  # the text of an earlier round is not the turn's answer
            return None
        duration = time.perf_counter() - started
        text, thinking = _response_text(response)
        usage = {
            "input_tokens": response.usage.input_tokens if response.usage else 0,
            "output_tokens": response.usage.output_tokens if response.usage else 0,
        }
        received: dict[str, Any] = {
            "provider": name,
            "model": model,
            "request_id": request_id,
            "status_code": 200,
            "usage": usage,
            "finish_reason": response.finish_reason,
            "duration": duration,
        }
        if _listened(self.hooks, ev.LLM_RESPONSE):
            received["response"] = response.model_dump(
                mode="json", exclude_none=True, warnings=False
            )
        if changes.response is None:
            await self.hooks.emit(ev.LLM_RESPONSE, received)
        await self._emit_blocks(response, text, thinking, usage)
        for key, value in usage.items():
            outcome.usage[key] += value
        calls = response.tool_calls or []
        reviewed = await self.hooks.emit(
            ev.PROVIDER_RESPONSE,
            {
                "provider": name,
                "model": model,
                "turn": turn,
                "iteration": outcome.iterations,
                "response": {
                    "content": text,
                    "tool_calls": [
                        {"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls
                    ],
                    "stop_reason": response.finish_reason,
                },
                "usage": usage,
                "tool_calls": bool(calls),
                "duration": duration,
            },
        )
        handled = await self.process(reviewed, ev.PROVIDER_RESPONSE, gate=False)
        if handled.action == "deny":  # a hook discarded the answer: the turn ends
            await self._refuse(outcome, ev.PROVIDER_RESPONSE, handled)
            return None
        return answered(reviewed, response, text)

    async def _refuse(self, outcome: TurnOutcome, event: str, handled: Any) -> None:
        """End the turn ``denied``: a hook blocked the model call (or its answer)."""
        await self._violation(event, handled, None)
        source = hook_source(handled)
        who = f" by hook {source!r}" if source else ""
        reason = handled.reason or "denied"
        await self._show(f"Model call blocked{who} at {event}: {reason}", "warning")
        outcome.status = "denied"
        outcome.reason = reason
        outcome.response = ""

    async def _emit_blocks(
        self, response: ChatResponse, text: str, thinking: str, usage: dict[str, int]
    ) -> None:
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking})
        if text:
            blocks.append({"type": "text", "text": text})
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
            for c in response.tool_calls or []
        )
        total = len(blocks)
        for index, block in enumerate(blocks):
            kind = block["type"]
            await self.hooks.emit(
                ev.CONTENT_BLOCK_START,
                {"block_type": kind, "block_index": index, "total_blocks": total},
            )
            if kind == "thinking":
                await self.hooks.emit(
                    ev.THINKING_DELTA, {"block_index": index, "delta": block["thinking"]}
                )
                await self.hooks.emit(
                    ev.THINKING_FINAL, {"block_index": index, "text": block["thinking"]}
                )
            else:
                delta = block["text"] if kind == "text" else json.dumps(block["input"])
                await self.hooks.emit(
                    ev.CONTENT_BLOCK_DELTA,
                    {"block_type": kind, "block_index": index, "delta": delta},
                )
            end: dict[str, Any] = {"block_index": index, "block": block, "total_blocks": total}
            if index == total - 1:
                end["usage"] = dict(usage)
            await self.hooks.emit(ev.CONTENT_BLOCK_END, end)

    # -- tools ---------------------------------------------------------------------------

    async def _run_tools(self, calls: list[Any], context: Any) -> None:
        group = f"group_{uuid.uuid4().hex[:12]}"
        pending: list[tuple[Any, str]] = []
        for call in calls:
            if self.loop.cancelled:
                break  # the repair step answers the calls that never ran
            message = await self._run_tool(call.id, call.name, call.arguments, group, pending)
            await context.add_message(message)
        for result, event in pending:  # after every result, so tool results stay contiguous
            await self.process(result, event, gate=False)

    async def _run_tool(
        self,
        call_id: str,
        name: str,
        call_input: object,
        group: str,
        pending: list[tuple[Any, str]],
    ) -> dict[str, Any]:
        """Run one call; its result message. Results to act on later go to ``pending``."""
        if not isinstance(call_input, dict):  # a provider that skipped validation
            data = tool_event_data(name, {}, call_id, group)
            kind = type(call_input).__name__
            message = f"tool input is not a JSON object (got {kind})"
            return await self._tool_error(data, "TypeError", message, pending)
        tool_input: dict[str, Any] = call_input
        pre = await self.hooks.emit(ev.TOOL_PRE, tool_event_data(name, tool_input, call_id, group))
        gate, injections = _split_injections(pre)
        if injections is not None:  # they enter the context after the tool results
            pending.append((injections, ev.TOOL_PRE))
        handled = await self.process(gate, ev.TOOL_PRE)
        if handled.action == "deny":
            await self._violation(ev.TOOL_PRE, handled, name)
            source = hook_source(handled)
            who = f" by hook {source!r}" if source else ""
            content = f"Error: tool call denied{who}: {handled.reason or 'denied'}"
            return self._tool_message(call_id, name, content, error=True)
        carried = pre.data
        if gate.action == "ask_user" and isinstance((handled.data or {}).get("tool_input"), dict):
            carried = handled.data  # what was approved (a PermissionRequest hook may rewrite it)
        if carried is not None and carried.get("tool_input") is not tool_input:
            modified = carried.get("tool_input")
            if isinstance(modified, dict):
                tool_input = modified
            else:
                logger.warning(
                    "a tool:pre hook modified the input of %r into %s, not a dict; ignored",
                    name,
                    type(modified).__name__,
                )
        if gate.action == "ask_user":  # approved: what runs is what was approved
            tool_input = tree_copy(tool_input)
        data = tool_event_data(name, tool_input, call_id, group)

        tool = self.loop.tools.get(name)
        cancellation = getattr(self.coordinator, "cancellation", None)
        self.running_tools.append(name)
        if cancellation is not None:
            cancellation.register_tool_start(call_id, name)
        try:
            if tool is None:
                raise LookupError(f"no tool named {name!r} is mounted")
            raw = await tool.execute(tool_input)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            failed = await self._tool_error(data, type(err).__name__, str(err), pending)
            await self.loop.check_memory(name)
            return failed
        finally:
            self.running_tools.remove(name)
            if cancellation is not None:
                cancellation.register_tool_complete(call_id)

        result = as_result_dict(raw)
        await self._artifact(name, tool_input, result)
        await self.loop.check_memory(name)
        post = await self.hooks.emit(
            ev.TOOL_POST, {**data, "tool_result": result, "result": result}
        )
        if post.data is not None and isinstance(post.data.get("tool_result"), dict):
            rewritten = post.data["tool_result"]
            # the event keeps the tool's own, the model gets the rewrite; an equal copy (a
            # kernel that hands back the data JSON-normalised, keys sorted) changes nothing
            if rewritten != result:
                logger.info(
                    "hook %r rewrote the result of %r (call %s) at tool:post: %d -> %d chars",
                    getattr(post, "source", None) or "hooks",
                    name,
                    call_id,
                    len(render_tool_result(result)),
                    len(render_tool_result(rewritten)),
                )
                result = rewritten
        pending.append((post, ev.TOOL_POST))
        return self._tool_message(
            call_id, name, render_tool_result(result), error=not result.get("success", True)
        )

    async def _tool_error(
        self,
        data: dict[str, Any],
        kind: str,
        message: str,
        pending: list[tuple[Any, str]],
    ) -> dict[str, Any]:
        """Fire ``tool:error`` (its result is acted on later) and return the model's message."""
        error = {"type": kind, "message": message}
        failed = await self.hooks.emit(ev.TOOL_ERROR, {**data, "error": error})
        pending.append((failed, ev.TOOL_ERROR))
        name, call_id = data["tool_name"], data["tool_call_id"]
        return self._tool_message(call_id, name, f"Error: {kind}: {message}", error=True)

    @staticmethod
    def _tool_message(call_id: str, name: str, content: str, *, error: bool) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": call_id,
            "name": name,
            "content": content,
            "is_error": error,
        }

    async def _artifact(
        self, name: str, tool_input: dict[str, Any], result: dict[str, Any]
    ) -> None:
        if not result.get("success", True) or name not in _FILE_TOOLS:
            return
        output = result.get("output") if isinstance(result.get("output"), dict) else {}
        assert isinstance(output, dict)
        raw_path = output.get("path") or output.get("file_path") or tool_input.get("file_path")
        if not isinstance(raw_path, str):
            return
        path = Path(raw_path)
        if not path.is_absolute():
            path = self.loop.working_dir / path
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if name == "read_file":
            read = whole_number(output.get("bytes_read", size), size)
            await self.hooks.emit(
                ev.ARTIFACT_READ, {"path": str(path), "tool_name": name, "bytes": read}
            )
            return
        await self.hooks.emit(
            ev.ARTIFACT_WRITE,
            {
                "path": str(path),
                "tool_name": name,
                "bytes": whole_number(output.get("bytes_written", size), size),
                "created": bool(output.get("created", False)),
            },
        )


def _json_dump(model: Any) -> dict[str, Any]:
    """A model as ``llm:request`` carries it (JSON types, no ``None`` fields)."""
    dumped: dict[str, Any] = model.model_dump(mode="json", exclude_none=True, warnings=False)
    return dumped


def _kernel_queue(coordinator: Any) -> Callable[[], list[Any]] | None:
    """Where our kernel queues ephemeral injections (``coordinator.injections.take_ephemeral``);
    ``None`` on a kernel that does not queue them (amplifier-core 2.0.2)."""
    take = getattr(getattr(coordinator, "injections", None), "take_ephemeral", None)
    return take if callable(take) else None
