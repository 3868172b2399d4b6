"""provider-openai against a loopback server that checks requests as the chat completions API
does: conversion both ways, keyless local servers, retries, the kernel's error classes."""

from __future__ import annotations

from typing import Any

import pytest
from amplifier_hooks_util.loopback import LoopbackServer, OpenAIApi, openai_completion, openai_error

from amplifier_core import llm_errors
from amplifier_core.message_models import ChatRequest, Message, ToolSpec
from amplifier_core.testing import create_test_coordinator
from amplifier_module_provider_openai import mount

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
