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

hook_run                    a receipt: one per hook run, and per hook due that did not run
                            (:mod:`amplifier_core.receipts`)
chain_end                   the last record of a trail: ``records``, how many it wrote
==========================  ====================================================================

Records are rendered as JSON, one object per line, to a sink: a file path (appended to), any
text stream, or by default the ``amplifier_core.audit`` stdlib logger at DEBUG, so nothing
reaches stdout unless logging is configured to show it. The newest records are also kept in
memory (:attr:`AuditTrail.records`).

Every rendered record is chained (:mod:`amplifier_core.audit_chain`): it carries ``chain`` (the
trail's id), ``seq`` (0, 1, 2 ... within the trail), ``prev`` (the previous record's ``hash``,
``null`` for the first) and, last on its line, ``hash``: the SHA-256 of the line as written
without it. A removed, reordered or edited record breaks the chain; ``amplifier-hooks receipts
verify LOG`` says where. Other records are written as they happen. Receipts (``hook_run``) are
queued as they happen (:meth:`AuditTrail.defer`: a tuple of the run's facts, nothing rendered)
and rendered, chained and written together: up to 128 of them or a quarter of a second after
the first, before any other record, when something reads :attr:`AuditTrail.records`, at
:meth:`AuditTrail.flush`, when the trail is closed, when it is collected unclosed, and at
interpreter exit. A receipt whose
owner has listeners (an exporter needs its chain fields at once) is chained when it is queued.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import math
import operator
import os
import threading
import time
import uuid
import weakref
from collections import deque
from collections.abc import Mapping
from datetime import UTC, datetime
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from json.encoder import encode_basestring_ascii as _text
from pathlib import Path
from typing import Any, Final, Literal, Protocol, TextIO, TypeAlias

from .audit_chain import seal

_sha256: Final = hashlib.sha256

__all__ = [
    "BATCH",
    "AuditSink",
    "AuditTrail",
    "Deferred",
    "RecordType",
    "members",
    "render",
    "value_text",
]

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
    "hook_run",
    "chain_end",
]
AuditSink: TypeAlias = "str | os.PathLike[str] | TextIO | None"

logger = logging.getLogger(__name__)

_DEFAULT_RING: Final = 10_000
BATCH: Final = 128
"""Receipts gathered before they are written together."""
_BATCH: Final = BATCH
_BATCH_AGE_S: Final = 0.25
"""How long the first gathered receipt waits, at most, for the next record to write it."""
_NEVER: Final = math.inf


class Deferred(Protocol):
    """The owner of queued receipts (:meth:`AuditTrail.defer`): each queued item is a tuple
    whose first member is its owner's number on the trail (:meth:`AuditTrail.owner_number`),
    which renders it when the trail writes it. The third member is the wall-clock time
    (``time.time()``) of the run. An item holds only numbers, strings, ``None`` and tuples of
    them (never the owner itself, nor a dict), so the garbage collector untracks it at its
    first collection and never walks the queued and kept receipts again."""

    listening: bool
    """Whether each item is to be chained (and :meth:`sealed` called) as it is queued."""

    def lines(
        self, items: list[tuple[Any, ...]], chain_id: str, seq: int, prev: str | None
    ) -> list[str]:
        """The sealed lines of ``items`` (in order, the first one ``seq`` in chain
        ``chain_id`` after the record whose hash is ``prev``), as
        :func:`~amplifier_core.audit_chain.seal` writes them (the hash last). Never
        raises."""
        ...

    def entry(self, item: tuple[Any, ...]) -> dict[str, Any]:
        """The item's record as a mapping (without its chain fields)."""
        ...

    def sealed(self, entry: dict[str, Any]) -> None:
        """The item was chained: ``entry`` is its record with its chain fields."""
        ...


_owner: Final = operator.itemgetter(0)
"""A queued item's owner's number."""

_LIVE: weakref.WeakSet[AuditTrail] = weakref.WeakSet()
"""The trails holding queued receipts, written at interpreter exit if still queued."""


def _write_live() -> None:
    for trail in list(_LIVE):
        trail.flush()


atexit.register(_write_live)


def _fallback(value: object) -> str:
    """What JSON cannot hold, as its ``repr``."""
    return repr(value)


_ESCAPED: dict[str, str] = {}
"""Strings escaped once (keys, hook names, events, decisions); bounded by ``_ESCAPED_MAX``."""
_ESCAPED_MAX: Final = 4096


def _escaped(text: str) -> str:
    done = _ESCAPED.get(text)
    if done is None:
        done = _text(text)
        if len(_ESCAPED) < _ESCAPED_MAX and len(text) <= 200:
            _ESCAPED[text] = done
    return done


