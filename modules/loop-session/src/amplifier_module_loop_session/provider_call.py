"""One model call of a turn in three steps: prepare the request (:mod:`.request`), send it,
review the response (:class:`ProviderCall`).

Sending fires ``llm:request`` and calls the provider (a ``provider:request`` hook's synthetic
answer takes its place); a provider failure fires ``provider:error`` and ends the turn
``error``. Reviewing fires ``llm:response``, the ``content_block:*`` and ``thinking:*``
events of the answer, then ``provider:response``, whose hooks may discard the answer (the turn
ends ``denied``) or replace its text.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from amplifier_hooks_util import owned_models

from amplifier_core.message_models import ChatRequest, ChatResponse, Message

from . import names as ev
from .conversation import DumpCache, MessageCache
from .effects import HookEffects
from .model_hooks import answered
from .request import PreparedRequest, RequestPreparer
from .results import TurnOutcome
from .view import LoopView

__all__ = ["ProviderCall", "SentRequest"]


@dataclass(slots=True)
class SentRequest:
    """A request the provider answered: its answer, its id and how long it took."""

    prepared: PreparedRequest
    response: ChatResponse
    request_id: str
    duration: float


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


def _json_dump(model: Any) -> dict[str, Any]:
    """A model as ``llm:request`` carries it (JSON types, no ``None`` fields)."""
    dumped: dict[str, Any] = model.model_dump(mode="json", exclude_none=True, warnings=False)
    return dumped


def _blocks(response: ChatResponse, text: str, thinking: str) -> list[dict[str, Any]]:
    """The answer's blocks as ``content_block:end`` carries them: thinking, text, tool uses."""
    blocks: list[dict[str, Any]] = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": thinking})
    if text:
        blocks.append({"type": "text", "text": text})
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
        for c in response.tool_calls or []
    )
    return blocks


