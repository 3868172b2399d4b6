"""What ``provider:request`` and ``provider:response`` hooks change about a model call.

A ``modify`` result of ``provider:request`` may carry, besides ``messages`` (the messages
sent), these keys in its data (Gemini CLI's ``BeforeModel`` ``llm_request`` /
``llm_response`` and ``BeforeToolSelection`` ``toolConfig`` arrive as them):

=====================  ========================================================================
key                    effect on this request
=====================  ========================================================================
``model``              the model asked (a non-empty string)
``tools``              the names of the tools offered (a list; unknown names are ignored, ``[]``
                       offers none)
``tool_choice``        ``ChatRequest.tool_choice`` (``"required"``, ``"none"``, ``"auto"``)
``temperature``,       the request's generation options
``top_p``,
``max_output_tokens``
``response``           ``{"content": text, "stop_reason"?}``: a synthetic answer; the provider is
                       not called
=====================  ========================================================================

A ``modify`` of ``provider:response`` whose ``response.content`` is another string replaces the text
of the model's answer (its tool calls stay). A value of the wrong type is ignored with a
warning naming the key.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from amplifier_core.message_models import ChatResponse, TextBlock, ToolSpec

__all__ = ["RequestChanges", "answered", "request_changes"]

logger = logging.getLogger(__name__)

_OPTIONS: Final[dict[str, type | tuple[type, ...]]] = {
    "temperature": (int, float),
    "top_p": (int, float),
    "max_output_tokens": int,
}


@dataclass
class RequestChanges:
    """What the ``provider:request`` hooks changed (nothing when every field is empty)."""

    model: str | None = None
    tools: list[str] | None = None
    tool_choice: str | dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    response: ChatResponse | None = None

    def offered(self, specs: Sequence[ToolSpec]) -> list[ToolSpec]:
        """``specs`` restricted to :attr:`tools` (all of them when it is ``None``)."""
        if self.tools is None:
            return list(specs)
        allowed = set(self.tools)
        return [s for s in specs if s.name in allowed]


def _warn(key: str, value: object, expected: str) -> None:
    logger.warning(
        "a provider:request hook set %r to %s %.80r, expected %s; ignored",
        key,
        type(value).__name__,
        value,
        expected,
    )


def request_changes(data: Mapping[str, Any] | None, sent: Mapping[str, Any]) -> RequestChanges:
    """The changes in ``data`` (a ``provider:request`` result's data) against ``sent`` (the
    event's data as fired)."""
    changes = RequestChanges()
    if data is None or data is sent:
        return changes
    model = data.get("model")
    if model != sent.get("model"):
        if isinstance(model, str) and model:
            changes.model = model
        else:
            _warn("model", model, "a model name")
    tools = data.get("tools")
    if tools != sent.get("tools"):
        if isinstance(tools, list) and all(isinstance(t, str) for t in tools):
            changes.tools = list(tools)
        else:
            _warn("tools", tools, "a list of tool names")
    choice = data.get("tool_choice")
    if choice is not None:
        if isinstance(choice, str | dict):
            changes.tool_choice = choice
        else:
            _warn("tool_choice", choice, "a string or an object")
    for key, kind in _OPTIONS.items():
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, kind) and not isinstance(value, bool):
            changes.options[key] = value
        else:
            _warn(key, value, "a number")
    response = data.get("response")
    if response is not None:
        text = response.get("content") if isinstance(response, Mapping) else None
        if isinstance(text, str):
            assert isinstance(response, Mapping)
            reason = response.get("stop_reason")
            changes.response = ChatResponse(
                content=[TextBlock(text=text)],
                finish_reason=reason if isinstance(reason, str) else "stop",
                metadata={"synthetic": True},
            )
        else:
            _warn("response", response, "an object with a 'content' string")
    return changes


def answered(result: Any, response: ChatResponse, text: str) -> tuple[ChatResponse, str]:
    """The response and its text after the ``provider:response`` hooks (``result``)."""
    data = getattr(result, "data", None)  # the final data (a modify comes back as continue)
    if getattr(result, "action", None) == "deny" or not isinstance(data, Mapping):
        return response, text
    new = data.get("response")
    content = new.get("content") if isinstance(new, Mapping) else None
    if not isinstance(content, str) or content == text:
        return response, text
    kept = [b for b in response.content or [] if getattr(b, "type", None) != "text"]
    logger.info(
        "hook %r replaced the model's answer at provider:response: %d -> %d chars",
        getattr(result, "source", None) or "hooks",
        len(text),
        len(content),
    )
    return response.model_copy(update={"content": [*kept, TextBlock(text=content)]}), content
