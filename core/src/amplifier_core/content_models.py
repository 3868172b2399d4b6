"""Light content blocks for events and streaming displays.

A provider that streams can emit these (text, thinking, tool calls, tool results) in event
payloads as ``block.to_dict()``; the request/response envelope itself uses the pydantic
models of :mod:`amplifier_core.message_models`. ``raw`` keeps the provider's original block
and is left out of ``to_dict``. Import on use::

    from amplifier_core.content_models import TextContent
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "ContentBlock",
    "ContentBlockType",
    "TextContent",
    "ThinkingContent",
    "ToolCallContent",
    "ToolResultContent",
]


class ContentBlockType(str, Enum):  # noqa: UP042 - str() stays "ContentBlockType.TEXT"
    """What a content block holds; the value is the ``type`` written by ``to_dict``."""

    TEXT = "text"
    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"


@dataclass
class ContentBlock:
    """A block of a given ``type``; ``raw`` is the provider's original data, if kept."""

    type: ContentBlockType
    raw: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The block as a JSON-ready dict (``raw`` is not included)."""
        return {"type": self.type.value}


@dataclass
class TextContent(ContentBlock):
    """Text written by the model."""

    type: ContentBlockType = ContentBlockType.TEXT
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "text": self.text}


@dataclass
class ThinkingContent(ContentBlock):
    """The model's reasoning, shown apart from its answer."""

    type: ContentBlockType = ContentBlockType.THINKING
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "text": self.text}


@dataclass
class ToolCallContent(ContentBlock):
    """A tool the model asked to run."""

    type: ContentBlockType = ContentBlockType.TOOL_CALL
    id: str = ""
    name: str = ""
    arguments: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass
class ToolResultContent(ContentBlock):
    """What a tool returned; ``error`` appears in ``to_dict`` only when set."""

    type: ContentBlockType = ContentBlockType.TOOL_RESULT
    tool_call_id: str = ""
    output: Any = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        result = {**super().to_dict(), "tool_call_id": self.tool_call_id, "output": self.output}
        if self.error:
            result["error"] = self.error
        return result
