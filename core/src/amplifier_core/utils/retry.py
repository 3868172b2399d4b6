"""Retrying an LLM call while its error says a retry may help.

``retry_with_backoff(operation, config)`` awaits ``operation()`` and, when it raises an
:class:`~amplifier_core.llm_errors.LLMError` with ``retryable`` set, waits and tries again, up
to ``config.max_retries`` more times. The wait for retry *n* (0-based) is
``initial_delay * backoff_factor ** n`` capped at ``max_delay``; a ``retry_after`` the provider
asked for wins when longer (and is never capped); the error's ``delay_multiplier`` scales the
result; with jitter on, the wait is spread uniformly over half to one and a half times itself.
Other exceptions, and errors that are not retryable, propagate at once.

``classify_error_message`` maps an HTTP status and an error text to the most specific
``LLMError`` class, for providers whose SDK does not say.
"""

from __future__ import annotations

import asyncio
import math
import random
import warnings
from collections.abc import Awaitable, Callable
from typing import TypeVar

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


class RetryConfig:
    """How often and how long to wait between retries. Read-only once made.

    ``jitter`` takes a bool (a float is accepted, with a deprecation warning: any non-zero
    value turns it on); ``min_delay`` and ``backoff_multiplier`` are older names for
    ``initial_delay`` and ``backoff_factor``.
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
        initial_delay: float = 1.0,
        max_delay: float = 60.0,
        backoff_factor: float = 2.0,
        jitter: bool | float | None = None,
        honor_retry_after: bool = True,
        min_delay: float | None = None,
        backoff_multiplier: float | None = None,
    ) -> None:
        if max_retries < 0:
            raise OverflowError(f"RetryConfig: max_retries must be 0 or more, got {max_retries}")
        if min_delay is not None:
            warnings.warn(
                "min_delay is deprecated, use initial_delay", DeprecationWarning, stacklevel=2
            )
            initial_delay = min_delay
        if backoff_multiplier is not None:
            warnings.warn(
                "backoff_multiplier is deprecated, use backoff_factor",
                DeprecationWarning,
                stacklevel=2,
            )
            backoff_factor = backoff_multiplier
        if jitter is None:
            jitter = True
        elif not isinstance(jitter, bool):
            warnings.warn(
                "passing a float for jitter is deprecated, use a bool",
                DeprecationWarning,
                stacklevel=2,
            )
            jitter = jitter != 0
        self._max_retries = int(max_retries)
        self._initial_delay = float(initial_delay)
        self._max_delay = float(max_delay)
        self._backoff_factor = float(backoff_factor)
        self._jitter = jitter
        self._honor_retry_after = bool(honor_retry_after)

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
        """Deprecated name of :attr:`initial_delay`."""
        return self._initial_delay

    @property
    def backoff_multiplier(self) -> float:
        """Deprecated name of :attr:`backoff_factor`."""
        return self._backoff_factor

    def __repr__(self) -> str:
        return (
            f"RetryConfig(max_retries={self._max_retries}, initial_delay={self._initial_delay}, "
            f"max_delay={self._max_delay}, backoff_factor={self._backoff_factor}, "
            f"jitter={self._jitter}, honor_retry_after={self._honor_retry_after})"
        )


def compute_delay(
    config: RetryConfig,
    attempt: int,
    retry_after: float | None = None,
    delay_multiplier: float | None = None,
) -> float:
    """Seconds to wait before retry ``attempt`` (0-based); see the module docstring."""
    try:
        delay = min(config.initial_delay * config.backoff_factor**attempt, config.max_delay)
    except OverflowError:
        delay = config.max_delay
    if retry_after is not None and config.honor_retry_after and retry_after > delay:
        delay = retry_after
    if delay_multiplier is not None and math.isfinite(delay_multiplier) and delay_multiplier > 0:
        delay *= delay_multiplier
    if config.jitter:
        delay *= random.uniform(0.5, 1.5)  # spreads retries; not for secrets
    return max(delay, 0.0)


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
