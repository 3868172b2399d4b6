"""The Anthropic Messages API (``POST {base_url}/v1/messages``) as a :class:`Provider`.

Conversion from the provider-neutral conversation (:mod:`amplifier_core.chat`):

- every ``system`` message, wherever it stands, is joined (blank line between) into the
  top-level ``system`` field;
- ``user`` text becomes a user turn; ``assistant`` text and ``tool_calls`` become one assistant
  turn with a ``text`` block and ``tool_use`` blocks ``{type, id, name, input}``;
- ``tool`` results become ``tool_result`` blocks ``{type, tool_use_id, content, is_error}`` in a
  user turn; consecutive tool results, and user text that follows them, are merged into one
  user turn with the ``tool_result`` blocks first, as the API requires;
- empty text (which the API rejects) is left out, and so is an assistant message with
  neither text nor tool calls.

The answer's ``text`` blocks are concatenated into :attr:`ChatResponse.text`, ``tool_use``
blocks become :class:`ToolCall` objects, other blocks (``thinking``) are skipped.
``usage.input_tokens`` / ``output_tokens`` map onto :class:`Usage` (the cache counters are
kept as extra fields) and ``stop_reason`` onto :attr:`ChatResponse.stop_reason` (``pause_turn``,
``refusal`` and anything new become ``other``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..chat import ChatRequest, ChatResponse, ToolCall, Usage
from ._base import HttpProvider, message_key, short_repr, text_of, unknown_role
from ._http import OnRetry, resolve_api_key

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_ANTHROPIC_URL", "AnthropicProvider"]

ANTHROPIC_VERSION: Final = "2023-06-01"
DEFAULT_ANTHROPIC_URL: Final = "https://api.anthropic.com"

_STOP_REASONS: Final = frozenset({"end_turn", "tool_use", "max_tokens", "stop_sequence"})


class AnthropicProvider(HttpProvider):
    """Claude models over the Anthropic Messages API.

    :param model: the model id sent when a request names none (``claude-sonnet-4-5``).
    :param api_key: the key itself; when absent it is read from the environment variable
        ``api_key_env``. No key raises :class:`ProviderError` naming the variable.
    :param base_url: scheme and host (and optional path prefix) in front of ``/v1/messages``.
    :param timeout: seconds one request may take, from connect to the last byte.
    :param max_retries: retries after the first attempt (see :mod:`._http` for the policy).
    :param backoff_base: first backoff in seconds, doubled per retry, capped at ``backoff_max``.
    :param headers: extra headers sent on every request (``anthropic-beta``, ...).
    :param anthropic_version: the ``anthropic-version`` header.
    :param on_retry: ``on_retry(retry, error, delay)`` before each retry's wait.
    """

    name: str = "anthropic"
    _endpoint = "/v1/messages"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = "ANTHROPIC_API_KEY",
        base_url: str = DEFAULT_ANTHROPIC_URL,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        headers: Mapping[str, str] | None = None,
        anthropic_version: str = ANTHROPIC_VERSION,
        on_retry: OnRetry | None = None,
    ) -> None:
        self._api_key = resolve_api_key(self.name, api_key, api_key_env, model=model)
        self.anthropic_version = anthropic_version
        super().__init__(
            model,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            headers=headers,
            on_retry=on_retry,
        )

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The Messages API request body for ``request``."""
        model = request.model or self.model
        system, messages = _convert_messages(request.messages, model)
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": request.max_tokens,
            "messages": messages,
        }
        if system:
            body["system"] = system
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [
                {
                    "name": tool.name,
                    **({"description": tool.description} if tool.description else {}),
                    "input_schema": tool.input_schema,
                }
                for tool in request.tools
            ]
        return body

    def _auth_headers(self) -> dict[str, str]:
        return {"x-api-key": self._api_key, "anthropic-version": self.anthropic_version}

    def _parse(self, body: dict[str, Any], model: str) -> ChatResponse:
        content = body.get("content")
        if not isinstance(content, list):
            raise self._fail(f"answer has no `content` list: {short_repr(body)}", model)
        texts: list[str] = []
        calls: list[ToolCall] = []
        for index, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "tool_use":
                tool_input = block.get("input", {})
                if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                    raise self._fail(
                        f"content[{index}] tool_use block lacks id or name: {short_repr(block)}",
                        model,
                    )
                if not isinstance(tool_input, dict):
                    raise self._fail(
                        f"tool_use {block['name']!r} ({block['id']}) input is not an object: "
                        f"{short_repr(tool_input)}",
                        model,
                    )
                calls.append(ToolCall(id=block["id"], name=block["name"], input=tool_input))
        raw_usage = body.get("usage")
        usage = Usage()
        if isinstance(raw_usage, dict):
            usage = Usage(
                input_tokens=int(raw_usage.get("input_tokens") or 0),
                output_tokens=int(raw_usage.get("output_tokens") or 0),
                **{
                    key: int(raw_usage[key])
                    for key in ("cache_creation_input_tokens", "cache_read_input_tokens")
                    if isinstance(raw_usage.get(key), int)
                },
            )
        stop = body.get("stop_reason")
        return ChatResponse(
            text="".join(texts),
            tool_calls=calls,
            usage=usage,
            stop_reason=stop if stop in _STOP_REASONS else "other",
            model=str(body.get("model") or model),
        )


def _convert_messages(
    messages: list[dict[str, Any]], model: str
) -> tuple[str, list[dict[str, Any]]]:
    """Split out the system text and turn the rest into Messages API turns."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "system":
            text = text_of(message.get("content"))
            if text:
                system.append(text)
        elif role == "user":
            content = message.get("content")
            if isinstance(content, list):
                add("user", list(content))
            elif text := text_of(content):
                add("user", [{"type": "text", "text": text}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if text := text_of(message.get("content")):
                blocks.append({"type": "text", "text": text})
            for number, call in enumerate(message.get("tool_calls") or []):
                where = f"messages[{index}].tool_calls[{number}]"
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": message_key("anthropic", model, call, "id", where),
                        "name": message_key("anthropic", model, call, "name", where),
                        "input": call.get("input") or {},
                    }
                )
            add("assistant", blocks)
        elif role == "tool":
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message_key(
                            "anthropic", model, message, "tool_call_id", f"messages[{index}]"
                        ),
                        "content": text_of(message.get("content")),
                        "is_error": bool(message.get("is_error", False)),
                    }
                ],
            )
        else:
            raise unknown_role("anthropic", model, index, role)
    for turn in turns:
        if turn["role"] == "user":
            # tool_result blocks must lead the user turn that answers a tool_use turn
            turn["content"].sort(key=lambda block: block.get("type") != "tool_result")
        if all(block.get("type") == "text" for block in turn["content"]):
            turn["content"] = "\n\n".join(block["text"] for block in turn["content"])
    return "\n\n".join(system), turns
