"""A provider request read as the plain data its ``model_dump()`` gives, without dumping it.

A request carries the whole conversation, and dumping it for every model call costs as much as
the conversation is long. :func:`plain_view` reads the request's models through their own
fields instead: a model becomes a new dict of its fields and extra keys, and everything else
is the very object the model holds, so the conversation's dicts, lists and strings are the
ones the redaction memo (:mod:`amplifier_hooks_redact.memo`) met before.

The view is taken only where it holds exactly the strings and keys of ``model_dump()``: models
of the kernel's ``message_models`` whose classes turn no value into something else on the way
out (no serializer of any kind, no computed field) and whose ``model_dump`` is pydantic's own.
Anything else in a request (a model of another kind, a dataclass) makes the view ``None``,
and the request is dumped as before.

An orchestrator may build every message's model anew for each request (Amplifier's
loop-basic does), from the same strings. :class:`CleanModels` remembers the models found clean
by what they hold: their class and the text of their fields and extra keys when every field
is a string, a number or ``None`` (and every extra value one too, or a container the memo
knows clean, or a list of such). Strings cannot change, so a model holding the same strings
holds nothing to redact either, and it stands in the view as an empty dict.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from amplifier_hooks_redact.memo import CleanMemo

__all__ = ["CleanModels", "plain_view"]

_MODULE: Final = "amplifier_core.message_models"
_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
_MAX_DEPTH: Final = 64
_readable: dict[type, bool] = {}
_TEXT: Final = frozenset({str, type(None), bool, int, float})
"""What a remembered model's fields may hold: strings, and values without text."""
_MAX_KEYS: Final = 65_536
_KNOWN: Final = object()
"""Stands in a key for a container the memo knows clean and unchanged (no value is it)."""
_UNKEYED: Final = object()
_DICT: Final = object()
"""Opens the key of a dict (so that no list is written the same way)."""


def _keyed(value: Any, memo: CleanMemo | None, depth: int = 0) -> Any:
    """``value`` as it stands in a key: a string or number as itself, a container the memo
    knows as :data:`_KNOWN`, a list as the tuple of its items so written and a dict of
    ``str`` keys as the tuple of its pairs after :data:`_DICT` (a model's dict field is a new
    dict each time it is validated); else :data:`_UNKEYED`."""
    if type(value) in _TEXT:
        return value
    if memo is None or depth > 4:
        return _UNKEYED
    if memo.known(value):
        return _KNOWN
    kind = type(value)
    if kind is list:
        items: list[Any] = []
        for item in value:
            keyed = _keyed(item, memo, depth + 1)
            if keyed is _UNKEYED:
                return _UNKEYED
            items.append(keyed)
        return tuple(items)
    if kind is dict:
        pairs: list[Any] = [_DICT]
        for name, item in value.items():
            keyed = _keyed(item, memo, depth + 1)
            if type(name) is not str or keyed is _UNKEYED:
                return _UNKEYED
            pairs.append((name, keyed))
        return tuple(pairs)
    return _UNKEYED


class CleanModels:
    """The models found clean, by class and the strings they hold (see the module docstring)."""

    __slots__ = ("_clean", "_pending")

    def __init__(self) -> None:
        self._clean: set[tuple[Any, ...]] = set()
        self._pending: list[tuple[Any, ...]] = []

    def key(self, model: Any, memo: CleanMemo | None) -> tuple[Any, ...] | None:
        """What ``model``'s verdict is remembered by, or ``None`` when it holds more than
        strings (then it is looked at every time)."""
        values = tuple(model.__dict__.values())
        if not _TEXT.issuperset(map(type, values)):
            keyed = [_keyed(value, memo) for value in values]
            if any(value is _UNKEYED for value in keyed):
                return None
            values = tuple(keyed)
        extra = model.__pydantic_extra__
        if not extra:
            return (type(model), values)
        extras: list[tuple[str, Any]] = []
        for name, item in extra.items():
            keyed_item = _keyed(item, memo)
            if type(name) is not str or keyed_item is _UNKEYED:
                return None
            extras.append((name, keyed_item))
        return (type(model), values, tuple(extras))

    def __contains__(self, key: tuple[Any, ...]) -> bool:
        return key in self._clean

    def begin(self) -> None:
        """A new request is being read: forget what an unfinished one left pending."""
        self._pending = []

    def pending(self, key: tuple[Any, ...]) -> None:
        """``key``'s model is in the request being decided."""
        self._pending.append(key)

    def decided(self, clean: bool) -> None:
        """The request was decided: remember its models when it was clean."""
        pending, self._pending = self._pending, []
        if clean and pending:
            if len(self._clean) + len(pending) > _MAX_KEYS:
                self._clean.clear()
            self._clean.update(pending)


