"""Display: the pluggable systems that show hook messages to the human.

A hook's ``user_message`` (or ``user_messages``) is for the human, never for the model. The
coordinator hands each one to the display system as ``show_message(message, level, source)``;
the call may be sync or async. Without a display system the messages are logged.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

from .models import MessageLevel, UserMessage

if TYPE_CHECKING:
    from .audit import AuditTrail

__all__ = ["DisplaySystem", "LoggingDisplay", "RecordingDisplay", "log_level", "show_messages"]

logger = logging.getLogger(__name__)
_UNSHOWN: Final = logging.getLogger("amplifier_core.coordinator")
"""Where a message no display system showed is logged (the coordinator's log, as always)."""

_LOG_LEVELS: Final[dict[str, int]] = {
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def log_level(level: str) -> int:
    """The :mod:`logging` level for a message level (unknown levels log as INFO)."""
    return _LOG_LEVELS.get(level, logging.INFO)


@runtime_checkable
class DisplaySystem(Protocol):
    """Shows one message to the human; may return an awaitable."""

    def show_message(
        self, message: str, level: MessageLevel, source: str = "hook"
    ) -> Awaitable[None] | None: ...


class LoggingDisplay:
    """Writes each message to a :mod:`logging` logger at the message's level."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger or logging.getLogger("amplifier_core.display")

    def show_message(self, message: str, level: MessageLevel, source: str = "hook") -> None:
        """Log ``message`` as ``[source] message``."""
        self.logger.log(log_level(level), "[%s] %s", source, message)


class RecordingDisplay:
    """Keeps every message it is shown, in order (for tests and transcripts)."""

    def __init__(self) -> None:
        self.messages: list[UserMessage] = []

    def show_message(self, message: str, level: MessageLevel, source: str = "hook") -> None:
        """Record the message."""
        self.messages.append(UserMessage(message=message, level=level, source=source))

    def texts(self) -> list[str]:
        """Just the message texts, in order."""
        return [m.message for m in self.messages]


async def show_messages(
    display: object, audit: AuditTrail, messages: Sequence[UserMessage], event: str, hook_name: str
) -> None:
    """Hand each of a hook's ``messages`` to ``display`` (recorded in ``audit``); a message the
    display system fails to show, or every message when there is none, is logged instead.

    A message whose source is the generic ``"hook"`` is shown as coming from ``hook_name``.
    """
    for item in messages:
        source = hook_name if item.source == "hook" and hook_name != "unknown" else item.source
        audit.record(
            "user_message",
            hook=source,
            event=event,
            level=item.level,
            source=source,
            size=len(item.message),
        )
        if display is not None:
            try:
                shown = display.show_message(  # type: ignore[attr-defined]
                    message=item.message, level=item.level, source=source
                )
                if inspect.isawaitable(shown):
                    await shown
                continue
            except Exception:
                logger.warning(
                    "display system %s failed to show a message from %r; logging it instead",
                    type(display).__name__,
                    source,
                    exc_info=True,
                )
        _UNSHOWN.log(log_level(item.level), "[%s] %s", source, item.message)
