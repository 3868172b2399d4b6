"""The frame of a provider module that talks JSON over HTTP, and the pieces its converter uses.

:class:`HttpProvider` owns the model, the :class:`~.http.JsonPoster` and the call itself
(:meth:`HttpProvider.post`: build the body, post it, read the answer). A subclass says what
differs: its ``name``, ``endpoint``, key headers, the request body and how an answer is read.
Messages reach a converter as plain dicts (``Message.model_dump()``) in Amplifier's shape:
assistant ``tool_calls`` of ``{id, tool, arguments}`` (``name`` / ``input`` accepted too),
tool results ``{role: tool, tool_call_id, content}``. Kernel-independent: errors are
:class:`~.http.HttpError`; the provider module turns them into the kernel's ``llm_errors``.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Final

from .http import THROTTLE_STATUSES, HttpError, HttpSettings, JsonPoster, OnRetry

__all__ = [
    "HttpProvider",
    "answer_error",
    "call_fields",
    "message_key",
    "short_repr",
    "text_of",
    "unknown_role",
]

_SHORT: Final = 300


def answer_error(provider: str, model: str, message: str) -> HttpError:
    """An error about a request or answer that cannot be converted: ``"{provider} {model}: "``."""
    return HttpError(
        f"{provider} {model}: {message}", provider=provider, model=model, kind="answer"
    )


def short_repr(value: Any) -> str:
    """``repr(value)``, cut to 300 characters, for quoting a bad value in an error."""
    text = repr(value)
    return text if len(text) <= _SHORT else text[:_SHORT] + "..."


def text_of(content: Any) -> str:
    """A message's ``content`` as text: a string, or the ``text`` of its text blocks joined by
    blank lines (other blocks, such as thinking, are not text); ``None`` is empty."""
    if isinstance(content, str):
        return content
    if not content:
        return ""
    if isinstance(content, list):
        texts = [
            b.get("text", "") for b in content if isinstance(b, Mapping) and b.get("type") == "text"
        ]
        return "\n\n".join(t for t in texts if t)
    return json.dumps(content, ensure_ascii=False, default=str)


def message_key(provider: str, model: str, message: Any, key: str, where: str) -> Any:
    """``message[key]``, or an error saying that ``where`` (``messages[2]``) has no ``key``."""
    try:
        value = message[key]
    except (KeyError, TypeError):
        value = None
    if value is None:
        raise answer_error(provider, model, f"{where} has no {key!r}")
    return value


def call_fields(
    provider: str, model: str, call: Any, where: str
) -> tuple[str, str, dict[str, Any]]:
    """``(id, name, arguments)`` of an assistant tool call in Amplifier's shape (or ours)."""
    if not isinstance(call, Mapping):
        raise answer_error(provider, model, f"{where} is not an object: {short_repr(call)}")
    call_id = message_key(provider, model, call, "id", where)
    name = call.get("tool") or call.get("name")
    if not name:
        raise answer_error(provider, model, f"{where} has no 'tool' (the tool's name)")
    arguments = call.get("arguments", call.get("input")) or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            raise answer_error(provider, model, f"{where}.arguments is not JSON") from None
    if not isinstance(arguments, dict):
        raise answer_error(provider, model, f"{where}.arguments is not an object")
    return str(call_id), str(name), arguments


def unknown_role(provider: str, model: str, index: int, role: Any) -> HttpError:
    """The error for ``messages[index]`` whose role a wire format cannot carry."""
    return answer_error(
        provider,
        model,
        f"messages[{index}] has unknown role {role!r} (expected system, developer, user, "
        "assistant or tool)",
    )


class HttpProvider(ABC):
    """A model behind a JSON-over-HTTP API, with the shared timeout, retry and error policy."""

    name: str
    endpoint: ClassVar[str]
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
        self.max_retries = max_retries
        self.poster = JsonPoster(
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
        return self.poster.settings.base_url

    @property
    def endpoint_url(self) -> str:
        """Where requests go: ``base_url`` and ``endpoint``."""
        return self.base_url.rstrip("/") + self.endpoint

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self.poster.aclose()

    async def send(
        self, body: dict[str, Any], model: str, *, hooks: Any = None, request_id: str | None = None
    ) -> dict[str, Any]:
        """Post a request body; the API's decoded answer.

        Before each retry's wait it fires ``provider:throttle`` (HTTP 429 or 529) or
        ``provider:retry`` (anything else retryable) through ``hooks.emit`` when ``hooks`` is
        given, with ``request_id`` so observers can tie them to the request.

        :raises HttpError: the call failed for good (or the API key is missing).
        """

        async def on_retry(retry: int, error: HttpError, delay: float) -> None:
            if hooks is None:
                return
            common = {"provider": self.name, "model": model, "request_id": request_id}
            if error.status in THROTTLE_STATUSES:
                data = {**common, "status_code": error.status, "retry_after": delay}
                await hooks.emit("provider:throttle", data)
                return
            await hooks.emit(
                "provider:retry",
                {
                    **common,
                    "attempt": retry + 1,
                    "max_attempts": self.max_retries + 1,
                    "delay": delay,
                    "error": {"type": type(error).__name__, "message": error.message},
                },
            )

        headers = self.auth_headers()
        return await self.poster.post(self.endpoint, body, headers, model=model, on_retry=on_retry)

    @abstractmethod
    def auth_headers(self) -> dict[str, str]:
        """The headers that carry the API key (and version), sent with every request."""
