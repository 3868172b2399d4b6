"""Provider errors: the hierarchy callers catch by, retryable defaults, attributes, repr."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amplifier_core import llm_errors
from amplifier_core.llm_errors import (
    AbortError,
    AccessDeniedError,
    AuthenticationError,
    ConfigurationError,
    ContentFilterError,
    ContextLengthError,
    InvalidRequestError,
    InvalidToolCallError,
    LLMError,
    LLMTimeoutError,
    NetworkError,
    NotFoundError,
    ProviderUnavailableError,
    QuotaExceededError,
    RateLimitError,
    StreamError,
)

RETRYABLE = [RateLimitError, ProviderUnavailableError, NetworkError, LLMTimeoutError, StreamError]
NOT_RETRYABLE = [
    LLMError,
    QuotaExceededError,
    AuthenticationError,
    AccessDeniedError,
    ContextLengthError,
    ContentFilterError,
    InvalidRequestError,
    NotFoundError,
    AbortError,
    ConfigurationError,
    InvalidToolCallError,
]


@pytest.mark.parametrize("cls", RETRYABLE, ids=lambda c: c.__name__)
def test_transient_failures_are_retryable_unless_the_raiser_says_not(cls: type[LLMError]) -> None:
    assert cls("x").retryable is True
    assert cls("x", retryable=False).retryable is False


@pytest.mark.parametrize("cls", NOT_RETRYABLE, ids=lambda c: c.__name__)
def test_other_failures_are_not_retryable_unless_the_raiser_says_so(cls: type[LLMError]) -> None:
    assert cls("x").retryable is False
    assert cls("x", retryable=True).retryable is True


def test_every_error_is_an_llm_error_and_the_narrower_ones_are_caught_by_their_family() -> None:
    for cls in RETRYABLE + NOT_RETRYABLE:
        assert issubclass(cls, LLMError)
        assert issubclass(cls, Exception)
    with pytest.raises(RateLimitError):
        raise QuotaExceededError("quota", provider="openai")
    with pytest.raises(AuthenticationError):
        raise AccessDeniedError("forbidden", status_code=403)
    with pytest.raises(ProviderUnavailableError):
        raise NetworkError("connection refused")
    assert not issubclass(LLMTimeoutError, TimeoutError)  # only LLMError catches it


def test_the_module_lists_every_error_it_defines() -> None:
    defined = {
        name
        for name, value in vars(llm_errors).items()
        if isinstance(value, type) and issubclass(value, LLMError) and not name.startswith("_")
    }
    assert defined == set(llm_errors.__all__) == {c.__name__ for c in RETRYABLE + NOT_RETRYABLE}


def test_attributes_default_to_unknown_and_keep_what_they_are_given() -> None:
    bare = LLMError("failed")
    assert str(bare) == "failed"
    assert bare.args == ("failed",)
    assert (bare.provider, bare.model, bare.status_code, bare.retry_after) == (None,) * 4
    assert bare.delay_multiplier == 1.0

    full = RateLimitError(
        "slow down",
        provider="anthropic",
        model="claude",
        status_code=429,
        retry_after=2.5,
        delay_multiplier=10.0,
    )
    assert (full.provider, full.model, full.status_code) == ("anthropic", "claude", 429)
    assert (full.retry_after, full.delay_multiplier) == (2.5, 10.0)
    assert QuotaExceededError("q", retry_after=60.0).retry_after == 60.0


def test_an_invalid_tool_call_names_the_tool_and_the_raw_arguments() -> None:
    err = InvalidToolCallError("bad JSON", tool_name="bash", raw_arguments='{"command": ')
    assert (err.tool_name, err.raw_arguments) == ("bash", '{"command": ')
    assert err.retry_after is None
    assert InvalidToolCallError("x").tool_name is None
    with pytest.raises(TypeError):
        InvalidToolCallError("x", retry_after=1.0)  # type: ignore[call-arg]


def test_the_message_is_positional_and_the_rest_keyword_only() -> None:
    with pytest.raises(TypeError):
        LLMError("x", "anthropic")  # type: ignore[misc]


def _translate(native: Exception) -> None:
    try:
        raise native
    except ConnectionResetError as err:
        raise StreamError("stream broke", provider="openai") from err


def test_the_native_error_stays_reachable_as_the_cause() -> None:
    native = ConnectionResetError("peer reset")
    with pytest.raises(LLMError) as caught:
        _translate(native)
    assert caught.value.__cause__ is native


def test_repr_shows_the_message_and_only_what_is_not_a_default() -> None:
    assert repr(LLMError("boom")) == "LLMError('boom')"
    assert repr(NotFoundError("no model", provider="openai", model="gpt-99", status_code=404)) == (
        "NotFoundError('no model', provider='openai', model='gpt-99', status_code=404)"
    )
    assert repr(RateLimitError("slow", retry_after=3.0, delay_multiplier=2.0)) == (
        "RateLimitError('slow', retryable=True, retry_after=3.0, delay_multiplier=2.0)"
    )
    assert repr(StreamError("x", retryable=False)) == "StreamError('x')"


# Each error that changes a default (``retryable``) repeats LLMError's keyword parameters and
# forwards them; these hold the copies equal to LLMError's, the owner.

_FIELDS = ("provider", "model", "status_code", "retryable", "retry_after", "delay_multiplier")
_FORWARDING = [c for c in RETRYABLE + NOT_RETRYABLE if c is not InvalidToolCallError]


@pytest.mark.parametrize("cls", _FORWARDING, ids=lambda c: c.__name__)
def test_every_error_takes_llm_errors_parameters_by_the_same_names_and_kinds(
    cls: type[LLMError],
) -> None:
    def shape(kind: type[LLMError]) -> dict[str, object]:
        parameters = inspect.signature(kind.__init__).parameters.values()
        return {p.name: (p.kind, p.annotation) for p in parameters}

    assert shape(cls) == shape(LLMError), (
        f"{cls.__name__}.__init__ must take LLMError.__init__'s parameters (the owner)"
    )


@given(
    st.sampled_from(_FORWARDING),
    st.none() | st.text(max_size=8),
    st.none() | st.text(max_size=8),
    st.none() | st.integers(100, 599),
    st.booleans(),
    st.none() | st.floats(0, 1e6),
    st.floats(0.1, 100),
)
def test_every_error_keeps_each_field_it_is_given(
    cls: type[LLMError],
    provider: str | None,
    model: str | None,
    status_code: int | None,
    retryable: bool,
    retry_after: float | None,
    delay_multiplier: float,
) -> None:
    given_fields = dict(
        zip(
            _FIELDS,
            (provider, model, status_code, retryable, retry_after, delay_multiplier),
            strict=True,
        )
    )
    err = cls("failed", **given_fields)  # type: ignore[arg-type]
    assert {name: getattr(err, name) for name in _FIELDS} == given_fields, cls.__name__
    assert err.args == ("failed",)
