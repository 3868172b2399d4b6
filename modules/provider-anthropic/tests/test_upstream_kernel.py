"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the provider
answers that kernel's ``ChatRequest`` from a loopback Messages API and fails with its errors.

Set ``AMPLIFIER_CORE_202_PYTHON`` to the interpreter of an environment where
``amplifier-core==2.0.2`` and httpx are installed; the test runs this package (and
amplifier-hooks-util) from source there.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from amplifier_hooks_util.upstream import SKIP_REASON, module_source, run_upstream, upstream_python

SCRIPT = textwrap.dedent(
    """
    import asyncio, os, sys
    from amplifier_core import llm_errors
    from amplifier_core.message_models import ChatRequest, ChatResponse, Message
    from amplifier_core.testing import MockCoordinator
    from amplifier_hooks_util.loopback import (
        AnthropicApi, LoopbackServer, anthropic_error, anthropic_message,
    )
    from amplifier_module_provider_anthropic import mount

    async def main():
        api = AnthropicApi([
            anthropic_message("hello", [("toolu_1", "bash", {"command": "ls"})]),
            anthropic_error(401, "authentication_error", "invalid x-api-key"),
        ])
        async with LoopbackServer(api) as server:
            coordinator = MockCoordinator()
            await mount(coordinator, {"api_key": "test-key", "base_url": server.url})
            provider = coordinator.get("providers")["anthropic"]
            request = ChatRequest(messages=[Message(role="user", content="hi")])
            response = await provider.complete(request)
            assert isinstance(response, ChatResponse), type(response)
            assert response.content[0].text == "hello", response
            calls = provider.parse_tool_calls(response)
            assert [(c.id, c.name) for c in calls] == [("toolu_1", "bash")], calls
            try:
                await provider.complete(request)
            except llm_errors.AuthenticationError as err:
                assert err.status_code == 401, err
            else:
                raise AssertionError("a 401 answered")
            await provider.aclose()
        print("ok")

    asyncio.run(main())
    sys.stdout.flush()
    os._exit(0)  # amplifier-core 2.0.2's engine may crash while the interpreter shuts down
    """
)


@pytest.mark.skipif(not upstream_python(), reason=SKIP_REASON)
def test_mounts_and_answers_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.startswith("ok"), out