class ProviderCall:
    """The model calls of one loop's turns; keeps what makes the next request cheaper."""

    def __init__(self, loop: LoopView, effects: HookEffects) -> None:
        self.loop = loop
        self.effects = effects
        self.preparer = RequestPreparer(loop, effects)
        self._requests = MessageCache(Message.model_validate)
        self._dumps = DumpCache(_json_dump)

    async def __call__(
        self, outcome: TurnOutcome, turn: int, context: Any
    ) -> tuple[ChatResponse, str] | None:
        """One round's answer and its text; ``None`` when the turn ends instead (a hook
        denied the call or its answer, or the provider failed: ``outcome`` says which)."""
        prepared = await self.preparer.prepare(outcome, turn, context)
        if prepared is None:
            return None
        sent = await self.send(prepared, outcome)
        if sent is None:
            return None
        return await self.review(sent, outcome, turn)

    # -- send ----------------------------------------------------------------------------

    async def send(self, prepared: PreparedRequest, outcome: TurnOutcome) -> SentRequest | None:
        """Send ``prepared``; ``None`` (the turn ends ``error``) when the provider failed."""
        request_id = f"req_{uuid.uuid4().hex[:16]}"
        started = time.perf_counter()
        try:
            request = self._request(prepared, request_id)
            response = await self._answer(prepared, request, request_id)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            await self._failed(prepared, request_id, err, outcome)
            return None
        return SentRequest(prepared, response, request_id, time.perf_counter() - started)

    def _request(self, prepared: PreparedRequest, request_id: str) -> ChatRequest:
        changes = prepared.changes
        return ChatRequest(
            messages=self._requests.messages(prepared.messages),
            tools=prepared.specs or None,
            model=prepared.model or None,
            metadata={"request_id": request_id},
            tool_choice=changes.tool_choice,
            **changes.options,
        )

    async def _answer(
        self, prepared: PreparedRequest, request: ChatRequest, request_id: str
    ) -> ChatResponse:
        name = prepared.name
        hooks = self.effects.hooks
        sent: dict[str, Any] = {
            "provider": name,
            "model": prepared.model,
            "request_id": request_id,
            "endpoint": str(getattr(prepared.provider, "endpoint_url", f"{name}:")),
            "messages": len(prepared.messages),
            "tools": len(prepared.specs),
        }
        if self.loop.kernel.listened(ev.LLM_REQUEST):  # the body costs a copy of the request
            rest = request.model_dump(
                mode="json", exclude_none=True, warnings=False, exclude={"messages"}
            )
            sent["request"] = {"messages": self._dumps.dumps(request.messages), **rest}
        if prepared.changes.response is not None:  # a hook answered: the provider is not called
            return prepared.changes.response
        await hooks.emit(ev.LLM_REQUEST, sent)
        self.loop.current_request_id = request_id
        # The request's leading models were validated from private copies and no handler was
        # given them (llm:request carries dumps): a provider guard may take them by identity.
        owned_models.vouch(request, self._requests.private)
        try:
            answer = await prepared.provider.complete(request)
        finally:
            owned_models.withdraw(request)
        return _readable(answer, name)

    async def _failed(
        self, prepared: PreparedRequest, request_id: str, err: Exception, outcome: TurnOutcome
    ) -> None:
        status = getattr(err, "status_code", None)
        error = {"type": type(err).__name__, "message": str(err)}
        await self.effects.hooks.emit(
            ev.PROVIDER_ERROR,
            {
                "provider": prepared.name,
                "model": prepared.model,
                "error": error,
                "status_code": status if isinstance(status, int) else None,
                "request_id": request_id,
            },
        )
        await self.effects.notify(f"{prepared.name} provider failed: {err}", "error")
        outcome.status = "error"
        outcome.error = error
        outcome.response = ""  # the text of an earlier round is not the turn's answer

    # -- review --------------------------------------------------------------------------

    async def review(
        self, sent: SentRequest, outcome: TurnOutcome, turn: int
    ) -> tuple[ChatResponse, str] | None:
        """Report the answer and let ``provider:response`` hooks review it; ``None`` when one
        discarded it (the turn ends ``denied``)."""
        prepared, response = sent.prepared, sent.response
        text, thinking = _response_text(response)
        usage = {
            "input_tokens": response.usage.input_tokens if response.usage else 0,
            "output_tokens": response.usage.output_tokens if response.usage else 0,
        }
        if prepared.changes.response is None:
            await self._received(sent, usage)
        await self._emit_blocks(_blocks(response, text, thinking), usage)
        for key, value in usage.items():
            outcome.usage[key] += value
        calls = response.tool_calls or []
        reviewed = await self.effects.hooks.emit(
            ev.PROVIDER_RESPONSE,
            {
                "provider": prepared.name,
                "model": prepared.model,
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
                "duration": sent.duration,
            },
        )
        handled = await self.effects.process(reviewed, ev.PROVIDER_RESPONSE, gate=False)
        if handled.action == "deny":  # a hook discarded the answer: the turn ends
            await self.effects.refuse(outcome, ev.PROVIDER_RESPONSE, handled)
            return None
        return answered(reviewed, response, text)

    async def _received(self, sent: SentRequest, usage: dict[str, int]) -> None:
        """Fire ``llm:response`` for an answer the provider gave."""
        hooks = self.effects.hooks
        received: dict[str, Any] = {
            "provider": sent.prepared.name,
            "model": sent.prepared.model,
            "request_id": sent.request_id,
            "status_code": 200,
            "usage": usage,
            "finish_reason": sent.response.finish_reason,
            "duration": sent.duration,
        }
        if self.loop.kernel.listened(ev.LLM_RESPONSE):
            received["response"] = sent.response.model_dump(
                mode="json", exclude_none=True, warnings=False
            )
        await hooks.emit(ev.LLM_RESPONSE, received)

    async def _emit_blocks(self, blocks: list[dict[str, Any]], usage: dict[str, int]) -> None:
        hooks = self.effects.hooks
        total = len(blocks)
        for index, block in enumerate(blocks):
            kind = block["type"]
            await hooks.emit(
                ev.CONTENT_BLOCK_START,
                {"block_type": kind, "block_index": index, "total_blocks": total},
            )
            if kind == "thinking":
                await hooks.emit(
                    ev.THINKING_DELTA, {"block_index": index, "delta": block["thinking"]}
                )
                await hooks.emit(
                    ev.THINKING_FINAL, {"block_index": index, "text": block["thinking"]}
                )
            else:
                delta = block["text"] if kind == "text" else json.dumps(block["input"])
                await hooks.emit(
                    ev.CONTENT_BLOCK_DELTA,
                    {"block_type": kind, "block_index": index, "delta": delta},
                )
            end: dict[str, Any] = {"block_index": index, "block": block, "total_blocks": total}
            if index == total - 1:
                end["usage"] = dict(usage)
            await hooks.emit(ev.CONTENT_BLOCK_END, end)
