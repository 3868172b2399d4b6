"""What the tests of hooks-redaction's guards share: a provider that keeps what it is sent."""

from __future__ import annotations

from typing import Any

from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock

__all__ = ["Provider"]


class Provider:
    """A provider that records every request it receives and answers ``ok``."""

    name = "recording"

    def __init__(self) -> None:
        self.received: list[ChatRequest] = []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.received.append(request)
        return ChatResponse(content=[TextBlock(text="ok")])