class _Unreadable(Exception):
    """Raised inside :func:`plain_view` for a value the view cannot stand for."""


def _is_model(value: object) -> bool:
    return hasattr(type(value), "__pydantic_fields__")


def _plain_class(cls: type) -> bool:
    """Whether ``cls`` is a kernel message model whose dump is its fields as they are."""
    known = _readable.get(cls)
    if known is not None:
        return known
    from pydantic import BaseModel

    decorators = getattr(cls, "__pydantic_decorators__", None)
    fields = getattr(cls, "model_fields", None)
    plain = (
        cls.__module__ == _MODULE
        and issubclass(cls, BaseModel)
        and cls.model_dump is BaseModel.model_dump
        and decorators is not None
        and not decorators.field_serializers
        and not decorators.model_serializers
        and not getattr(cls, "model_computed_fields", None)
        and isinstance(fields, dict)
        and all(not info.metadata and not info.exclude for info in fields.values())
    )
    _readable[cls] = plain
    return plain


def _view(
    value: Any, depth: int, memo: CleanMemo | None, models: CleanModels | None, skip: int = 0
) -> Any:
    kind = type(value)
    if kind in _LEAVES:
        return value
    if depth > _MAX_DEPTH:
        raise _Unreadable
    if kind is list or kind is tuple or kind is dict:
        if memo is not None and memo.known(value):
            return value  # plain data remembered clean, unchanged: no model inside
        if kind is dict:
            changed = {}
            for key, item in value.items():
                new = _view(item, depth + 1, memo, models)
                if new is not item:
                    changed[key] = new
            return {**value, **changed} if changed else value
        items = [_view(item, depth + 1, memo, models) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if kind is list else tuple(items)
    if _is_model(value):
        if not _plain_class(kind):
            raise _Unreadable
        if models is not None and (key := models.key(value, memo)) is not None:
            if key in models:
                return {}  # the same strings as a model found clean: nothing to look at
            models.pending(key)
        fields: dict[str, Any] = {}
        for key, item in value.__dict__.items():
            if skip and key == "messages" and type(item) is list:
                item = item[skip:]  # the leading messages were decided clean
            fields[key] = _view(item, depth + 1, memo, models)
        extra = value.__pydantic_extra__
        if extra:
            for key, item in extra.items():
                fields[key] = _view(item, depth + 1, memo, models)
        return fields
    if dataclasses.is_dataclass(value) or isinstance(value, dict | list | tuple):
        raise _Unreadable  # dumped into something else, or a container subclass: dump it
    return value  # kept as it is by model_dump (and left alone by the redaction walk)


def plain_view(
    request: Any,
    memo: CleanMemo | None = None,
    models: CleanModels | None = None,
    *,
    leading: int = 0,
) -> Any | None:
    """``request`` (a kernel ``ChatRequest``) as the plain data of its ``model_dump()``, made
    of the objects it holds, or ``None`` when that cannot be read without dumping it. A
    container ``memo`` remembers clean and unchanged is plain data: it is not looked into; a
    model ``models`` remembers clean stands as an empty dict (call ``models.decided`` once the
    view is decided). The first ``leading`` messages are left out of the view: the caller
    knows them clean (:class:`~amplifier_hooks_util.clean_run.CleanRun`)."""
    if not _is_model(request) or not _plain_class(type(request)):
        return None
    if models is not None:
        models.begin()
    try:
        return _view(request, 0, memo, models, leading)
    except (_Unreadable, RecursionError):
        return None
