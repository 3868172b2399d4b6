"""The handlers on their own: counting tool calls, when the nudge is due, bad state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_todo_reminder import TodoReminderHook, mount, parse_config

Make = Callable[..., MockCoordinator]


async def test_counts_tool_name_and_the_older_tool_key() -> None:
    hook = TodoReminderHook(object(), parse_config({}))
    await hook.on_tool_post("tool:post", {"tool_name": "bash"})
    await hook.on_tool_post("tool:post", {"tool": "read_file"})
    await hook.on_tool_post("tool:post", {"tool_name": "", "tool": "bash"})
    assert hook.calls_without_todo == 3
    await hook.on_tool_post("tool:post", {"tool": "todo"})
    assert hook.calls_without_todo == 0


async def test_a_post_without_a_tool_name_is_not_counted() -> None:
    hook = TodoReminderHook(object(), parse_config({}))
    await hook.on_tool_post("tool:post", {})
    await hook.on_tool_post("tool:post", {"tool_name": None})
    assert hook.calls_without_todo == 0


async def test_tracker_always_continues_with_data_untouched(make_coordinator: Make) -> None:
    coordinator = make_coordinator()
    await mount(coordinator, {})
    data = {"tool_name": "bash", "tool_result": {"success": True, "output": "x"}}
    result = await coordinator.hooks.emit("tool:post", dict(data))
    assert result.action == "continue"
    assert result.data is not None
    assert {key: result.data[key] for key in data} == data


@pytest.mark.parametrize(
    ("tools", "nudged"),
    [
        (None, True),
        (["bash", "todo"], True),
        ([{"name": "todo"}, {"name": "bash"}], True),
        (["bash", "read_file"], False),
        ([{"name": "bash"}], False),
        ([], False),
    ],
)
async def test_no_nudge_when_the_request_does_not_offer_the_todo_tool(
    tools: list[Any] | None, nudged: bool
) -> None:
    hook = TodoReminderHook(object(), parse_config({"nudge_after": 1}))
    await hook.on_tool_post("tool:post", {"tool_name": "bash"})
    data: dict[str, Any] = {"messages": []} if tools is None else {"tools": tools}
    result = await hook.on_event("provider:request", data)
    assert (result.action == "inject_context") is nudged
    assert hook.nudge_calls(data) == (1 if nudged else None)


@pytest.mark.parametrize("state", [None, "garbage", 7, [1, None, "x"], {"status": "pending"}])
async def test_bad_todo_state_never_raises(make_coordinator: Make, state: Any) -> None:
    coordinator = make_coordinator(state)
    await mount(coordinator, {})
    result = await coordinator.hooks.emit("provider:request", {"messages": []})
    assert result.action == "continue"


async def test_reads_the_state_at_each_event(make_coordinator: Make) -> None:
    coordinator = make_coordinator()
    await mount(coordinator, {})
    assert (await coordinator.hooks.emit("provider:request", {})).action == "continue"
    coordinator.todo_state = [  # type: ignore[attr-defined]
        {"content": "Do it", "status": "pending", "activeForm": "Doing it"}
    ]
    first = await coordinator.hooks.emit("provider:request", {})
    assert "[ ] Do it" in (first.context_injection or "")
    coordinator.todo_state[0]["status"] = "completed"  # type: ignore[attr-defined]
    second = await coordinator.hooks.emit("provider:request", {})
    assert "[x] Do it" in (second.context_injection or "")
    assert "1 of 1 done" in (second.context_injection or "")


async def test_two_sessions_count_apart(make_coordinator: Make) -> None:
    one, two = make_coordinator(), make_coordinator()
    await mount(one, {"nudge_after": 1})
    await mount(two, {"nudge_after": 1})
    await one.hooks.emit("tool:post", {"tool_name": "bash"})
    assert (await one.hooks.emit("provider:request", {})).action == "inject_context"
    assert (await two.hooks.emit("provider:request", {})).action == "continue"
