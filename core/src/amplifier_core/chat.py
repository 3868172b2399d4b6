"""The conversation as the session runtime, providers and tools exchange it.

Messages are plain dicts so hooks can read and rewrite them (``provider:request`` carries the
list; redaction modifies it), in one provider-neutral shape:

- ``{"role": "system" | "user", "content": str}``
- ``{"role": "assistant", "content": str, "tool_calls": [{"id", "name", "input"}]}``
  (``tool_calls`` may be absent or empty)
- ``{"role": "tool", "tool_call_id": str, "name": str, "content": str, "is_error": bool}``

Any message may carry ``metadata`` (for example hook provenance); providers ignore it. The
typed models below describe a request to a provider and its response.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChatRequest",
    "ChatResponse",
    "Provider",
    "ProviderError",
    "Tool",
    "ToolCall",
    "ToolSpec",
    "Usage",
]


class ToolSpec(BaseModel):
    """What the model is told about a tool."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class ToolCall(BaseModel):
    """One tool call the model asked for."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class Usage(BaseModel):
    """Token counts a provider reports for one response."""

    model_config = ConfigDict(extra="allow")

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class ChatRequest(BaseModel):
    """One call to a provider."""

    model_config = ConfigDict(extra="forbid")

    messages: list[dict[str, Any]]
    tools: list[ToolSpec] = Field(default_factory=list)
    model: str | None = None
    max_tokens: int = 4096
    temperature: float | None = None


class ChatResponse(BaseModel):
    """What a provider answered: text, tool calls, usage."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    stop_reason: Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "other"] = (
        "end_turn"
    )
    model: str = ""

    def as_message(self) -> dict[str, Any]:
        """The assistant message this response adds to the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            message["tool_calls"] = [call.model_dump() for call in self.tool_calls]
        return message


class ProviderError(Exception):
    """A provider call failed; ``retryable`` says whether trying again may help."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str | None = None,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.model = model
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": type(self).__name__,
            "message": self.message,
            "provider": self.provider,
            "model": self.model,
            "status": self.status,
            "retryable": self.retryable,
        }


@runtime_checkable
class Provider(Protocol):
    """A model behind a uniform call: messages and tool specs in, text and tool calls out."""

    name: str
    model: str

    async def complete(self, request: ChatRequest) -> ChatResponse: ...


@runtime_checkable
class Tool(Protocol):
    """A tool the model may call. ``execute`` returns a ToolResult and never raises for a
    failure the model should see (a missing file, a non-zero exit): those are results."""

    name: str
    description: str
    input_schema: dict[str, Any]

    async def execute(self, input: dict[str, Any]) -> Any: ...
