"""Display: the pluggable systems that show hook messages to the human.

A hook's ``user_message`` (or ``user_messages``) is for the human, never for the model. The
coordinator hands each one to the display system as ``show_message(message, level, source)``;
the call may be sync or async. Without a display system the messages are logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Final, Protocol, runtime_checkable

from .models import MessageLevel, UserMessage

__all__ = ["DisplaySystem", "LoggingDisplay", "RecordingDisplay", "log_level"]

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
