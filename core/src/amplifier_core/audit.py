"""The audit trail: one structured JSON record per security-relevant hook outcome.

Every record has ``ts`` (UTC ISO 8601), ``type``, ``session_id`` and provenance (``hook``, the
handler it came from, and ``event``), plus fields of its type:

==========================  ====================================================================
type                        fields
==========================  ====================================================================
injection                   role, ephemeral, size (bytes), tokens (estimate), stored_in
injection_rejected          size, limit, reason
injection_failed            error (the context manager raised; the session goes on)
injection_budget_exceeded   tokens, turn_tokens, budget
approval_requested          prompt, options, timeout, default, cache_hit
approval_decision           prompt, approved, answer, why, cache_hit, remembered, system
deny                        reason
hook_failure                kind (error, timeout, invalid_result), error, fail_closed
user_message                level, source, size
==========================  ====================================================================

Records are rendered by a dedicated structlog logger (JSON renderer, one object per line) to a
sink: a file path (each record appended as it happens), any text stream, or by default the
``amplifier_core.audit`` stdlib logger at DEBUG, so nothing reaches stdout unless logging is
configured to show it. The newest records are also kept in memory (:attr:`AuditTrail.records`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import Mapping, MutableMapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, TextIO, TypeAlias

__all__ = ["AuditSink", "AuditTrail", "RecordType"]

RecordType: TypeAlias = Literal[
    "injection",
    "injection_rejected",
    "injection_failed",
    "injection_budget_exceeded",
    "approval_requested",
    "approval_decision",
    "deny",
    "hook_failure",
    "user_message",
]
AuditSink: TypeAlias = "str | os.PathLike[str] | TextIO | None"

logger = logging.getLogger(__name__)

_DEFAULT_RING: Final = 10_000


class _LoggingSink:
    """structlog's output end for the default: the stdlib ``amplifier_core.audit`` logger."""

    def __init__(self, target: logging.Logger) -> None:
        self.target = target

    def msg(self, message: str) -> None:
        self.target.debug("%s", message)


class _AppendFile:
    """structlog's output end for a path: each line is appended and the file closed again.

    Nothing stays open between records, so no handle leaks and every line is on disk as soon
    as it is written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def msg(self, message: str) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as file:
            file.write(message + "\n")


class AuditTrail:
    """Writes audit records as JSON lines and keeps the newest ``ring_size`` in memory.

    ``sink`` is a file path (opened for appending, parent directories created), a text stream,
    or ``None`` for the stdlib logger ``amplifier_core.audit`` at DEBUG.
    """

    def __init__(
        self,
        sink: AuditSink = None,
        *,
        session_id: str | None = None,
        ring_size: int = _DEFAULT_RING,
    ) -> None:
        if ring_size < 1:
            raise ValueError(f"AuditTrail: ring_size must be >= 1, got {ring_size}")
        self.session_id = session_id
        self.path: Path | None = None
        self._ring: deque[dict[str, Any]] = deque(maxlen=ring_size)
        self._stdlib: logging.Logger | None = None
        output: object
        if sink is None:
            self._stdlib = logging.getLogger("amplifier_core.audit")
            output = _LoggingSink(self._stdlib)
        elif isinstance(sink, str | os.PathLike):
            self.path = Path(sink).expanduser()
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.open("a", encoding="utf-8").close()
            except OSError as err:
                raise ValueError(
                    f"audit log {str(self.path)!r}: cannot open for appending: {err}"
                ) from err
            output = _AppendFile(self.path)
        elif hasattr(sink, "write"):
            output = sink  # a text stream: structlog's WriteLogger wraps it on first use
        else:
            raise TypeError(
                f"AuditTrail: sink must be a path, a text stream or None, got {type(sink).__name__}"
            )
        self._output = output
        self._log: Any = None  # structlog's logger, made when the first record is rendered

    def _logger(self) -> Any:
        """structlog's logger for this trail; structlog is imported here, on first use."""
        if self._log is None:
            import structlog

            output: object = self._output
            if not isinstance(output, _LoggingSink | _AppendFile):
                output = structlog.WriteLogger(self._output)  # type: ignore[arg-type]
            self._log = structlog.wrap_logger(
                output,
                processors=[self._remember, structlog.processors.JSONRenderer()],
                wrapper_class=structlog.BoundLogger,
                context_class=dict,
                cache_logger_on_first_use=True,
            )
        return self._log

    @classmethod
    def from_config(cls, config: Mapping[str, Any], *, session_id: str | None = None) -> AuditTrail:
        """The trail that config key ``session.audit_log`` (a file path) asks for."""
        from .session_settings import SessionSettings

        return cls(SessionSettings.from_config(config).audit_log, session_id=session_id)

    def _remember(
        self, _logger: object, _method: str, event_dict: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        self._ring.append(dict(event_dict))
        return event_dict

    @property
    def records(self) -> list[dict[str, Any]]:
        """The newest records, oldest first."""
        return list(self._ring)

    def of_type(self, record_type: RecordType) -> list[dict[str, Any]]:
        """The kept records of one type, oldest first."""
        return [r for r in self._ring if r["type"] == record_type]

    def record(self, record_type: RecordType, /, **fields: Any) -> dict[str, Any]:
        """Write one record and return it; writing never raises into the session."""
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(),
            "type": record_type,
            "session_id": self.session_id,
            **fields,
        }
        if self._stdlib is not None and not self._stdlib.isEnabledFor(logging.DEBUG):
            self._ring.append(entry)  # nobody reads the rendered line: skip rendering it
            return entry
        try:
            self._logger().msg(**entry)
        except Exception:  # a full disk or a closed stream must not break a session
            logger.warning("audit record %r could not be written", record_type, exc_info=True)
        return entry

    def on_hook_failure(
        self, *, event: str, handler: str, kind: str, error: str, fail_closed: bool
    ) -> None:
        """A :class:`~amplifier_core.hooks.HookRegistry` failure listener."""
        self.record(
            "hook_failure",
            hook=handler,
            event=event,
            kind=kind,
            error=error,
            fail_closed=fail_closed,
        )
