"""``OpenAIProvider``: models behind a chat completions endpoint, as amplifier-core's Provider.

Works with OpenAI itself and with servers that speak its wire format (vLLM, Ollama, LM Studio,
llama.cpp, gateways): ``base_url`` is the server's root, without ``/v1``. The API key is read
when the first request is made; with ``api_key_env: null`` and no ``api_key`` no key is sent
(a local server). Failures are the kernel's ``llm_errors``; retries fire ``provider:retry`` /
``provider:throttle`` through the hooks.
"""

from __future__ import annotations

from typing import Any

from amplifier_hooks_provider_base import ToolChoice
from amplifier_hooks_provider_base.provider import Answer, HostKernel, HttpProvider

from amplifier_core import ModelInfo, ProviderInfo, llm_errors
from amplifier_core.message_models import ChatResponse

from .config import OpenAIConfig
from .convert import read_answer, request_body, tool_choice

__all__ = ["KERNEL", "OpenAIProvider"]

KERNEL = HostKernel(
    llm_errors=llm_errors,
    provider_info=ProviderInfo,
    model_info=ModelInfo,
    chat_response=ChatResponse.model_validate,
)
"""The types of the kernel this module runs on (ours or amplifier-core 2.0.2), handed to the
provider base, which imports no kernel (the other HTTP provider builds the same, held equal by
tests/copies/test_held_copies.py)."""


class OpenAIProvider(HttpProvider):
    """Models behind ``POST {base_url}/v1/chat/completions``."""

    endpoint = "/v1/chat/completions"
    display_name = "OpenAI-compatible"
    capabilities = ("tools",)

    def __init__(self, config: OpenAIConfig | None = None, *, hooks: Any = None) -> None:
        self.config: OpenAIConfig = config or OpenAIConfig()
        super().__init__(self.config, kernel=KERNEL, hooks=hooks)

    def auth_headers(self) -> dict[str, str]:
        if not self.config.api_key and not self.config.api_key_env:
            return {}
        return {"authorization": f"Bearer {self.api_key()}"}

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
            messages,
            tools,
            model=model,
            max_tokens=max_tokens,
            max_tokens_param=self.config.max_tokens_param,
            temperature=temperature,
        )

    def apply_response_format(self, body: dict[str, Any], response_format: dict[str, Any]) -> None:
        """``json`` -> ``{"type": "json_object"}``; ``json_schema`` -> OpenAI's
        ``{"type": "json_schema", "json_schema": {"name", "schema", "strict"?}}``."""
        kind = response_format.get("type")
        if kind == "json":
            body["response_format"] = {"type": "json_object"}
        elif kind == "json_schema":
            schema: dict[str, Any] = {"name": "answer", "schema": response_format.get("schema")}
            if response_format.get("strict") is not None:
                schema["strict"] = bool(response_format["strict"])
            body["response_format"] = {"type": "json_schema", "json_schema": schema}

    def apply_tool_choice(self, body: dict[str, Any], choice: ToolChoice) -> None:
        """``"required"``, ``"none"`` or ``{"type": "function", "function": {"name": N}}``."""
        body["tool_choice"] = tool_choice(choice)

    def read_answer(self, body: dict[str, Any], model: str) -> Answer:
        return read_answer(body, model)
