"""provider-openai against a loopback server that checks requests as the chat completions API
does: conversion both ways, keyless local servers, retries, the kernel's error classes."""

from __future__ import annotations

from typing import Any

import pytest
from amplifier_hooks_testsupport.loopback import (
    LoopbackServer,
    OpenAIApi,
    openai_completion,
    openai_error,
)
from amplifier_hooks_testsupport.loopback.timeout import TimeoutContract

from amplifier_core import llm_errors
from amplifier_core.message_models import ChatRequest, Message, ToolSpec
from amplifier_core.testing import create_test_coordinator
from amplifier_module_provider_openai import mount

from .test_tool_choice import PROVIDER

FAST: dict[str, Any] = {"backoff_base": 0.001, "backoff_max": 0.01, "api_key": "test-key"}
BASH = ToolSpec(
    name="bash",
    description="Run a command.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}},
)
CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "List the files."},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_1", "tool": "bash", "arguments": {"command": "ls"}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "permission denied", "is_error": True},
]


async def _provider(server: LoopbackServer, **config: Any) -> tuple[Any, Any]:
    coordinator = create_test_coordinator()
    await mount(coordinator, {**FAST, "base_url": server.url, **config})
    return coordinator.get("providers")[config.get("name", "openai")], coordinator


def _request() -> ChatRequest:
    return ChatRequest(
        messages=[Message.model_validate(m) for m in CONVERSATION],
        tools=[BASH],
        metadata={"request_id": "req_9"},
    )


async def test_a_conversation_with_a_failed_tool_result_round_trips() -> None:
    api = OpenAIApi([openai_completion(None, [("call_2", "bash", '{"command": "ls -l"}')])])
    async with LoopbackServer(api) as server:
        provider, _ = await _provider(
            server, model="gpt-test", max_tokens_param="max_completion_tokens"
        )
        response = await provider.complete(_request())
    assert api.rejected == []
    body = api.bodies[0]
    assert (body["model"], body["max_completion_tokens"]) == ("gpt-test", 4096)
    assert body["messages"][2]["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "bash", "arguments": '{"command": "ls"}'},
        }
    ]
    assert body["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Error: permission denied",
    }
    assert body["tools"][0]["function"]["name"] == "bash"
    assert response.content == []
    calls = provider.parse_tool_calls(response)
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_2", "bash", {"command": "ls -l"})
    ]
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 7)
    assert response.finish_reason == "tool_calls"


async def test_a_local_server_without_a_key_gets_no_authorization_header() -> None:
    api = OpenAIApi([openai_completion("hi")], api_key=None)
    async with LoopbackServer(api) as server:
        provider, _ = await _provider(server, api_key=None, api_key_env=None, name="local")
        response = await provider.complete(_request())
    assert response.content[0].text == "hi"
    assert "authorization" not in server.requests[0].headers


async def test_server_errors_are_retried_with_retry_events() -> None:
    api = OpenAIApi([openai_error(503, "busy", "server_error"), openai_completion("fine")])
    async with LoopbackServer(api) as server:
        provider, coordinator = await _provider(server)
        seen: list[dict[str, Any]] = []
        coordinator.hooks.register("provider:retry", lambda e, d: seen.append(d), name="rec")
        response = await provider.complete(_request())
    assert response.content[0].text == "fine"
    assert [(d["attempt"], d["request_id"]) for d in seen] == [(2, "req_9")]


async def test_arguments_that_are_not_json_are_an_error_naming_the_call() -> None:
    api = OpenAIApi([openai_completion(None, [("call_5", "bash", "{not json")])])
    async with LoopbackServer(api) as server:
        provider, _ = await _provider(server)
        with pytest.raises(
            llm_errors.LLMError,
            match=r"tool call 'bash' \(call_5\) has arguments that are not valid JSON",
        ):
            await provider.complete(_request())


async def test_a_wrong_key_is_an_authentication_error() -> None:
    async with LoopbackServer(OpenAIApi([openai_completion("x")], api_key="right")) as server:
        provider, _ = await _provider(server, api_key="wrong")
        with pytest.raises(llm_errors.AuthenticationError) as caught:
            await provider.complete(_request())
    assert caught.value.status_code == 401
    assert caught.value.retryable is False


async def test_rate_limited_once_waits_what_retry_after_says_and_fires_throttle() -> None:
    limited = openai_error(429, "Rate limit reached", "requests", "rate_limit_exceeded")
    limited.headers["retry-after"] = "0"
    api = OpenAIApi([limited, openai_completion("after the wait", usage=(30, 4))])
    async with LoopbackServer(api) as server:
        provider, coordinator = await _provider(server, backoff_base=30, backoff_max=30)
        seen: list[dict[str, Any]] = []
        coordinator.hooks.register("provider:throttle", lambda e, d: seen.append(d), name="rec")
        response = await provider.complete(_request())
    assert response.content[0].text == "after the wait"
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.total_tokens) == (30, 34)
    assert [(d["status_code"], d["retry_after"], d["request_id"]) for d in seen] == [
        (429, 0.0, "req_9")
    ]
    assert len(api.bodies) == 2


@pytest.mark.parametrize(
    ("reply", "error_class"),
    [
        (openai_error(400, "Invalid 'messages'"), "InvalidRequestError"),
        (
            openai_error(400, "maximum context length is 8192", code="context_length_exceeded"),
            "ContextLengthError",
        ),
        (openai_error(403, "region not supported", "permission_error"), "AccessDeniedError"),
        (
            openai_error(404, "The model 'gpt-x' does not exist", code="model_not_found"),
            "NotFoundError",
        ),
        (
            openai_error(429, "quota", "insufficient_quota", headers={"retry-after": "600"}),
            "RateLimitError",
        ),
    ],
)
async def test_api_errors_are_the_kernels_provider_errors(reply: Any, error_class: str) -> None:
    api = OpenAIApi([reply, openai_completion("never asked")])
    async with LoopbackServer(api) as server:
        provider, _ = await _provider(server)
        with pytest.raises(llm_errors.LLMError) as caught:
            await provider.complete(_request())
    assert type(caught.value).__name__ == error_class
    assert caught.value.status_code == reply.status
    assert caught.value.provider == "openai"
    assert len(api.bodies) == 1  # not retried (a 429 asking for 600 s is not waited for)


class TestTimeout(TimeoutContract):
    provider = PROVIDER


async def test_it_describes_itself_with_the_kernels_models() -> None:
    from amplifier_core import ModelInfo, ProviderInfo

    coordinator = create_test_coordinator()
    await mount(coordinator, {"name": "local", "model": "llama3", "api_key_env": None})
    provider = coordinator.get("providers")["local"]
    info = provider.get_info()
    assert isinstance(info, ProviderInfo)
    assert (info.id, info.credential_env_vars) == ("local", [])
    [model] = await provider.list_models()
    assert isinstance(model, ModelInfo)
    assert (model.id, model.context_window, model.max_output_tokens) == ("llama3", 128_000, 4096)
