"""Retrying an LLM call while its error says a retry may help.

``retry_with_backoff(operation, config)`` awaits ``operation()`` and, when it raises an
:class:`~amplifier_core.llm_errors.LLMError` with ``retryable`` set, waits and tries again, up
to ``config.max_retries`` more times. The wait before retry *n* (0-based) is
``compute_delay(config, n, retry_after, delay_multiplier)``, amplifier-core 2.0.2's engine rule
step by step: ``initial_delay * backoff_factor ** n``, capped at ``max_delay``; scaled by the
error's ``delay_multiplier`` when that is finite and positive (it may pass ``max_delay``); then
at least the ``retry_after`` the provider asked for (when ``honor_retry_after``); then, with
jitter on, times a uniform factor in [0.5, 1.5). Other exceptions, and errors that are not
retryable, propagate at once. ``RetryConfig`` and ``compute_delay`` are also
``amplifier_core._engine``'s, as in 2.0.2.

``classify_error_message`` maps an HTTP status and an error text to the most specific
``LLMError`` class, for providers whose SDK does not say.
"""

from __future__ import annotations

import asyncio
import math
import operator
import random
import warnings
from collections.abc import Awaitable, Callable
from typing import SupportsFloat, SupportsIndex, TypeVar

from ..llm_errors import (
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

__all__ = ["RetryConfig", "classify_error_message", "compute_delay", "retry_with_backoff"]

T = TypeVar("T")

_JITTER_SPREAD = 0.2  # what ``RetryConfig.jitter`` reports when jitter is on
_U32_LIMIT = 2**32  # max_retries and attempt are unsigned 32-bit counts, as in 2.0.2
_DEFAULT_INITIAL_DELAY = 1.0
_DEFAULT_BACKOFF_FACTOR = 2.0


def _count(value: object, where: str) -> int:
    """``value`` as a 0 to 2**32 - 1 count: TypeError for a non-integer, OverflowError out of
    range (2.0.2's rules for ``max_retries`` and ``attempt``)."""
    if not isinstance(value, SupportsIndex):
        raise TypeError(f"{where} must be an integer, got {type(value).__name__}")
    number = operator.index(value)
    if not 0 <= number < _U32_LIMIT:
        raise OverflowError(f"{where} must be from 0 to {_U32_LIMIT - 1}, got {number}")
    return number


def _real(value: object, where: str) -> float:
    """``value`` as a float when it is a real number (``int``, ``float``, anything with
    ``__float__`` or ``__index__``); TypeError otherwise, strings included."""
    if not isinstance(value, (SupportsFloat, SupportsIndex)):
        raise TypeError(f"{where} must be a real number, got {type(value).__name__}")
    return float(value)


def _flag(value: object, where: str) -> bool:
    """``value`` when it is a bool; TypeError otherwise (``1`` is not a bool here)."""
    if not isinstance(value, bool):
        raise TypeError(f"{where} must be a bool, got {type(value).__name__}")
    return value


def _jitter(value: object) -> bool:
    """``jitter`` as a bool: a bool as it is, None as on, a number as whether it is non-zero
    (deprecated), anything else as on with a warning."""
    if value is None:
        return True
    if isinstance(value, bool):
        return value
    try:
        number = _real(value, "RetryConfig: jitter")
    except TypeError:
        warnings.warn(
            "jitter received an unexpected type; defaulting to True", UserWarning, stacklevel=3
        )
        return True
    warnings.warn(
        "passing a float for jitter is deprecated, use a bool", DeprecationWarning, stacklevel=3
    )
    return number != 0.0


class RetryConfig:
    """How often and how long to wait between retries. Read-only once made.

    ``jitter`` takes a bool (a number is accepted, with a deprecation warning: any non-zero
    value turns it on) and reads back as 0.2 (on) or 0.0 (off). ``min_delay`` and
    ``backoff_multiplier`` are older names for ``initial_delay`` and ``backoff_factor``: each
    applies, with a deprecation warning, only while the new name is at its default, so an
    explicit new name wins. Types are checked as amplifier-core 2.0.2 checks them.
    """

    __slots__ = (
        "_backoff_factor",
        "_honor_retry_after",
        "_initial_delay",
        "_jitter",
        "_max_delay",
        "_max_retries",
    )

    def __init__(
        self,
        max_retries: int = 3,
        initial_delay: float = _DEFAULT_INITIAL_DELAY,
        max_delay: float = 60.0,
        backoff_factor: float = _DEFAULT_BACKOFF_FACTOR,
        jitter: bool | float | None = None,
        honor_retry_after: bool = True,
        min_delay: float | None = None,
        backoff_multiplier: float | None = None,
    ) -> None:
        self._max_retries = _count(max_retries, "RetryConfig: max_retries")
        self._initial_delay = _real(initial_delay, "RetryConfig: initial_delay")
        self._max_delay = _real(max_delay, "RetryConfig: max_delay")
        self._backoff_factor = _real(backoff_factor, "RetryConfig: backoff_factor")
        self._jitter = _jitter(jitter)
        self._honor_retry_after = _flag(honor_retry_after, "RetryConfig: honor_retry_after")
        if min_delay is not None:
            old = _real(min_delay, "RetryConfig: min_delay")
            if self._initial_delay == _DEFAULT_INITIAL_DELAY:
                warnings.warn(
                    "min_delay is deprecated, use initial_delay", DeprecationWarning, stacklevel=2
                )
                self._initial_delay = old
        if backoff_multiplier is not None:
            old = _real(backoff_multiplier, "RetryConfig: backoff_multiplier")
            if self._backoff_factor == _DEFAULT_BACKOFF_FACTOR:
                warnings.warn(
                    "backoff_multiplier is deprecated, use backoff_factor",
                    DeprecationWarning,
                    stacklevel=2,
                )
                self._backoff_factor = old

    @property
    def max_retries(self) -> int:
        return self._max_retries

    @property
    def initial_delay(self) -> float:
        return self._initial_delay

    @property
    def max_delay(self) -> float:
        return self._max_delay

    @property
    def backoff_factor(self) -> float:
        return self._backoff_factor

    @property
    def jitter(self) -> float:
        """0.2 when jitter is on, 0.0 when off."""
        return _JITTER_SPREAD if self._jitter else 0.0

    @property
    def honor_retry_after(self) -> bool:
        return self._honor_retry_after

    @property
    def min_delay(self) -> float:
        """Deprecated name of :attr:`initial_delay` (warns)."""
        warnings.warn(
            "min_delay is deprecated, use initial_delay", DeprecationWarning, stacklevel=2
        )
        return self._initial_delay

    @property
    def backoff_multiplier(self) -> float:
        """Deprecated name of :attr:`backoff_factor` (warns)."""
        warnings.warn(
            "backoff_multiplier is deprecated, use backoff_factor", DeprecationWarning, stacklevel=2
        )
        return self._backoff_factor

    def __repr__(self) -> str:
        return (
            f"RetryConfig(max_retries={self._max_retries}, initial_delay={self._initial_delay}, "
            f"max_delay={self._max_delay}, backoff_factor={self._backoff_factor}, "
            f"jitter={self._jitter}, honor_retry_after={self._honor_retry_after})"
        )


def _power(base: float, exponent: int) -> float:
    """``base ** exponent`` that overflows to an infinity instead of raising."""
    try:
        return base**exponent
    except OverflowError:
        return -math.inf if base < 0 and exponent % 2 else math.inf


def _smaller(a: float, b: float) -> float:
    """The smaller of two floats, NaN losing to a number (IEEE 754 minNum, Rust's ``min``)."""
    if math.isnan(a):
        return b
    return a if math.isnan(b) or a <= b else b


def _larger(a: float, b: float) -> float:
    """The larger of two floats, NaN losing to a number (IEEE 754 maxNum, Rust's ``max``)."""
    if math.isnan(a):
        return b
    return a if math.isnan(b) or a >= b else b


def compute_delay(
    config: RetryConfig,
    attempt: int,
    retry_after: float | None = None,
    delay_multiplier: float | None = None,
) -> float:
    """Seconds to wait before retry ``attempt`` (0-based); see the module docstring.

    Deterministic when jitter is off; the caller sleeps. A ``delay_multiplier`` that is not a
    finite positive number is ignored, as is ``retry_after`` when ``honor_retry_after`` is off.
    """
    if not isinstance(config, RetryConfig):
        raise TypeError(f"compute_delay: config must be a RetryConfig, got {type(config).__name__}")
    attempt = _count(attempt, "compute_delay: attempt")
    delay = _smaller(
        config.initial_delay * _power(config.backoff_factor, attempt), config.max_delay
    )
    if delay_multiplier is not None:
        multiplier = _real(delay_multiplier, "compute_delay: delay_multiplier")
        if math.isfinite(multiplier) and multiplier > 0:
            delay *= multiplier
    if retry_after is not None:
        floor = _real(retry_after, "compute_delay: retry_after")
        if config.honor_retry_after:
            delay = _larger(delay, floor)
    if config.jitter:
        delay *= 0.5 + random.random()  # spreads retries over [0.5, 1.5); not for secrets
    return delay


async def retry_with_backoff(
    operation: Callable[[], Awaitable[T]],
    config: RetryConfig | None = None,
    *,
    on_retry: Callable[[int, float, LLMError], Awaitable[None]] | None = None,
) -> T:
    """The result of ``operation()``, retried on retryable LLM errors.

    ``on_retry(attempt, delay, error)`` is awaited before each wait, ``attempt`` counting
    from 1. The last error is raised once the retries are spent.
    """
    if config is None:
        config = RetryConfig()
    attempt = 0
    while True:
        try:
            return await operation()
        except LLMError as error:
            if not error.retryable or attempt >= config.max_retries:
                raise
            delay = compute_delay(
                config,
                attempt,
                retry_after=error.retry_after,
                delay_multiplier=getattr(error, "delay_multiplier", None),
            )
            attempt += 1
            if on_retry is not None:
                await on_retry(attempt, delay, error)
            await asyncio.sleep(delay)


# HTTP statuses that say which error it is; 400 and 422 are an invalid request unless the
# text says more; other statuses leave it to the text.
_BY_STATUS: dict[int, type[LLMError]] = {
    401: AuthenticationError,
    403: AccessDeniedError,
    404: NotFoundError,
    413: ContextLengthError,
    429: RateLimitError,
}
_INVALID_REQUEST_STATUSES = frozenset({400, 422})
# Phrases in the error text, in the order they are tried.
_BY_TEXT: tuple[tuple[tuple[str, ...], type[LLMError]], ...] = (
    (("context length", "too many tokens", "maximum context"), ContextLengthError),
    (("rate limit", "too many requests"), RateLimitError),
    (("authentication", "api key", "unauthorized"), AuthenticationError),
    (("not found",), NotFoundError),
    (("content filter", "safety", "blocked"), ContentFilterError),
)


def classify_error_message(
    message: str,
    *,
    status_code: int | None = None,
    provider: str | None = None,
) -> type[LLMError]:
    """The most specific ``LLMError`` class for a provider error (``provider`` is unused)."""
    if status_code is not None:
        if status_code in _BY_STATUS:
            return _BY_STATUS[status_code]
        if status_code >= 500:
            return ProviderUnavailableError
    text = message.lower()
    for phrases, error in _BY_TEXT:
        if any(phrase in text for phrase in phrases):
            return error
    if status_code in _INVALID_REQUEST_STATUSES:
        return InvalidRequestError
    return LLMError
