"""provider-anthropic against a loopback server that checks requests as the Messages API does:
conversion both ways, usage, retries with throttling events, the kernel's error classes."""

from __future__ import annotations

from typing import Any

import pytest
from amplifier_hooks_testsupport.loopback import (
    AnthropicApi,
    LoopbackServer,
    anthropic_error,
    anthropic_message,
    closed_port,
)
from amplifier_hooks_testsupport.loopback.timeout import TimeoutContract

from amplifier_core import llm_errors
from amplifier_core.message_models import ChatRequest, Message, ToolSpec
from amplifier_core.testing import create_test_coordinator
from amplifier_module_provider_anthropic import mount

from .test_tool_choice import PROVIDER

FAST: dict[str, Any] = {"backoff_base": 0.001, "backoff_max": 0.01, "api_key": "test-key"}
READ_FILE = ToolSpec(
    name="read_file",
    description="Read a file.",
    parameters={"type": "object", "properties": {"file_path": {"type": "string"}}},
)
CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "What is in README.md and setup.cfg?"},
    {
        "role": "assistant",
        "content": "Reading both.",
        "tool_calls": [
            {"id": "toolu_1", "tool": "read_file", "arguments": {"file_path": "README.md"}},
            {"id": "toolu_2", "tool": "read_file", "arguments": {"file_path": "setup.cfg"}},
        ],
    },
    {"role": "tool", "tool_call_id": "toolu_1", "content": "# Demo"},
    {"role": "tool", "tool_call_id": "toolu_2", "content": "no such file", "is_error": True},
]


async def _provider(server: LoopbackServer, **config: Any) -> tuple[Any, Any]:
    coordinator = create_test_coordinator()
    await mount(coordinator, {**FAST, "base_url": server.url, **config})
    return coordinator.get("providers")["anthropic"], coordinator


def _request(messages: list[dict[str, Any]] | None = None) -> ChatRequest:
    chosen = messages if messages is not None else CONVERSATION
    return ChatRequest(
        messages=[Message.model_validate(m) for m in chosen],
        tools=[READ_FILE],
        metadata={"request_id": "req_1"},
    )


async def test_a_conversation_with_tool_results_round_trips() -> None:
    api = AnthropicApi(
        [anthropic_message("Found it.", [("toolu_3", "read_file", {"file_path": "x"})])]
    )
    async with LoopbackServer(api) as server:
        provider, _ = await _provider(server, model="claude-test", max_tokens=100)
        response = await provider.complete(_request())
    assert api.rejected == []
    body = api.bodies[0]
    assert body["system"] == "You are terse."
    assert (body["model"], body["max_tokens"]) == ("claude-test", 100)
    assert [turn["role"] for turn in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "read_file",
        "input": {"file_path": "README.md"},
    }
    assert body["messages"][2]["content"][1]["is_error"] is True
    assert body["tools"][0]["input_schema"]["properties"] == {"file_path": {"type": "string"}}
    assert response.content[0].text == "Found it."
    calls = provider.parse_tool_calls(response)
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("toolu_3", "read_file", {"file_path": "x"})
    ]
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.total_tokens) == (10, 15)
    assert response.finish_reason == "tool_use"


async def test_overloaded_then_answered_fires_throttle_and_retry_events() -> None:
    api = AnthropicApi(
        [
            anthropic_error(529, "overloaded_error", "Overloaded", {"retry-after": "0"}),
            anthropic_error(500, "api_error", "Internal error"),
            anthropic_message("fine"),
        ]
    )
    async with LoopbackServer(api) as server:
        provider, coordinator = await _provider(server)
        seen: list[tuple[str, dict[str, Any]]] = []
        for event in ("provider:throttle", "provider:retry"):
            coordinator.hooks.register(event, lambda e, d: seen.append((e, d)), name=f"rec-{event}")
        response = await provider.complete(_request())
    assert response.content[0].text == "fine"
    assert [name for name, _ in seen] == ["provider:throttle", "provider:retry"]
    throttle, retry = seen[0][1], seen[1][1]
    assert (throttle["status_code"], throttle["retry_after"], throttle["request_id"]) == (
        529,
        0.0,
        "req_1",
    )
    assert (retry["attempt"], retry["max_attempts"]) == (3, 3)
    assert "Internal error" in retry["error"]["message"]


