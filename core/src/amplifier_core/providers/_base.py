"""What the HTTP providers share around their wire formats: construction and the call.

:class:`HttpProvider` owns the model, the :class:`~._http.JsonPoster` and the call itself
(``complete``: build the body, post it, parse the answer). A subclass says what differs: its
``name``, its ``_endpoint``, its key headers (:meth:`HttpProvider._auth_headers`), the request
body (:meth:`HttpProvider.build_body`) and how an answer is read (:meth:`HttpProvider._parse`).

The functions below serve both converters of the provider-neutral conversation; every error
they raise starts with ``"{provider} {model}: "``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from ..chat import ChatRequest, ChatResponse, ProviderError
from ._http import HttpSettings, JsonPoster, OnRetry

__all__ = [
    "HttpProvider",
    "message_key",
    "provider_error",
    "short_repr",
    "text_of",
    "unknown_role",
]

_SHORT: Final = 300


def provider_error(provider: str, model: str, message: str) -> ProviderError:
    """A :class:`ProviderError` whose message is ``"{provider} {model}: {message}"``."""
    return ProviderError(f"{provider} {model}: {message}", provider=provider, model=model)


def short_repr(value: Any) -> str:
    """``repr(value)``, cut to 300 characters, for quoting a bad value in an error."""
    text = repr(value)
    return text if len(text) <= _SHORT else text[:_SHORT] + "..."


def text_of(content: Any) -> str:
    """A message's ``content`` as text (``None`` is empty)."""
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return str(content)


def message_key(provider: str, model: str, message: Any, key: str, where: str) -> Any:
    """``message[key]``, or an error saying that ``where`` (``messages[2]``) has no ``key``."""
    try:
        return message[key]
    except (KeyError, TypeError):
        raise provider_error(provider, model, f"{where} has no {key!r}") from None


def unknown_role(provider: str, model: str, index: int, role: Any) -> ProviderError:
    """The error for ``messages[index]`` whose role is not one of the conversation's four."""
    return provider_error(
        provider,
        model,
        f"messages[{index}] has unknown role {role!r} (expected system, user, assistant or tool)",
    )


class HttpProvider(ABC):
    """A model behind a JSON-over-HTTP API, with the shared timeout, retry and error policy."""

    name: str
    _endpoint: ClassVar[str]
    """The path posted to, after ``base_url`` (``/v1/messages``)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        timeout: float,
        max_retries: int,
        backoff_base: float,
        backoff_max: float,
        headers: Mapping[str, str] | None,
        on_retry: OnRetry | None,
    ) -> None:
        self.model = model
        self._poster = JsonPoster(
            provider=self.name,
            model=model,
            settings=HttpSettings(
                base_url=base_url,
                timeout=timeout,
                max_retries=max_retries,
                backoff_base=backoff_base,
                backoff_max=backoff_max,
                headers=dict(headers or {}),
            ),
            on_retry=on_retry,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def base_url(self) -> str:
        return self._poster.settings.base_url

    @property
    def on_retry(self) -> OnRetry | None:
        """Called before each retry's wait; settable after construction."""
        return self._poster.on_retry

    @on_retry.setter
    def on_retry(self, callback: OnRetry | None) -> None:
        self._poster.on_retry = callback

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._poster.aclose()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` to the API and return the parsed answer."""
        model = request.model or self.model
        body = await self._poster.post(
            self._endpoint, self.build_body(request), self._auth_headers(), model=model
        )
        return self._parse(body, model)

    def _fail(self, message: str, model: str) -> ProviderError:
        return provider_error(self.name, model, message)

    @abstractmethod
    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The API's request body for ``request``."""

    @abstractmethod
    def _auth_headers(self) -> dict[str, str]:
        """The headers that carry the API key (and version), sent with every request."""

    @abstractmethod
    def _parse(self, body: dict[str, Any], model: str) -> ChatResponse:
        """The :class:`ChatResponse` in the API's decoded answer."""
