"""The frame of a provider module that talks JSON over HTTP, and the pieces its converter uses.

:class:`HttpProvider` is amplifier-core's Provider protocol for any JSON-over-HTTP model API:
it owns the model, the :class:`~.http.JsonPoster` and the call (``complete``: build the body,
post it with retries and their events, read the answer into a ``ChatResponse``, turn failures
into the kernel's ``llm_errors``). A subclass says what differs: its ``endpoint``, key headers,
how a request body is built, how the request's ``tool_choice`` is written (read once for every
API by :mod:`.tool_choice`) and how an answer is read (into an :class:`Answer`), and hands in
the host kernel's types as a :class:`HostKernel`.
Messages reach a converter as plain dicts (``Message.model_dump()``) in Amplifier's shape:
assistant ``tool_calls`` of ``{id, tool, arguments}`` (``name`` / ``input`` accepted too),
tool results ``{role: tool, tool_call_id, content}``. This package never imports a kernel:
the provider module, which runs on ours or on amplifier-core 2.0.2, passes the one it runs on
in (:class:`HostKernel`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, Field

from .http import (
    THROTTLE_STATUSES,
    HttpError,
    HttpSettings,
    JsonPoster,
    llm_error,
    resolve_api_key,
)
from .tool_choice import ToolChoice, read_tool_choice

__all__ = [
    "Answer",
    "HostKernel",
    "HttpProvider",
    "HttpProviderConfig",
    "answer_error",
    "call_fields",
    "message_key",
    "mount_provider",
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


class HttpProviderConfig(BaseModel):
    """The config keys every HTTP provider module has; a module subclasses it, setting its own
    defaults (``model``, ``name``, ``api_key_env``, ``base_url`` ...) and adding its keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1)
    name: str = Field(min_length=1)
    api_key: str | None = None
    api_key_env: str | None = None
    base_url: str = Field(pattern=r"^https?://")
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=2, ge=0)
    backoff_base: float = Field(default=0.5, ge=0)
    backoff_max: float = Field(default=8.0, ge=0)
    max_tokens: int = Field(default=4096, gt=0)
    temperature: float | None = Field(default=None, ge=0)
    headers: dict[str, str] = Field(default_factory=dict)
    context_window: int = Field(default=128_000, gt=0)


@dataclass(frozen=True, slots=True)
class HostKernel:
    """What a provider hands back to the kernel the host runs (ours or amplifier-core 2.0.2):
    its ``llm_errors`` module, ``ProviderInfo`` and ``ModelInfo``, and ``ChatResponse``'s
    ``model_validate``. The provider module builds it from ``amplifier_core``."""

    llm_errors: ModuleType
    provider_info: Callable[..., Any]
    model_info: Callable[..., Any]
    chat_response: Callable[[dict[str, Any]], Any]


