"""The reminder's text: marks, count line, order, truncation, and robustness to bad state."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_module_hooks_todo_reminder import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    parse_config,
    render_reminder,
)
from amplifier_module_hooks_todo_reminder.render import MAX_ITEM_CHARS, normalise

DEFAULT = parse_config({})


def todo(content: str, status: str, active: str | None = None) -> dict[str, str]:
    return {"content": content, "status": status, "activeForm": active or f"{content}ing"}


def body(text: str | None) -> list[str]:
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == BLOCK_OPEN
    assert lines[-1] == BLOCK_CLOSE
    return lines[1:-1]


def test_the_whole_block_for_a_plan(plan: list[dict[str, str]]) -> None:
    assert render_reminder(plan, DEFAULT) == "\n".join(
        [
            '<system-reminder source="hooks-todo-reminder">',
            "Your todo list: 1 of 3 done, 1 in progress, 1 pending",
            "[x] Write the parser",
            "[>] Writing the tests",
            "[ ] Update the README",
            "",
            "Keep it current with the todo tool as you work. This reminder comes from the "
            "session, not from the user: do not mention it.",
            "</system-reminder>",
        ]
    )


@pytest.mark.parametrize("state", [None, [], (), "not a list", 42, {"content": "x"}])
def test_nothing_without_a_list_and_without_a_nudge(state: Any) -> None:
    assert render_reminder(state, DEFAULT) is None


def test_nudge_alone_when_there_is_no_list() -> None:
    lines = body(render_reminder([], DEFAULT, nudge_calls=12))
    assert lines[0].startswith("The todo tool has not been used for the last 12 tool calls.")
    assert lines[-1] == (
        "This reminder comes from the session, not from the user: do not mention it."
    )
    assert not any(line.startswith("Your todo list") for line in lines)


def test_nudge_follows_the_list(plan: list[dict[str, str]]) -> None:
    lines = body(render_reminder(plan, DEFAULT, nudge_calls=10))
    assert lines[:4] == [
        "Your todo list: 1 of 3 done, 1 in progress, 1 pending",
        "[x] Write the parser",
        "[>] Writing the tests",
        "[ ] Update the README",
    ]
    assert lines[5].startswith("The todo tool has not been used for the last 10 tool calls.")


def test_items_keep_list_order_and_in_progress_shows_active_form() -> None:
    state = [
        todo("Ship", "pending"),
        todo("Build", "in_progress", "Building it"),
        todo("Plan", "completed"),
    ]
    assert body(render_reminder(state, DEFAULT))[1:4] == ["[ ] Ship", "[>] Building it", "[x] Plan"]


def test_item_text_is_one_line_and_bounded() -> None:
    long = "word " * 100
    state = [todo("Fix\nthe   bug\tnow", "pending"), todo(long, "pending")]
    lines = body(render_reminder(state, DEFAULT))
    assert lines[1] == "[ ] Fix the bug now"
    assert len(lines[2]) == len("[ ] ") + MAX_ITEM_CHARS
    assert lines[2].endswith("...")


def test_bad_entries_are_skipped_and_unknown_status_counts_as_pending() -> None:
    state: list[Any] = [
        "just a string",
        None,
        {"status": "pending"},  # no text
        {"content": "   ", "status": "pending", "activeForm": ""},  # blank text
        {"content": "Odd status", "status": "blocked"},
        {"status": "in_progress", "activeForm": "Only an active form"},
        {"content": "No active form", "status": "in_progress"},
    ]
    items = normalise(state)
    assert [(i.status, i.text) for i in items] == [
        ("pending", "Odd status"),
        ("in_progress", "Only an active form"),
        ("in_progress", "No active form"),
    ]
    assert body(render_reminder(state, DEFAULT))[0] == (
        "Your todo list: 0 of 3 done, 2 in progress, 1 pending"
    )


def test_a_list_of_only_bad_entries_injects_nothing() -> None:
    assert render_reminder([None, 3, {"status": "pending"}], DEFAULT) is None


def test_truncation_keeps_in_progress_then_pending_then_completed_in_list_order() -> None:
    state = [
        todo("Done one", "completed"),
        todo("Done two", "completed"),
        todo("Next one", "pending"),
        todo("Busy", "in_progress", "Busy now"),
        todo("Next two", "pending"),
        todo("Next three", "pending"),
    ]
    lines = body(render_reminder(state, parse_config({"max_items": 3})))
    assert lines == [
        "Your todo list: 2 of 6 done, 1 in progress, 3 pending",
        "[ ] Next one",
        "[>] Busy now",
        "[ ] Next two",
        "... and 3 more (1 pending, 2 completed)",
        "",
        lines[-1],
    ]
