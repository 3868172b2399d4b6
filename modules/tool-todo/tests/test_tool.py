"""The ``todo`` tool: state on the coordinator, validation, plan events through real hooks."""

from __future__ import annotations

import types
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult, ToolResult
from amplifier_core.testing import create_test_coordinator
from amplifier_module_tool_todo import TodoTool


def _output(result: ToolResult) -> dict[str, Any]:
    assert isinstance(result.output, dict), result
    return result.output


def _item(content: str, status: str) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": f"Doing {content}"}


class _Coordinator:
    """The smallest coordinator the tool needs: an object with ``hooks``."""

    def __init__(self) -> None:
        self.hooks = HookRegistry()
        self.events: list[tuple[str, dict[str, Any]]] = []

        async def record(event: str, data: dict[str, Any]) -> HookResult:
            self.events.append((event, data))
            return HookResult()

        self.hooks.register("plan:start", record, name="plan-recorder")
        self.hooks.register("plan:end", record, name="plan-recorder")


async def _write(tool: TodoTool, *items: dict[str, str]) -> ToolResult:
    result = await tool.execute({"action": "write", "todos": list(items)})
    assert result.success, result.error
    return result


# ------------------------------------------------------------------------------ state


async def test_write_then_read_keeps_the_list_on_the_coordinator() -> None:
    coordinator = _Coordinator()
    tool = TodoTool(coordinator)
    items = [_item("plan", "completed"), _item("build", "in_progress"), _item("ship", "pending")]
    written = await _write(tool, *items)
    assert written.output == {
        "todos": items,
        "total": 3,
        "pending": 1,
        "in_progress": 1,
        "completed": 1,
    }
    assert coordinator.todo_state == items  # type: ignore[attr-defined]
    for entry in coordinator.todo_state:  # type: ignore[attr-defined]
        assert list(entry) == ["content", "status", "activeForm"]
        assert all(isinstance(value, str) for value in entry.values())
    read = await tool.execute({"action": "read"})
    assert read.output == written.output


async def test_write_replaces_the_whole_list_and_drops_unknown_item_keys() -> None:
    coordinator = types.SimpleNamespace(hooks=HookRegistry())
    tool = TodoTool(coordinator)
    await _write(tool, _item("a", "pending"), _item("b", "pending"))
    await _write(tool, {**_item("c", "in_progress"), "id": "7", "priority": "high"})
    assert coordinator.todo_state == [_item("c", "in_progress")]


async def test_read_before_any_write_is_empty() -> None:
    result = await TodoTool(types.SimpleNamespace()).execute({"action": "read"})
    assert result.output == {
        "todos": [],
        "total": 0,
        "pending": 0,
        "in_progress": 0,
        "completed": 0,
    }


async def test_without_a_coordinator_the_tool_keeps_the_list() -> None:
    tool = TodoTool()
    await _write(tool, _item("a", "in_progress"))
    assert tool.todos == [_item("a", "in_progress")]
    read = await tool.execute({"action": "read"})
    assert _output(read)["todos"] == [_item("a", "in_progress")]


async def test_a_list_someone_else_put_on_the_coordinator_is_read() -> None:
    coordinator = create_test_coordinator()
    coordinator.todo_state = [_item("from a module", "pending")]  # type: ignore[attr-defined]
    result = await TodoTool(coordinator).execute({"action": "read"})
    assert _output(result)["todos"] == [_item("from a module", "pending")]


async def test_ecosystem_action_names_are_accepted() -> None:
    tool = TodoTool()
    await tool.execute({"action": "create", "todos": [_item("a", "pending")]})
    await tool.execute({"action": "update", "todos": [_item("a", "completed")]})
    listed = await tool.execute({"action": "list"})
    assert _output(listed)["todos"] == [_item("a", "completed")]


# ------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("tool_input", "field"),
    [
        (
            {"action": "write", "todos": [_item("a", "in_progress"), _item("b", "in_progress")]},
            "todos: at most one item may be in_progress; items [0, 1] are",
        ),
        (
            {"action": "write", "todos": [_item("a", "done")]},
            "todos[0].status: expected one of 'pending'",
        ),
        (
            {"action": "write", "todos": [{"content": "a", "status": "pending"}]},
            "todos[0].activeForm: missing required key",
        ),
        (
            {"action": "write", "todos": [_item("", "pending")]},
            "todos[0].content: expected a non-empty string",
        ),
        ({"action": "write"}, "todos: required when action is 'write'"),
        ({"action": "write", "todos": "a, b"}, "todos: expected a list"),
        ({"action": "delete"}, "action: expected one of 'write' or 'read'"),
        ({"todos": []}, "action: missing required key"),
    ],
)
async def test_bad_input_is_a_failed_result_naming_the_field(
    tool_input: dict[str, Any], field: str
) -> None:
    coordinator = _Coordinator()
    tool = TodoTool(coordinator)
    await _write(tool, _item("keep", "pending"))
    result = await tool.execute(tool_input)
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "InvalidInput"
    assert result.error["message"].startswith("todo: invalid input: ")
    assert field in result.error["message"]
    assert coordinator.todo_state == [_item("keep", "pending")]  # type: ignore[attr-defined]


