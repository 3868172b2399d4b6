"""What the loopback APIs share: check each request, record it, answer from a queue.

A valid request's body is kept in :attr:`CheckedApi.bodies` and answered with the next queued
:class:`Reply`; an invalid one is answered with the API's error shape, its message kept in
:attr:`CheckedApi.rejected`, and consumes nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from .server import Reply, Request

__all__ = ["BodyWords", "CheckedApi", "Invalid", "json_body"]


class Invalid(Exception):
    """A request the API refuses: the message, the HTTP status and the API's own error name
    (Anthropic's error ``type``, OpenAI's error ``code``) when it gives one."""

    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(frozen=True, slots=True)
class BodyWords:
    """How an API words the faults :func:`json_body` finds, each as that API says it
    (``{err}``: the JSON parser's message, ``{key}``: the unknown key)."""

    content_type: str
    not_json: str
    not_object: str
    unknown_key: str
    no_model: str


def json_body(request: Request, top_level: Collection[str], words: BodyWords) -> dict[str, Any]:
    """The request's body: JSON (by its content type and its text), an object, with no key
    outside ``top_level`` and a string ``model``.

    :raises Invalid: the first fault, in ``words``' wording (status 400).
    """
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise Invalid(words.content_type)
    try:
        body = request.json()
    except ValueError as err:
        raise Invalid(words.not_json.format(err=err)) from err
    if not isinstance(body, dict):
        raise Invalid(words.not_object)
    for key in body:
        if key not in top_level:
            raise Invalid(words.unknown_key.format(key=key))
    if not isinstance(body.get("model"), str):
        raise Invalid(words.no_model)
    return body


class CheckedApi(ABC):
    """The handler: validate, record the body in :attr:`bodies`, answer from :attr:`replies`.

    ``api_key`` is the key requests must carry (``None``: the OpenAI-compatible API checks
    no key, as a local server does).
    """

    def __init__(self, replies: Iterable[Reply] = (), *, api_key: str | None = "test-key") -> None:
        self.api_key = api_key
        self.replies: deque[Reply] = deque(replies)
        self.bodies: list[dict[str, Any]] = []
        self.rejected: list[str] = []

    async def __call__(self, request: Request) -> Reply:
        try:
            body = self._validate(request)
        except Invalid as err:
            self.rejected.append(str(err))
            return self._refusal(err)
        self.bodies.append(body)
        if not self.replies:
            return self._nothing_queued()
        return self.replies.popleft()

    top_level: ClassVar[Collection[str]]
    """The keys a request body may have."""
    words: ClassVar[BodyWords]
    """How the API words the faults of a body (:func:`json_body`)."""

    def _validate(self, request: Request) -> dict[str, Any]:
        """The request's JSON body, or :class:`Invalid` saying what the real API would: its
        method, path and headers first, then the body (:func:`json_body`), the API's own
        fields, the messages, the tools and the tool choice."""
        self._check_request(request)
        body = json_body(request, self.top_level, self.words)
        self._check_fields(body)
        self._check_messages(body.get("messages"))
        self._check_tools(body.get("tools"))
        self._check_tool_choice(body)
        return body

    @abstractmethod
    def _check_request(self, request: Request) -> None:
        """The method, the path and the headers (the key among them)."""

    @abstractmethod
    def _check_fields(self, body: dict[str, Any]) -> None:
        """The API's own top-level fields (``max_tokens`` ...)."""

    @abstractmethod
    def _check_messages(self, messages: Any) -> None:
        """The ``messages`` list."""

    @abstractmethod
    def _check_tools(self, tools: Any) -> None:
        """The ``tools`` list (``None`` when absent)."""

    @abstractmethod
    def _check_tool_choice(self, body: dict[str, Any]) -> None:
        """``tool_choice``, against the rest of the body."""

    @abstractmethod
    def _refusal(self, err: Invalid) -> Reply:
        """The API's error answer to an invalid request."""

    @abstractmethod
    def _nothing_queued(self) -> Reply:
        """The answer to a valid request when no reply is queued (a server error)."""
