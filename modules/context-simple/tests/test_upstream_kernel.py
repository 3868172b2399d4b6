"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()`` at
``context``, it keeps the conversation, takes the budget from a provider's ``ModelInfo`` and
compacts, firing the three compaction events through that kernel's hook registry.
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
    import asyncio, inspect, os, sys
    from amplifier_core import HookResult, ModelInfo
    from amplifier_core.interfaces import ContextManager
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_context_simple import NOTE_SOURCE, SimpleContextManager, mount

    class Provider:
        def get_model_info(self):
            return ModelInfo(
                id="small", display_name="Small", context_window=8000, max_output_tokens=1000
            )

    def exchange(n):
        return [
            {"role": "user", "content": f"prompt {n} " + "u" * 2000},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "calling"}],
                "tool_calls": [{"id": f"c{n}", "tool": "bash", "arguments": {"n": n}}],
            },
            {"role": "tool", "tool_call_id": f"c{n}", "content": "r" * 2000},
            {"role": "assistant", "content": "answer " + "a" * 2000},
        ]

    async def main():
        coordinator = MockCoordinator()
        seen = []

        async def record(event, data):
            seen.append((event, dict(data)))
            return HookResult()

        for event in ("context:pre_compact", "context:post_compact", "context:compaction"):
            coordinator.hooks.register(event, record, name="record-" + event)
        await mount(coordinator, {"max_tokens": 1_000_000})
        context = coordinator.get("context")
        assert isinstance(context, SimpleContextManager), type(context)
        for name in ("add_message", "get_messages_for_request", "get_messages",
                     "set_messages", "clear"):  # the protocol's methods, signatures alike
            ours, theirs = getattr(context, name), getattr(ContextManager, name)
            assert inspect.iscoroutinefunction(ours), name
            wanted = list(inspect.signature(theirs).parameters)[1:]
            assert list(inspect.signature(ours).parameters) == wanted, name

        conversation = [{"role": "system", "content": "rules"}]
        conversation += [m for n in range(8) for m in exchange(n)]
        for message in conversation:
            await context.add_message(message)
        assert await context.get_messages_for_request() == conversation
        assert seen == [], seen

        sent = await context.get_messages_for_request(provider=Provider())
        names = [event for event, _ in seen]
        assert names == ["context:pre_compact", "context:post_compact", "context:compaction"]
        pre, post, record = (data for _, data in seen)
        assert pre["budget"] == 6500 and pre["budget_source"] == "provider", pre
        assert post["messages_removed"] > 0, post
        assert record["messages_after"] == len(sent), record
        assert sent[0] == conversation[0]
        assert (sent[1].get("metadata") or {}).get("source") == NOTE_SOURCE, sent[1]
        assert sent[-4:] == conversation[-4:]
        ids = {c["id"] for m in sent for c in m.get("tool_calls", [])}
        assert {m["tool_call_id"] for m in sent if m["role"] == "tool"} == ids
        assert await context.get_messages() == sent

        await context.set_messages(conversation[:5])
        assert await context.get_messages() == conversation[:5]
        await context.clear()
        assert await context.get_messages() == []
        print("ok", len(conversation), "->", len(sent))

    asyncio.run(main())
    """
)


@needs_upstream
def test_mounts_and_compacts_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.startswith("ok "), out
