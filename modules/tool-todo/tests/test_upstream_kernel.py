"""On amplifier-core 2.0.2, in its own virtual environment: mounted by ``mount()``, the tool
keeps ``coordinator.todo_state`` and fires the plan events through that kernel's hooks.

Set ``AMPLIFIER_CORE_202_PYTHON`` to the interpreter of an environment where
``amplifier-core==2.0.2`` is installed; the test runs this package (and amplifier-hooks-util)
from source there.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from amplifier_hooks_testsupport.upstream import (
    SKIP_REASON,
    module_source,
    run_upstream,
    upstream_python,
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
    sys.stdout.flush()
    os._exit(0)  # amplifier-core 2.0.2's engine may crash while the interpreter shuts down
    """
)


@pytest.mark.skipif(not upstream_python(), reason=SKIP_REASON)
def test_mounts_and_keeps_the_list_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.startswith("ok"), out
