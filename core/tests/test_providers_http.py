"""The HTTP providers against loopback servers that speak the real wire formats.

Each server checks requests the way the real API does (headers, tool sequences, shapes) and
answers with realistic bodies: tool use and usage, rate limits with ``retry-after``,
repeated server errors, API error bodies, slow answers, malformed JSON.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from amplifier_core.chat import ChatRequest, ChatResponse, Provider, ProviderError, ToolSpec
from amplifier_core.providers import (
    RETRY_AFTER_LIMIT,
    AnthropicProvider,
    OpenAIProvider,
    make_provider,
)

from .loopback import (
    AnthropicApi,
    LoopbackServer,
    OpenAIApi,
    Reply,
    anthropic_error,
    anthropic_message,
    closed_port,
    openai_completion,
    openai_error,
)

FAST: dict[str, Any] = {"backoff_base": 0.001, "backoff_max": 0.01, "timeout": 5.0}

READ_FILE = ToolSpec(
    name="read_file",
    description="Read a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
)
BASH = ToolSpec(name="bash", input_schema={"type": "object", "properties": {}})

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "What is in README.md and setup.cfg?"},
    {
        "role": "assistant",
        "content": "Reading both.",
        "tool_calls": [
            {"id": "toolu_1", "name": "read_file", "input": {"path": "README.md"}},
            {"id": "toolu_2", "name": "read_file", "input": {"path": "setup.cfg"}},
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "toolu_1",
        "name": "read_file",
        "content": "# Demo",
        "is_error": False,
    },
    {
        "role": "tool",
        "tool_call_id": "toolu_2",
        "name": "read_file",
        "content": "no such file",
        "is_error": True,
        "metadata": {"source": "tool"},
    },
    {"role": "system", "content": "Hook context: the user prefers bullet points."},
    {"role": "user", "content": "Be brief.", "metadata": {"source": "hook"}},
]

Api = AnthropicApi | OpenAIApi
Factory = Callable[..., Provider]


@asynccontextmanager
async def serve(api: Api) -> AsyncIterator[LoopbackServer]:
    async with LoopbackServer(api) as server:
        yield server


@asynccontextmanager
async def closing(provider: Provider) -> AsyncIterator[Any]:
    try:
        yield provider
    finally:
        await provider.aclose()  # type: ignore[attr-defined]


@asynccontextmanager
async def against(
    api: Api, make: Factory, **config: Any
) -> AsyncIterator[tuple[LoopbackServer, Any]]:
    """A provider from ``make(url, **config)`` talking to ``api`` on a loopback server."""
    async with serve(api) as server, closing(make(server.url, **config)) as provider:
        yield server, provider


def ask(text: str = "hello") -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], max_tokens=64)


# ---------------------------------------------------------------- Anthropic wire format


async def test_anthropic_sends_the_messages_api_shape_and_parses_tool_use() -> None:
    api = AnthropicApi(
        [
            anthropic_message(
                "Checking.",
                [("toolu_9", "bash", {"command": "ls"})],
                usage=(321, 45),
                model="claude-loopback-1",
            )
        ]
    )
    async with serve(api) as server:
        provider = AnthropicProvider("claude-test", api_key="test-key", base_url=server.url, **FAST)
        async with closing(provider):
            request = ChatRequest(
                messages=CONVERSATION, tools=[READ_FILE, BASH], max_tokens=200, temperature=0.2
            )
            response = await provider.complete(request)

    assert api.rejected == []
    assert response == ChatResponse.model_validate(
        {
            "text": "Checking.",
            "tool_calls": [{"id": "toolu_9", "name": "bash", "input": {"command": "ls"}}],
            "usage": {
                "input_tokens": 321,
                "output_tokens": 45,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
            "stop_reason": "tool_use",
            "model": "claude-loopback-1",
        }
    )
    sent = server.requests[0]
    assert sent.headers["x-api-key"] == "test-key"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["content-type"] == "application/json"
    body = api.bodies[0]
    assert body["model"] == "claude-test"
    assert body["max_tokens"] == 200
    assert body["temperature"] == 0.2
    assert body["system"] == "You are terse.\n\nHook context: the user prefers bullet points."
    assert body["tools"] == [
        {
            "name": "read_file",
            "description": "Read a file.",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
        {"name": "bash", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert body["messages"] == [
        {"role": "user", "content": "What is in README.md and setup.cfg?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading both."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "read_file",
                    "input": {"path": "README.md"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "read_file",
                    "input": {"path": "setup.cfg"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "# Demo",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "no such file",
                    "is_error": True,
                },
                {"type": "text", "text": "Be brief."},
            ],
        },
    ]


async def test_anthropic_tool_result_without_its_tool_use_surfaces_the_api_message() -> None:
    api = AnthropicApi([anthropic_message("never sent")])
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok"},
        {
            "role": "tool",
            "tool_call_id": "toolu_x",
            "name": "bash",
            "content": "",
            "is_error": False,
        },
    ]
    async with serve(api) as server:
        provider = AnthropicProvider("claude-test", api_key="test-key", base_url=server.url)
        async with closing(provider):
            with pytest.raises(ProviderError) as caught:
                await provider.complete(ChatRequest(messages=messages))

    error = caught.value
    assert (error.provider, error.model, error.status, error.retryable) == (
        "anthropic",
        "claude-test",
        400,
        False,
    )
    assert "invalid_request_error" in str(error)
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_x" in str(error)
    assert "request-id req_loopback" in str(error)
    assert len(server.requests) == 1
    assert len(api.replies) == 1


async def test_anthropic_empty_assistant_turns_and_text_are_left_out() -> None:
    api = AnthropicApi([anthropic_message("fine")])
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "name": "bash"}]},
        {"role": "user", "content": "[hook] the command is slow"},
        {"role": "tool", "tool_call_id": "t1", "name": "bash", "content": "", "is_error": False},
    ]
    async with serve(api) as server:
        provider = AnthropicProvider("claude-test", api_key="test-key", base_url=server.url)
        async with closing(provider):
            response = await provider.complete(ChatRequest(messages=messages))

    assert response.text == "fine"
    assert response.stop_reason == "end_turn"
    assert api.bodies[0]["messages"] == [
        {"role": "user", "content": "one\n\ntwo"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "", "is_error": False},
                {"type": "text", "text": "[hook] the command is slow"},
            ],
        },
    ]


async def test_anthropic_wrong_key_is_not_retried() -> None:
    api = AnthropicApi(api_key="right-key")
    async with serve(api) as server:
        provider = AnthropicProvider(
            "claude-test", api_key="wrong-key", base_url=server.url, **FAST
        )
        async with closing(provider):
            with pytest.raises(
                ProviderError, match="HTTP 401: authentication_error: invalid x-api-key"
            ):
                await provider.complete(ask())
    assert len(server.requests) == 1


async def test_anthropic_overloaded_529_is_retried() -> None:
    api = AnthropicApi(
        [anthropic_error(529, "overloaded_error", "Overloaded"), anthropic_message("after")]
    )
    retries: list[tuple[int, int | None, float]] = []
    async with serve(api) as server:
        provider = AnthropicProvider(
            "claude-test",
            api_key="test-key",
            base_url=server.url,
            on_retry=lambda n, err, delay: retries.append((n, err.status, delay)),
            **FAST,
        )
        async with closing(provider):
            response = await provider.complete(ask())
    assert response.text == "after"
    assert [(n, status) for n, status, _ in retries] == [(1, 529)]
    assert 0 < retries[0][2] <= FAST["backoff_max"]


def test_anthropic_missing_key_names_the_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LOOPBACK_ANTHROPIC_KEY", raising=False)
    with pytest.raises(ProviderError, match="set the LOOPBACK_ANTHROPIC_KEY environment variable"):
        AnthropicProvider("claude-test", api_key_env="LOOPBACK_ANTHROPIC_KEY")
    monkeypatch.setenv("LOOPBACK_ANTHROPIC_KEY", "from-env")
    provider = AnthropicProvider("claude-test", api_key_env="LOOPBACK_ANTHROPIC_KEY")
    assert "from-env" not in repr(provider)


async def test_anthropic_key_from_the_environment_reaches_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    api = AnthropicApi([anthropic_message("ok")], api_key="env-key")
    async with serve(api) as server:
        provider = AnthropicProvider("claude-test", base_url=server.url)
        async with closing(provider):
            assert (await provider.complete(ask())).text == "ok"


# ---------------------------------------------------------------- OpenAI wire format


async def test_openai_sends_chat_completions_shape_and_parses_tool_calls() -> None:
    api = OpenAIApi(
        [
            openai_completion(
                None,
                [("call_a", "bash", '{"command": "ls -la"}'), ("call_b", "read_file", "")],
                usage=(111, 22),
            )
        ]
    )
    async with serve(api) as server:
        provider = OpenAIProvider("gpt-test", api_key="test-key", base_url=server.url, **FAST)
        async with closing(provider):
            response = await provider.complete(
                ChatRequest(messages=CONVERSATION, tools=[READ_FILE], max_tokens=300)
            )

    assert api.rejected == []
    assert response.text == ""
    assert [call.model_dump() for call in response.tool_calls] == [
        {"id": "call_a", "name": "bash", "input": {"command": "ls -la"}},
        {"id": "call_b", "name": "read_file", "input": {}},
    ]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (111, 22)
    assert response.stop_reason == "tool_use"
    assert response.model == "gpt-loopback"
    sent = server.requests[0]
    assert sent.headers["authorization"] == "Bearer test-key"
    body = api.bodies[0]
    assert body["max_tokens"] == 300
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is in README.md and setup.cfg?"},
        {
            "role": "assistant",
            "content": "Reading both.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "README.md"}'},
                },
                {
                    "id": "toolu_2",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "setup.cfg"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "# Demo"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": "Error: no such file"},
        {"role": "system", "content": "Hook context: the user prefers bullet points."},
        {"role": "user", "content": "Be brief."},
    ]


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("content_filter", "other")],
)
async def test_openai_finish_reasons_map_to_stop_reasons(
    finish_reason: str, stop_reason: str
) -> None:
    api = OpenAIApi([openai_completion("text", finish_reason=finish_reason)])
    async with serve(api) as server:
        provider = OpenAIProvider("gpt-test", api_key="test-key", base_url=server.url)
        async with closing(provider):
            response = await provider.complete(ask())
    assert (response.text, response.stop_reason) == ("text", stop_reason)


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [('{"command": "ls"', "not valid JSON"), ('["ls"]', "not a JSON object")],
)
async def test_openai_bad_tool_arguments_name_the_tool_call(arguments: str, problem: str) -> None:
    api = OpenAIApi([openai_completion(None, [("call_7", "bash", arguments)])])
    async with serve(api) as server:
        provider = OpenAIProvider("gpt-test", api_key="test-key", base_url=server.url)
        async with closing(provider):
            with pytest.raises(ProviderError) as caught:
                await provider.complete(ask())
    message = str(caught.value)
    assert "tool call 'bash' (call_7)" in message
    assert problem in message
    assert caught.value.retryable is False


async def test_openai_tool_message_without_tool_calls_surfaces_the_api_message() -> None:
    api = OpenAIApi()
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_x", "name": "bash", "content": "out"},
    ]
    async with serve(api) as server:
        provider = OpenAIProvider("gpt-test", api_key="test-key", base_url=server.url, **FAST)
        async with closing(provider):
            with pytest.raises(ProviderError) as caught:
                await provider.complete(ChatRequest(messages=messages))
    assert caught.value.status == 400
    assert (
        "invalid_request_error: Invalid parameter: messages with role 'tool' must be a "
        "response to a preceeding message with 'tool_calls'."
    ) in str(caught.value)
    assert "request-id req_loopback" in str(caught.value)
    assert len(server.requests) == 1


async def test_openai_without_a_key_sends_no_authorization_to_a_local_server() -> None:
    api = OpenAIApi([openai_completion("local")], api_key=None)
    async with serve(api) as server:
        provider = OpenAIProvider(
            "llama", api_key_env=None, base_url=server.url, max_tokens_param="max_completion_tokens"
        )
        async with closing(provider):
            response = await provider.complete(ask())
    assert response.text == "local"
    assert "authorization" not in server.requests[0].headers
    assert api.bodies[0]["max_completion_tokens"] == 64
    assert "max_tokens" not in api.bodies[0]


def test_openai_missing_key_names_the_environment_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="set the OPENAI_API_KEY environment variable"):
        OpenAIProvider("gpt-test")


# ---------------------------------------------------------------- shared HTTP behaviour


def anthropic_setup() -> tuple[Api, Factory, Callable[..., Reply], Callable[[str], Reply]]:
    def provider(url: str, **config: Any) -> Provider:
        return AnthropicProvider("claude-test", api_key="test-key", base_url=url, **config)

    def error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
        return anthropic_error(status, "api_error", message, headers)

    return AnthropicApi(), provider, error, anthropic_message


def openai_setup() -> tuple[Api, Factory, Callable[..., Reply], Callable[[str], Reply]]:
    def provider(url: str, **config: Any) -> Provider:
        return OpenAIProvider("gpt-test", api_key="test-key", base_url=url, **config)

    def error(status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
        return openai_error(status, message, "server_error", headers=headers)

    return OpenAIApi(), provider, error, openai_completion


SETUPS = pytest.mark.parametrize(
    "setup", [anthropic_setup, openai_setup], ids=["anthropic", "openai"]
)
Setup = Callable[[], tuple[Api, Factory, Callable[..., Reply], Callable[[str], Reply]]]


@SETUPS
async def test_429_with_retry_after_is_honoured_then_succeeds(setup: Setup) -> None:
    api, make, error, ok = setup()
    api.replies.extend([error(429, "rate limited", {"retry-after": "0.05"}), ok("after the wait")])
    seen: list[tuple[int, ProviderError, float]] = []

    async def on_retry(retry: int, err: ProviderError, delay: float) -> None:
        seen.append((retry, err, delay))

    async with against(api, make, max_retries=2, on_retry=on_retry, **FAST) as (server, provider):
        started = time.perf_counter()
        response = await provider.complete(ask())
        elapsed = time.perf_counter() - started
    assert response.text == "after the wait"
    assert len(server.requests) == 2
    assert len(seen) == 1
    retry, err, delay = seen[0]
    assert (retry, err.status, err.retryable, err.retry_after, delay) == (1, 429, True, 0.05, 0.05)
    assert "rate limited" in err.message
    assert elapsed >= 0.05


@SETUPS
async def test_retry_after_in_milliseconds_is_honoured(setup: Setup) -> None:
    api, make, error, ok = setup()
    api.replies.extend([error(503, "busy", {"retry-after-ms": "20"}), ok("ok")])
    delays: list[float] = []
    async with against(
        api,
        make,
        on_retry=lambda _n, _e, d: delays.append(d),
        **FAST,
    ) as (_server, provider):
        assert (await provider.complete(ask())).text == "ok"
    assert delays == [0.02]


@SETUPS
async def test_a_retry_after_beyond_the_limit_is_not_waited_for(setup: Setup) -> None:
    api, make, error, ok = setup()
    wait = str(int(RETRY_AFTER_LIMIT * 10))
    api.replies.extend([error(429, "quota exhausted", {"retry-after": wait}), ok("never")])
    async with against(api, make, **FAST) as (server, provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert len(server.requests) == 1
    assert caught.value.retryable is True
    assert caught.value.retry_after == RETRY_AFTER_LIMIT * 10
    assert f"asks to wait {wait} s" in str(caught.value)


@SETUPS
async def test_repeated_500_surfaces_after_max_retries(setup: Setup) -> None:
    api, make, error, ok = setup()
    api.replies.extend([error(500, "internal trouble") for _ in range(3)] + [ok("too late")])
    seen: list[tuple[int, float]] = []
    async with against(
        api,
        make,
        max_retries=2,
        on_retry=lambda n, _e, d: seen.append((n, d)),
        backoff_base=0.004,
        backoff_max=1.0,
    ) as (server, provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert len(server.requests) == 3
    assert [n for n, _ in seen] == [1, 2]
    assert 0.003 <= seen[0][1] <= 0.004
    assert 0.006 <= seen[1][1] <= 0.008
    error_ = caught.value
    assert error_.status == 500
    assert "internal trouble" in str(error_)
    assert "gave up after 3 attempts" in str(error_)
    assert error_.to_dict()["provider"] in ("anthropic", "openai")


@SETUPS
async def test_400_error_body_message_is_surfaced_without_retry(setup: Setup) -> None:
    api, make, _error, ok = setup()
    if isinstance(api, AnthropicApi):
        bad = anthropic_error(400, "invalid_request_error", "prompt is too long: 250000 tokens")
    else:
        bad = openai_error(400, "prompt is too long: 250000 tokens", code="context_length_exceeded")
    api.replies.extend([bad, ok("never")])
    async with against(api, make, **FAST) as (server, provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert len(server.requests) == 1
    assert caught.value.status == 400
    assert caught.value.retryable is False
    assert "prompt is too long: 250000 tokens" in str(caught.value)
    assert caught.value.model in ("claude-test", "gpt-test")


@SETUPS
async def test_a_slow_answer_times_out(setup: Setup) -> None:
    api, make, _error, ok = setup()
    slow = ok("too slow")
    slow.delay = 2.0
    api.replies.append(slow)
    async with against(api, make, timeout=0.2, max_retries=0) as (_server, provider):
        started = time.perf_counter()
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
        elapsed = time.perf_counter() - started
    assert 0.15 <= elapsed < 1.5
    assert caught.value.status is None
    assert caught.value.retryable is True
    assert "no answer within 0.2 s (timeout)" in str(caught.value)


@SETUPS
async def test_a_timeout_is_retried_and_the_next_answer_used(setup: Setup) -> None:
    api, make, _error, ok = setup()
    slow = ok("too slow")
    slow.delay = 2.0
    api.replies.extend([slow, ok("in time")])
    retries: list[str] = []
    async with against(
        api,
        make,
        timeout=0.2,
        max_retries=1,
        backoff_base=0.001,
        on_retry=lambda _n, err, _d: retries.append(err.message),
    ) as (_server, provider):
        assert (await provider.complete(ask())).text == "in time"
    assert len(retries) == 1
    assert "timeout" in retries[0]


@SETUPS
async def test_malformed_json_is_an_error_not_a_retry(setup: Setup) -> None:
    api, make, _error, _ok = setup()
    api.replies.extend(
        [Reply(200, '{"id": "x", "content": [', {"content-type": "application/json"})]
    )
    async with against(api, make, **FAST) as (server, provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert len(server.requests) == 1
    assert caught.value.retryable is False
    assert "is not valid JSON" in str(caught.value)
    assert '{"id": "x", "content": [' in str(caught.value)


@SETUPS
async def test_an_answer_of_the_wrong_shape_is_an_error(setup: Setup) -> None:
    api, make, _error, _ok = setup()
    api.replies.append(Reply(200, {"unexpected": True}))
    async with against(api, make, **FAST) as (_server, provider):
        with pytest.raises(ProviderError, match="unexpected"):
            await provider.complete(ask())


@SETUPS
async def test_a_gateway_error_page_is_quoted(setup: Setup) -> None:
    api, make, _error, ok = setup()
    api.replies.extend([Reply(502, "<html>Bad Gateway from the proxy</html>"), ok("through")])
    async with against(
        api, make, max_retries=0, **{k: v for k, v in FAST.items() if k != "timeout"}
    ) as (_server, provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert caught.value.status == 502
    assert caught.value.retryable is True
    assert "<html>Bad Gateway from the proxy</html>" in str(caught.value)


@SETUPS
async def test_connection_refused_is_retried_then_surfaced(setup: Setup) -> None:
    _api, make, _error, _ok = setup()
    seen: list[int] = []
    url = f"http://127.0.0.1:{closed_port()}"
    provider = make(url, max_retries=2, on_retry=lambda n, _e, _d: seen.append(n), **FAST)
    async with closing(provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert seen == [1, 2]
    assert caught.value.status is None
    assert "could not reach POST" in str(caught.value)
    assert url in str(caught.value)
    assert "gave up after 3 attempts" in str(caught.value)


@SETUPS
async def test_a_failing_on_retry_callback_does_not_stop_the_retry(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    api, make, error, ok = setup()
    api.replies.extend([error(503, "busy"), ok("ok")])

    def broken(_n: int, _e: ProviderError, _d: float) -> None:
        raise RuntimeError("observer bug")

    async with against(api, make, on_retry=broken, **FAST) as (_server, provider):
        assert (await provider.complete(ask())).text == "ok"
    assert "on_retry callback failed" in caplog.text


@SETUPS
async def test_x_should_retry_overrides_the_status(setup: Setup) -> None:
    api, make, error, ok = setup()
    api.replies.extend(
        [
            error(400, "transient", {"x-should-retry": "true"}),
            error(503, "do not bother", {"x-should-retry": "false"}),
            ok("never"),
        ]
    )
    async with against(api, make, **FAST) as (server, provider):
        with pytest.raises(ProviderError) as caught:
            await provider.complete(ask())
    assert len(server.requests) == 2
    assert (caught.value.status, caught.value.retryable) == (503, False)
    assert "do not bother" in str(caught.value)


@SETUPS
def test_bad_settings_fail_at_construction(setup: Setup) -> None:
    _api, make, _error, _ok = setup()
    with pytest.raises(ProviderError, match="base_url must start with http:// or https://"):
        make("localhost:8080")
    with pytest.raises(ProviderError, match="timeout must be > 0 seconds, got 0"):
        make("http://127.0.0.1:1", timeout=0)


@SETUPS
async def test_connections_are_reused_and_calls_may_run_concurrently(setup: Setup) -> None:
    api, make, _error, ok = setup()
    api.replies.extend(ok(f"answer {n}") for n in range(4))
    async with against(api, make, **FAST) as (server, provider):
        first = await provider.complete(ask())
        rest = await asyncio.gather(*(provider.complete(ask()) for _ in range(3)))
    texts = sorted(r.text for r in [first, *rest])
    assert texts == [f"answer {n}" for n in range(4)]
    assert len(server.requests) == 4


# ---------------------------------------------------------------- the registry


async def test_make_provider_builds_http_providers_from_config() -> None:
    anthropic_api = AnthropicApi(
        [anthropic_error(503, "overloaded_error", "busy"), anthropic_message("A")]
    )
    openai_api = OpenAIApi([openai_completion("O")])
    retries: list[str] = []
    async with serve(anthropic_api) as a_server, serve(openai_api) as o_server:
        anthropic = make_provider(
            {
                "type": "anthropic",
                "model": "claude-cfg",
                "base_url": a_server.url,
                "api_key": "test-key",
                "timeout": 3,
                "max_retries": 1,
                "backoff_base": 0.001,
                "headers": {"anthropic-beta": "tools-2024"},
            },
            on_retry=lambda _n, err, _d: retries.append(err.provider),
        )
        openai = make_provider(
            {"type": "openai", "model": "gpt-cfg", "base_url": o_server.url, "api_key": "test-key"}
        )
        assert isinstance(anthropic, AnthropicProvider)
        assert isinstance(openai, OpenAIProvider)
        async with closing(anthropic), closing(openai):
            assert (await anthropic.complete(ask())).text == "A"
            assert (await openai.complete(ask())).text == "O"
    assert retries == ["anthropic"]
    assert a_server.requests[0].headers["anthropic-beta"] == "tools-2024"
    assert anthropic_api.bodies[0]["model"] == "claude-cfg"
    assert openai_api.bodies[0]["model"] == "gpt-cfg"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"type": "gemini"}, "provider.type: unknown provider type 'gemini'"),
        ({"model": "x"}, "provider.type: unknown provider type None"),
        ({"type": "anthropic", "api_key": "k"}, "provider.model: Field required"),
        (
            {"type": "openai", "model": "m", "api_key": "k", "timout": 3},
            "provider.timout: Extra inputs are not permitted",
        ),
        (
            {"type": "anthropic", "model": "m", "api_key": "k", "timeout": 0},
            "provider.timeout: Input should be greater than 0",
        ),
        (
            {"type": "openai", "model": "m", "api_key": "k", "max_tokens_param": "limit"},
            "provider.max_tokens_param: Input should be 'max_tokens' or 'max_completion_tokens'",
        ),
    ],
)
def test_make_provider_rejects_bad_config_naming_the_key(
    config: dict[str, Any], message: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        make_provider(config)
    assert message in str(caught.value)


def test_make_provider_names_the_config_location_and_missing_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(ProviderError, match=r"providers\[0\]\.config\.retries: Extra inputs"):
        make_provider({"type": "openai", "model": "m", "retries": 1}, where="providers[0].config")
    with pytest.raises(ProviderError, match="set the NO_SUCH_KEY_VAR environment variable"):
        make_provider({"type": "anthropic", "model": "m", "api_key_env": "NO_SUCH_KEY_VAR"})


async def test_providers_satisfy_the_protocol_and_close_cleanly() -> None:
    anthropic = AnthropicProvider("m", api_key="k")
    openai = OpenAIProvider("m", api_key="k")
    assert isinstance(anthropic, Provider)
    assert isinstance(openai, Provider)
    closers: list[Callable[[], Awaitable[None]]] = [anthropic.aclose, openai.aclose]
    for close in closers:
        await close()
