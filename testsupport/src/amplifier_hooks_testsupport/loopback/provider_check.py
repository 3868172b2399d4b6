"""One check of a provider module against a loopback API, on whichever kernel is installed.

:func:`check_provider_module` mounts the module on the kernel's ``MockCoordinator`` against a
server whose first reply says ``hello`` with one tool call ``(toolu_1, bash)`` and whose second
is a 401, and checks what amplifier-core's Provider protocol promises: a ``ChatResponse`` with
the text and the tool call, then the kernel's ``AuthenticationError``.
:func:`check_provider_package` runs it on one of this repository's provider modules against
that provider's own loopback API, then the kernel's ``ProviderValidator``: the provider
modules run it on amplifier-core 2.0.2 from their ``tests/test_upstream_kernel.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from .anthropic_api import AnthropicApi, anthropic_error, anthropic_message
from .api import CheckedApi
from .openai_api import OpenAIApi, openai_completion, openai_error
from .server import LoopbackServer

__all__ = ["PROVIDER_APIS", "check_provider_module", "check_provider_package"]

Mount = Callable[[Any, Mapping[str, Any]], Awaitable[Any]]

PROVIDER_APIS: Final[Mapping[str, Callable[[], CheckedApi]]] = {
    "anthropic": lambda: AnthropicApi(
        [
            anthropic_message("hello", [("toolu_1", "bash", {"command": "ls"})]),
            anthropic_error(401, "authentication_error", "invalid x-api-key"),
        ]
    ),
    "openai": lambda: OpenAIApi(
        [
            openai_completion("hello", [("toolu_1", "bash", '{"command": "ls"}')]),
            openai_error(401, "bad key", "invalid_request_error", "invalid_api_key"),
        ]
    ),
}
"""Provider name -> its loopback API holding the two replies :func:`check_provider_module`
expects: ``hello`` with the tool call ``(toolu_1, bash)``, then a 401."""


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


async def check_provider_package(name: str) -> None:
    """``amplifier_module_provider_<name>`` checked by :func:`check_provider_module` against
    :data:`PROVIDER_APIS` ``[name]``, then by the installed kernel's ``ProviderValidator``
    (mounted with no config and no key).

    :raises KeyError: no loopback API for ``name``.
    :raises AssertionError: the module does not behave as the protocol says, or the validator
        finds it wanting (the message lists the validator's errors).
    """
    from amplifier_core.validation.provider import ProviderValidator

    api = PROVIDER_APIS[name]()
    package = f"amplifier_module_provider_{name}"
    module = importlib.import_module(package)
    await check_provider_module(module.mount, name, api)
    result = await ProviderValidator().validate(package)
    assert result.passed, f"{package}: {[check.message for check in result.errors]}"
