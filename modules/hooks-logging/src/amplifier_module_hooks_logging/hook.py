"""The logger itself: the emit handler, its subscriptions and its writer.

Where the work happens (the emit path is hot):

* **In the handler**, on the emitting thread: the level lookup (one dict lookup per event
  name), the session id, and the JSON encoding of the data. Encoding here *is* the snapshot:
  the record holds the data exactly as it was when this handler ran, whatever later handlers
  or the caller do to the same objects afterwards. It is done by the C JSON encoder, which is
  both the cheapest deep copy and the serialisation we need anyway. With ``redact_values``
  on, plain data is encoded as it is, with the strings the redaction engine decides it by
  (:mod:`.deferred`); other data is redacted here.
* **On the writer thread**: the redaction of plain data, decided for a whole batch of records
  at once (unredacted text is never written), the timestamp text, the line, the UTF-8 bytes,
  the file I/O.

The handler runs early (``priority`` -1000 by default, lower runs first) so that no other
handler can deny the event before it is recorded, and it never fails: any error inside it is
counted as a dropped record and logged, and emit goes on.
"""

from __future__ import annotations

import logging
import os
import time
import weakref
from collections.abc import Callable, Iterable
from typing import Any, Final

from amplifier_core.models import HookResult

from .config import LoggingConfig
from .deferred import DeferredRedaction, Unsettled
from .encode import DataEncoder
from .filters import DEBUG_EVENTS, EventFilter
from .paths import PathTemplate
from .redact import SecretKeys, value_engine, value_redactor
from .subscribe import (
    declared_events,
    is_pattern,
    known_events,
    supports_wildcards,
)
from .writer import EventWriter, WriterStats

__all__ = ["HANDLER_NAME", "LoggingHook", "active_hooks"]

logger = logging.getLogger("amplifier_module_hooks_logging")

#: The name the handler is registered under (what ``list_handlers`` shows).
HANDLER_NAME: Final = "hooks-logging"
_UNKNOWN_SESSION: Final = "unknown-session"
_MISSING: Final[Any] = object()


