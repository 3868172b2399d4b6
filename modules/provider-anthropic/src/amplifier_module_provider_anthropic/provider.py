"""``AnthropicProvider``: Claude over the Messages API, as amplifier-core's Provider protocol.

The API key is read when the first request is made (``api_key``, else the environment
variable ``api_key_env``), so a bundle can be validated and mounted without one; a missing key
fails that request with an error naming the variable. Failures are the kernel's
``llm_errors``; retries fire ``provider:retry`` / ``provider:throttle`` through the hooks.
"""

from __future__ import annotations

from typing import Any

from amplifier_hooks_util.http_provider import Answer, HttpProvider

from .config import AnthropicConfig
from .convert import read_answer, request_body

__all__ = ["AnthropicProvider"]


class AnthropicProvider(HttpProvider):
    """Claude models over the Anthropic Messages API (``POST {base_url}/v1/messages``)."""

    endpoint = "/v1/messages"
    display_name = "Anthropic"
    capabilities = ("tools", "thinking")

    def __init__(self, config: AnthropicConfig | None = None, *, hooks: Any = None) -> None:
        self.config: AnthropicConfig = config or AnthropicConfig()
        super().__init__(self.config, hooks=hooks)

    def auth_headers(self) -> dict[str, str]:
        return {"x-api-key": self.api_key(), "anthropic-version": self.config.anthropic_version}

    def request_body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        model: str,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        return request_body(
            messages, tools, model=model, max_tokens=max_tokens, temperature=temperature
        )

    def read_answer(self, body: dict[str, Any], model: str) -> Answer:
        return read_answer(body, model)