@pytest.mark.parametrize(
    ("reply", "error_class", "retryable"),
    [
        (
            anthropic_error(401, "authentication_error", "invalid x-api-key"),
            "AuthenticationError",
            False,
        ),
        (anthropic_error(403, "permission_error", "not allowed"), "AccessDeniedError", False),
        (anthropic_error(404, "not_found_error", "model: nope"), "NotFoundError", False),
        (anthropic_error(400, "invalid_request_error", "bad"), "InvalidRequestError", False),
        (
            anthropic_error(400, "invalid_request_error", "prompt is too long for the context"),
            "ContextLengthError",
            False,
        ),
    ],
)
async def test_api_errors_are_the_kernels_provider_errors(
    reply: Any, error_class: str, retryable: bool
) -> None:
    async with LoopbackServer(AnthropicApi([reply])) as server:
        provider, _ = await _provider(server, max_retries=0)
        with pytest.raises(llm_errors.LLMError) as caught:
            await provider.complete(_request())
    assert type(caught.value).__name__ == error_class
    assert caught.value.retryable is retryable
    assert caught.value.provider == "anthropic"
    assert f"HTTP {reply.status}" in str(caught.value)


async def test_rate_limited_for_good_is_a_retryable_rate_limit_error() -> None:
    limited = anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "0"})
    async with LoopbackServer(AnthropicApi([limited, limited])) as server:
        provider, _ = await _provider(server, max_retries=1)
        with pytest.raises(llm_errors.RateLimitError) as caught:
            await provider.complete(_request())
    assert caught.value.retryable is True
    assert "gave up after 2 attempts" in str(caught.value)


async def test_a_missing_key_fails_the_call_not_the_mount(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    async with LoopbackServer(AnthropicApi([anthropic_message("x")])) as server:
        provider, _ = await _provider(server, api_key=None, api_key_env="NO_SUCH_KEY_VAR")
        with pytest.raises(llm_errors.LLMError, match="set the NO_SUCH_KEY_VAR environment"):
            await provider.complete(_request())


async def test_an_unreachable_server_is_a_network_error() -> None:
    coordinator = create_test_coordinator()
    url = f"http://127.0.0.1:{closed_port()}"
    await mount(coordinator, {**FAST, "base_url": url, "max_retries": 0})
    with pytest.raises(llm_errors.NetworkError) as caught:
        await coordinator.get("providers")["anthropic"].complete(_request())
    assert caught.value.retryable is True


async def test_config_mistakes_name_the_key() -> None:
    from amplifier_hooks_util.config_errors import ConfigError

    with pytest.raises(ConfigError, match=r"provider-anthropic: config: max_token: unknown key"):
        await mount(create_test_coordinator(), {"max_token": 5})
    with pytest.raises(ConfigError, match=r"base_url: "):
        await mount(create_test_coordinator(), {"base_url": "ftp://x"})


class TestTimeout(TimeoutContract):
    provider = PROVIDER


async def test_it_describes_itself_with_the_kernels_models() -> None:
    from amplifier_core import ModelInfo, ProviderInfo

    coordinator = create_test_coordinator()
    await mount(coordinator, {"model": "claude-x", "max_tokens": 1000, "context_window": 50_000})
    provider = coordinator.get("providers")["anthropic"]
    info = provider.get_info()
    assert isinstance(info, ProviderInfo)
    assert (info.id, info.credential_env_vars) == ("anthropic", ["ANTHROPIC_API_KEY"])
    assert info.defaults["context_window"] == 50_000
    [model] = await provider.list_models()
    assert isinstance(model, ModelInfo)
    assert (model.id, model.context_window, model.max_output_tokens) == ("claude-x", 50_000, 1000)
    assert provider.get_model_info() == model