# ------------------------------------------------------------------------- plan events


async def test_plan_start_and_end_fire_once_per_plan() -> None:
    coordinator = _Coordinator()
    tool = TodoTool(coordinator)
    plan = [_item("a", "in_progress"), _item("b", "pending")]
    await _write(tool, *plan)
    await _write(tool, _item("a", "completed"), _item("b", "in_progress"))
    done = [_item("a", "completed"), _item("b", "completed")]
    await _write(tool, *done)
    await _write(tool, *done)  # still closed: nothing new

    assert [event for event, _ in coordinator.events] == ["plan:start", "plan:end"]
    start, end = coordinator.events[0][1], coordinator.events[1][1]
    assert (start["todos"], start["items"], start["total"]) == (plan, plan, 2)
    assert (end["todos"], end["items"], end["completed"], end["total"]) == (done, done, 2, 2)
    assert "timestamp" in start  # it went through the registry's emit


async def test_a_new_plan_after_a_finished_one_starts_again() -> None:
    coordinator = _Coordinator()
    tool = TodoTool(coordinator)
    await _write(tool, _item("a", "pending"))
    await _write(tool, _item("a", "completed"))
    await _write(tool, _item("a", "completed"), _item("b", "pending"))
    assert [event for event, _ in coordinator.events] == ["plan:start", "plan:end", "plan:start"]


async def test_clearing_an_open_plan_ends_it_with_the_items_it_had() -> None:
    coordinator = _Coordinator()
    tool = TodoTool(coordinator)
    plan = [_item("a", "completed"), _item("b", "pending")]
    await _write(tool, *plan)
    await _write(tool)
    assert coordinator.todo_state == []  # type: ignore[attr-defined]
    event, data = coordinator.events[-1]
    assert event == "plan:end"
    assert (data["items"], data["completed"], data["total"]) == (plan, 1, 2)


async def test_a_list_written_already_done_is_no_plan() -> None:
    coordinator = _Coordinator()
    await _write(TodoTool(coordinator), _item("a", "completed"))
    await _write(TodoTool(coordinator))
    assert coordinator.events == []


async def test_a_handler_changing_the_event_data_cannot_change_the_list() -> None:
    coordinator = types.SimpleNamespace(hooks=HookRegistry())

    def vandal(_event: str, data: dict[str, Any]) -> None:
        data["todos"][0]["status"] = "completed"
        data["items"].clear()

    coordinator.hooks.register("plan:start", vandal, name="vandal")
    tool = TodoTool(coordinator)
    result = await _write(tool, _item("a", "pending"))
    assert coordinator.todo_state == [_item("a", "pending")]
    assert _output(result)["todos"] == [_item("a", "pending")]


async def test_plan_events_reach_a_real_coordinators_hooks() -> None:
    coordinator = create_test_coordinator()
    seen: list[str] = []
    coordinator.hooks.register("plan:*", lambda event, _data: seen.append(event), name="spy")
    tool = TodoTool(coordinator)
    await _write(tool, _item("a", "in_progress"))
    await _write(tool, _item("a", "completed"))
    assert seen == ["plan:start", "plan:end"]
    assert coordinator.todo_state == [_item("a", "completed")]  # type: ignore[attr-defined]


async def test_mount_starts_an_empty_list_on_the_coordinator() -> None:
    from amplifier_module_tool_todo import mount

    coordinator = create_test_coordinator()
    await mount(coordinator, {})
    assert coordinator.todo_state == []  # type: ignore[attr-defined]
    tool = coordinator.get("tools")["todo"]
    await tool.execute({"action": "create", "todos": [_item("Run the tests", "in_progress")]})
    assert coordinator.todo_state == [_item("Run the tests", "in_progress")]  # type: ignore[attr-defined]


async def test_mount_refuses_config_keys_it_does_not_have() -> None:
    from amplifier_hooks_util.config_errors import ConfigError

    from amplifier_module_tool_todo import mount

    with pytest.raises(ConfigError, match="tool-todo: config: colour: unknown key"):
        await mount(create_test_coordinator(), {"colour": "red"})
