"""What the loopback APIs share: check each request, record it, answer from a queue.

A valid request's body is kept in :attr:`CheckedApi.bodies` and answered with the next queued
:class:`Reply`; an invalid one is answered with the API's error shape, its message kept in
:attr:`CheckedApi.rejected`, and consumes nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable
from typing import Any

from .server import Reply, Request

__all__ = ["CheckedApi", "Invalid"]


class Invalid(Exception):
    """A request the API refuses: the message, the HTTP status and the API's own error name
    (Anthropic's error ``type``, OpenAI's error ``code``) when it gives one."""

    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


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

    @abstractmethod
    def _validate(self, request: Request) -> dict[str, Any]:
        """The request's JSON body, or :class:`Invalid` saying what the real API would."""

    @abstractmethod
    def _refusal(self, err: Invalid) -> Reply:
        """The API's error answer to an invalid request."""

    @abstractmethod
    def _nothing_queued(self) -> Reply:
        """The answer to a valid request when no reply is queued (a server error)."""
