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
    from amplifier_module_hooks_todo_reminder import mount, parse_config

    async def main():
        coordinator = MockCoordinator()
        cleanup = await mount(coordinator, {"nudge_after": 2, "priority": 5})
        hooks = coordinator.hooks
        empty = await hooks.emit("provider:request", {"messages": []})
        assert empty.action == "continue", empty

        coordinator.todo_state = [
            {"content": "Do A", "status": "completed", "activeForm": "Doing A"},
            {"content": "Do B", "status": "in_progress", "activeForm": "Doing B"},
            {"content": "Do C", "status": "pending", "activeForm": "Doing C"},
        ]
        shown = await hooks.emit("provider:request", {"messages": []})
        assert shown.action == "inject_context", shown
        assert shown.ephemeral is True, shown
        assert shown.append_to_last_tool_result is True, shown
        assert shown.context_injection_role == "user", shown
        text = shown.context_injection
        assert "Your todo list: 1 of 3 done, 1 in progress, 1 pending" in text, text
        assert "[x] Do A\\n[>] Doing B\\n[ ] Do C" in text, text
        assert "has not been used" not in text, text

        await hooks.emit("tool:post", {"tool": "bash", "tool_name": "bash"})
        await hooks.emit("tool:post", {"tool": "read_file"})
        nudged = await hooks.emit("provider:request", {"messages": []})
        assert "for the last 2 tool calls" in nudged.context_injection, nudged
        await hooks.emit("tool:post", {"tool_name": "todo"})
        calm = await hooks.emit("provider:request", {"messages": []})
        assert "has not been used" not in calm.context_injection, calm

        try:
            parse_config({"event": "provider:requets"})
        except ValueError as err:
            assert "did you mean 'provider:request'" in str(err), err
        else:
            raise AssertionError("a misspelt event was accepted")

        cleanup()
        left = {k: v for k, v in hooks.list_handlers().items() if v}
        assert left == {}, left
        print("ok")

    asyncio.run(main())
    """
)


@needs_upstream
def test_reminds_and_nudges_on_amplifier_core_2_0_2(tmp_path: Path) -> None:
    out = run_upstream(SCRIPT, tmp_path, sources=[module_source(__file__)])
    assert out.strip() == "ok", out
