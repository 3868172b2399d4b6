"""What the HTTP provider modules share: API keys, timeouts, retries with backoff, errors.

:class:`JsonPoster` posts one JSON body and returns the decoded JSON answer, or raises an
:class:`HttpError` that names the provider, the model, the HTTP status and the API's own error
message; :func:`llm_error` turns it into the kernel's ``llm_errors`` class for that failure
(both kernels have them; the caller passes the host kernel's module in). httpx is this
module's only third-party dependency.

Retry policy (``max_retries`` retries after the first attempt, so ``max_retries=2`` means at
most three requests):

- retried: HTTP 429, 500, 502, 503, 504 and 529, connection errors and timeouts; an
  ``x-should-retry: true|false`` answer header (sent by Anthropic and OpenAI) overrides the
  status;
- the wait is the server's ``retry-after-ms`` or ``retry-after`` header (seconds or an HTTP
  date) when present, else ``backoff_base * 2 ** (retry - 1)`` capped at ``backoff_max``, times
  a random factor in [0.75, 1] (jitter);
- a ``retry-after`` longer than :data:`RETRY_AFTER_LIMIT` is not waited for: the error is
  raised at once (still ``retryable``, with ``retry_after`` set) so the caller decides;
- anything else (400, 401, 403, 404, a 200 whose body is not JSON) is raised at once.

Before each wait ``on_retry(retry, error, delay)`` is called (sync or async); ``retry`` counts
from 1 and ``error`` is the :class:`HttpError` that caused it. A failing callback is
logged and ignored.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from types import ModuleType
from typing import Any, Final, TypeAlias

import httpx

__all__ = [
    "RETRYABLE_STATUSES",
    "RETRY_AFTER_LIMIT",
    "THROTTLE_STATUSES",
    "HttpError",
    "HttpSettings",
    "JsonPoster",
    "OnRetry",
    "api_error_text",
    "llm_error",
    "parse_retry_after",
    "resolve_api_key",
]

_log = logging.getLogger(__name__)

RETRYABLE_STATUSES: Final = frozenset({429, 500, 502, 503, 504, 529})
"""HTTP statuses worth another try: rate limited, overloaded, or a transient server failure."""

THROTTLE_STATUSES: Final = frozenset({429, 529})
"""Statuses that mean "slow down" (rate limited, overloaded) rather than "broken"."""

RETRY_AFTER_LIMIT: Final = 60.0
"""The longest ``retry-after`` (seconds) a provider waits for before giving up at once."""

_SNIPPET: Final = 500
_JSON_HEADERS: Final = {"content-type": "application/json", "accept": "application/json"}


class HttpError(Exception):
    """A call to a provider's API failed; ``retryable`` says whether trying again may help.

    ``kind`` is ``timeout``, ``network``, ``http`` (an error status), ``answer`` (an answer
    that cannot be read), ``request`` (a request that cannot be sent as asked, such as a
    ``tool_choice`` naming a tool not offered) or ``config`` (no key, bad settings).
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        model: str | None = None,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        kind: str = "http",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.model = model
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.kind = kind


OnRetry: TypeAlias = Callable[[int, HttpError, float], Awaitable[None] | None]
"""``on_retry(retry, error, delay)``: called before waiting ``delay`` seconds for a retry."""


@dataclass(frozen=True, slots=True)
class HttpSettings:
    """Where and how patiently a provider talks to its API."""

    base_url: str
    timeout: float = 60.0
    max_retries: int = 2
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    headers: Mapping[str, str] = field(default_factory=dict)

    def problems(self) -> list[str]:
        """What is wrong with these settings (empty when they are usable)."""
        found: list[str] = []
        if not self.base_url.startswith(("http://", "https://")):
            found.append(f"base_url must start with http:// or https://, got {self.base_url!r}")
        if self.timeout <= 0:
            found.append(f"timeout must be > 0 seconds, got {self.timeout}")
        if self.max_retries < 0:
            found.append(f"max_retries must be >= 0, got {self.max_retries}")
        if self.backoff_base < 0 or self.backoff_max < 0:
            found.append("backoff_base and backoff_max must be >= 0")
        return found


