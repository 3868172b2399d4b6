"""One check of a provider module against a loopback API, on whichever kernel is installed.

:func:`check_provider_module` mounts the module on the kernel's ``MockCoordinator`` against a
server whose first reply says ``hello`` with one tool call ``(toolu_1, bash)`` and whose second
is a 401, and checks what amplifier-core's Provider protocol promises: a ``ChatResponse`` with
the text and the tool call, then the kernel's ``AuthenticationError``. Provider modules run it
on amplifier-core 2.0.2 from their ``tests/test_upstream_kernel.py``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .api import CheckedApi
from .server import LoopbackServer

__all__ = ["check_provider_module"]

Mount = Callable[[Any, Mapping[str, Any]], Awaitable[Any]]


async def check_provider_module(mount: Mount, name: str, api: CheckedApi) -> None:
    """Mount with ``mount`` against ``api`` and check one answer and one refusal.

    :raises AssertionError: the module does not behave as the protocol says.
    """
    from amplifier_core import llm_errors
    from amplifier_core.message_models import ChatRequest, ChatResponse, Message
    from amplifier_core.testing import MockCoordinator

    async with LoopbackServer(api) as server:
        coordinator = MockCoordinator()
        await mount(coordinator, {"api_key": "test-key", "base_url": server.url})
        provider = coordinator.get("providers")[name]
        request = ChatRequest(messages=[Message(role="user", content="hi")])
        response = await provider.complete(request)
        assert isinstance(response, ChatResponse), type(response)
        assert getattr(response.content[0], "text", None) == "hello", response
        calls = provider.parse_tool_calls(response)
        assert [(c.id, c.name) for c in calls] == [("toolu_1", "bash")], calls
        refused: llm_errors.AuthenticationError | None = None
        try:
            await provider.complete(request)
        except llm_errors.AuthenticationError as err:
            refused = err
        if refused is None or refused.status_code != 401:
            raise AssertionError(f"{name}: a 401 gave {refused!r}, not an AuthenticationError")
        await provider.aclose()
