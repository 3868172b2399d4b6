"""A small HTTP/1.1 server on 127.0.0.1, in the test's own event loop.

It reads each request (request line, headers, a ``content-length`` body), keeps it in
:attr:`LoopbackServer.requests`, and answers with whatever the handler returns. Connections
are kept alive between requests, as a real API server does, and closed with the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any

__all__ = ["Handler", "LoopbackServer", "Reply", "Request", "closed_port"]

_REASONS = {529: "Overloaded"}


@dataclass
class Request:
    """One request as the server read it; header names are lower-case."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    """What to answer: ``body`` a dict or list is sent as JSON, str or bytes as they are."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def encode(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode(), "text/plain; charset=utf-8"
        if self.body is None:
            return b"", "text/plain"
        return json.dumps(self.body).encode(), "application/json"


Handler = Callable[[Request], Awaitable[Reply]]


class LoopbackServer:
    """``async with LoopbackServer(handler) as server:`` serves ``server.url``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._server is None:
            return
        server, self._server = self._server, None
        server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                request = await self._read(reader)
                if request is None:
                    return
                self.requests.append(request)
                reply = await self.handler(request)
                if reply.delay:
                    await asyncio.sleep(reply.delay)
                writer.write(self._render(reply))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            # ending quietly: on Python 3.11 asyncio logs a cancelled connection task as an error
            return
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await writer.wait_closed()

    @staticmethod
    async def _read(reader: asyncio.StreamReader) -> Request | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        request_line, *lines = head.decode("latin-1").split("\r\n")
        method, target, _version = request_line.split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        body = await reader.readexactly(length) if length else b""
        return Request(method=method, path=target, headers=headers, body=body)

    @staticmethod
    def _render(reply: Reply) -> bytes:
        body, content_type = reply.encode()
        try:
            reason = HTTPStatus(reply.status).phrase
        except ValueError:
            reason = _REASONS.get(reply.status, "Unknown")
        headers = {"content-type": content_type, **reply.headers}
        headers["content-length"] = str(len(body))
        headers.setdefault("connection", "keep-alive")
        head = f"HTTP/1.1 {reply.status} {reason}\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in headers.items()
        )
        return (head + "\r\n").encode("latin-1") + body


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
