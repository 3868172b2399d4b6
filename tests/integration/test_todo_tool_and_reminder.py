"""tool-todo and hooks-todo-reminder on one coordinator: the list the tool keeps is the list
the reminder shows before the next provider request."""

from __future__ import annotations

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_todo_reminder import mount as mount_reminder
from amplifier_module_tool_todo import mount as mount_todo


async def test_the_reminder_shows_what_the_todo_tool_wrote() -> None:
    coordinator = create_test_coordinator()
    await mount_todo(coordinator, {})
    await mount_reminder(coordinator, {})
    tool = coordinator.get("tools")["todo"]
    item = {"content": "Run the tests", "status": "in_progress", "activeForm": "Running them"}
    written = await tool.execute({"action": "create", "todos": [item]})
    assert written.success, written.error
    result = await coordinator.hooks.emit("provider:request", {"provider": "p", "messages": []})
    assert result.action == "inject_context"
    assert "[>] Running them" in str(result.context_injection)  # the in-progress item
