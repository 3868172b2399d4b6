"""amplifier_hooks_provider_base.http against a loopback HTTP server: answers, retries honouring
``retry-after``, capped backoff, ``x-should-retry``, timeouts, unreadable answers, API keys,
and the mapping of failures onto the kernel's ``llm_errors`` classes."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest
from amplifier_hooks_provider_base.http import (
    RETRY_AFTER_LIMIT,
    HttpError,
    HttpSettings,
    JsonPoster,
    api_error_text,
    llm_error,
    parse_retry_after,
    resolve_api_key,
)
from amplifier_hooks_testsupport.loopback import LoopbackServer, Reply, Request, closed_port

OK = Reply(body={"answer": 42})


class Queue:
    """Answers from a list, in order; records nothing itself (the server keeps requests)."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)

    async def __call__(self, request: Request) -> Reply:
        return self.replies.pop(0) if self.replies else Reply(status=500, body="nothing queued")


def poster(server: LoopbackServer, **settings: Any) -> JsonPoster:
    fields: dict[str, Any] = {"backoff_base": 0.0, "backoff_max": 0.0, **settings}
    return JsonPoster(
        provider="acme", model="m-1", settings=HttpSettings(base_url=server.url, **fields)
    )


class Retries:
    """An ``on_retry`` callback that records ``(retry, status, delay)``."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int | None, float]] = []

    async def __call__(self, retry: int, error: HttpError, delay: float) -> None:
        self.seen.append((retry, error.status, delay))


async def post(client: JsonPoster, on_retry: Any = None) -> dict[str, Any]:
    try:
        return await client.post(
            "/v1/x", {"q": "é"}, {"x-key": "k"}, model="m-1", on_retry=on_retry
        )
    finally:
        await client.aclose()


# --- answers ---------------------------------------------------------------------------------


async def test_an_answer_is_the_decoded_json_and_the_request_carries_every_header() -> None:
    async with LoopbackServer(Queue(OK)) as server:
        client = poster(server, headers={"x-extra": "1", "content-type": "text/plain"})
        answer = await post(client)
    assert answer == {"answer": 42}
    [request] = server.requests
    assert (request.method, request.path) == ("POST", "/v1/x")
    assert request.json() == {"q": "é"}
    assert request.headers["x-extra"] == "1"
    assert request.headers["x-key"] == "k"
    assert request.headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    ("reply", "what"),
    [
        (Reply(body="<html>oops</html>"), "is not valid JSON: '<html>oops</html>'"),
        (Reply(body=[1, 2]), "is not a JSON object"),
    ],
)
async def test_an_unreadable_answer_is_an_error_and_not_retried(reply: Reply, what: str) -> None:
    async with LoopbackServer(Queue(reply, OK)) as server:
        with pytest.raises(HttpError) as caught:
            await post(poster(server))
    assert caught.value.kind == "answer"
    assert caught.value.retryable is False
    assert what in str(caught.value)
    assert str(caught.value).startswith("acme m-1: HTTP 200 answer from POST ")
    assert len(server.requests) == 1


# --- retries ---------------------------------------------------------------------------------


async def test_429_then_200_waits_what_retry_after_says() -> None:
    limited = Reply(status=429, body={"error": "slow down"}, headers={"retry-after": "0"})
    async with LoopbackServer(Queue(limited, OK)) as server:
        retries = Retries()
        answer = await post(poster(server, backoff_base=5.0, backoff_max=5.0), retries)
    assert answer == {"answer": 42}
    assert retries.seen == [(1, 429, 0.0)]  # the header's 0 s, not the 5 s backoff
    assert len(server.requests) == 2


async def test_retry_after_ms_wins_over_retry_after() -> None:
    busy = Reply(status=503, body="", headers={"retry-after-ms": "0", "retry-after": "30"})
    async with LoopbackServer(Queue(busy, OK)) as server:
        retries = Retries()
        await post(poster(server), retries)
    assert retries.seen == [(1, 503, 0.0)]


@pytest.mark.parametrize("status", [500, 502, 503, 504, 529])
async def test_server_errors_are_retried(status: int) -> None:
    async with LoopbackServer(Queue(Reply(status=status, body="down"), OK)) as server:
        retries = Retries()
        assert await post(poster(server), retries) == {"answer": 42}
    assert [s for _, s, _ in retries.seen] == [status]


async def test_backoff_doubles_and_is_capped() -> None:
    failing = [Reply(status=500, body="down") for _ in range(4)]
    async with LoopbackServer(Queue(*failing, OK)) as server:
        retries = Retries()
        await post(poster(server, max_retries=4, backoff_base=0.001, backoff_max=0.003), retries)
    delays = [delay for _, _, delay in retries.seen]
    expected = [0.001, 0.002, 0.003, 0.003]  # 0.001 * 2 ** n, capped at 0.003
    assert len(delays) == 4
    for delay, ceiling in zip(delays, expected, strict=True):
        assert ceiling * 0.75 <= delay <= ceiling  # jitter takes off at most a quarter


async def test_giving_up_says_after_how_many_attempts() -> None:
    down = Reply(status=502, body={"error": {"type": "bad_gateway", "message": "upstream"}})
    async with LoopbackServer(Queue(down, down, down)) as server:
        with pytest.raises(HttpError) as caught:
            await post(poster(server, max_retries=2))
    error = caught.value
    assert (error.status, error.retryable, error.kind) == (502, True, "http")
    assert "HTTP 502: bad_gateway: upstream" in error.message
    assert error.message.endswith("(gave up after 3 attempts)")
    assert len(server.requests) == 3


async def test_a_retry_after_beyond_the_limit_is_not_waited_for() -> None:
    wait = str(int(RETRY_AFTER_LIMIT) * 2)
    limited = Reply(status=429, body="later", headers={"retry-after": wait})
    async with LoopbackServer(Queue(limited, OK)) as server:
        retries = Retries()
        with pytest.raises(HttpError) as caught:
            await post(poster(server), retries)
    assert (caught.value.retryable, caught.value.retry_after) == (True, float(wait))
    assert f"the API asks to wait {wait} s" in caught.value.message
    assert retries.seen == []
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "header", "retried"), [(500, "false", False), (409, "true", True)]
)
async def test_x_should_retry_overrides_the_status(status: int, header: str, retried: bool) -> None:
    reply = Reply(status=status, body="x", headers={"x-should-retry": header})
    async with LoopbackServer(Queue(reply, OK)) as server:
        if retried:
            assert await post(poster(server)) == {"answer": 42}
        else:
            with pytest.raises(HttpError):
                await post(poster(server))
    assert len(server.requests) == (2 if retried else 1)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
async def test_client_errors_are_raised_at_once_with_the_apis_text(status: int) -> None:
    refused = Reply(
        status=status,
        body={"type": "error", "error": {"type": "invalid_request_error", "message": "no"}},
        headers={"request-id": "req_7"},
    )
    async with LoopbackServer(Queue(refused, OK)) as server:
        with pytest.raises(HttpError) as caught:
            await post(poster(server))
    error = caught.value
    assert (error.status, error.retryable, error.provider, error.model) == (
        status,
        False,
        "acme",
        "m-1",
    )
    assert (
        f"HTTP {status}: invalid_request_error: no (POST {server.url}/v1/x, request-id req_7)"
        in (error.message)
    )
    assert len(server.requests) == 1


async def test_a_failing_callback_is_logged_and_the_retry_still_happens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(retry: int, error: HttpError, delay: float) -> None:
        raise RuntimeError("observer broke")

    async with LoopbackServer(Queue(Reply(status=500, body="x"), OK)) as server:
        with caplog.at_level(logging.ERROR, logger="amplifier_hooks_provider_base.http"):
            assert await post(poster(server), broken) == {"answer": 42}
    assert "acme provider: the on_retry callback failed" in caplog.text


# --- timeouts and the network ----------------------------------------------------------------


async def test_no_answer_within_the_timeout_is_a_retryable_timeout_error() -> None:
    never = asyncio.Event()

    async def silent(request: Request) -> Reply:
        await never.wait()  # never set: the server never answers
        return OK

    async with LoopbackServer(silent) as server:
        with pytest.raises(HttpError) as caught:
            await post(poster(server, timeout=0.05, max_retries=0))
    assert (caught.value.kind, caught.value.retryable) == ("timeout", True)
    assert "no answer within 0.05 s (timeout)" in caught.value.message


async def test_nobody_listening_is_a_retryable_network_error() -> None:
    settings = HttpSettings(base_url=f"http://127.0.0.1:{closed_port()}", max_retries=0)
    client = JsonPoster(provider="acme", model="m-1", settings=settings)
    with pytest.raises(HttpError) as caught:
        await post(client)
    assert (caught.value.kind, caught.value.retryable) == ("network", True)
    assert "could not reach POST" in caught.value.message


async def test_a_closed_poster_opens_a_new_connection_pool() -> None:
    async with LoopbackServer(Queue(OK, OK)) as server:
        client = poster(server)
        assert await post(client) == {"answer": 42}  # post() closes it
        assert await post(client) == {"answer": 42}


def test_unusable_settings_are_a_config_error_naming_each_problem() -> None:
    settings = HttpSettings(base_url="ftp://x", timeout=0, max_retries=-1, backoff_base=-1)
    with pytest.raises(HttpError) as caught:
        JsonPoster(provider="acme", model="m", settings=settings)
    assert caught.value.kind == "config"
    message = caught.value.message
    assert message.startswith("acme provider: base_url must start with http:// or https://")
    for part in ("timeout must be > 0", "max_retries must be >= 0", "backoff_base and"):
        assert part in message


# --- the pieces ------------------------------------------------------------------------------


def test_parse_retry_after() -> None:
    assert parse_retry_after(httpx.Headers({"retry-after": "1.5"})) == 1.5
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "250"})) == 0.25
    assert parse_retry_after(httpx.Headers({"retry-after": "-3"})) == 0.0
    assert parse_retry_after(httpx.Headers({"retry-after": "soon"})) is None
    assert parse_retry_after(httpx.Headers({})) is None
    past = format_datetime(datetime(2001, 1, 1, tzinfo=UTC), usegmt=True)
    assert parse_retry_after(httpx.Headers({"retry-after": past})) == 0.0
    later = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    wait = parse_retry_after(httpx.Headers({"retry-after": later}))
    assert wait is not None
    assert 3000 < wait <= 3600


@pytest.mark.parametrize(
    ("body", "raw", "text"),
    [
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}},
            "",
            "overloaded_error: busy",
        ),
        (
            {"error": {"message": "bad key", "type": None, "code": "invalid_api_key"}},
            "",
            "invalid_api_key: bad key",
        ),
        ({"error": {"message": "plain"}}, "", "plain"),
        ({"error": {"code": "only_code"}}, "", "only_code"),
        ({"error": "model not found"}, "", "model not found"),
        ({"message": "top level"}, "", "top level"),
        ({"detail": [{"loc": ["body"]}]}, "", '[{"loc": ["body"]}]'),
        (None, "  ", "(empty body)"),
        (None, "x" * 600, "x" * 500 + "..."),
    ],
)
def test_api_error_text(body: Any, raw: str, text: str) -> None:
    assert api_error_text(body, raw) == text


def test_resolve_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_TEST_KEY", " from-env ")
    monkeypatch.delenv("ACME_MISSING_KEY", raising=False)
    assert resolve_api_key("acme", "direct", "ACME_TEST_KEY") == "direct"
    assert resolve_api_key("acme", None, "ACME_TEST_KEY") == "from-env"
    with pytest.raises(HttpError, match="set the ACME_MISSING_KEY environment variable") as caught:
        resolve_api_key("acme", None, "ACME_MISSING_KEY")
    assert caught.value.kind == "config"
    with pytest.raises(HttpError, match="give `api_key` or `api_key_env`"):
        resolve_api_key("acme", None, None)


# --- the kernel's error classes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind", "message", "name"),
    [
        (400, "http", "bad field", "InvalidRequestError"),
        (400, "http", "prompt is too long for the context window", "ContextLengthError"),
        (401, "http", "x", "AuthenticationError"),
        (403, "http", "x", "AccessDeniedError"),
        (404, "http", "x", "NotFoundError"),
        (408, "http", "x", "LLMTimeoutError"),
        (413, "http", "x", "ContextLengthError"),
        (429, "http", "x", "RateLimitError"),
        (500, "http", "x", "ProviderUnavailableError"),
        (529, "http", "x", "ProviderUnavailableError"),
        (418, "http", "x", "LLMError"),
        (None, "timeout", "x", "LLMTimeoutError"),
        (None, "network", "x", "NetworkError"),
        (None, "config", "x", "ConfigurationError"),
        (200, "answer", "x", "LLMError"),
    ],
)
def test_llm_error_picks_the_kernels_class(
    status: int | None, kind: str, message: str, name: str
) -> None:
    from amplifier_core import llm_errors

    error = HttpError(
        message,
        provider="acme",
        model="m-1",
        status=status,
        retryable=True,
        retry_after=2.0,
        kind=kind,
    )
    converted = llm_error(error, llm_errors)
    assert type(converted).__name__ == name
    assert isinstance(converted, llm_errors.LLMError)
    assert str(converted) == message
    assert (converted.provider, converted.model, converted.status_code) == ("acme", "m-1", status)
    assert (converted.retryable, converted.retry_after) == (True, 2.0)
    assert converted.__cause__ is error
