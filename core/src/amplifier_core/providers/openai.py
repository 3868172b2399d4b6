"""OpenAI-compatible chat completions (``POST {base_url}/v1/chat/completions``) as a Provider.

Works with OpenAI itself and with servers that speak its wire format (vLLM, Ollama, LM Studio,
llama.cpp, gateways): set ``base_url`` to the server's root, without ``/v1``.

Conversion from the provider-neutral conversation (:mod:`amplifier_core.chat`):

- ``system`` and ``user`` messages keep their role, in place;
- ``assistant`` messages carry ``tool_calls: [{id, type: "function", function: {name,
  arguments}}]`` with the input as a JSON string, and ``content: null`` when they have no text;
- ``tool`` results become ``{role: "tool", tool_call_id, content}``; the wire format has no
  error flag, so a failed result's content is prefixed with ``Error: ``;
- tools become ``[{type: "function", function: {name, description, parameters}}]``.

The answer's ``choices[0].message`` gives the text and tool calls (``arguments`` is decoded;
text that is not a JSON object raises :class:`ProviderError` naming the tool call);
``usage.prompt_tokens`` / ``completion_tokens`` map onto :class:`Usage`; ``finish_reason``
``stop`` -> ``end_turn``, ``tool_calls`` / ``function_call`` -> ``tool_use``, ``length`` ->
``max_tokens``, anything else -> ``other`` (and ``tool_use`` whenever tool calls came back).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final, Literal

from ..chat import ChatRequest, ChatResponse, ToolCall, Usage
from ._base import HttpProvider, message_key, short_repr, text_of, unknown_role
from ._http import OnRetry, resolve_api_key

__all__ = ["DEFAULT_OPENAI_URL", "OpenAIProvider"]

DEFAULT_OPENAI_URL: Final = "https://api.openai.com"

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "other"]

_FINISH_REASONS: Final[Mapping[str, StopReason]] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}


class OpenAIProvider(HttpProvider):
    """Models behind an OpenAI-compatible chat completions endpoint.

    :param model: the model id sent when a request names none (``gpt-4o``).
    :param api_key: the key itself; when absent it is read from the environment variable
        ``api_key_env``. No key raises :class:`ProviderError` naming the variable. A local
        server that needs no key: pass ``api_key_env=None`` (no ``Authorization`` header).
    :param base_url: the server root in front of ``/v1/chat/completions``.
    :param timeout: seconds one request may take, from connect to the last byte.
    :param max_retries: retries after the first attempt (see :mod:`._http` for the policy).
    :param backoff_base: first backoff in seconds, doubled per retry, capped at ``backoff_max``.
    :param headers: extra headers sent on every request (``OpenAI-Organization``, ...).
    :param max_tokens_param: the body key for the token limit: ``max_tokens`` or, for models
        that require it, ``max_completion_tokens``.
    :param on_retry: ``on_retry(retry, error, delay)`` before each retry's wait.
    """

    name: str = "openai"
    _endpoint = "/v1/chat/completions"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        base_url: str = DEFAULT_OPENAI_URL,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        headers: Mapping[str, str] | None = None,
        max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
        on_retry: OnRetry | None = None,
    ) -> None:
        self._api_key: str | None = (
            resolve_api_key(self.name, api_key, api_key_env, model=model)
            if api_key or api_key_env
            else None
        )
        self.max_tokens_param = max_tokens_param
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
        """The chat completions request body for ``request``."""
        model = request.model or self.model
        body: dict[str, Any] = {
            "model": model,
            "messages": [
                _convert_message(message, index, model)
                for index, message in enumerate(request.messages)
            ],
            self.max_tokens_param: request.max_tokens,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.input_schema,
                    },
                }
                for tool in request.tools
            ]
        return body

    def _auth_headers(self) -> dict[str, str]:
        if self._api_key is None:
            return {}
        return {"authorization": f"Bearer {self._api_key}"}

    def _parse(self, body: dict[str, Any], model: str) -> ChatResponse:
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._fail(f"answer has no choices: {short_repr(body)}", model)
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise self._fail(f"choices[0] has no message: {short_repr(choices[0])}", model)
        calls = [
            self._tool_call(raw, index, model)
            for index, raw in enumerate(message.get("tool_calls") or [])
        ]
        raw_usage = body.get("usage")
        usage = Usage()
        if isinstance(raw_usage, dict):
            extra: dict[str, int] = {}
            details = raw_usage.get("prompt_tokens_details")
            if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
                extra["cache_read_input_tokens"] = details["cached_tokens"]
            usage = Usage(
                input_tokens=int(raw_usage.get("prompt_tokens") or 0),
                output_tokens=int(raw_usage.get("completion_tokens") or 0),
                **extra,
            )
        finish = choices[0].get("finish_reason")
        stop: StopReason = _FINISH_REASONS.get(finish, "other") if finish else "end_turn"
        if calls:
            stop = "tool_use"
        content = message.get("content")
        return ChatResponse(
            text=content if isinstance(content, str) else "",
            tool_calls=calls,
            usage=usage,
            stop_reason=stop,
            model=str(body.get("model") or model),
        )

    def _tool_call(self, raw: Any, index: int, model: str) -> ToolCall:
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise self._fail(f"tool_calls[{index}] has no function name: {short_repr(raw)}", model)
        name = function["name"]
        call_id = raw.get("id") or f"call_{index + 1}"
        arguments = function.get("arguments")
        if arguments is None or arguments == "":
            decoded: Any = {}
        elif isinstance(arguments, dict):
            decoded = arguments
        else:
            try:
                decoded = json.loads(arguments)
            except (TypeError, ValueError) as err:
                raise self._fail(
                    f"tool call {name!r} ({call_id}) has arguments that are not valid JSON "
                    f"({err}): {short_repr(arguments)}",
                    model,
                ) from err
        if not isinstance(decoded, dict):
            raise self._fail(
                f"tool call {name!r} ({call_id}) has arguments that are not a JSON object: "
                f"{short_repr(arguments)}",
                model,
            )
        return ToolCall(id=str(call_id), name=name, input=decoded)


def _convert_message(message: dict[str, Any], index: int, model: str) -> dict[str, Any]:
    role = message.get("role")
    content = message.get("content")
    text = text_of(content)
    if role in ("system", "user"):
        return {"role": role, "content": content if isinstance(content, list) else text}
    if role == "assistant":
        converted: dict[str, Any] = {"role": "assistant", "content": text or None}
        calls = message.get("tool_calls") or []
        if calls:
            converted["tool_calls"] = [
                {
                    "id": message_key(
                        "openai", model, call, "id", f"messages[{index}].tool_calls[{number}]"
                    ),
                    "type": "function",
                    "function": {
                        "name": message_key(
                            "openai", model, call, "name", f"messages[{index}].tool_calls[{number}]"
                        ),
                        "arguments": json.dumps(call.get("input") or {}, ensure_ascii=False),
                    },
                }
                for number, call in enumerate(calls)
            ]
        elif not text:
            converted["content"] = ""
        return converted
    if role == "tool":
        if message.get("is_error"):
            text = f"Error: {text}"
        return {
            "role": "tool",
            "tool_call_id": message_key(
                "openai", model, message, "tool_call_id", f"messages[{index}]"
            ),
            "content": text,
        }
    raise unknown_role("openai", model, index, role)
