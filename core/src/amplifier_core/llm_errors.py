"""Errors a provider raises when a model call fails, shared by every provider.

A provider turns its SDK's or HTTP client's failure into one of these (``raise RateLimitError(
..., provider="anthropic") from err``), so an orchestrator, hook or application can react to
"rate limited" or "context too long" without knowing the provider. Each error carries the
provider, model and HTTP status when known, and whether retrying may help (``retryable``, with
``retry_after`` seconds and a ``delay_multiplier`` for the backoff). Import on use::

    from amplifier_core.llm_errors import LLMError, RateLimitError
"""

from __future__ import annotations

__all__ = [
    "AbortError",
    "AccessDeniedError",
    "AuthenticationError",
    "ConfigurationError",
    "ContentFilterError",
    "ContextLengthError",
    "InvalidRequestError",
    "InvalidToolCallError",
    "LLMError",
    "LLMTimeoutError",
    "NetworkError",
    "NotFoundError",
    "ProviderUnavailableError",
    "QuotaExceededError",
    "RateLimitError",
    "StreamError",
]


class LLMError(Exception):
    """A model call failed.

    ``provider`` and ``model`` name where, ``status_code`` is the HTTP status when there was
    one, ``retryable`` says whether the same request may succeed later, ``retry_after`` is the
    wait the provider asked for (seconds), and ``delay_multiplier`` scales the caller's
    backoff delay (1.0 = unchanged): :func:`amplifier_core.utils.retry.compute_delay()` uses
    it, applied after the max_delay cap and before ``retry_after``'s floor, as 2.0.2 does.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        delay_multiplier: float = 1.0,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.model = model
        self.status_code = status_code
        self.retryable = retryable
        self.retry_after = retry_after
        self.delay_multiplier = delay_multiplier

    def __repr__(self) -> str:
        shown = [repr(str(self))]
        for name in ("provider", "model", "status_code"):
            value = getattr(self, name)
            if value is not None:
                shown.append(f"{name}={value!r}")
        if self.retryable:
            shown.append("retryable=True")
        if self.retry_after is not None:
            shown.append(f"retry_after={self.retry_after!r}")
        if self.delay_multiplier != 1.0:
            shown.append(f"delay_multiplier={self.delay_multiplier!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


class _TransientError(LLMError):
    """An LLMError that is retryable unless the raiser says otherwise."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = True,
        retry_after: float | None = None,
        delay_multiplier: float = 1.0,
    ) -> None:
        super().__init__(
            message,
            provider=provider,
            model=model,
            status_code=status_code,
            retryable=retryable,
            retry_after=retry_after,
            delay_multiplier=delay_multiplier,
        )


# --- retryable by default ---------------------------------------------------------------------


class RateLimitError(_TransientError):
    """Too many requests (HTTP 429); ``retry_after`` carries the provider's Retry-After."""


class ProviderUnavailableError(_TransientError):
    """The provider could not serve the request (HTTP 5xx, overloaded)."""


class NetworkError(ProviderUnavailableError):
    """No HTTP response at all: DNS, refused or reset connection, TLS failure."""


class LLMTimeoutError(_TransientError):
    """The provider did not answer in time."""


class StreamError(_TransientError):
    """A streamed response broke off or arrived corrupted after the connection succeeded."""


# --- not retryable by default -----------------------------------------------------------------


class QuotaExceededError(RateLimitError):
    """The account's spending or usage quota is used up: waiting a little will not help."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = False,
        delay_multiplier: float = 1.0,
    ) -> None:
        super().__init__(
            message,
            provider=provider,
            model=model,
            status_code=status_code,
            retryable=retryable,
            retry_after=retry_after,
            delay_multiplier=delay_multiplier,
        )


class AuthenticationError(LLMError):
    """The credentials are missing or invalid (HTTP 401)."""


class AccessDeniedError(AuthenticationError):
    """The credentials are valid but not allowed to do this (HTTP 403)."""


class ContextLengthError(LLMError):
    """The request is longer than the model's context window."""


class ContentFilterError(LLMError):
    """The provider's safety filter blocked the request or the answer."""


class InvalidRequestError(LLMError):
    """The provider rejected the request as malformed (HTTP 400/422)."""


class NotFoundError(LLMError):
    """The model, deployment or endpoint does not exist (HTTP 404)."""


class AbortError(LLMError):
    """The caller cancelled the request (not a provider failure)."""


class ConfigurationError(LLMError):
    """The provider is set up wrongly (missing key, bad base URL, unsupported model)."""


class InvalidToolCallError(LLMError):
    """The model asked for a tool call that cannot be parsed or names no known tool.

    ``tool_name`` is the tool it asked for and ``raw_arguments`` the argument text that failed
    to parse.
    """

    def __init__(
        self,
        message: str,
        *,
        tool_name: str | None = None,
        raw_arguments: str | None = None,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(
            message,
            provider=provider,
            model=model,
            status_code=status_code,
            retryable=retryable,
        )
        self.tool_name = tool_name
        self.raw_arguments = raw_arguments
