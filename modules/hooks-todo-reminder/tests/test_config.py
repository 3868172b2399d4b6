"""Each config key has its effect through real emits; bad config is rejected clearly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from amplifier_core.models import HookResult
from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_todo_reminder import (
    DEFAULT_NUDGE_TEXT,
    REMINDER_HANDLER,
    TRACKER_HANDLER,
    TodoReminderConfig,
    mount,
    parse_config,
)

Make = Callable[..., MockCoordinator]
Plan = list[dict[str, str]]


async def injected(coordinator: MockCoordinator, event: str = "provider:request") -> str | None:
    """What the reminder injects at ``event`` (None when it returns continue)."""
    result = await coordinator.hooks.emit(event, {"messages": []})
    if result.action != "inject_context":
        assert result.context_injection is None
        return None
    return result.context_injection


async def tool_calls(coordinator: MockCoordinator, *names: str) -> None:
    for name in names:
        await coordinator.hooks.emit("tool:post", {"tool_name": name, "tool_result": {}})


def test_defaults() -> None:
    config = parse_config(None)
    assert config == TodoReminderConfig(
        event="provider:request",
        statuses=["completed", "in_progress", "pending"],
        show_completed=True,
        max_items=20,
        nudge_after=10,
        nudge_text=DEFAULT_NUDGE_TEXT,
        todo_tool="todo",
        inject_role="user",
        append_to_last_tool_result=True,
        priority=10,
    )


async def test_default_result_is_an_ephemeral_injection(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {})
    result = await coordinator.hooks.emit("provider:request", {"messages": []})
    assert result.action == "inject_context"
    assert result.ephemeral is True
    assert result.append_to_last_tool_result is True
    assert result.context_injection_role == "user"
    assert result.context_injection is not None
    assert "[>] Writing the tests" in result.context_injection


async def test_event_moves_the_reminder(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"event": "prompt:submit"})
    assert await injected(coordinator, "provider:request") is None
    assert "[x] Write the parser" in (await injected(coordinator, "prompt:submit") or "")
    assert coordinator.hooks.list_handlers("prompt:submit") == {"prompt:submit": [REMINDER_HANDLER]}


def test_event_alias_is_stored_canonical() -> None:
    assert parse_config({"event": "PromptSubmit"}).event == "prompt:submit"


async def test_event_tool_post_counts_the_call_before_it_nudges(make_coordinator: Make) -> None:
    coordinator = make_coordinator()
    await mount(coordinator, {"event": "tool:post", "nudge_after": 2})
    first = await coordinator.hooks.emit("tool:post", {"tool_name": "bash"})
    second = await coordinator.hooks.emit("tool:post", {"tool_name": "bash"})
    assert first.action == "continue"
    assert second.action == "inject_context"
    assert "last 2 tool calls" in (second.context_injection or "")


async def test_statuses_choose_what_is_listed(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"statuses": ["pending", "in_progress"]})
    text = await injected(coordinator) or ""
    assert "[ ] Update the README" in text
    assert "[>] Writing the tests" in text
    assert "Write the parser" not in text
    assert "1 of 3 done" in text  # the count line still counts every item


async def test_statuses_that_match_nothing_inject_nothing(make_coordinator: Make) -> None:
    done = [{"content": "Ship", "status": "completed", "activeForm": "Shipping"}]
    coordinator = make_coordinator(done)
    await mount(coordinator, {"statuses": ["pending"]})
    assert await injected(coordinator) is None


async def test_show_completed_false_hides_completed(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"show_completed": False})
    text = await injected(coordinator) or ""
    assert "Write the parser" not in text
    assert "[>] Writing the tests" in text
    assert "[ ] Update the README" in text
    assert "1 of 3 done" in text


async def test_show_completed_false_with_a_finished_plan_injects_nothing(
    make_coordinator: Make,
) -> None:
    done = [{"content": "Ship", "status": "completed", "activeForm": "Shipping"}]
    coordinator = make_coordinator(done)
    await mount(coordinator, {"show_completed": False})
    assert await injected(coordinator) is None


async def test_max_items_cuts_with_a_count(make_coordinator: Make) -> None:
    many = [
        {"content": f"Step {n}", "status": "pending", "activeForm": f"Doing step {n}"}
        for n in range(1, 31)
    ]
    coordinator = make_coordinator(many)
    await mount(coordinator, {"max_items": 5})
    text = await injected(coordinator) or ""
    assert [line for line in text.splitlines() if line.startswith("[ ]")] == [
        f"[ ] Step {n}" for n in range(1, 6)
    ]
    assert "... and 25 more (25 pending)" in text


async def test_max_items_default_is_twenty_and_null_shows_all(make_coordinator: Make) -> None:
    many = [
        {"content": f"Step {n}", "status": "pending", "activeForm": f"Doing step {n}"}
        for n in range(1, 31)
    ]
    capped = make_coordinator(many)
    await mount(capped, {})
    text = await injected(capped) or ""
    assert sum(line.startswith("[ ]") for line in text.splitlines()) == 20
    assert "... and 10 more (10 pending)" in text

    unlimited = make_coordinator(many)
    await mount(unlimited, {"max_items": None})
    text = await injected(unlimited) or ""
    assert sum(line.startswith("[ ]") for line in text.splitlines()) == 30
    assert "more" not in text


async def test_nudge_after_counts_tool_calls(make_coordinator: Make) -> None:
    coordinator = make_coordinator()
    await mount(coordinator, {"nudge_after": 3})
    await tool_calls(coordinator, "bash", "read_file")
    assert await injected(coordinator) is None
    await tool_calls(coordinator, "bash")
    assert "has not been used for the last 3 tool calls" in (await injected(coordinator) or "")
    await tool_calls(coordinator, "bash")
    assert "last 4 tool calls" in (await injected(coordinator) or "")
    await tool_calls(coordinator, "todo")
    assert await injected(coordinator) is None


async def test_nudge_after_default_is_ten(make_coordinator: Make) -> None:
    coordinator = make_coordinator()
    await mount(coordinator, {})
    await tool_calls(coordinator, *["bash"] * 9)
    assert await injected(coordinator) is None
    await tool_calls(coordinator, "bash")
    assert "last 10 tool calls" in (await injected(coordinator) or "")


async def test_nudge_after_zero_never_nudges_and_counts_nothing(make_coordinator: Make) -> None:
    coordinator = make_coordinator()
    await mount(coordinator, {"nudge_after": 0})
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": []}
    await tool_calls(coordinator, *["bash"] * 50)
    assert await injected(coordinator) is None


async def test_nudge_text_replaces_count(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"nudge_after": 1, "nudge_text": "{count} calls, no plan update."})
    await tool_calls(coordinator, "bash", "bash")
    text = await injected(coordinator) or ""
    assert "\n2 calls, no plan update.\n" in text
    assert DEFAULT_NUDGE_TEXT.split("{count}")[0] not in text


async def test_todo_tool_names_the_tool_that_resets(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"nudge_after": 2, "todo_tool": "TodoWrite"})
    await tool_calls(coordinator, "todo", "todo")  # not the configured tool: counted
    text = await injected(coordinator) or ""
    assert "last 2 tool calls" in text
    assert "Keep it current with the TodoWrite tool" in text
    await tool_calls(coordinator, "TodoWrite")
    assert "tool calls" not in (await injected(coordinator) or "")


async def test_inject_role(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"inject_role": "system"})
    result = await coordinator.hooks.emit("provider:request", {})
    assert result.context_injection_role == "system"


async def test_append_to_last_tool_result_off(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    await mount(coordinator, {"append_to_last_tool_result": False})
    result = await coordinator.hooks.emit("provider:request", {})
    assert result.action == "inject_context"
    assert result.append_to_last_tool_result is False


@pytest.mark.parametrize(("priority", "first"), [(5, REMINDER_HANDLER), (15, "other")])
async def test_priority_orders_the_handler(
    make_coordinator: Make, plan: Plan, priority: int, first: str
) -> None:
    coordinator = make_coordinator(plan)
    seen: list[str] = []

    def other(event: str, data: dict[str, Any]) -> HookResult:
        seen.append("other")
        return HookResult()

    coordinator.hooks.register("provider:request", other, priority=10, name="other")
    await mount(coordinator, {"priority": priority, "nudge_after": 1})
    assert coordinator.hooks.list_handlers("provider:request")["provider:request"][0] == first
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": [TRACKER_HANDLER]}


async def test_cleanup_unregisters_both(make_coordinator: Make, plan: Plan) -> None:
    coordinator = make_coordinator(plan)
    cleanup = await mount(coordinator, {})
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": [TRACKER_HANDLER]}
    cleanup()
    assert coordinator.hooks.list_handlers("tool:post") == {"tool:post": []}
    assert coordinator.hooks.list_handlers("provider:request") == {"provider:request": []}
    assert await injected(coordinator) is None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"evnt": "prompt:submit"}, "evnt: unknown key 'evnt' (did you mean 'event'?)"),
        (
            {"event": "provider:requets"},
            "event: expected an event of the kernel, got 'provider:requets'; "
            "did you mean 'provider:request'?",
        ),
        ({"event": "tool:*"}, "event: expected one event name, not the pattern 'tool:*'"),
        ({"event": 3}, "event: expected a string, got int 3"),
        ({"statuses": "pending"}, "statuses: expected a list, got str 'pending'"),
        ({"statuses": []}, "statuses: expected at least one of completed, in_progress, pending"),
        (
            {"statuses": ["done"]},
            "statuses[0]: expected one of 'pending', 'in_progress' or 'completed', got str 'done'",
        ),
        ({"statuses": ["pending", "pending"]}, "expected each status once, got pending twice"),
        (
            {"statuses": ["completed"], "show_completed": False},
            "config: show_completed is false but statuses lists completed; keep one of the two",
        ),
        (
            {"show_completed": "sometimes"},
            "show_completed: expected true or false, got str 'sometimes'",
        ),
        ({"max_items": 0}, "max_items: expected a number at least 1, got int 0"),
        ({"max_items": "all"}, "max_items: expected an integer, got str 'all'"),
        ({"nudge_after": -1}, "nudge_after: expected a number at least 0, got int -1"),
        ({"nudge_text": ""}, "nudge_text: expected a non-empty string, got str ''"),
        ({"todo_tool": ""}, "todo_tool: expected a non-empty string, got str ''"),
        (
            {"inject_role": "tool"},
            "inject_role: expected one of 'user', 'system' or 'assistant', got str 'tool'",
        ),
        (
            {"append_to_last_tool_result": []},
            "append_to_last_tool_result: expected true or false, got a list",
        ),
        ({"priority": "high"}, "priority: expected an integer, got str 'high'"),
    ],
)
async def test_bad_config_is_rejected_clearly(
    make_coordinator: Make, config: dict[str, Any], message: str
) -> None:
    coordinator = make_coordinator()
    with pytest.raises(ValueError, match=r"^hooks-todo-reminder: config: ") as caught:
        await mount(coordinator, config)
    assert message in str(caught.value)
    assert coordinator.hooks.list_handlers("provider:request") == {"provider:request": []}


async def test_config_that_is_not_a_mapping_is_rejected(make_coordinator: Make) -> None:
    with pytest.raises(
        ValueError, match=r"^hooks-todo-reminder: config: expected a mapping of keys, got"
    ):
        await mount(make_coordinator(), ["nudge_after", 3])  # type: ignore[arg-type]
