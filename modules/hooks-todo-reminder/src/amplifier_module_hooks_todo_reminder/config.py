"""The module's configuration, validated so that a typo is an error, not a silent default."""

from __future__ import annotations

import difflib
from typing import Any, Final, Literal

from amplifier_hooks_util.config_errors import validate_config
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from amplifier_core import events

__all__ = [
    "DEFAULT_NUDGE_TEXT",
    "MODULE_ID",
    "STATUSES",
    "Status",
    "TodoReminderConfig",
    "parse_config",
]

MODULE_ID: Final = "hooks-todo-reminder"

Status = Literal["pending", "in_progress", "completed"]
STATUSES: Final[tuple[Status, ...]] = ("completed", "in_progress", "pending")

DEFAULT_NUDGE_TEXT: Final = (
    "The todo tool has not been used for the last {count} tool calls. If this work has several "
    "steps, write or update your todo list with it so that the plan stays current; if the list "
    "no longer matches what you are doing, clean it up. Ignore this if it does not apply."
)
_PATTERN_CHARS: Final = frozenset("*?[")


def _known_events() -> frozenset[str]:
    return frozenset(getattr(events, "ALL_EVENTS", ()))


def _canonical(name: str) -> str:
    """The host kernel's canonical name for ``name`` (amplifier-core 2.0.2 has no aliases)."""
    canonical = getattr(events, "canonical", None)
    return canonical(name) if callable(canonical) else name


class TodoReminderConfig(BaseModel):
    """Config keys; README.md's table documents each one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event: str = events.PROVIDER_REQUEST
    statuses: list[Status] = Field(default_factory=lambda: list(STATUSES))
    show_completed: bool = True
    max_items: int | None = Field(default=20, ge=1)
    nudge_after: int = Field(default=10, ge=0)
    nudge_text: str = Field(default=DEFAULT_NUDGE_TEXT, min_length=1)
    todo_tool: str = Field(default="todo", min_length=1)
    inject_role: Literal["user", "system", "assistant"] = "user"
    append_to_last_tool_result: bool = True
    priority: int = 10

    @field_validator("event")
    @classmethod
    def _a_kernel_event(cls, value: str) -> str:
        if _PATTERN_CHARS.intersection(value):
            raise ValueError(f"expected one event name, not the pattern {value!r}")
        name = _canonical(value)
        known = _known_events()
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"expected an event of the kernel, got {value!r}{hint}")
        return name

    @field_validator("statuses")
    @classmethod
    def _distinct_statuses(cls, value: list[Status]) -> list[Status]:
        if not value:
            raise ValueError("expected at least one of completed, in_progress, pending")
        repeated = sorted({s for s in value if value.count(s) > 1})
        if repeated:
            raise ValueError(f"expected each status once, got {', '.join(repeated)} twice")
        return value

    @model_validator(mode="after")
    def _no_contradiction(self) -> TodoReminderConfig:
        if (
            "statuses" in self.model_fields_set
            and "completed" in self.statuses
            and not self.show_completed
        ):
            raise ValueError(
                "show_completed is false but statuses lists completed; keep one of the two"
            )
        return self

    @property
    def shown_statuses(self) -> frozenset[str]:
        """The statuses whose items the list shows."""
        shown = set(self.statuses)
        if not self.show_completed:
            shown.discard("completed")
        return frozenset(shown)


def parse_config(raw: dict[str, Any] | None) -> TodoReminderConfig:
    """Validate ``raw`` (``None`` means every default); a mistake raises ``ConfigError`` (a
    ``ValueError``) naming each key path with what was expected."""
    return validate_config(TodoReminderConfig, raw, owner=MODULE_ID)
