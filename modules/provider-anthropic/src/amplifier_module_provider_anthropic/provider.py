"""``AnthropicProvider``: Claude over the Messages API, as amplifier-core's Provider protocol.

The API key is read when the first request is made (``api_key``, else the environment
variable ``api_key_env``), so a bundle can be validated and mounted without one; a missing key
fails that request with an ``AuthenticationError`` naming the variable. Failures are the
kernel's ``llm_errors`` (rate limits, unavailability, timeouts, bad requests ...); retries fire
``provider:retry`` / ``provider:throttle`` through the coordinator's hooks.
"""

from __future__ import annotations

from typing import Any

from amplifier_hooks_util.http import HttpError, llm_error, resolve_api_key
from amplifier_hooks_util.http_provider import HttpProvider

from amplifier_core.message_models import ChatRequest, ChatResponse, ToolCall, Usage

from .config import AnthropicConfig
from .convert import read_answer, request_body

__all__ = ["AnthropicProvider"]


class AnthropicProvider(HttpProvider):
    """Claude models over the Anthropic Messages API (``POST {base_url}/v1/messages``)."""

    endpoint = "/v1/messages"

    def __init__(self, config: AnthropicConfig | None = None, *, hooks: Any = None) -> None:
        self.config = config or AnthropicConfig()
        self.name = self.config.name
        self.hooks = hooks
        super().__init__(
            self.config.model,
            base_url=self.config.base_url,
            timeout=self.config.timeout,
            max_retries=self.config.max_retries,
            backoff_base=self.config.backoff_base,
            backoff_max=self.config.backoff_max,
            headers=self.config.headers,
            on_retry=None,
        )

    def auth_headers(self) -> dict[str, str]:
        key = resolve_api_key(self.name, self.config.api_key, self.config.api_key_env)
        return {"x-api-key": key, "anthropic-version": self.config.anthropic_version}

    def get_info(self) -> dict[str, Any]:
        """What this provider is (the keys of amplifier-core's ``ProviderInfo``)."""
        return {
            "id": self.name,
            "display_name": "Anthropic",
            "credential_env_vars": [self.config.api_key_env] if self.config.api_key_env else [],
            "capabilities": ["tools", "thinking"],
            "defaults": {"model": self.model, "max_tokens": self.config.max_tokens},
            "config_fields": [],
        }

    async def list_models(self) -> list[dict[str, Any]]:
        """The configured model (the API is not asked)."""
        return [
            {
                "id": self.model,
                "display_name": self.model,
                "context_window": self.config.context_window,
                "max_output_tokens": self.config.max_tokens,
                "capabilities": ["tools", "thinking"],
                "defaults": {},
            }
        ]

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        """The tool calls of a response this provider gave."""
        return list(response.tool_calls or [])

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        """Send ``request`` to the API and return its answer as a ``ChatResponse``."""
        model = request.model or self.model
        metadata = request.metadata or {}
        try:
            body = request_body(
                [m.model_dump() for m in request.messages],
                [t.model_dump() for t in request.tools or []],
                model=model,
                max_tokens=request.max_output_tokens or self.config.max_tokens,
                temperature=request.temperature
                if request.temperature is not None
                else self.config.temperature,
            )
            answer = read_answer(
                await self.send(
                    body, model, hooks=self.hooks, request_id=metadata.get("request_id")
                ),
                model,
            )
        except HttpError as err:
            raise llm_error(err) from err
        return ChatResponse.model_validate(
            {
                "content": answer.content,
                "tool_calls": [ToolCall(**call) for call in answer.tool_calls] or None,
                "usage": Usage.model_validate(answer.usage),
                "finish_reason": answer.finish_reason,
            }
        )
