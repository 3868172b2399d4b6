"""What the provider's tests share: requests in Amplifier's message shape, script files."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from amplifier_core.message_models import ChatRequest, ChatResponse, Message


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def user(text: str) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text)])


def text_of(response: ChatResponse) -> str:
    return "".join(getattr(block, "text", "") for block in response.content)


def after_tools(prompt: str, response: ChatResponse, results: list[str]) -> ChatRequest:
    """The request after ``response`` asked for tools and each returned its result."""
    calls = list(response.tool_calls or [])
    messages: list[Any] = [
        Message(role="user", content=prompt),
        Message(role="assistant", content=text_of(response)),
    ]
    for call, result in zip(calls, results, strict=True):
        messages.append(Message(role="tool", tool_call_id=call.id, name=call.name, content=result))
    return ChatRequest(messages=messages)
