"""hooks-todo-reminder: keeps the agent's todo list in view.

Before each provider request it injects an ephemeral reminder of the session's todo list
(``coordinator.todo_state``, kept by the ``todo`` tool): every item marked ``[x]`` done,
``[>]`` in progress or ``[ ]`` pending, under a count line, in a labelled
``<system-reminder>`` block. When the todo tool has not run for ``nudge_after`` tool calls, the
block also carries a gentle nudge to write or update the list. With no list and no nudge due,
nothing is injected. Ephemeral means the reminder reaches only that request and never enters
the stored conversation.
"""

from .config import DEFAULT_NUDGE_TEXT, MODULE_ID, TodoReminderConfig, parse_config
from .hooks import TodoReminderHook
from .mount import REMINDER_HANDLER, TRACKER_HANDLER, mount
from .render import BLOCK_CLOSE, BLOCK_OPEN, MARKS, render_reminder

__all__ = [
    "BLOCK_CLOSE",
    "BLOCK_OPEN",
    "DEFAULT_NUDGE_TEXT",
    "MARKS",
    "MODULE_ID",
    "REMINDER_HANDLER",
    "TRACKER_HANDLER",
    "TodoReminderConfig",
    "TodoReminderHook",
    "config_schema",
    "mount",
    "parse_config",
    "render_reminder",
]

config_schema = TodoReminderConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
