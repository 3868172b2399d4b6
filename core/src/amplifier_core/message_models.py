"""The request/response envelope orchestrators and providers exchange.

An orchestrator builds a :class:`ChatRequest` (messages, tool specs, sampling options) and a
provider answers with a :class:`ChatResponse` (content blocks, tool calls, usage). Every model
keeps unknown keys (``extra="allow"``) so provider-specific data survives a round trip, and
content blocks are told apart by their ``type`` field. Import on use::

    from amplifier_core.message_models import ChatRequest, Message, ToolSpec
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

__all__ = [
    "ChatRequest",
    "ChatResponse",
    "ContentBlockUnion",
    "Degradation",
    "ImageBlock",
    "Message",
    "ReasoningBlock",
    "RedactedThinkingBlock",
    "ResponseFormat",
    "ResponseFormatJson",
    "ResponseFormatJsonSchema",
    "ResponseFormatText",
    "TextBlock",
    "ThinkingBlock",
    "ToolCall",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolSpec",
    "Usage",
]

Visibility: TypeAlias = Literal["internal", "developer", "user"]
"""Who a block is meant for; ``None`` leaves it to the consumer."""

_OPEN = ConfigDict(extra="allow")


# --- content blocks -------------------------------------------------------------------------


class TextBlock(BaseModel):
    """Plain text written by the model or the user."""

    model_config = _OPEN

    type: Literal["text"] = "text"
    text: str
    visibility: Visibility | None = None


class ThinkingBlock(BaseModel):
    """The model's visible reasoning; ``signature`` must be sent back unchanged."""

    model_config = _OPEN

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    visibility: Visibility | None = None
    content: list[Any] | None = None
    """Opaque provider reasoning state carried alongside the text."""


class RedactedThinkingBlock(BaseModel):
    """Reasoning the provider withheld; ``data`` is opaque and returned as is."""

    model_config = _OPEN

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str
    visibility: Visibility | None = None


class ToolCallBlock(BaseModel):
    """A tool call inside a message's content."""

    model_config = _OPEN

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any]
    visibility: Visibility | None = None


class ToolResultBlock(BaseModel):
    """A tool's output inside a message's content."""

    model_config = _OPEN

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    output: Any
    visibility: Visibility | None = None


class ImageBlock(BaseModel):
    """An image; ``source`` says where its bytes are (URL or inline base64)."""

    model_config = _OPEN

    type: Literal["image"] = "image"
    source: dict[str, Any]
    visibility: Visibility | None = None


class ReasoningBlock(BaseModel):
    """Reasoning items with their summaries, as reasoning models return them."""

    model_config = _OPEN

    type: Literal["reasoning"] = "reasoning"
    content: list[Any]
    summary: list[Any]
    visibility: Visibility | None = None


ContentBlockUnion: TypeAlias = Annotated[
    TextBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ToolCallBlock
    | ToolResultBlock
    | ImageBlock
    | ReasoningBlock,
    Field(discriminator="type"),
]
"""Any content block; a dict is validated into the class its ``type`` names."""


# --- request ----------------------------------------------------------------------------------


class Message(BaseModel):
    """One conversation message: a role and either a string or a list of content blocks."""

    model_config = _OPEN

    role: Literal["system", "developer", "user", "assistant", "function", "tool"]
    content: str | list[ContentBlockUnion]
    name: str | None = None
    tool_call_id: str | None = None
    metadata: dict[str, Any] | None = None


class ToolSpec(BaseModel):
    """A tool offered to the model: its name, JSON Schema parameters and description."""

    model_config = _OPEN

    name: str
    parameters: dict[str, Any]
    description: str | None = None


class ResponseFormatText(BaseModel):
    """Answer in free text."""

    type: Literal["text"] = "text"


class ResponseFormatJson(BaseModel):
    """Answer with any JSON value."""

    type: Literal["json"] = "json"


class ResponseFormatJsonSchema(BaseModel):
    """Answer with JSON matching ``json_schema`` (serialised under the key ``schema``)."""

    model_config = ConfigDict(populate_by_name=True)

    type: Literal["json_schema"] = "json_schema"
    json_schema: dict[str, Any] = Field(serialization_alias="schema")
    strict: bool | None = None


ResponseFormat: TypeAlias = ResponseFormatText | ResponseFormatJson | ResponseFormatJsonSchema


class ChatRequest(BaseModel):
    """What a provider is asked: messages, tools and options.

    A provider translates this into its own wire format and ignores options it does not
    support.
    """

    model_config = _OPEN

    messages: list[Message]
    tools: list[ToolSpec] | None = None
    response_format: ResponseFormat | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    conversation_id: str | None = None
    stream: bool | None = False
    metadata: dict[str, Any] | None = None
    model: str | None = Field(
        default=None,
        description=(
            "Model for this request only; how it combines with the provider's configured "
            "model is up to the provider or orchestrator."
        ),
    )
    tool_choice: str | dict[str, Any] | None = None
    stop: list[str] | None = None
    reasoning_effort: str | None = None
    timeout: float | None = Field(
        default=None,
        description="Seconds this request may take; session cancellation still applies.",
    )


# --- response ---------------------------------------------------------------------------------


class ToolCall(BaseModel):
    """A tool the model asked to run, with its arguments."""

    model_config = _OPEN

    id: str
    name: str
    arguments: dict[str, Any]


class Usage(BaseModel):
    """Tokens a request consumed and, when the provider knows it, what it cost.

    ``cost_usd`` is a :class:`~decimal.Decimal` (a float is refused: money keeps its digits)
    and is written out as a string by every ``model_dump``; ``None`` means the cost is
    unknown, not zero. Provider-specific counters ride along as extra keys.
    """

    model_config = _OPEN

    input_tokens: int
    output_tokens: int
    total_tokens: int
    reasoning_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost_usd: Decimal | None = Field(
        default=None,
        description="Cost in USD as reported by the provider; None when unknown (not zero).",
    )

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _refuse_float_cost(cls, value: Any) -> Any:
        if isinstance(value, float):
            raise ValueError(
                f"Usage.cost_usd must be Decimal (or a string or int), not the float {value!r}: "
                "write Decimal('0.047') so the amount keeps its exact digits"
            )
        return value

    @field_serializer("cost_usd", when_used="always")
    def _cost_as_string(self, value: Decimal | None) -> str | None:
        return None if value is None else str(value)


class Degradation(BaseModel):
    """The provider could not honour the requested response format and used another."""

    model_config = _OPEN

    requested: str
    actual: str
    reason: str


class ChatResponse(BaseModel):
    """A provider's answer: content blocks, the tool calls to run, usage and why it stopped."""

    model_config = _OPEN

    content: list[ContentBlockUnion]
    tool_calls: list[ToolCall] | None = None
    usage: Usage | None = None
    degradation: Degradation | None = None
    finish_reason: str | None = None
    metadata: dict[str, Any] | None = None
