"""The record schema and how one record becomes one line.

Every line of an events file is one JSON object, with keys in this order::

    {"ts": "2026-01-31T12:00:00.123456+00:00", "level": "info", "event": "tool:pre",
     "session_id": "abc", "data": {...},
     "schema": {"name": "amplifier.hooks-logging.event", "version": 1}}

``ts`` is when the logger received the event (UTC, microseconds); ``data`` is the event data
exactly as the handler saw it at that moment (after conversion and masking, see
:mod:`.encode`). Lines end with ``\\n`` and never contain a raw newline otherwise (JSON escapes
it), so a file splits into records on ``\\n``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Final

__all__ = ["RECORD_SCHEMA", "SCHEMA_NAME", "SCHEMA_VERSION", "LineFormatter"]

SCHEMA_NAME: Final = "amplifier.hooks-logging.event"
SCHEMA_VERSION: Final = 1
#: The ``schema`` member of every record.
RECORD_SCHEMA: Final = {"name": SCHEMA_NAME, "version": SCHEMA_VERSION}

_SCHEMA_TAIL: Final = ',"schema":' + json.dumps(RECORD_SCHEMA, separators=(",", ":")) + "}\n"
_NAME_CACHE_LIMIT: Final = 4096


class LineFormatter:
    """Builds record lines; caches the parts that repeat (second prefix, quoted names)."""

    __slots__ = ("_names", "_prefix", "_second")

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""
        self._names: dict[str, str] = {}

    def timestamp(self, when: float) -> str:
        """UTC ISO 8601 with microseconds for a ``time.time()`` value."""
        second = int(when)
        if second != self._second:
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = second
        micros = min(int((when - second) * 1_000_000), 999_999)
        return f"{self._prefix}.{micros:06d}+00:00"

    def quoted(self, name: str) -> str:
        """``name`` as a JSON string literal."""
        text = self._names.get(name)
        if text is None:
            if len(self._names) >= _NAME_CACHE_LIMIT:
                self._names.clear()
            text = self._names[name] = json.dumps(name, ensure_ascii=False)
        return text

    def line(self, when: float, level: str, event: str, session_id: str, data_json: str) -> str:
        """One complete record line, ending in ``\\n`` (inlined: it runs once per record)."""
        second = int(when)
        if second != self._second:
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = second
        micros = min(int((when - second) * 1_000_000), 999_999)
        names = self._names
        event_text = names.get(event)
        if event_text is None:
            event_text = self.quoted(event)
        session_text = names.get(session_id)
        if session_text is None:
            session_text = self.quoted(session_id)
        return (
            f'{{"ts":"{self._prefix}.{micros:06d}+00:00","level":"{level}",'
            f'"event":{event_text},"session_id":{session_text},"data":{data_json}{_SCHEMA_TAIL}'
        )
