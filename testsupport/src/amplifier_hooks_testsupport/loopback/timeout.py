"""What every HTTP provider module does when its server never answers, as a test each
provider's test file inherits (:class:`TimeoutContract`, driven by the same
:class:`~.tool_choice.ProviderUnderTest` as the tool-choice tests)."""

from __future__ import annotations

import asyncio

import pytest

from .server import LoopbackServer, Reply, Request
from .tool_choice import ProviderUnderTest, chat_request

__all__ = ["TimeoutContract"]


async def _never_answers(request: Request) -> Reply:
    """A handler that holds the request open for good."""
    await asyncio.Event().wait()  # never set
    raise AssertionError("unreachable: the event is never set")


class TimeoutContract:
    """The timeout test every HTTP provider passes; a subclass sets :attr:`provider`."""

    provider: ProviderUnderTest

    async def test_no_answer_within_the_timeout_is_a_timeout_error(self) -> None:
        from amplifier_core import llm_errors

        async with LoopbackServer(_never_answers) as server:
            provider = await self.provider.mounted(server, timeout=0.05)
            with pytest.raises(llm_errors.LLMTimeoutError) as caught:
                await provider.complete(chat_request(None, tools=False))
            await provider.aclose()
        assert caught.value.retryable is True
        assert "no answer within 0.05 s (timeout)" in str(caught.value)
