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
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from amplifier_hooks_redact.memo import CleanMemo

__all__ = ["plain_view"]

_MODULE: Final = "amplifier_core.message_models"
_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
_MAX_DEPTH: Final = 64
_readable: dict[type, bool] = {}


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


def _view(value: Any, depth: int, memo: CleanMemo | None) -> Any:
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
                new = _view(item, depth + 1, memo)
                if new is not item:
                    changed[key] = new
            return {**value, **changed} if changed else value
        items = [_view(item, depth + 1, memo) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if kind is list else tuple(items)
    if _is_model(value):
        if not _plain_class(kind):
            raise _Unreadable
        fields: dict[str, Any] = {}
        for key, item in value.__dict__.items():
            fields[key] = _view(item, depth + 1, memo)
        extra = value.__pydantic_extra__
        if extra:
            for key, item in extra.items():
                fields[key] = _view(item, depth + 1, memo)
        return fields
    if dataclasses.is_dataclass(value) or isinstance(value, dict | list | tuple):
        raise _Unreadable  # dumped into something else, or a container subclass: dump it
    return value  # kept as it is by model_dump (and left alone by the redaction walk)


def plain_view(request: Any, memo: CleanMemo | None = None) -> Any | None:
    """``request`` (a kernel ``ChatRequest``) as the plain data of its ``model_dump()``, made
    of the objects it holds, or ``None`` when that cannot be read without dumping it. A
    container ``memo`` remembers clean and unchanged is plain data: it is not looked into."""
    if not _is_model(request) or not _plain_class(type(request)):
        return None
    try:
        return _view(request, 0, memo)
    except (_Unreadable, RecursionError):
        return None
