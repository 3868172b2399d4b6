"""``AnthropicProvider``: Claude over the Messages API, as amplifier-core's Provider protocol.

The API key is read when the first request is made (``api_key``, else the environment
variable ``api_key_env``), so a bundle can be validated and mounted without one; a missing key
fails that request with an error naming the variable. Failures are the kernel's
``llm_errors``; retries fire ``provider:retry`` / ``provider:throttle`` through the hooks.
"""

from __future__ import annotations

from typing import Any

from amplifier_hooks_provider_base import ToolChoice
from amplifier_hooks_provider_base.provider import Answer, HostKernel, HttpProvider

from amplifier_core import ModelInfo, ProviderInfo, llm_errors
from amplifier_core.message_models import ChatResponse

from .config import AnthropicConfig
from .convert import read_answer, request_body, tool_choice

__all__ = ["KERNEL", "AnthropicProvider"]

KERNEL = HostKernel(
    llm_errors=llm_errors,
    provider_info=ProviderInfo,
    model_info=ModelInfo,
    chat_response=ChatResponse.model_validate,
)
"""The types of the kernel this module runs on (ours or amplifier-core 2.0.2), handed to the
provider base, which imports no kernel (the other HTTP provider builds the same, held equal by
tests/copies/test_held_copies.py)."""


class AnthropicProvider(HttpProvider):
    """Claude models over the Anthropic Messages API (``POST {base_url}/v1/messages``)."""

    endpoint = "/v1/messages"
    display_name = "Anthropic"
    capabilities = ("tools", "thinking")

    def __init__(self, config: AnthropicConfig | None = None, *, hooks: Any = None) -> None:
        self.config: AnthropicConfig = config or AnthropicConfig()
        super().__init__(self.config, kernel=KERNEL, hooks=hooks)

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

    def apply_tool_choice(self, body: dict[str, Any], choice: ToolChoice) -> None:
        """``{"type": "any"}``, ``{"type": "none"}`` or ``{"type": "tool", "name": N}``."""
        body["tool_choice"] = tool_choice(choice)

    def read_answer(self, body: dict[str, Any], model: str) -> Answer:
        return read_answer(body, model)
