"""The module on amplifier-core 2.0.2, in its own environment (``nox -s compat`` sets it up)."""

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
    import asyncio
    from amplifier_core.testing import MockCoordinator
    from amplifier_core.models import HookResult
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from amplifier_module_hooks_otel import Pipeline, mount

    async def main():
        memory = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(memory))
        coordinator = MockCoordinator()

        async def deny(event, data):
            return HookResult(action="deny", reason="no")

        coordinator.hooks.register("tool:pre", deny, priority=5, name="guard")
        cleanup = await mount(coordinator, {"metrics": False}, pipeline=Pipeline(provider, None))
        await coordinator.hooks.emit("session:start", {"session_id": "s1"})
        await coordinator.hooks.emit("prompt:submit", {"session_id": "s1", "prompt": "hi"})
        await coordinator.hooks.emit(
            "provider:request", {"session_id": "s1", "provider": "p", "model": "m"}
        )
        await coordinator.hooks.emit(
            "provider:response", {"session_id": "s1", "usage": {"input_tokens": 3}}
        )
        data = {"session_id": "s1", "tool_name": "bash", "tool_call_id": "c1"}
        denied = await coordinator.hooks.emit("tool:pre", data)
        assert denied.action == "deny", denied
        await coordinator.hooks.emit("tool:post", data)
        await coordinator.hooks.emit("prompt:complete", {"session_id": "s1"})
        await coordinator.hooks.emit("session:end", {"session_id": "s1"})
        cleanup()
        names = sorted(s.name for s in memory.get_finished_spans())
        assert names == [
            "amplifier.session", "amplifier.turn", "chat m", "execute_tool bash"
        ], names
        left = {k: v for k, v in coordinator.hooks.list_handlers().items() if v}
        assert left == {"tool:pre": ["guard"]}, left  # only the test's own handler
        print("ok")

    asyncio.run(main())
    """
)


@needs_upstream
def test_mounts_and_traces_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)], timeout=120)
    assert out.strip().endswith("ok"), out
