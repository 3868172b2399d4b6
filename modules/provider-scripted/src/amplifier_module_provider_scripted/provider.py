"""``ScriptedProvider``: answers each request with the next turn of a script.

Each call first looks for an unused ``match`` entry whose substring occurs in the *latest
input* (the text of the user and tool messages after the last assistant message, or the last
user or tool message when there is none); otherwise it plays the next unused entry without
``match``. An ``expect`` that the latest input does not contain, an ``error`` entry and an
exhausted script fail the call with an ``amplifier_core.llm_errors`` error naming the script
and the entry. Every request is kept in :attr:`ScriptedProvider.requests`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from amplifier_core import ModelInfo, ProviderInfo
from amplifier_core.llm_errors import LLMError
from amplifier_core.message_models import (
    ChatRequest,
    ChatResponse,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    Usage,
)

from .script import Script, ScriptEntry, load_script

__all__ = ["PROVIDER_NAME", "ScriptedProvider", "latest_input"]

PROVIDER_NAME = "scripted"
_CONTEXT_WINDOW: Final = 200_000
_MAX_OUTPUT: Final = 8_192
_SHOWN = 200


def _text(content: Any) -> str:
    """The readable text of a message's content (a string, or a list of blocks)."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    parts: list[str] = []
    for block in content:
        data = block.model_dump() if hasattr(block, "model_dump") else block
        if isinstance(data, Mapping):
            for key in ("text", "thinking", "output"):
                value = data.get(key)
                if value is not None:
                    parts.append(value if isinstance(value, str) else json.dumps(value))
                    break
        else:
            parts.append(str(data))
    return "\n".join(parts)


def latest_input(messages: Sequence[Message]) -> str:
    """The user and tool text after the last assistant message, joined by newlines; when there
    is none, the last user or tool message. Walks back from the end only as far as needed."""
    tail: list[str] = []
    for message in reversed(messages):
        if message.role == "assistant":
            break
        if message.role in ("user", "tool"):
            tail.append(_text(message.content))
    if tail:
        return "\n".join(reversed(tail))
    for message in reversed(messages):
        if message.role in ("user", "tool"):
            return _text(message.content)
    return ""


def _estimate(chars: int) -> int:
    return (chars + 3) // 4


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


class ScriptedProvider:
    """Replays a script of assistant turns (see :mod:`.script` for the format).

    :param script: a path to a ``.yaml`` / ``.yml`` / ``.json`` file, the list of entries, or
        a mapping with ``turns`` (an already loaded :class:`Script` is taken as it is).
    :param model: the model name reported in responses.
    :param name: the name it is mounted under.
    :raises ScriptError: the script cannot be read or an entry is malformed.
    """

    def __init__(
        self,
        script: str | Path | Sequence[Any] | Mapping[str, Any] | Script,
        *,
        model: str = "scripted",
        name: str = PROVIDER_NAME,
    ) -> None:
        self.name = name
        self.model = model
        self.script = script if isinstance(script, Script) else load_script(script)
        self.requests: list[ChatRequest] = []

    def __repr__(self) -> str:
        return f"ScriptedProvider(script={self.script.name!r}, remaining={self.remaining})"

    @property
    def script_name(self) -> str:
        return self.script.name

    @property
    def remaining(self) -> int:
        """How many entries are not used yet."""
        return self.script.remaining

    # -- the provider protocol -----------------------------------------------------------

    def get_info(self) -> ProviderInfo:
        """What this provider is: the kernel's ``ProviderInfo`` (no credentials, no setup)."""
        return ProviderInfo(
            id=self.name,
            display_name="Scripted (offline)",
            capabilities=["tools", "thinking"],
            defaults={
                "model": self.model,
                "context_window": _CONTEXT_WINDOW,
                "max_output_tokens": _MAX_OUTPUT,
            },
        )

    def get_model_info(self) -> ModelInfo:
        """The one model it reports (context-simple reads the window from it)."""
        return ModelInfo(
            id=self.model,
            display_name=self.model,
            context_window=_CONTEXT_WINDOW,
            max_output_tokens=_MAX_OUTPUT,
            capabilities=["tools", "thinking"],
        )

    async def list_models(self) -> list[ModelInfo]:
        """The one model it reports."""
        return [self.get_model_info()]

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        """The tool calls of a response this provider gave."""
        return list(response.tool_calls or [])

    def _fail(self, message: str, *, status: int | None = None, retry: bool = False) -> LLMError:
        return LLMError(
            f"scripted provider: {message}",
            provider=self.name,
            model=self.model,
            status_code=status,
            retryable=retry,
        )

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        """The next scripted turn for ``request`` (see the module docstring for the rules)."""
        self.requests.append(request)
        latest = latest_input(request.messages)
        turn = self.script.take_match(latest) or self.script.next_in_order()
        if turn is None:
            waiting = ", ".join(f"{t.index} (match {t.entry.match!r})" for t in self.script.matches)
            count = len(self.script.turns)
            raise self._fail(
                f"script {self.script.name} is exhausted: call {len(self.requests)} has no "
                f"reply left ({count} {'entry' if count == 1 else 'entries'})"
                + (f"; unmatched entries: {waiting}" if waiting else "")
                + f"; latest input was {_shown(latest)}"
            )
        entry = turn.entry
        if entry.expect is not None and entry.expect not in latest:
            raise self._fail(
                f"{self.script.where(turn)} expects the latest user/tool message to contain "
                f"{entry.expect!r}, but it was {_shown(latest)}"
            )
        if entry.error is not None:
            raise self._fail(
                f"{self.script.where(turn)}: {entry.error.message}",
                status=entry.error.status,
                retry=entry.error.retryable,
            )
        return _response(request, entry)


def _response(request: ChatRequest, entry: ScriptEntry) -> ChatResponse:
    """The response of a scripted turn, with usage given or estimated (characters / 4)."""
    calls = [
        ToolCall(id=c.id or "", name=c.name, arguments=copy.deepcopy(c.input))
        for c in entry.tool_calls
    ]
    content: list[Any] = []
    if entry.thinking:
        content.append(ThinkingBlock(thinking=entry.thinking))
    if entry.text:
        content.append(TextBlock(text=entry.text))
    given = entry.usage or {}
    if "input_tokens" in given:
        input_tokens = given["input_tokens"]
    else:
        input_tokens = _estimate(sum(len(_text(m.content)) for m in request.messages))
    if "output_tokens" in given:
        output_tokens = given["output_tokens"]
    else:
        output_chars = len(entry.text) + sum(len(json.dumps(c.arguments)) for c in calls)
        output_tokens = _estimate(output_chars)
    return ChatResponse(
        content=content,
        tool_calls=calls or None,
        usage=Usage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
        ),
        finish_reason=entry.stop_reason or ("tool_use" if calls else "end_turn"),
    )
