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

from ..chat import ChatRequest, ChatResponse, ProviderError, ToolCall, Usage
from ._http import HttpSettings, JsonPoster, OnRetry, resolve_api_key

__all__ = ["ANTHROPIC_VERSION", "DEFAULT_ANTHROPIC_URL", "AnthropicProvider"]

ANTHROPIC_VERSION: Final = "2023-06-01"
DEFAULT_ANTHROPIC_URL: Final = "https://api.anthropic.com"

_STOP_REASONS: Final = frozenset({"end_turn", "tool_use", "max_tokens", "stop_sequence"})


class AnthropicProvider:
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
        self.model = model
        self._api_key = resolve_api_key(self.name, api_key, api_key_env, model=model)
        self.anthropic_version = anthropic_version
        self._poster = JsonPoster(
            provider=self.name,
            model=model,
            settings=HttpSettings(
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                backoff_base=backoff_base,
                backoff_max=backoff_max,
                headers=dict(headers or {}),
            ),
            on_retry=on_retry,
        )

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def base_url(self) -> str:
        return self._poster.settings.base_url

    @property
    def on_retry(self) -> OnRetry | None:
        """Called before each retry's wait; settable after construction."""
        return self._poster.on_retry

    @on_retry.setter
    def on_retry(self, callback: OnRetry | None) -> None:
        self._poster.on_retry = callback

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._poster.aclose()

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

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` to the Messages API and return the parsed answer."""
        model = request.model or self.model
        headers = {
            "x-api-key": self._api_key,
            "anthropic-version": self.anthropic_version,
            "content-type": "application/json",
            "accept": "application/json",
        }
        body = await self._poster.post(
            "/v1/messages", self.build_body(request), headers, model=model
        )
        return self._parse(body, model)

    def _parse(self, body: dict[str, Any], model: str) -> ChatResponse:
        content = body.get("content")
        if not isinstance(content, list):
            raise ProviderError(
                f"anthropic {model}: answer has no `content` list: {_short(body)}",
                provider=self.name,
                model=model,
            )
        texts: list[str] = []
        calls: list[ToolCall] = []
        for index, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                texts.append(str(block.get("text", "")))
            elif kind == "tool_use":
                tool_input = block.get("input", {})
                if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                    raise ProviderError(
                        f"anthropic {model}: content[{index}] tool_use block lacks id or name: "
                        f"{_short(block)}",
                        provider=self.name,
                        model=model,
                    )
                if not isinstance(tool_input, dict):
                    raise ProviderError(
                        f"anthropic {model}: tool_use {block['name']!r} ({block['id']}) input "
                        f"is not an object: {_short(tool_input)}",
                        provider=self.name,
                        model=model,
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


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + "..."


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return str(content)


def _field(message: dict[str, Any], key: str, where: str, model: str) -> Any:
    try:
        return message[key]
    except (KeyError, TypeError):
        raise ProviderError(
            f"anthropic {model}: {where} has no {key!r}", provider="anthropic", model=model
        ) from None


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
            text = _text(message.get("content"))
            if text:
                system.append(text)
        elif role == "user":
            content = message.get("content")
            if isinstance(content, list):
                add("user", list(content))
            elif text := _text(content):
                add("user", [{"type": "text", "text": text}])
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if text := _text(message.get("content")):
                blocks.append({"type": "text", "text": text})
            for number, call in enumerate(message.get("tool_calls") or []):
                where = f"messages[{index}].tool_calls[{number}]"
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": _field(call, "id", where, model),
                        "name": _field(call, "name", where, model),
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
                        "tool_use_id": _field(message, "tool_call_id", f"messages[{index}]", model),
                        "content": _text(message.get("content")),
                        "is_error": bool(message.get("is_error", False)),
                    }
                ],
            )
        else:
            raise ProviderError(
                f"anthropic {model}: messages[{index}] has unknown role {role!r} "
                "(expected system, user, assistant or tool)",
                provider="anthropic",
                model=model,
            )
    for turn in turns:
        if turn["role"] == "user":
            # tool_result blocks must lead the user turn that answers a tool_use turn
            turn["content"].sort(key=lambda block: block.get("type") != "tool_result")
        if all(block.get("type") == "text" for block in turn["content"]):
            turn["content"] = "\n\n".join(block["text"] for block in turn["content"])
    return "\n\n".join(system), turns