def resolve_api_key(
    provider: str, api_key: str | None, api_key_env: str | None, *, model: str | None = None
) -> str:
    """The API key given directly, else the one in the environment variable ``api_key_env``.

    Raises :class:`HttpError` naming the variable when neither holds a key.
    """
    if api_key:
        return api_key
    if api_key_env:
        value = os.environ.get(api_key_env, "").strip()
        if value:
            return value
        raise HttpError(
            f"{provider} provider: no API key: set the {api_key_env} environment variable "
            "or give `api_key` in the provider config",
            provider=provider,
            model=model,
            kind="config",
        )
    raise HttpError(
        f"{provider} provider: no API key: give `api_key` or `api_key_env` in the provider config",
        provider=provider,
        model=model,
        kind="config",
    )


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds the server asks us to wait (``retry-after-ms``, ``retry-after``), if it says."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def api_error_text(body: Any, raw: str) -> str:
    """The API's own error text from an error body, else a snippet of the raw body.

    Understands ``{"type": "error", "error": {"type", "message"}}`` (Anthropic),
    ``{"error": {"message", "type", "code"}}`` (OpenAI and compatible servers),
    ``{"error": "text"}``, ``{"message": "text"}`` and ``{"detail": ...}``.
    """
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            kind = error.get("type") or error.get("code")
            if message:
                return f"{kind}: {message}" if kind else str(message)
            if kind:
                return str(kind)
        elif isinstance(error, str) and error:
            return error
        for key in ("message", "detail"):
            value = body.get(key)
            if value:
                return value if isinstance(value, str) else json.dumps(value)
    text = raw.strip()
    if not text:
        return "(empty body)"
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."


def _amend(error: HttpError, note: str) -> None:
    """Append ``(note)`` to an error's message."""
    error.message = f"{error.message} ({note})"
    error.args = (error.message,)


