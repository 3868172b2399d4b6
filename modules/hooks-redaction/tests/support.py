"""What the tests of hooks-redaction's guards share: a context module holding message dicts and
a provider that keeps what it is sent."""

from __future__ import annotations

from typing import Any

from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock

__all__ = ["Context", "Provider"]


class Provider:
    """A provider that records every request it receives and answers ``ok``."""

    name = "recording"

    def __init__(self) -> None:
        self.received: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.received.append(request)
        return ChatResponse(content=[TextBlock(text="ok")])


class Context:
    """A context module holding the very list of message dicts it is given; counts the
    times the messages are set."""

    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        self.messages: list[dict[str, Any]] = [] if messages is None else messages
        self.sets = 0

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.sets += 1
        self.messages = list(messages)