@dataclass(slots=True)
class Answer:
    """What an API's answer holds, as plain data for the kernel's ``ChatResponse``: content
    blocks (``{type: text|thinking, ...}``), tool calls ``{id, name, arguments}``, usage and
    the finish reason."""

    content: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(
        default_factory=lambda: {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    )
    finish_reason: str | None = None


class HttpProvider(ABC):
    """A model behind a JSON-over-HTTP API, with the shared timeout, retry and error policy."""

    name: str
    endpoint: ClassVar[str]
    """The path posted to, after ``base_url`` (``/v1/messages``)."""

    display_name: ClassVar[str]
    capabilities: ClassVar[tuple[str, ...]] = ("tools",)

    def __init__(
        self, config: HttpProviderConfig, *, kernel: HostKernel, hooks: Any = None
    ) -> None:
        self.config = config
        self.kernel = kernel
        self.name = config.name
        self.model = config.model
        self.hooks = hooks
        self.credential_env = config.api_key_env
        self.max_tokens = config.max_tokens
        self.temperature = config.temperature
        self.context_window = config.context_window
        self.max_retries = config.max_retries
        self.poster = JsonPoster(
            provider=config.name,
            model=config.model,
            settings=HttpSettings(
                base_url=config.base_url,
                timeout=config.timeout,
                max_retries=config.max_retries,
                backoff_base=config.backoff_base,
                backoff_max=config.backoff_max,
                headers=dict(config.headers),
            ),
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

    def api_key(self) -> str:
        """The key (``api_key``, else the variable ``api_key_env``); :class:`HttpError` naming
        the variable when neither holds one."""
        return resolve_api_key(self.name, self.config.api_key, self.config.api_key_env)

    @abstractmethod
    def auth_headers(self) -> dict[str, str]:
        """The headers that carry the API key (and version), sent with every request."""

    @abstractmethod
    def request_body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        model: str,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        """The API's request body (messages and ``ToolSpec`` dicts as plain data)."""

    def apply_response_format(self, body: dict[str, Any], response_format: dict[str, Any]) -> None:
        """Ask for the request's ``response_format`` (``{"type": "text" | "json" |
        "json_schema", "schema": ...}``) in ``body``, where the API offers structured output;
        by default the option is ignored, as a provider ignores what it does not support."""
        del body, response_format

    def apply_top_p(self, body: dict[str, Any], top_p: float) -> None:
        """Ask for the request's nucleus sampling ``top_p`` in ``body``: the top-level
        ``top_p`` key, where the Messages and chat completions APIs both read it."""
        body["top_p"] = top_p

    def apply_tool_choice(self, body: dict[str, Any], choice: ToolChoice) -> None:
        """Ask for ``choice`` (the request's ``tool_choice``, read and checked against the
        tools offered by :func:`~.tool_choice.read_tool_choice`) in ``body``, in the API's own
        form; called only when there is a choice to send. By default the request fails
        (kind ``request``) rather than go out without the choice it asks for."""
        del body
        raise HttpError(
            f"{self.name} {self.model}: this provider cannot send tool_choice "
            f"({choice.mode}{' ' + repr(choice.name) if choice.name else ''})",
            provider=self.name,
            model=self.model,
            kind="request",
        )

    @abstractmethod
    def read_answer(self, body: dict[str, Any], model: str) -> Answer:
        """What the API's decoded answer holds; :class:`HttpError` when it cannot be read."""

    # -- amplifier-core's Provider protocol --------------------------------------------------

    def get_info(self) -> Any:
        """What this provider is: the kernel's ``ProviderInfo`` (its ``defaults`` hold the
        model, ``max_tokens``, ``context_window`` and ``max_output_tokens``)."""
        return self.kernel.provider_info(
            id=self.name,
            display_name=self.display_name,
            credential_env_vars=[self.credential_env] if self.credential_env else [],
            capabilities=list(self.capabilities),
            defaults={
                "model": self.model,
                "max_tokens": self.max_tokens,
                "context_window": self.context_window,
                "max_output_tokens": self.max_tokens,
            },
        )

    def get_model_info(self) -> Any:
        """The configured model as the kernel's ``ModelInfo`` (its window and output limit,
        from the config: the API is not asked)."""
        return self.kernel.model_info(
            id=self.model,
            display_name=self.model,
            context_window=self.context_window,
            max_output_tokens=self.max_tokens,
            capabilities=list(self.capabilities),
        )

    async def list_models(self) -> list[Any]:
        """The configured model, as :meth:`get_model_info` gives it (the API is not asked)."""
        return [self.get_model_info()]

    def parse_tool_calls(self, response: Any) -> list[Any]:
        """The tool calls of a response this provider gave."""
        return list(getattr(response, "tool_calls", None) or [])

    async def complete(self, request: Any, **kwargs: Any) -> Any:
        """Send a ``ChatRequest`` to the API and return its answer as a ``ChatResponse``.

        The request's ``model``, ``max_output_tokens``, ``temperature``, ``top_p``,
        ``tool_choice`` and ``response_format`` are honoured (``tool_choice`` in every form
        :mod:`~.tool_choice` reads).

        :raises amplifier_core.llm_errors.LLMError: the call failed (the subclass for why).
        """
        model = request.model or self.model
        metadata = request.metadata or {}
        temperature = request.temperature
        try:
            tools = [t.model_dump() for t in request.tools or []]
            body = self.request_body(
                [m.model_dump() for m in request.messages],
                tools,
                model=model,
                max_tokens=request.max_output_tokens or self.max_tokens,
                temperature=self.temperature if temperature is None else temperature,
            )
            top_p = getattr(request, "top_p", None)
            if top_p is not None:
                self.apply_top_p(body, top_p)
            choice = read_tool_choice(
                getattr(request, "tool_choice", None),
                provider=self.name,
                model=model,
                offered=[str(t.get("name")) for t in tools],
            )
            if choice is not None:
                self.apply_tool_choice(body, choice)
            response_format = getattr(request, "response_format", None)
            if response_format is not None:
                self.apply_response_format(body, response_format.model_dump(by_alias=True))
            raw = await self.send(
                body, model, hooks=self.hooks, request_id=metadata.get("request_id")
            )
            answer = self.read_answer(raw, model)
        except HttpError as err:
            raise llm_error(err, self.kernel.llm_errors) from err
        return self.kernel.chat_response(
            {
                "content": answer.content,
                "tool_calls": answer.tool_calls or None,
                "usage": answer.usage,
                "finish_reason": answer.finish_reason,
            }
        )


async def mount_provider(coordinator: Any, provider: HttpProvider) -> Any:
    """Mount ``provider`` under ``providers`` by its name; the cleanup closes its connections."""
    await coordinator.mount("providers", provider, name=provider.name)
    return provider.aclose
