"""Shared fixtures: a plan in the todo tool's shape and a test coordinator holding a list."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from amplifier_core.testing import MockCoordinator


@pytest.fixture
def plan() -> list[dict[str, str]]:
    """One item done, one in progress, one pending, as the todo tool stores them."""
    return [
        {"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"},
        {"content": "Write the tests", "status": "in_progress", "activeForm": "Writing the tests"},
        {"content": "Update the README", "status": "pending", "activeForm": "Updating the README"},
    ]


@pytest.fixture
def make_coordinator() -> Callable[..., MockCoordinator]:
    """A fresh test coordinator, with ``todo_state`` set when a list is given."""
    from amplifier_core.testing import create_test_coordinator

    def make(todos: Any = None) -> MockCoordinator:
        coordinator = create_test_coordinator()
        if todos is not None:
            coordinator.todo_state = todos  # type: ignore[attr-defined]
        return coordinator

    return make
