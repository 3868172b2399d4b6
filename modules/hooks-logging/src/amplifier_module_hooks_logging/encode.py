"""Turn any event data into one line of JSON, never raising.

Two encoders share one set of conversion rules:

* the fast one is the standard library's C JSON encoder with a ``default`` hook for the
  types JSON lacks. It serves almost every event.
* the careful one walks the data in Python. It takes over when a secret-looking key is
  present (the value is masked), when the fast one fails (a cycle, nesting deeper than the
  interpreter allows, a non-finite float, an odd dict key, a converter that raised), and it
  cannot fail: whatever it cannot convert is recorded as ``{"__unserializable__": ...}``.

Given a ``redact`` function (hooks-redaction's rules, see ``hook.py``), every string is
redacted before it is written: the data's own strings first, then whatever a conversion turns
into text (bytes, paths, models, dataclasses ...). Should redaction itself fail, the value is
not written: ``{"__redaction_failed__": "<error>"}`` stands in its place (for the top-level
value it failed on; the others are written).

Conversions (documented in the README):

================================  ==============================================
datetime, date, time               ISO 8601 string (``isoformat()``)
timedelta                          seconds as a number
Decimal                            string, so no precision is lost
UUID, Path (any PurePath)          string
bytes, bytearray, memoryview       UTF-8 text with ``\\xNN`` for invalid bytes, or
                                   ``{"__bytes__": "<base64>"}`` (``bytes_format``)
set, frozenset                     list, sorted when the items allow it
tuple, deque, other sequences      list
other mappings                     object
Enum                               its value
pydantic model                     ``model_dump()``
dataclass instance                 object of its fields
exception                          ``{"type": "ValueError", "message": "..."}``
NaN, Infinity, -Infinity           the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
a cycle back to an enclosing item  ``{"__circular__": "TypeName"}``
nesting deeper than 200 levels     ``{"__truncated__": "depth"}``
an int too long to print           ``{"__int__": "0x..."}`` (hexadecimal)
a container that cannot be read    ``{"__unserializable__": "TypeName", "error": "..."}``
anything else                      ``{"__unserializable__": "TypeName", "repr": "..."}``
================================  ==============================================
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import json
import math
import re
import sys
from collections import deque
from collections.abc import Callable, Mapping, Sequence, Set
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import Enum
from json import encoder as _json_encoder
from pathlib import PurePath
from typing import Any, Final, Literal
from uuid import UUID

from pydantic import BaseModel

from .redact import MASK, SecretKeys

__all__ = [
    "MAX_DEPTH",
    "REPR_LIMIT",
    "DataEncoder",
    "orjson_suspect",
    "plain_encoder",
    "strict_encoder",
    "view_encoder",
]

_orjson: Any
try:
    _orjson = importlib.import_module("orjson")
except ImportError:  # a platform without its wheels: the json module alone
    _orjson = None

#: Deeper nesting is cut by the careful encoder.
MAX_DEPTH: Final = 200
#: Longest ``repr`` kept for an unserializable object.
REPR_LIMIT: Final = 500

_NUMBERS: Final = (int, float, bool)


class _Unconvertible(Exception):
    """Raised by the converter for an object no rule covers."""


def _safe_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception as err:  # a broken __repr__ must not break logging
        text = f"<repr failed: {type(err).__name__}>"
    return text if len(text) <= REPR_LIMIT else text[:REPR_LIMIT] + "..."


def _unserializable(value: object) -> dict[str, str]:
    return {"__unserializable__": type(value).__name__, "repr": _safe_repr(value)}


def _failed(value: object, error: BaseException) -> dict[str, str]:
    """A container (or a value) that could not be read: its type and why, never its ``repr``
    (which would show whatever it holds, secrets included)."""
    return {"__unserializable__": type(value).__name__, "error": type(error).__name__}


def _items(value: Any) -> list[tuple[Any, Any]]:
    """``value``'s items, falling back to the plain dict's when its own ``items()`` fails."""
    try:
        return list(value.items())
    except Exception:
        if isinstance(value, dict):
            return list(dict.items(value))
        return []


def _big_int(value: int) -> int | dict[str, str]:
    """``value``, or ``{"__int__": "0x..."}`` when it has more digits than Python will print
    in decimal (``sys.get_int_max_str_digits``); hexadecimal has no such limit."""
    limit = sys.get_int_max_str_digits()
    if limit and value.bit_length() > limit * 3:  # 3 bits per digit at most: cheap pre-check
        try:
            str(value)
        except ValueError:
            return {"__int__": hex(value)}
    return value


def _float(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _build_c_encoder(default: Callable[[Any], Any]) -> Callable[[Any], str] | None:
    """The C encoder of the ``json`` module, bound once (saves its per-call set-up)."""
    make = getattr(_json_encoder, "c_make_encoder", None)
    if make is None:
        return None
    markers: dict[int, Any] = {}
    try:
        iterencode = make(
            markers, default, _json_encoder.encode_basestring, None, ":", ",", False, False, False
        )
    except TypeError:  # a Python whose private signature differs
        return None

    def encode(value: Any) -> str:
        try:
            return "".join(iterencode(value, 0))
        except BaseException:
            markers.clear()  # an aborted run leaves its markers behind
            raise

    sample = {"a": [1, 2.5, None, True], "b": {"c": "\u00e9\n"}}
    try:
        same = encode(sample) == json.dumps(sample, ensure_ascii=False, separators=(",", ":"))
    except Exception:
        same = False
    return encode if same else None


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not plain JSON data")


def strict_encoder() -> Callable[[Any], str]:
    """An encoder of plain JSON data that writes what :class:`DataEncoder`'s fast encoder
    writes for it and raises for anything else (an object JSON lacks, a cycle, a non-finite
    float). Not to be shared between threads (the C encoder keeps its markers)."""
    fast = _build_c_encoder(_refuse)
    if fast is not None:
        return fast
    return json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


# Where orjson's text can differ from the json module's for the same plain data: a float
# below 1e-4 in magnitude (orjson writes ``0.00001`` or ``1.5e-7`` where Python's repr writes
# ``1e-05`` or ``1.5e-07``), and ``null``, which orjson also writes for NaN and infinities
# (the json module refuses those). Text holding either is encoded again the json module's way.
# Only a number can be written differently: a match counts where it lies in what could be a
# number token (digits and points, after an optional minus, at the start of the text or after
# ``:``, ``,`` or ``[``, as orjson's compact text puts every number), so that a string
# holding ``8e-`` (a session id, a uuid) leaves the text orjson's. A match inside a string that
# looks so is counted too: that text is only encoded again.
_NUMBER_RUN: Final = 32
"""Longer runs of digits and points than this are no number orjson writes (it refuses
integers past 64 bits; its floats take at most 24 characters)."""
_ORJSON_SUSPECT: Final = re.compile(
    rb"(?:^|[:,\[])-?(?:[0-9.]{0,%d}[0-9]e-|[0-9.]{0,%d}0\.0000)" % (_NUMBER_RUN - 1, _NUMBER_RUN)
)
_NUMBER_PART: Final = frozenset(b"0123456789.")
_NUMBER_AFTER: Final = frozenset(b":,[")


def _number_ends(out: bytes, end: int) -> bool:
    """Whether the bytes before ``end`` may be a number token's start up to ``end``: a run of
    at most :data:`_NUMBER_RUN` digits and points, an optional minus, and before them the start
    of ``out``, ``:``, ``,`` or ``[``."""
    start = end
    limit = max(0, end - _NUMBER_RUN)
    part = _NUMBER_PART
    while start > limit and out[start - 1] in part:
        start -= 1
    if start > 0 and out[start - 1] in part:  # a longer run: inside a string
        return False
    if start > 0 and out[start - 1] == 45:  # "-"
        start -= 1
    return start == 0 or out[start - 1] in _NUMBER_AFTER


def orjson_suspect(out: bytes) -> bool:
    """Whether ``out`` holds what :data:`_ORJSON_SUSPECT` finds, found with ``bytes.find``
    (in C, a few times faster than the expression over the long text of a conversation), each
    place looked at only where a number could start."""
    at = out.find(b"0.0000")
    while at != -1:
        if _number_ends(out, at):
            return True
        at = out.find(b"0.0000", at + 1)
    at = out.find(b"e-", 1)
    while at != -1:
        if 48 <= out[at - 1] <= 57 and _number_ends(out, at):  # a digit before it
            return True
        at = out.find(b"e-", at + 2)
    return False


def plain_encoder(*, finite: bool = False) -> Callable[[Any], str]:
    """:func:`strict_encoder` for *plain* JSON data (``dict`` with ``str`` keys, ``list``,
    ``tuple``, ``str``, ``int``, ``float``, ``bool``, ``None``, no subclasses: what
    ``amplifier_hooks_redact.walker.plain_strings`` accepts), about ten times faster through
    orjson where it is installed: the same text for the same data, byte for byte, and the
    same errors. orjson serialises some types the json module refuses (an ``Enum``, a
    ``UUID``), so only plain data may be given. Not to be shared between threads.

    With ``finite``, the caller vouches that the data holds no NaN and no infinity
    (``plain_strings`` answered for it): orjson's ``null`` is then always ``None``'s, and a
    text holding one is not encoded again."""
    strict = strict_encoder()
    if _orjson is None:
        return strict
    dumps = _orjson.dumps
    refused = _orjson.JSONEncodeError
    suspect = orjson_suspect

    def encode(value: Any) -> str:
        try:
            out = dumps(value)
        except refused:  # a lone surrogate, an int past 64 bits, deep nesting, a cycle
            return strict(value)
        if (not finite and b"null" in out) or suspect(out):
            return strict(value)
        text: str = out.decode()
        return text

    return encode


def view_encoder() -> Callable[[Any, Any], tuple[str, bool]]:
    """:func:`plain_encoder` with ``finite``, given besides the data a *view* of it: the data
    with leading items of some of its lists left out, each equal to an item whose text was
    found free of what :func:`orjson_suspect` looks for. Only the view's text is searched
    (the search costs more than the encoding, and the items left out are most of a long
    conversation). ``encode(data, view)`` gives the very text ``plain_encoder(finite=True)``
    gives for ``data``, and whether the view's items may be counted as free in turn (its text
    was searched and found free, or no text of orjson's is ever written).

    Sound because what the search finds lies inside one token of the text (a number or a
    string: ``e-`` after a digit, ``0.0000``), and a value equal to another has tokens that
    hold it exactly when the other's do (``1`` for ``True`` or ``1.0``, another key order:
    none holds either pattern). Not to be shared between threads."""
    strict = strict_encoder()
    if _orjson is None:
        return lambda value, view: (strict(value), True)  # nothing searched, nothing to find
    dumps = _orjson.dumps
    refused = _orjson.JSONEncodeError
    suspect = orjson_suspect

    def encode(value: Any, view: Any) -> tuple[str, bool]:
        try:
            out = dumps(value)
        except refused:  # a lone surrogate, an int past 64 bits, deep nesting, a cycle
            return strict(value), False
        if suspect(out if view is value else dumps(view)):
            return strict(value), False
        text: str = out.decode()
        return text, True

    return encode


Redact = Callable[[Any], Any]
"""Returns its argument with every secret in its strings replaced (the same object when there
is none); walks dicts, lists and tuples."""


def _redaction_failed(error: BaseException) -> dict[str, str]:
    """The marker for a value redaction failed on: the error's type (and, for a Unicode
    error, its reason and position), never its message, which may quote the value."""
    why = type(error).__name__
    if isinstance(error, UnicodeError):
        why += f": {getattr(error, 'reason', '')} at {getattr(error, 'start', '?')}"
    return {"__redaction_failed__": why}


class DataEncoder:
    """Encodes event data to compact JSON text, masking secret-looking keys at any depth and,
    given ``redact``, secrets in every string."""

    def __init__(
        self,
        secrets: SecretKeys | None = None,
        bytes_format: Literal["utf8", "base64"] = "utf8",
        redact: Redact | None = None,
    ) -> None:
        self._secrets = secrets if secrets is not None else SecretKeys()
        self._redact = redact
        self._base64 = bytes_format == "base64"
        fast = _build_c_encoder(self._default)
        if fast is None:
            plain = json.JSONEncoder(
                default=self._default, ensure_ascii=False, allow_nan=False, separators=(",", ":")
            )
            fast = plain.encode
        self._fast: Callable[[Any], str] = fast
        self._plain = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    @property
    def secrets(self) -> SecretKeys:
        return self._secrets

    def encode(self, data: Any) -> str:
        """Compact JSON text for ``data``; never raises."""
        if self._redact is not None:
            try:
                data = self._redact(data)
            except Exception as err:  # never write what could not be redacted: each top-level
                if not isinstance(data, Mapping):  # value on its own, so one costs only itself
                    return self._plain.encode(_redaction_failed(err))
                data = {key: self._redacted(value) for key, value in _items(data)}
        try:
            if not self._secrets.scan(data):
                return self._fast(data)
        except Exception:  # cycles, depth, NaN, odd keys, failing converters: be careful
            pass
        return self.encode_carefully(data)

    def encode_carefully(self, data: Any) -> str:
        """Walk ``data`` in Python, converting and masking everything; never raises.

        Should the whole fail to encode, each top-level value is encoded on its own, so one
        bad value costs only itself: never a ``repr`` of the whole event.
        """
        try:
            return self._plain.encode(self.sanitize(data))
        except Exception as err:
            if not isinstance(data, Mapping):
                return self._plain.encode(_failed(data, err))
        out: dict[str, Any] = {}
        for key, item in _items(data):
            name = key if type(key) is str else self._key(key)
            if self._secrets.is_secret(name) and not (item is None or isinstance(item, _NUMBERS)):
                out[name] = MASK
                continue
            try:
                encoded = self._plain.encode(self._walk(item, 1, set()))
            except Exception as err:
                out[name] = _failed(item, err)
            else:
                out[name] = json.loads(encoded)
        return self._plain.encode(out)

    # ------------------------------------------------------------------ conversion rules

    def convert(self, value: Any) -> Any:
        """One step of conversion for a value JSON cannot hold; raises for unknown types."""
        if isinstance(value, datetime | date | time):
            return value.isoformat()
        if isinstance(value, timedelta):
            return value.total_seconds()
        if isinstance(value, Decimal | UUID):
            return str(value)
        if isinstance(value, bytes | bytearray | memoryview):
            raw = bytes(value)
            if self._base64:
                if self._redact is not None:  # redact the text; if that changed it, the
                    text = raw.decode("utf-8", "backslashreplace")  # redacted text's bytes
                    clean = self._redact(text)
                    if clean is not text:
                        raw = clean.encode("utf-8")
                return {"__bytes__": base64.b64encode(raw).decode("ascii")}
            return raw.decode("utf-8", "backslashreplace")
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, PurePath):
            return str(value)
        if isinstance(value, BaseException):
            return {"type": type(value).__name__, "message": str(value)}
        if isinstance(value, BaseModel):
            return value.model_dump()
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if isinstance(value, Set):
            try:
                return sorted(value)
            except Exception:
                return list(value)
        if isinstance(value, Mapping):
            return dict(value)
        if isinstance(value, deque | Sequence) and not isinstance(value, range | str):
            return list(value)
        raise _Unconvertible(type(value).__name__)

    def _default(self, value: Any) -> Any:
        """``default`` hook of the fast encoder; masks secrets inside converted objects."""
        try:
            converted = self.convert(value)
        except _Unconvertible:
            return self._redacted(_unserializable(value))
        if self._redact is not None:
            try:
                converted = self._redact(converted)
            except Exception as err:
                return _redaction_failed(err)
        if self._secrets.scan(converted):
            return self.sanitize(converted)
        return converted

    def _redacted(self, value: Any) -> Any:
        """``value`` with its strings redacted (when redaction is on); never raises."""
        if self._redact is None:
            return value
        try:
            return self._redact(value)
        except Exception as err:
            return _redaction_failed(err)

    # ------------------------------------------------------------------ careful walk

    def sanitize(self, value: Any) -> Any:
        """A JSON-ready copy of ``value``: only dicts, lists, strings, numbers, bools, None."""
        return self._walk(value, 0, set())

    def _walk(self, value: Any, depth: int, active: set[int]) -> Any:
        kind = type(value)
        if kind is str:
            return self._redacted(value)
        if kind is bool or value is None:
            return value
        if kind is int:
            return _big_int(value)
        if kind is float:
            return _float(value)
        if isinstance(value, str):
            return self._redacted(str.__str__(value))
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int) and not isinstance(value, Enum):
            return _big_int(int.__int__(value))
        if isinstance(value, float) and not isinstance(value, Enum):
            return _float(float.__float__(value))
        if depth >= MAX_DEPTH:
            return {"__truncated__": "depth"}
        ident = id(value)
        if ident in active:
            return {"__circular__": kind.__name__}
        active.add(ident)
        try:
            if isinstance(value, dict):
                return self._walk_dict(value, depth, active)
            if isinstance(value, list | tuple):
                items: Sequence[Any]
                try:
                    items = list(value)
                except Exception as err:  # a subclass whose iteration raises
                    try:
                        items = list.copy(value) if isinstance(value, list) else tuple(value)
                    except Exception:
                        return _failed(value, err)
                return [self._walk(item, depth + 1, active) for item in items]
            try:
                converted = self.convert(value)
            except _Unconvertible:
                return self._redacted(_unserializable(value))
            except Exception as err:  # a container or model that fails to be read
                return _failed(value, err)
            return self._walk(converted, depth + 1, active)
        finally:
            active.discard(ident)

    def _walk_dict(self, value: dict[Any, Any], depth: int, active: set[int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in _items(value):
            name = key if type(key) is str else self._key(key)
            if self._secrets.is_secret(name) and not (item is None or isinstance(item, _NUMBERS)):
                out[name] = MASK
            else:
                out[name] = self._walk(item, depth + 1, active)
        return out

    def _key(self, key: Any) -> str:
        if isinstance(key, str):
            return str.__str__(key)
        if isinstance(key, Enum):
            key = key.value
        if key is None or isinstance(key, bool):
            return json.dumps(key)  # as the JSON encoder writes them: null, true, false
        if isinstance(key, float):
            return str(_float(key))
        try:
            return str(key)
        except Exception:
            return _safe_repr(key)
