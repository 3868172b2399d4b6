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
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any, Final

from amplifier_hooks_redact import Redactor
from amplifier_hooks_redact.walker import plain_strings

from .encode import DataEncoder, plain_encoder
from .redact import SCAN_DEPTH, SecretKeys

__all__ = ["NOT_SETTLED", "DeferredRedaction", "Unsettled"]

NOT_SETTLED: Final = '{"__redaction_failed__":"not decided"}'
"""Written in place of the data of a record that was never settled."""


class Unsettled:
    """The data of one record, encoded on the emitting thread and not decided yet."""

    __slots__ = ("settled", "strings", "text")

    def __init__(self, text: str, strings: list[str]) -> None:
        self.text = text
        """The data's JSON text, not redacted."""
        self.strings = strings
        """The strings the redaction engine decides the data by."""
        self.settled: str | None = None
        """The text to write, once decided."""


_STRINGS: Final = attrgetter("strings")


class DeferredRedaction:
    """Records plain event data for redaction on the writer thread; encodes the rest.

    ``encoder`` redacts and encodes on the emitting thread; the writer thread gets its own
    encoder (one C encoder is not shared between threads) with the same keys and rules.
    """

    __slots__ = ("_encode", "_holding", "_later", "_redactor", "_secrets", "_strict")

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
        self._strict = plain_encoder()

    def record(self, data: Any) -> str | Unsettled:
        """What the handler queues for ``data``: its final JSON text, or an
        :class:`Unsettled` for plain data. Never raises."""
        try:
            keys: list[str] = []
            strings = plain_strings(data, keys)
            if strings is not None and not self._secrets.any_secret(keys):
                text = self._strict(data)
                # Nested as deep as SCAN_DEPTH, the handler's encoder cuts it: its way. Fewer
                # opening brackets in all (in strings too) than that cannot nest so deep.
                if text.count("{") + text.count("[") < SCAN_DEPTH or not self._secrets.scan(data):
                    return Unsettled(text, strings)
        except Exception:  # a cycle, nesting too deep, a non-finite float: the handler's way
            pass
        return self._encode(data)

    def settle(self, pending: Sequence[Unsettled]) -> None:
        """Decide every record of ``pending`` (writer thread); never raises."""
        if not pending:
            return
        try:
            holding = self._holding(chain.from_iterable(map(_STRINGS, pending)))
        except Exception:  # decide each record on its own, string by string
            holding = None
        for record in pending:
            if holding is not None and holding.isdisjoint(record.strings):
                record.settled = record.text
            else:
                record.settled = self._redacted(record.text)

    def _redacted(self, text: str) -> str:
        try:
            data = json.loads(text)
        except Exception as err:  # nesting the decoder refuses: the value is not written
            return json.dumps({"__redaction_failed__": type(err).__name__})
        return self._later(data)