def value_text(value: object) -> str:
    """``value`` as JSON text, as ``json.dumps(value, default=repr)`` writes it (a plain
    string, number, ``None`` or boolean without its machinery)."""
    kind = type(value)
    if kind is str:
        return _escaped(value)  # type: ignore[arg-type]  # its type is str exactly
    if kind is int:
        return repr(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is float and math.isfinite(value):  # type: ignore[arg-type]
        return repr(value)
    return json.dumps(value, default=_fallback)


_ENCODER: Final = (
    c_make_encoder(None, _fallback, _text, None, ": ", ", ", False, False, True)
    if c_make_encoder is not None
    else None
)


def _encode(entry: Mapping[str, Any]) -> str:
    """``entry`` as ``json.dumps`` writes it, through the C encoder without its wrapper."""
    if _ENCODER is None:
        return json.dumps(entry, default=_fallback)
    return "".join(_ENCODER(entry, 0))


def members(entry: Mapping[str, Any]) -> str:
    """The members of ``entry`` as a JSON object's text holds them, without the braces."""
    return ", ".join([_escaped(key) + ": " + value_text(value) for key, value in entry.items()])


def render(entry: Mapping[str, Any]) -> str:
    """``entry`` as one line of JSON, as ``json.dumps(entry, default=repr)`` writes it (the
    plain values, the most common, without its machinery)."""
    return "{" + members(entry) + "}"


def _entry_of(kept: str | tuple[Any, ...], owners: list[Deferred]) -> dict[str, Any]:
    """A receipt kept in the ring, as its record: its sealed line (the record with its chain
    fields), or ``(item, None, None, None)``, a queued receipt never chained."""
    if isinstance(kept, str):
        entry: dict[str, Any] = json.loads(kept)
        return entry
    item: tuple[Any, ...] = kept[0]
    owner: Deferred = owners[item[0]]
    return owner.entry(item)


_DIGEST: Final = slice(-66, -2)
"""Where a sealed line holds its hash (``..., "hash": "<64 hex digits>"}``)."""


class _AppendFile:
    """A path's output end: the file is opened for appending and kept open; every write is
    one ``os.write`` of whole lines, so each is on disk (in the page cache) once written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def write(self, text: str) -> None:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        data = text.encode("utf-8", "surrogatepass")
        while data:
            written = os.write(self._fd, data)
            data = data[written:]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class AuditTrail:
    """Writes audit records as chained JSON lines and keeps the newest ``ring_size`` in memory.

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
        self.chain_id = uuid.uuid4().hex[:16]
        """This trail's chain in the log (:mod:`amplifier_core.audit_chain`)."""
        # records; receipts as their sealed lines (text: nothing the garbage collector walks),
        # or as (item, None, None, None) when never chained
        self._ring: deque[dict[str, Any] | str | tuple[Any, ...]] = deque(maxlen=ring_size)
        self._stdlib: logging.Logger | None = None
        self._file: _AppendFile | None = None
        self._stream: TextIO | None = None
        self._lock = threading.Lock()
        self._seq = 0
        self._prev: str | None = None
        self._pending: list[str] = []  # rendered receipts not written yet
        self._pending_since = 0.0
        self.queue: list[tuple[Any, ...]] = []
        """Receipts not rendered yet (:meth:`defer`; the same list for the trail's life)."""
        self._queued_since = 0.0
        self.open_from = _NEVER
        self.open_until = _NEVER
        """A receipt queued in ``[open_from, open_until)`` (its run's wall-clock time) joins
        the batch without more ado (:meth:`defer`); any other goes through :meth:`settle`:
        the first of a batch, one after the batch's age, while the trail chains each at once
        (a listener, a logger sink, a closed trail)."""
        self._eager: set[int] = set()  # ids of owners whose receipts are chained at once
        self._owners: list[Deferred] = []  # the owners of queued receipts, by their number
        self._closed = False
        self._live = False  # in _LIVE
        self._direct = False
        """Records go to a file or a stream and the trail is open: queued receipts are
        always written."""
        if sink is None:
            self._stdlib = logging.getLogger("amplifier_core.audit")
        elif isinstance(sink, str | os.PathLike):
            self.path = Path(sink).expanduser()
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.open("a", encoding="utf-8").close()
            except OSError as err:
                raise ValueError(
                    f"audit log {str(self.path)!r}: cannot open for appending: {err}"
                ) from err
            self._file = _AppendFile(self.path)
            self._direct = True
        elif hasattr(sink, "write"):
            self._stream = sink
            self._direct = True
        else:
            raise TypeError(
                f"AuditTrail: sink must be a path, a text stream or None, got {type(sink).__name__}"
            )

    @classmethod
    def from_config(cls, config: Mapping[str, Any], *, session_id: str | None = None) -> AuditTrail:
        """The trail that config key ``session.audit_log`` (a file path) asks for."""
        from .session_settings import SessionSettings

        return cls(SessionSettings.from_config(config).audit_log, session_id=session_id)

    @property
    def records(self) -> list[dict[str, Any]]:
        """The newest records, oldest first (the queued receipts chained first)."""
        if self.queue:
            self._chain_queued()
        owners = self._owners
        return [r if isinstance(r, dict) else _entry_of(r, owners) for r in self._ring]

    def of_type(self, record_type: RecordType) -> list[dict[str, Any]]:
        """The kept records of one type, oldest first."""
        return [r for r in self.records if r["type"] == record_type]

    @property
    def rendering(self) -> bool:
        """Whether records are written anywhere (a file, a stream, or the stdlib logger with
        DEBUG enabled); when not, they are only kept in memory."""
        stdlib = self._stdlib
        return stdlib is None or stdlib.isEnabledFor(logging.DEBUG)

    def record(self, record_type: RecordType, /, **fields: Any) -> dict[str, Any]:
        """Write one record and return it; writing never raises into the session."""
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(),
            "type": record_type,
            "session_id": self.session_id,
            **fields,
        }
        if self._closed or not self.rendering:
            self._ring.append(entry)  # nobody reads the rendered line: skip rendering it
            return entry
        self._write(entry, batch=False)
        return entry

    def receipt(
        self, fixed: Mapping[str, Any], text: str, variable: dict[str, Any]
    ) -> dict[str, Any]:
        """Chain and keep a receipt: the ``fixed`` fields of its hook (``type``,
        ``session_id``, ``hook`` ... the same for each of its runs), whose JSON members are
        ``text`` (:func:`members`, rendered once by the caller), then the ``variable`` fields
        of this run (``ts`` first). It is written with the next batch (module docstring).
        Returns the record (with its chain fields once written). Never raises."""
        entry = dict(fixed)
        entry.update(variable)
        if self._closed or not self.rendering:
            self._ring.append(entry)
            return entry
        try:
            own = _encode(variable)
        except (ValueError, TypeError):  # a value the fast encoder refuses: the careful way
            own = json.dumps(variable, default=_fallback, check_circular=False)
        self._write(entry, batch=True, body="{" + text + ", " + own[1:-1])
        return entry

    def owner_number(self, owner: Deferred) -> int:
        """The number that stands for ``owner`` as the first member of its queued receipts
        (:meth:`defer`): the same for the same owner."""
        for number, known in enumerate(self._owners):
            if known is owner:
                return number
        self._owners.append(owner)
        return len(self._owners) - 1

    def defer(self, item: tuple[Any, ...]) -> None:
        """Queue a receipt: ``item[0]`` is the number of its :class:`Deferred` owner
        (:meth:`owner_number`), which renders it when it is written, ``item[2]`` the
        wall-clock time of its run (module docstring). Never raises. A teller made for a hook
        does the same inline: append the item to :attr:`queue`, then call :meth:`settle` when
        the queue holds a batch or the item's time is outside ``[open_from, open_until)``."""
        queue = self.queue
        queue.append(item)
        if len(queue) >= _BATCH or not self.open_from <= item[2] < self.open_until:
            self.settle(item)

    def settle(self, item: tuple[Any, ...]) -> None:
        """The receipt ``item`` just queued is the first of its batch, fills it, came after
        the batch's age, or is to be chained at once: do what that asks (:meth:`defer`)."""
        queue = self.queue
        if not self._direct and (
            self._closed
            or (self._stdlib is not None and not self._stdlib.isEnabledFor(logging.DEBUG))
        ):  # nobody reads the rendered lines: kept unchained, in their order
            self._ring.extend((queued, None, None, None) for queued in queue)
            queue.clear()
            return
        if len(queue) == 1:
            self._queued_since = item[2]
            if not self._live:  # written at exit if still queued (a weak set: added once)
                _LIVE.add(self)
                self._live = True
        if self._owners[item[0]].listening:  # chained at once; written with its batch
            self._chain_queued()
            if (
                len(self._pending) >= _BATCH
                or time.monotonic() - self._pending_since >= _BATCH_AGE_S
            ):
                self.flush()
        elif len(queue) >= _BATCH or not 0 <= item[2] - self._queued_since < _BATCH_AGE_S:
            self.flush()  # a full batch, or the first waited long enough (or the clock jumped)
        if queue and self._direct and not self._eager:  # the next ones join without ado
            self.open_from = self._queued_since
            self.open_until = self._queued_since + _BATCH_AGE_S

    def chain_at_once(self, owner: object, eager: bool) -> None:
        """``owner``'s receipts are (``eager``), or no longer are, chained as they are queued
        (it has listeners): every receipt goes through :meth:`settle` while any owner's are."""
        if eager:
            self._eager.add(id(owner))
            self.open_from = self.open_until = _NEVER
        else:
            self._eager.discard(id(owner))

    def _chain_queued(self) -> None:
        with self._lock:
            self._chain_queued_locked()

    def _chain_queued_locked(self) -> None:
        """Render and chain the queued receipts (the lock held): their lines join the
        pending ones. Each run of items of one owner is rendered by it in one call."""
        queue = self.queue
        if not queue:
            return
        queued = queue.copy()
        queue.clear()
        self.open_from = _NEVER  # the next receipt starts a batch
        pending = self._pending
        if not pending:
            self._pending_since = time.monotonic()
        ring = self._ring
        chain_id = self.chain_id
        owners = self._owners
        start, count = 0, len(queued)
        # the usual: one session's receipts
        single = len(owners) == 1 or len(set(map(_owner, queued))) == 1
        while start < count:
            number = queued[start][0]
            owner = owners[number]
            end = count if single else start + 1
            while end < count and queued[end][0] == number:
                end += 1
            items = queued[start:end] if start or end < count else queued
            seq, prev = self._seq, self._prev
            lines = owner.lines(items, chain_id, seq, prev)
            ring.extend(lines)
            if owner.listening:
                for offset, item in enumerate(items):
                    digest = lines[offset][_DIGEST]
                    entry = owner.entry(item)
                    entry["chain"], entry["seq"] = chain_id, seq + offset
                    entry["prev"], entry["hash"] = prev, digest
                    owner.sealed(entry)
                    prev = digest
            pending.extend(lines)
            self._seq, self._prev = seq + len(lines), lines[-1][_DIGEST]
            start = end

    def _write(self, entry: dict[str, Any], *, batch: bool, body: str = "") -> None:
        """``body``: the record's text without its chain fields and closing brace, when the
        caller rendered it."""
        try:
            with self._lock:
                if self.queue:
                    self._chain_queued_locked()
                seq, prev = self._seq, self._prev
                chained = f', "chain": "{self.chain_id}", "seq": {seq}, "prev": ' + (
                    "null}" if prev is None else f'"{prev}"}}'
                )
                if not body:
                    try:
                        body = "{" + members(entry)
                    except ValueError:  # a value JSON refuses (a cycle): its text
                        body = json.dumps(entry, default=_fallback, check_circular=False)[:-1]
                line, digest = seal(body + chained)
                entry["chain"] = self.chain_id
                entry["seq"] = seq
                entry["prev"] = prev
                entry["hash"] = digest
                self._seq = seq + 1
                self._prev = digest
                self._ring.append(entry)
                pending = self._pending
                pending.append(line)
                now = time.monotonic()
                if len(pending) == 1:
                    self._pending_since = now
                if batch and len(pending) < _BATCH and now - self._pending_since < _BATCH_AGE_S:
                    return
                self._pending = []
                self._emit(pending)
        except Exception:  # a full disk or a closed stream must not break a session
            logger.warning("audit record %r could not be written", entry.get("type"), exc_info=True)

    def _emit(self, lines: list[str]) -> None:
        """Write ``lines`` (a list of the caller's, which it extends) in one write."""
        if self._file is not None:
            lines.append("")  # the last line's end: one join, no copy after it
            self._file.write("\n".join(lines))
        elif self._stream is not None:
            lines.append("")
            self._stream.write("\n".join(lines))
            flush = getattr(self._stream, "flush", None)
            if callable(flush):
                flush()
        elif self._stdlib is not None:
            for line in lines:
                self._stdlib.debug("%s", line)

    def __del__(self) -> None:
        """A trail dropped with receipts still queued (its session never closed) writes them
        before it goes."""
        try:
            if self.queue or self._pending:
                self.flush()
        except Exception:  # at collection nothing can be reported reliably
            pass

    def flush(self) -> None:
        """Render, chain and write the receipts gathered so far."""
        with self._lock:
            try:
                self._chain_queued_locked()
            except Exception:
                logger.warning("audit records could not be chained", exc_info=True)
            pending, self._pending = self._pending, []
            if pending:
                try:
                    self._emit(pending)
                except Exception:
                    logger.warning("audit records could not be written", exc_info=True)

    def close(self) -> None:
        """End the chain with its ``chain_end`` record, write what is gathered and release
        the file. Records after it start no new chain: they are kept in memory only."""
        if self._closed:
            return
        if self.queue:
            self._chain_queued()
        if self._seq and self.rendering:
            self.record("chain_end", records=self._seq)
        self.flush()
        self._closed = True
        self._direct = False
        self.open_from = self.open_until = _NEVER
        _LIVE.discard(self)
        if self._file is not None:
            self._file.close()

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