class LoggingHook:
    """One mounted logger. :func:`~amplifier_module_hooks_logging.mount` builds and attaches
    one; build one directly to log a registry without a coordinator."""

    def __init__(
        self,
        config: LoggingConfig | None = None,
        *,
        coordinator: Any = None,
        session_id: str | None = None,
        working_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.config = config if config is not None else LoggingConfig.model_validate({})
        self.coordinator = coordinator
        self._session_id = session_id
        self._filter = EventFilter.from_config(self.config)
        self._levels = self._filter.decisions
        secrets = SecretKeys(self.config.redact_keys)
        bytes_format = self.config.bytes_format
        settle: Callable[[list[Unsettled]], None] | None = None
        if self.config.redact_values and self.config.redact_on_writer:  # plain data: on the writer
            engine = value_engine()
            deferred = DeferredRedaction(
                engine, secrets, lambda: DataEncoder(secrets, bytes_format, value_redactor(engine))
            )
            self._encode: Callable[[Any], str | Unsettled] = deferred.record
            settle = deferred.settle
        elif self.config.redact_values:  # in the emit: messages found clean are remembered
            redact = value_redactor(value_engine(), memo=True)
            self._encode = DataEncoder(secrets, bytes_format, redact).encode
        else:
            self._encode = DataEncoder(secrets, bytes_format).encode
        self._template = PathTemplate(self.config.path, working_dir=working_dir)
        self._writer = EventWriter(
            self._template.render,
            queue_size=self.config.queue_size,
            block_timeout=self.config.block_timeout,
            max_bytes=self.config.max_bytes,
            backups=self.config.backups,
            settle=settle,
        )
        self._put = self._writer.put
        self._homes: set[str] = set()  # sessions whose log directory exists: _make_home
        self._continue = HookResult()
        self._hooks: Any = None
        self._undo: list[Callable[[], Any]] = []
        self._subscribed: dict[str, None] = {}
        self._handler_errors = 0
        self.wildcard: bool | None = None
        self.handler = self._on_event
        _ACTIVE.add(self)

    # ------------------------------------------------------------------ the emit handler

    def _on_event(self, event: str, data: Any) -> HookResult:
        """Record one event; never raises, always continues."""
        try:
            level = self._levels.get(event, _MISSING)
            if level is _MISSING:
                level = self._filter.level_for(event)
            if level is None:
                return self._continue
            session_id = data.get("session_id") if isinstance(data, dict) else None
            if not session_id:
                session_id = self._fallback_session()
            if session_id.__class__ is not str:
                session_id = str(session_id)
            if session_id not in self._homes:
                self._make_home(session_id)
            self._put((time.time(), level, event, session_id, self._encode(data)))
        except Exception as err:
            self._handler_failed(event, err)
        return self._continue

    def _make_home(self, session_id: str) -> None:
        """Create the directory of ``session_id``'s log before its first event's emit returns,
        as a logger writing in the emit does: an application may look for the session's
        directory (Amplifier's session store does) before the writer thread has written."""
        if len(self._homes) >= 4096:
            self._homes.clear()
        self._homes.add(session_id)
        try:
            parent = os.path.dirname(self._template.render(session_id))
            if parent:
                os.makedirs(parent, exist_ok=True)
        except (OSError, ValueError):  # the writer reports what it cannot write, and where
            pass

    def _fallback_session(self) -> str:
        session_id = getattr(self.coordinator, "session_id", None) or self._session_id
        return str(session_id) if session_id else _UNKNOWN_SESSION

    def _handler_failed(self, event: str, err: Exception) -> None:
        self._handler_errors += 1
        if self._handler_errors == 1:
            logger.exception("hooks-logging: recording event %r failed", event)
        self._writer.count_drop(1, f"recording failed: {type(err).__name__}: {err}")

    # ------------------------------------------------------------------ subscriptions

    def attach(self, hooks: Any) -> None:
        """Subscribe to ``hooks``: one ``"*"`` registration when the registry supports
        wildcards, else one registration per known event name."""
        if self._hooks is not None:
            raise RuntimeError("hooks-logging: this logger is already attached to a registry")
        self._hooks = hooks
        self.wildcard = supports_wildcards(hooks)
        if self.wildcard:
            self._register("*")
            return
        names: list[str] = [*known_events(), *DEBUG_EVENTS, *self.config.extra_events]
        if self.config.auto_discover:
            names.extend(declared_events(self.coordinator))
        self.subscribe(names)

    def subscribe(self, names: Iterable[str]) -> list[str]:
        """Subscribe more event names by exact name (kernels without wildcards); names
        already subscribed, patterns and names the filter rejects are skipped. Returns the
        names added. With a wildcard subscription this does nothing."""
        if self._hooks is None or self.wildcard:
            return []
        added: list[str] = []
        for name in self._filter.wanted(names):
            if name in self._subscribed:
                continue
            if is_pattern(name):
                logger.warning(
                    "hooks-logging: %r is a pattern; this kernel subscribes exact names only",
                    name,
                )
                continue
            self._register(name)
            added.append(name)
        return added

    def _register(self, event: str) -> None:
        undo = self._hooks.register(
            event, self.handler, priority=self.config.priority, name=HANDLER_NAME
        )
        self._subscribed[event] = None
        if callable(undo):
            self._undo.append(undo)

    @property
    def subscriptions(self) -> tuple[str, ...]:
        """What this logger is registered under (``("*",)`` with wildcards)."""
        return tuple(self._subscribed)

    def detach(self) -> None:
        """Remove every registration of this logger (idempotent)."""
        hooks, self._hooks = self._hooks, None
        undo, self._undo = self._undo, []
        subscribed, self._subscribed = self._subscribed, {}
        if hooks is None:
            return
        if undo:
            for step in undo:
                try:
                    step()
                except Exception:
                    logger.exception("hooks-logging: unregistering a handler failed")
        elif subscribed:  # a registry whose register() returns nothing
            try:
                hooks.unregister(HANDLER_NAME)
            except Exception:
                logger.exception("hooks-logging: unregister(%r) failed", HANDLER_NAME)

    # ------------------------------------------------------------------ lifecycle

    def path_for(self, session_id: str) -> str:
        """The file the records of ``session_id`` go to."""
        return self._template.render(session_id)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything recorded so far is on disk; False on timeout."""
        return self._writer.flush(timeout)

    def close(self, timeout: float | None = 30.0) -> bool:
        """Unsubscribe, write everything queued, close the files (idempotent)."""
        self.detach()
        _ACTIVE.discard(self)
        return self._writer.close(timeout)

    @property
    def closed(self) -> bool:
        return self._writer.closed

    @property
    def stats(self) -> WriterStats:
        """Written, dropped (and why), waits for room, write errors."""
        return self._writer.stats


_ACTIVE: weakref.WeakSet[LoggingHook] = weakref.WeakSet()


def active_hooks(coordinator: Any) -> list[LoggingHook]:
    """The open loggers mounted on ``coordinator``."""
    return [hook for hook in list(_ACTIVE) if hook.coordinator is coordinator]