class JsonPoster:
    """Posts JSON to one API with the shared timeout, retry and error policy.

    The :class:`httpx.AsyncClient` is made on first use (inside the running event loop) and
    reused for later calls; :meth:`aclose` closes it.
    """

    def __init__(
        self,
        *,
        provider: str,
        model: str,
        settings: HttpSettings,
        on_retry: OnRetry | None = None,
    ) -> None:
        problems = settings.problems()
        if problems:
            raise HttpError(
                f"{provider} provider: " + "; ".join(problems),
                provider=provider,
                model=model,
                kind="config",
            )
        self.provider = provider
        self.model = model
        self.settings = settings
        self.on_retry = on_retry
        self._client: httpx.AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._random = random.Random()

    def _http_client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client.is_closed or self._client_loop is not loop:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.settings.timeout), follow_redirects=False
            )
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connection pool (a later call opens a new one)."""
        client, self._client, self._client_loop = self._client, None, None
        if client is not None:
            await client.aclose()

    async def post(
        self,
        path: str,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        *,
        model: str,
        on_retry: OnRetry | None = None,
    ) -> dict[str, Any]:
        """POST ``body`` as JSON to ``base_url + path``; the decoded JSON object of the answer.

        ``headers`` are sent besides the settings' ones (and win over them); ``content-type``
        and ``accept`` are always ``application/json``. ``on_retry`` is called before each
        retry's wait instead of the poster's own callback.
        """
        url = self.settings.base_url.rstrip("/") + path
        all_headers = {**self.settings.headers, **headers, **_JSON_HEADERS}
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempts = self.settings.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return await self._post_once(url, payload, all_headers, model=model)
            except HttpError as error:
                if not error.retryable or attempt == attempts:
                    if attempt > 1:
                        _amend(error, f"gave up after {attempt} attempts")
                    raise
                if error.retry_after is not None and error.retry_after > RETRY_AFTER_LIMIT:
                    _amend(
                        error,
                        f"the API asks to wait {error.retry_after:g} s, more than "
                        f"{RETRY_AFTER_LIMIT:g} s: not retrying",
                    )
                    raise
                delay = self._delay(attempt, error)
                await self._notify(on_retry or self.on_retry, attempt, error, delay)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _delay(self, retry: int, error: HttpError) -> float:
        if error.retry_after is not None:
            return float(error.retry_after)
        backoff = min(self.settings.backoff_max, self.settings.backoff_base * 2.0 ** (retry - 1))
        return backoff * self._random.uniform(0.75, 1.0)

    async def _notify(
        self, callback: OnRetry | None, retry: int, error: HttpError, delay: float
    ) -> None:
        if callback is None:
            return
        try:
            outcome = callback(retry, error, delay)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            _log.exception(
                "%s provider: the on_retry callback failed; retrying anyway", self.provider
            )

    def _error(
        self,
        message: str,
        *,
        model: str,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        kind: str = "http",
    ) -> HttpError:
        return HttpError(
            f"{self.provider} {model}: {message}",
            provider=self.provider,
            model=model,
            status=status,
            retryable=retryable,
            retry_after=retry_after,
            kind=kind,
        )

    async def _post_once(
        self, url: str, payload: bytes, headers: Mapping[str, str], *, model: str
    ) -> dict[str, Any]:
        timeout = self.settings.timeout
        client = self._http_client()
        try:
            async with asyncio.timeout(timeout):
                response = await client.post(url, content=payload, headers=headers)
        except (TimeoutError, httpx.TimeoutException) as err:
            raise self._error(
                f"no answer within {timeout:g} s (timeout) from POST {url}",
                model=model,
                retryable=True,
                kind="timeout",
            ) from err
        except httpx.TransportError as err:
            raise self._error(
                f"could not reach POST {url}: {type(err).__name__}: {err or 'connection failed'}",
                model=model,
                retryable=True,
                kind="network",
            ) from err
        except httpx.HTTPError as err:
            raise self._error(
                f"POST {url} failed: {type(err).__name__}: {err}", model=model, kind="network"
            ) from err
        raw = response.text
        try:
            body: Any = json.loads(raw) if raw else None
            decoded = True
        except ValueError:
            body, decoded = None, False
        if response.status_code >= 400:
            request_id = response.headers.get("request-id") or response.headers.get("x-request-id")
            where = f"POST {url}" + (f", request-id {request_id}" if request_id else "")
            status = response.status_code
            should_retry = response.headers.get("x-should-retry", "").lower()
            retryable = (
                should_retry == "true"
                if should_retry in ("true", "false")
                else status in RETRYABLE_STATUSES
            )
            raise self._error(
                f"HTTP {status}: {api_error_text(body, raw)} ({where})",
                model=model,
                status=status,
                retryable=retryable,
                retry_after=parse_retry_after(response.headers),
            )
        if not decoded or not isinstance(body, dict):
            snippet = raw if len(raw) <= _SNIPPET else raw[:_SNIPPET] + "..."
            what = "not valid JSON" if not decoded else "not a JSON object"
            raise self._error(
                f"HTTP {response.status_code} answer from POST {url} is {what}: {snippet!r}",
                model=model,
                status=response.status_code,
                kind="answer",
            )
        return body


_BY_STATUS: Final = {
    400: "InvalidRequestError",
    401: "AuthenticationError",
    403: "AccessDeniedError",
    404: "NotFoundError",
    408: "LLMTimeoutError",
    413: "ContextLengthError",
    429: "RateLimitError",
}
_BY_KIND: Final = {
    "timeout": "LLMTimeoutError",
    "network": "NetworkError",
    "config": "ConfigurationError",
    "request": "InvalidRequestError",
}


def llm_error(error: HttpError, llm_errors: ModuleType) -> Exception:
    """``error`` as the class of ``llm_errors`` (the host kernel's ``amplifier_core.llm_errors``,
    ours or amplifier-core 2.0.2's) for what went wrong (the status, or the kind of failure),
    keeping its message, status, retryability and wait."""
    name = _BY_KIND.get(error.kind) or _BY_STATUS.get(error.status or 0)
    if name is None:
        name = "ProviderUnavailableError" if (error.status or 0) >= 500 else "LLMError"
    if name == "InvalidRequestError" and "context" in error.message.lower():
        name = "ContextLengthError"
    cls = getattr(llm_errors, name, llm_errors.LLMError)
    converted: Exception = cls(
        error.message,
        provider=error.provider,
        model=error.model,
        status_code=error.status,
        retryable=error.retryable,
        retry_after=error.retry_after,
    )
    converted.__cause__ = error
    return converted
