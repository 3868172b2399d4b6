"""amplifier_core.utils: retry with backoff, error classification, truncation and redaction."""

from __future__ import annotations

import warnings

import pytest

import amplifier_core
from amplifier_core.llm_errors import (
    AccessDeniedError,
    AuthenticationError,
    ContentFilterError,
    ContextLengthError,
    InvalidRequestError,
    LLMError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitError,
)
from amplifier_core.utils import (
    SENSITIVE_KEYS,
    RetryConfig,
    classify_error_message,
    compute_delay,
    redact_secrets,
    retry_with_backoff,
    truncate_values,
)

FAST = {"initial_delay": 0.0001, "max_delay": 0.001, "jitter": False}


class Flaky:
    """Raises each of ``errors`` in turn, then returns ``"done"``."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "done"


def test_config_defaults_and_read_only() -> None:
    config = RetryConfig()
    assert (config.max_retries, config.initial_delay, config.max_delay) == (3, 1.0, 60.0)
    assert (config.backoff_factor, config.jitter, config.honor_retry_after) == (2.0, 0.2, True)
    with pytest.raises(AttributeError):
        config.max_retries = 5  # type: ignore[misc]
    with pytest.raises(OverflowError, match="max_retries"):
        RetryConfig(max_retries=-1)


def test_config_old_names_warn_and_map() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = RetryConfig(min_delay=2.0, backoff_multiplier=3.0, jitter=0.5)
    assert {type(w.message) for w in caught} == {DeprecationWarning}
    assert len(caught) == 3
    assert (config.initial_delay, config.backoff_factor, config.jitter) == (2.0, 3.0, 0.2)
    assert RetryConfig(jitter=False).jitter == 0.0


def test_delays_grow_then_cap_and_retry_after_wins_uncapped() -> None:
    config = RetryConfig(initial_delay=1.0, max_delay=10.0, jitter=False)
    assert [compute_delay(config, n) for n in range(6)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert compute_delay(config, 0, retry_after=50.0) == 50.0
    assert compute_delay(config, 3, retry_after=0.5) == 8.0
    assert compute_delay(config, 3, delay_multiplier=3.0) == 24.0
    assert compute_delay(config, 1, delay_multiplier=-1.0) == 2.0
    ignoring = RetryConfig(initial_delay=1.0, jitter=False, honor_retry_after=False)
    assert compute_delay(ignoring, 0, retry_after=120.0) == 1.0
    assert compute_delay(RetryConfig(max_delay=1e300, jitter=False), 5000) == 1e300


def test_jitter_spreads_half_to_one_and_a_half() -> None:
    config = RetryConfig(initial_delay=1.0, max_delay=100.0, jitter=True)
    delays = [compute_delay(config, 0) for _ in range(500)]
    assert all(0.5 <= d <= 1.5 for d in delays)
    assert len(set(delays)) > 1


async def test_retries_retryable_errors_and_reports_each() -> None:
    seen: list[tuple[int, float, LLMError]] = []

    async def on_retry(attempt: int, delay: float, error: LLMError) -> None:
        seen.append((attempt, delay, error))

    first = ProviderUnavailableError("down")
    second = RateLimitError("slow down", retry_after=0.0005)
    operation = Flaky(first, second)
    result = await retry_with_backoff(operation, RetryConfig(**FAST), on_retry=on_retry)
    assert result == "done"
    assert operation.calls == 3
    assert [(a, e) for a, _, e in seen] == [(1, first), (2, second)]
    assert seen[0][1] == pytest.approx(0.0001)
    assert seen[1][1] == pytest.approx(0.0005)  # the provider's wait, past max_delay


async def test_gives_up_with_the_last_error() -> None:
    operation = Flaky(*(ProviderUnavailableError(f"fail {n}") for n in range(5)))
    with pytest.raises(ProviderUnavailableError, match="fail 2"):
        await retry_with_backoff(operation, RetryConfig(max_retries=2, **FAST))
    assert operation.calls == 3


@pytest.mark.parametrize(
    "error", [AuthenticationError("bad key"), ValueError("not an LLM error"), LLMError("x")]
)
async def test_does_not_retry_what_cannot_succeed(error: BaseException) -> None:
    operation = Flaky(error)
    with pytest.raises(type(error)):
        await retry_with_backoff(operation, RetryConfig(**FAST))
    assert operation.calls == 1


@pytest.mark.parametrize(
    ("message", "status", "expected"),
    [
        ("Context Length Exceeded", None, ContextLengthError),
        ("too many tokens for model", None, ContextLengthError),
        ("RATE LIMIT EXCEEDED", None, RateLimitError),
        ("too many requests", None, RateLimitError),
        ("invalid api key", None, AuthenticationError),
        ("unauthorized access", None, AuthenticationError),
        ("model not found", None, NotFoundError),
        ("blocked by safety filter", None, ContentFilterError),
        ("content filter context length", None, ContextLengthError),
        ("something unknown", None, LLMError),
        ("rate limit", 404, NotFoundError),
        ("x", 401, AuthenticationError),
        ("x", 403, AccessDeniedError),
        ("x", 413, ContextLengthError),
        ("x", 429, RateLimitError),
        ("x", 503, ProviderUnavailableError),
        ("context length exceeded", 400, ContextLengthError),
        ("unknown error", 400, InvalidRequestError),
        ("unknown error", 422, InvalidRequestError),
        ("unknown error", 409, LLMError),
    ],
)
def test_classify_error_message(message: str, status: int | None, expected: type) -> None:
    assert classify_error_message(message, status_code=status) is expected


def test_truncate_values_keeps_structure() -> None:
    data = {"a": ["x" * 200, 7, None], "b": ("y" * 200,), "c": "short"}
    out = truncate_values(data, max_length=10)
    assert out == {
        "a": ["x" * 10 + "... (truncated 190 chars)", 7, None],
        "b": ("y" * 200,),
        "c": "short",
    }
    assert data["a"][0] == "x" * 200  # the input is not changed


def test_redact_secrets_by_whole_key_in_any_case() -> None:
    data = {"API_KEY": "k", "nested": {"Password": "p", "my_token": "t", "list": [{"auth": 1}]}}
    assert redact_secrets(data) == {
        "API_KEY": "[REDACTED]",
        "nested": {"Password": "[REDACTED]", "my_token": "t", "list": [{"auth": "[REDACTED]"}]},
    }
    assert redact_secrets({"x": 1, 2: "two"}, frozenset({"x"})) == {"x": "[REDACTED]", 2: "two"}
    assert "authorization" in SENSITIVE_KEYS


def test_top_level_names() -> None:
    assert amplifier_core.RetryConfig is RetryConfig
    assert amplifier_core.retry_with_backoff is retry_with_backoff
    assert amplifier_core.classify_error_message is classify_error_message
