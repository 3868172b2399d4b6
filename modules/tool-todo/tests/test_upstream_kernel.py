"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the tool
keeps ``coordinator.todo_state`` and fires the plan events through that kernel's hooks.
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
    from amplifier_core import HookResult, ToolResult
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_tool_todo import mount

    async def main():
        coordinator = MockCoordinator()
        seen = []

        async def record(event, data):
            seen.append(event)
            return HookResult()

        coordinator.hooks.register("plan:start", record, name="t1")
        coordinator.hooks.register("plan:end", record, name="t2")
        await mount(coordinator, {})
        tool = coordinator.get("tools")["todo"]
        item = {"content": "Ship it", "status": "in_progress", "activeForm": "Shipping it"}
        done = await tool.execute({"action": "create", "todos": [item]})
        assert isinstance(done, ToolResult) and done.success, done
        assert coordinator.todo_state == [item], coordinator.todo_state
        await tool.execute({"action": "update", "todos": [{**item, "status": "completed"}]})
        listed = await tool.execute({"action": "list"})
        assert listed.output["completed"] == 1, listed.output
        assert seen == ["plan:start", "plan:end"], seen
        print("ok")

    asyncio.run(main())
    """
)


@needs_upstream
def test_mounts_and_keeps_the_list_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.startswith("ok"), out
