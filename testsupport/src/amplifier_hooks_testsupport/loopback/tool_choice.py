"""What every HTTP provider module does with a request's ``tool_choice`` and ``top_p``, as tests
each provider's test file inherits (:class:`ToolChoiceContract`).

A provider is described once (:class:`ProviderUnderTest`: its ``mount``, its name, a loopback
API answering once, where its API lists the tools); the contract then checks, against that
API, that ``auto`` sends no choice, that ``none`` without tools sends neither, that a choice
that cannot be met fails with the kernel's ``InvalidRequestError`` before anything is sent, and
that ``top_p`` is sent. The wire form of each choice differs per API and stays in the
provider's own tests, which read the bodies with :meth:`ProviderUnderTest.sent`. The kernel is
imported when a test runs, not at import time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from .api import CheckedApi
from .server import LoopbackServer

__all__ = ["TOOL_NAMES", "ProviderUnderTest", "ToolChoiceContract", "chat_request"]

TOOL_NAMES = ("read_file", "bash")
"""The tools a request offers, in this order."""

_CONFIG: Mapping[str, Any] = {"api_key": "test-key", "max_retries": 0}


def chat_request(tool_choice: Any, *, tools: bool = True, **fields: Any) -> Any:
    """A ``ChatRequest`` asking to look at README.md, offering :data:`TOOL_NAMES` (unless
    ``tools`` is false) with ``tool_choice``; ``fields`` are more of its fields."""
    from amplifier_core.message_models import ChatRequest, Message, ToolSpec

    offered = [
        ToolSpec(name=name, description=f"The {name} tool.", parameters={"type": "object"})
        for name in TOOL_NAMES
    ]
    return ChatRequest(
        messages=[Message(role="user", content="Look at README.md")],
        tools=offered if tools else None,
        tool_choice=tool_choice,
        **fields,
    )


@dataclass(frozen=True, slots=True)
class ProviderUnderTest:
    """One provider module, as the contract drives it."""

    name: str
    """Its name among the coordinator's providers (``anthropic``)."""
    mount: Callable[[Any, dict[str, Any]], Awaitable[Any]]
    api: Callable[[str], CheckedApi]
    """A loopback API that answers once with this text."""
    tool_names: Callable[[dict[str, Any]], list[str]]
    """The names of the tools a request body lists, in the API's form."""

    async def mounted(self, server: LoopbackServer, **config: Any) -> Any:
        """The provider mounted on a test coordinator, sending to ``server``, not retrying;
        ``config``: more of its configuration."""
        from amplifier_core.testing import create_test_coordinator

        coordinator = create_test_coordinator()
        await self.mount(coordinator, {**_CONFIG, "base_url": server.url, **config})
        return coordinator.get("providers")[self.name]

    async def sent(self, request: Any) -> dict[str, Any]:
        """The one body the API received for ``request`` (which it accepted)."""
        api = self.api("ok")
        async with LoopbackServer(api) as server:
            await (await self.mounted(server)).complete(request)
        assert api.rejected == []
        [body] = api.bodies
        return body

    async def refused(self, request: Any, match: str) -> None:
        """``request`` fails with the kernel's ``InvalidRequestError`` matching ``match``,
        naming this provider, and nothing reaches the API."""
        from amplifier_core import llm_errors

        async with LoopbackServer(self.api("never")) as server:
            provider = await self.mounted(server)
            with pytest.raises(llm_errors.InvalidRequestError, match=match) as caught:
                await provider.complete(request)
        assert caught.value.provider == self.name
        assert server.requests == []


class ToolChoiceContract:
    """The tests every HTTP provider passes; a subclass sets :attr:`provider`."""

    provider: ProviderUnderTest

    @pytest.mark.parametrize("tool_choice", [None, "auto", {"type": "auto"}])
    async def test_auto_sends_no_choice(self, tool_choice: Any) -> None:
        body = await self.provider.sent(chat_request(tool_choice))
        assert "tool_choice" not in body
        assert self.provider.tool_names(body) == list(TOOL_NAMES)

    async def test_none_without_tools_sends_neither(self) -> None:
        body = await self.provider.sent(chat_request("none", tools=False))
        assert "tool_choice" not in body
        assert "tools" not in body

    @pytest.mark.parametrize(
        ("tool_choice", "tools", "message"),
        [
            ({"name": "write_file"}, True, "names the tool 'write_file'.*offered: read_file, bash"),
            ("required", False, "asks for a tool call, but the request offers no tools"),
            ("always", True, "tool_choice 'always' is not one of"),
            ({"type": "tool"}, True, "is not one of"),
        ],
    )
    async def test_a_choice_that_cannot_be_met_fails_before_sending(
        self, tool_choice: Any, tools: bool, message: str
    ) -> None:
        await self.provider.refused(chat_request(tool_choice, tools=tools), message)

    async def test_the_requests_top_p_is_sent(self) -> None:
        """Gemini's ``BeforeModel`` ``config.topP`` arrives as ``ChatRequest.top_p``."""
        request = chat_request(None, tools=False, top_p=0.25, temperature=0.5)
        body = await self.provider.sent(request)
        assert (body["top_p"], body["temperature"]) == (0.25, 0.5)
        assert "top_p" not in await self.provider.sent(chat_request(None))
