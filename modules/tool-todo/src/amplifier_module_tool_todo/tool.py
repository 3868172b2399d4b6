"""The ``todo`` tool: the model's own plan for multi-step work.

The list is a list of dicts ``{content, status, activeForm}`` (status ``pending``,
``in_progress`` or ``completed``), the shape the ecosystem's todo-reminder hook reads from
``coordinator.todo_state``. With a coordinator the tool keeps the list there; without one it
keeps it on itself (:attr:`TodoTool.todos`).

``write`` replaces the whole list (at most one item may be ``in_progress``); ``read`` returns
it. The ecosystem's action names are accepted too: ``create`` and ``update`` mean ``write``,
``list`` means ``read``.

Plan events go through ``coordinator.hooks`` when there is one. A plan is open while some item
is not completed. ``plan:start`` fires when a write opens a plan (the list was empty or all
completed), with data ``{todos, items, total}``; ``plan:end`` fires when a write closes it
(every item completed, or the list cleared), with data ``{todos, items, completed, total}``,
where the items of a cleared plan are those it had. The results of these observer events are
not acted on.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from amplifier_hooks_util.tool_inputs import ToolInputError, check_input, schema_for
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from amplifier_core import ToolResult

__all__ = ["PLAN_END", "PLAN_START", "TOOL_NAME", "TodoInput", "TodoItem", "TodoStatus", "TodoTool"]

TOOL_NAME: Final = "todo"
PLAN_START: Final = "plan:start"
PLAN_END: Final = "plan:end"

TodoStatus = Literal["pending", "in_progress", "completed"]

_ACTION_ALIASES: Final = {"create": "write", "update": "write", "list": "read"}


class TodoItem(BaseModel):
    """One item of the plan."""

    model_config = ConfigDict(extra="ignore")

    content: str = Field(min_length=1, description="What to do, imperative: 'Run the tests'.")
    status: TodoStatus = Field(description="pending, in_progress or completed.")
    activeForm: str = Field(
        min_length=1, description="The same in present continuous: 'Running the tests'."
    )


class TodoInput(BaseModel):
    """Input of the ``todo`` tool."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["write", "read"] = Field(
        description="'write' replaces the whole list with `todos`; 'read' returns it."
    )
    todos: list[TodoItem] | None = Field(
        default=None, description="The complete new list (for 'write')."
    )

    @field_validator("action", mode="before")
    @classmethod
    def _ecosystem_names(cls, value: object) -> object:
        return _ACTION_ALIASES.get(value, value) if isinstance(value, str) else value

    @field_validator("todos")
    @classmethod
    def _one_in_progress(cls, value: list[TodoItem] | None) -> list[TodoItem] | None:
        if value is not None:
            busy = [i for i, item in enumerate(value) if item.status == "in_progress"]
            if len(busy) > 1:
                raise ValueError(
                    f"at most one item may be in_progress; items {busy} are "
                    "(mark the others pending or completed)"
                )
        return value

    @model_validator(mode="after")
    def _write_needs_todos(self) -> TodoInput:
        if self.action == "write" and self.todos is None:
            raise ValueError("todos: required when action is 'write' (an empty list clears it)")
        return self


def _is_open(items: list[dict[str, str]]) -> bool:
    return any(item.get("status") != "completed" for item in items)


def _copy(items: list[dict[str, str]]) -> list[dict[str, str]]:
    return [dict(item) for item in items]


def _summary(items: list[dict[str, str]]) -> dict[str, Any]:
    counts = {"pending": 0, "in_progress": 0, "completed": 0}
    for item in items:
        status = item.get("status", "")
        if status in counts:
            counts[status] += 1
    return {"todos": _copy(items), "total": len(items), **counts}


class TodoTool:
    """Keeps the model's todo list and reports plan start and end as hook events."""

    name = TOOL_NAME
    description = (
        "Keep your own todo list for multi-step work. action 'write' replaces the whole list "
        "with `todos`, each {content, status, activeForm} with status pending, in_progress or "
        "completed (at most one in_progress); action 'read' returns the list. Mark an item "
        "completed as soon as it is done."
    )

    def __init__(self, coordinator: Any | None = None) -> None:
        self.coordinator = coordinator
        self._todos: list[dict[str, str]] = []
        self.input_schema: dict[str, Any] = schema_for(TodoInput)

    @property
    def todos(self) -> list[dict[str, str]]:
        """The current list (``coordinator.todo_state`` when there is a coordinator)."""
        if self.coordinator is None:
            return self._todos
        state = getattr(self.coordinator, "todo_state", None)
        return state if isinstance(state, list) else []

    def _store(self, items: list[dict[str, str]]) -> None:
        if self.coordinator is None:
            self._todos = items
        else:
            self.coordinator.todo_state = items

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        hooks = getattr(self.coordinator, "hooks", None)
        if hooks is not None:
            await hooks.emit(event, data)

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        """``write`` replaces the list, ``read`` returns it; both answer with the counts."""
        try:
            parsed = check_input(self.name, TodoInput, input)
        except ToolInputError as err:
            return ToolResult(success=False, error={"type": "InvalidInput", "message": str(err)})
        if parsed.action == "read" or parsed.todos is None:
            return ToolResult(success=True, output=_summary(self.todos))
        before = self.todos
        after = [item.model_dump() for item in parsed.todos]
        self._store(after)
        if not _is_open(before) and _is_open(after):
            await self._emit(
                PLAN_START,
                {"todos": _copy(after), "items": _copy(after), "total": len(after)},
            )
        elif _is_open(before) and not _is_open(after):
            final = after or before
            await self._emit(
                PLAN_END,
                {
                    "todos": _copy(final),
                    "items": _copy(final),
                    "completed": sum(item.get("status") == "completed" for item in final),
                    "total": len(final),
                },
            )
        return ToolResult(success=True, output=_summary(after))
