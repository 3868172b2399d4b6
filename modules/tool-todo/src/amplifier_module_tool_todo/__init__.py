"""tool-todo: the ``todo`` tool, the model's own plan for multi-step work.

``mount(coordinator, config)`` sets ``coordinator.todo_state`` to an empty list (where
Amplifier's tool-todo keeps it, and where hooks-todo-reminder reads it) and mounts the tool
under ``tools`` as ``todo``. It takes our ``write`` / ``read`` actions and Amplifier's
``create`` / ``update`` / ``list``, and fires ``plan:start`` / ``plan:end`` through
``coordinator.hooks``. It runs on amplifier-hooks and on amplifier-core 2.0.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict

from .tool import PLAN_END, PLAN_START, TOOL_NAME, TodoInput, TodoItem, TodoStatus, TodoTool

__all__ = [
    "MODULE_ID",
    "PLAN_END",
    "PLAN_START",
    "TOOL_NAME",
    "TodoConfig",
    "TodoInput",
    "TodoItem",
    "TodoStatus",
    "TodoTool",
    "config_schema",
    "mount",
]

__amplifier_module_type__ = "tool"

MODULE_ID: Final = "tool-todo"


class TodoConfig(BaseModel):
    """Config of ``tool-todo``: it has no keys; anything given is a mistake worth naming."""

    model_config = ConfigDict(extra="forbid", frozen=True)


config_schema = TodoConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""


async def mount(coordinator: Any, config: Mapping[str, Any] | None = None) -> None:
    """Start an empty ``coordinator.todo_state`` and mount the ``todo`` tool under ``tools``."""
    validate_config(TodoConfig, config, owner=MODULE_ID)
    if not isinstance(getattr(coordinator, "todo_state", None), list):
        coordinator.todo_state = []
    await coordinator.mount("tools", TodoTool(coordinator), name=TOOL_NAME)
