"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, it answers
that kernel's ``ChatRequest`` with its ``ChatResponse`` and fails with its ``LLMError``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from amplifier_hooks_testsupport.upstream import (
    module_source,
    needs_upstream,
    run_upstream,
)

SCRIPT = textwrap.dedent(
    """
    import asyncio, os, sys
    from amplifier_core.llm_errors import LLMError
    from amplifier_core.message_models import ChatRequest, ChatResponse, Message
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_provider_scripted import mount

    async def main(workspace):
        with open(os.path.join(workspace, "turns.yaml"), "w") as handle:
            handle.write("- text: calling\\n  tool_calls: [{name: bash, input: {command: ls}}]\\n")
            handle.write("- {text: done, expect: listing}\\n")
        coordinator = MockCoordinator()
        coordinator.register_capability("session.working_dir", workspace)
        await mount(coordinator, {"script": "turns.yaml", "name": "offline"})
        provider = coordinator.get("providers")["offline"]

        first = await provider.complete(ChatRequest(messages=[Message(role="user", content="go")]))
        assert isinstance(first, ChatResponse), type(first)
        calls = provider.parse_tool_calls(first)
        got = [(c.id, c.name, c.arguments) for c in calls]
        assert got == [("call_1", "bash", {"command": "ls"})], got

        messages = [
            Message(role="user", content="go"),
            Message(role="assistant", content="calling"),
            Message(role="tool", tool_call_id="call_1", content="the listing"),
        ]
        second = await provider.complete(ChatRequest(messages=messages))
        assert second.content[0].text == "done" and second.usage.total_tokens > 0

        try:
            await provider.complete(ChatRequest(messages=messages))
        except LLMError as err:
            assert "exhausted" in str(err) and err.retryable is False, err
        else:
            raise AssertionError("an exhausted script answered")
        print("ok")

    asyncio.run(main(sys.argv[1]))
    """
)


@needs_upstream
def test_mounts_and_answers_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], args=[str(tmp_path)])
    assert out.startswith("ok"), out
