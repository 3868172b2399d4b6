"""The reminder's text: the todo list, a count line and the nudge, in one labelled block.

Pure functions of the todo state and the config, so the text is easy to test and to read::

    <system-reminder source="hooks-todo-reminder">
    Your todo list: 1 of 3 done, 1 in progress, 1 pending
    [x] Write the parser
    [>] Writing the tests
    [ ] Update the README

    Keep it current with the todo tool as you work. This reminder comes from the session,
    not from the user: do not mention it.
    </system-reminder>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from .config import MODULE_ID, TodoReminderConfig

__all__ = [
    "BLOCK_CLOSE",
    "BLOCK_OPEN",
    "MARKS",
    "MAX_ITEM_CHARS",
    "TodoItem",
    "count_line",
    "normalise",
    "render_items",
    "render_reminder",
]

BLOCK_OPEN: Final = f'<system-reminder source="{MODULE_ID}">'
BLOCK_CLOSE: Final = "</system-reminder>"
MARKS: Final = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
MAX_ITEM_CHARS: Final = 200
_RANK: Final = {"in_progress": 0, "pending": 1, "completed": 2}
_FOOTER_WITH_LIST: Final = (
    "Keep it current with the {tool} tool as you work. This reminder comes from the session, "
    "not from the user: do not mention it."
)
_FOOTER: Final = "This reminder comes from the session, not from the user: do not mention it."


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One item of the list as the reminder shows it."""

    status: str
    text: str


def _one_line(value: object) -> str:
    text = " ".join(str(value).split())
    if len(text) > MAX_ITEM_CHARS:
        text = text[: MAX_ITEM_CHARS - 3].rstrip() + "..."
    return text


def normalise(state: object) -> list[TodoItem]:
    """The todo state as items: non-mappings and items without text are skipped, an unknown
    status counts as ``pending``, an ``in_progress`` item shows its ``activeForm``."""
    if not isinstance(state, Sequence) or isinstance(state, str | bytes):
        return []
    items: list[TodoItem] = []
    for raw in state:
        if not isinstance(raw, Mapping):
            continue
        status = raw.get("status")
        status = status if status in MARKS else "pending"
        content = raw.get("content")
        active = raw.get("activeForm")
        shown = active if status == "in_progress" and active else content or active
        if not shown:
            continue
        text = _one_line(shown)
        if text:
            items.append(TodoItem(status=status, text=text))
    return items


def count_line(items: Sequence[TodoItem]) -> str:
    """``Your todo list: 1 of 3 done, 1 in progress, 1 pending`` (every item counted)."""
    done = sum(item.status == "completed" for item in items)
    busy = sum(item.status == "in_progress" for item in items)
    waiting = sum(item.status == "pending" for item in items)
    return f"Your todo list: {done} of {len(items)} done, {busy} in progress, {waiting} pending"


def render_items(items: Sequence[TodoItem], config: TodoReminderConfig) -> list[str]:
    """The lines for the items the config shows, in list order, at most ``max_items`` of them.

    When there are more, in-progress items are kept first, then pending, then completed, and
    a last line says how many more there are.
    """
    shown = config.shown_statuses
    indexed = [(i, item) for i, item in enumerate(items) if item.status in shown]
    limit = config.max_items
    hidden: list[TodoItem] = []
    if limit is not None and len(indexed) > limit:
        ranked = sorted(indexed, key=lambda pair: (_RANK[pair[1].status], pair[0]))
        kept = {i for i, _ in ranked[:limit]}
        hidden = [item for i, item in indexed if i not in kept]
        indexed = [(i, item) for i, item in indexed if i in kept]
    lines = [f"{MARKS[item.status]} {item.text}" for _, item in indexed]
    if hidden:
        parts = [
            f"{sum(item.status == status for item in hidden)} {label}"
            for status, label in (
                ("in_progress", "in progress"),
                ("pending", "pending"),
                ("completed", "completed"),
            )
            if any(item.status == status for item in hidden)
        ]
        lines.append(f"... and {len(hidden)} more ({', '.join(parts)})")
    return lines


def render_reminder(
    state: object, config: TodoReminderConfig, nudge_calls: int | None = None
) -> str | None:
    """The whole reminder block, or ``None`` when there is nothing to show and no nudge.

    :param state: the session's todo state (``coordinator.todo_state``).
    :param config: the validated config.
    :param nudge_calls: when a nudge is due, the number of tool calls since the todo tool last
        ran (it replaces ``{count}`` in ``nudge_text``); ``None`` for no nudge.
    """
    items = normalise(state)
    lines = render_items(items, config) if items else []
    if not lines and nudge_calls is None:
        return None
    parts: list[str] = []
    if lines:
        parts.append("\n".join([count_line(items), *lines]))
    if nudge_calls is not None:
        parts.append(config.nudge_text.replace("{count}", str(nudge_calls)))
    parts.append(_FOOTER_WITH_LIST.format(tool=config.todo_tool) if lines else _FOOTER)
    return "\n".join([BLOCK_OPEN, "\n\n".join(parts), BLOCK_CLOSE])
