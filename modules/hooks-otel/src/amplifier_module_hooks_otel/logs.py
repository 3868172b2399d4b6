"""Optional: each event as an OTel log record (``logs: true``), redacted like the spans.

The record's body is the event name; its attributes are the event's scalar fields (strings
redacted), and, with ``capture_content: true``, the whole data as redacted JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .config import OtelConfig

__all__ = ["EventLogger"]


class EventLogger:
    def __init__(self, provider: Any, config: OtelConfig, redact: Callable[[str], str]) -> None:
        self._logger = provider.get_logger("amplifier_module_hooks_otel")
        self._config = config
        self._redact = redact

    def emit(self, event: str, data: dict[str, Any]) -> None:
        attributes: dict[str, Any] = {"event.name": event}
        for key, value in data.items():
            if isinstance(value, bool | int | float):
                attributes[f"amplifier.{key}"] = value
            elif isinstance(value, str) and key not in ("prompt", "response", "content"):
                attributes[f"amplifier.{key}"] = self._redact(value)[:1000]
        if self._config.capture_content:
            text = json.dumps(data, default=str, ensure_ascii=False)
            attributes["amplifier.data"] = self._redact(text)[: self._config.max_content_chars]
        self._logger.emit(body=event, attributes=attributes, event_name=event)
