"""Value redaction decided on the writer thread, for the strings of many records at once.

With ``redact_values`` on, every string written goes through the redaction engine. Deciding
the strings of one event costs mostly fixed work per call (joining them, one Hyperscan call,
the searches of the patterns without literal triggers), so it is done for a whole batch of
records on the writer thread, in one call of :meth:`TextRedactor.holding`.

On the emitting thread, :meth:`DeferredRedaction.record` takes the snapshot the handler must
take anyway: the JSON text of the data, and the strings the engine decides the data by
(:func:`plain_strings`: keys, values and credential pairs; strings are immutable, so the list
is a snapshot too). That is done only for *plain* data (exact ``dict`` with ``str`` keys,
``list``, ``tuple``, ``str``, ``int``, finite ``float``, ``bool``, ``None``), with no key the
logger masks: such data reads back from its JSON text as the very same data. Any other event
is redacted and encoded in the handler, as :class:`DataEncoder` always does.

On the writer thread, before a batch is formatted, :meth:`DeferredRedaction.settle` decides
every pending record:

* none of its strings holds anything: the JSON text is written as it is (what redacting the
  data would have given: the same data);
* one does: the data is read back from its text and encoded by its own :class:`DataEncoder`,
  so redacted exactly as in the handler;
* deciding fails: each record is encoded that way, which redacts string by string and fails
  closed.

A record is written only once settled (:attr:`Unsettled.settled`); the writer writes a
``{"__redaction_failed__": ...}`` marker for one that never was. Nothing unredacted reaches
the file, and emit returns before any of this.

A conversation is carried whole by every ``provider:request``: the same messages, event after
event. The items of lists (the messages) of a record settled clean are remembered
(:class:`~amplifier_hooks_redact.memo.CleanMemo`), each with a snapshot of what it held when
its strings were taken (made on the emitting thread, the second time an item is met: data built
anew for one event is never copied); while an item still equals its snapshot, its strings are
not taken again, nor decided again on the writer thread. An item edited in place is unequal,
and is decided again. Before that, the leading items of each list of the data (at its top or
one dict down) that equal, in place, those of the last record settled clean are recognised in
one comparison (:class:`~amplifier_hooks_util.clean_run.CleanRuns`) and not looked at one by
one. Only the JSON text is still made of the whole data: it is what is written. The search
of that text for what orjson writes otherwise than the json module (a small float) reads only
the text of what is new (:func:`~.encode.view_encoder`): a run is extended only with items
whose text was searched and found free.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any, Final

from amplifier_hooks_util.clean_run import CleanRun, CleanRuns

from amplifier_hooks_redact import Redactor
from amplifier_hooks_redact.memo import MAX_ENTRIES, CleanMemo, snapshot
from amplifier_hooks_redact.walker import plain_strings

from .encode import DataEncoder, view_encoder
from .redact import SCAN_DEPTH, SecretKeys

__all__ = ["NOT_SETTLED", "DeferredRedaction", "Unsettled"]

NOT_SETTLED: Final = '{"__redaction_failed__":"not decided"}'
"""Written in place of the data of a record that was never settled."""


_CHUNK: Final = 4096


def _brackets_below(text: str, limit: int) -> bool:
    """Whether ``text`` holds fewer than ``limit`` opening brackets (``{`` and ``[``),
    counted a chunk at a time: a long text reaches the limit in its first chunks, and the
    rest of it is not read."""
    seen = 0
    for at in range(0, len(text), _CHUNK):
        seen += text.count("{", at, at + _CHUNK) + text.count("[", at, at + _CHUNK)
        if seen >= limit:
            return False
    return seen < limit


class Unsettled:
    """The data of one record, encoded on the emitting thread and not decided yet."""

    __slots__ = ("copies", "runs", "settled", "strings", "text")

    def __init__(
        self,
        text: str,
        strings: list[str],
        copies: list[tuple[Any, Any]] | None = None,
        runs: list[tuple[CleanRun, int, list[Any]]] | None = None,
    ) -> None:
        self.text = text
        """The data's JSON text, not redacted."""
        self.strings = strings
        """The strings the redaction engine decides the data by."""
        self.copies = copies or []
        """Items of lists in the data, each with a snapshot of what it held when
        :attr:`strings` were taken: remembered clean when the record is settled clean."""
        self.runs = runs or []
        """Copies of what was new in each list of the data when :attr:`strings` were taken
        (:meth:`CleanRuns.copies`): its runs are extended when the record is settled clean."""
        self.settled: str | None = None
        """The text to write, once decided."""


_STRINGS: Final = attrgetter("strings")


class DeferredRedaction:
    """Records plain event data for redaction on the writer thread; encodes the rest.

    ``encoder`` redacts and encodes on the emitting thread; the writer thread gets its own
    encoder (one C encoder is not shared between threads) with the same keys and rules.
    """

    __slots__ = (
        "_encode",
        "_holding",
        "_later",
        "_memo",
        "_once",
        "_redactor",
        "_runs",
        "_secrets",
        "_strict",
    )

    def __init__(
        self,
        redactor: Redactor,
        secrets: SecretKeys,
        make_encoder: Callable[[], DataEncoder],
    ) -> None:
        self._redactor = redactor
        self._holding = redactor.text.holding
        self._secrets = secrets
        self._encode = make_encoder().encode
        self._later = make_encoder().encode
        self._strict = view_encoder()  # for data plain_strings answered for
        self._memo = CleanMemo()
        """Items of lists settled clean (added on the writer thread, read on the emitting
        one: each addition is one dict assignment)."""
        self._once: dict[int, Any] = {}
        """Items of lists met once and not remembered yet (emitting thread only)."""
        self._runs = CleanRuns()
        """The leading items of the data's lists settled clean, recognised in one comparison
        (read on the emitting thread, extended on the writer thread)."""

    def record(self, data: Any) -> str | Unsettled:
        """What the handler queues for ``data``: its final JSON text, or an
        :class:`Unsettled` for plain data. Never raises."""
        try:
            keys: list[str] = []
            fresh: list[Any] = []
            view, marks = self._runs.view(data)  # what is new in the data's lists
            strings = plain_strings(view, keys, memo=self._memo, fresh=fresh)
            if strings is not None and not self._secrets.any_secret(keys):
                text, searched = self._strict(data, view)
                # Nested as deep as SCAN_DEPTH, the handler's encoder cuts it: its way. Fewer
                # opening brackets in all (in strings too) than that cannot nest so deep.
                if _brackets_below(text, SCAN_DEPTH) or not self._secrets.scan(view):
                    # The runs hold only items whose text was searched (view_encoder).
                    runs = self._runs.copies(marks) if searched else []
                    return Unsettled(text, strings, self._copies(fresh), runs)
            self._runs.forget(marks)
        except Exception:  # a cycle, nesting too deep, a non-finite float: the handler's way
            pass
        return self._encode(data)

    def _copies(self, fresh: list[Any]) -> list[tuple[Any, Any]]:
        """A snapshot of each item of ``fresh`` met before (met once: noted, not copied)."""
        once = self._once
        copies: list[tuple[Any, Any]] = []
        for item in fresh:
            ident = id(item)
            if once.get(ident) is not item:
                if len(once) >= MAX_ENTRIES:
                    once.clear()
                once[ident] = item
                continue
            del once[ident]
            copied = snapshot(item)
            if copied is not None:
                copies.append((item, copied))
        return copies

    def settle(self, pending: Sequence[Unsettled]) -> None:
        """Decide every record of ``pending`` (writer thread); never raises."""
        if not pending:
            return
        try:
            holding = self._holding(chain.from_iterable(map(_STRINGS, pending)))
        except Exception:  # decide each record on its own, string by string
            holding = None
        keep = self._memo.keep
        for record in pending:
            if holding is not None and holding.isdisjoint(record.strings):
                record.settled = record.text
                for item, copied in record.copies:
                    keep(item, copied)
                CleanRuns.extend(record.runs)
            else:
                record.settled = self._redacted(record.text)
                for run, _, _ in record.runs:
                    run.forget()
            record.copies = []
            record.runs = []

    def _redacted(self, text: str) -> str:
        try:
            data = json.loads(text)
        except Exception as err:  # nesting the decoder refuses: the value is not written
            return json.dumps({"__redaction_failed__": type(err).__name__})
        return self._later(data)
