"""The first step of a model call: what the request carries (:class:`RequestPreparer`).

The conversation as the context manager gives it for a request, every tool call in it
answered (an interrupted turn leaves calls without a result: ``provider:tool_sequence_repaired``),
the ephemeral injections waiting for it, then ``provider:request``, whose hooks may deny the
call, change the messages, the model, the tools offered and the options, or answer in the
provider's place (see :mod:`.model_hooks`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from amplifier_core.message_models import ToolSpec

from . import names as ev
from .conversation import CheckedPrefix
from .effects import HookEffects
from .model_hooks import RequestChanges, request_changes
from .results import TurnOutcome, tool_message
from .view import LoopView

__all__ = ["PreparedRequest", "RequestPreparer"]

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class PreparedRequest:
    """A model request ready to send: the provider, what it is asked, what hooks changed."""

    provider: Any
    name: str
    model: str
    specs: list[ToolSpec]
    messages: list[dict[str, Any]]
    changes: RequestChanges


def _usable_messages(messages: object) -> bool:
    return isinstance(messages, list) and all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages
    )


def _persistent_injections(requested: Any) -> bool:
    """Whether a ``provider:request`` result adds messages to the context itself."""
    return any(
        not getattr(i, "ephemeral", False)
        for i in getattr(requested, "context_injections", None) or []
    )


class RequestPreparer:
    """Prepares each model request of one loop's turns."""

    def __init__(self, loop: LoopView, effects: HookEffects) -> None:
        self.loop = loop
        self.effects = effects
        self._checked = CheckedPrefix()

    async def prepare(
        self, outcome: TurnOutcome, turn: int, context: Any
    ) -> PreparedRequest | None:
        """The request of this round; ``None`` when a ``provider:request`` hook denied it
        (the turn then ends ``denied``)."""
        loop, effects = self.loop, self.effects
        provider = loop.provider
        name, model = loop.provider_name, loop.model
        specs = loop.tool_specs()
        messages = await context.get_messages_for_request(provider=provider)
        messages = effects.with_ephemeral(await self.repair(list(messages), context))
        asked: dict[str, Any] = {
            "provider": name,
            "model": model,
            "turn": turn,
            "iteration": outcome.iterations,
            "messages": messages,
            "tools": [s.name for s in specs],
        }
        requested = await effects.hooks.emit(ev.PROVIDER_REQUEST, asked)
        persistent = _persistent_injections(requested)
        known = len(await context.get_messages()) if persistent else 0
        handled = await effects.process(requested, ev.PROVIDER_REQUEST, gate=False)
        if handled.action == "deny":  # a hook blocked the model call: the turn ends
            await effects.refuse(outcome, ev.PROVIDER_REQUEST, handled)
            return None
        changes = request_changes(requested.data, asked)
        outgoing = await self._outgoing(requested, messages)
        if persistent:  # what the hooks just added to the context reaches this request too
            outgoing = [*outgoing, *(await context.get_messages())[known:]]
        outgoing = effects.with_ephemeral(outgoing)  # injections made by provider:request hooks
        return PreparedRequest(
            provider=provider,
            name=name,
            model=changes.model or model,
            specs=changes.offered(specs),
            messages=outgoing,
            changes=changes,
        )

    async def repair(self, messages: list[dict[str, Any]], context: Any) -> list[dict[str, Any]]:
        """Answer every tool call that has no result (an interrupted turn), once.

        Only the messages added since the last check are looked at (see :mod:`.conversation`).
        """
        start = self._checked.start(messages)
        repairs, repaired = _answer_open_calls(messages, start)
        if not repairs:
            self._checked.checked(messages)
            return messages
        await context.set_messages(repaired)
        self._checked.checked(repaired)
        await self.effects.hooks.emit(
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
        await self.effects.notify(message, "warning")
        return messages


def _answer_open_calls(
    messages: list[dict[str, Any]], start: int
) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """The calls from ``start`` on without a result, and the messages with an error result
    after each assistant message whose calls lacked one."""
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
                tool_message(
                    call_id,
                    name,
                    "Error: the tool call was interrupted and has no result",
                    error=True,
                )
            )
    return repairs, repaired
