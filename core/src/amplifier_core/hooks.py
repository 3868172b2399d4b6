"""The hook registry: register handlers for events and emit events through them.

The emit contract, in order of what happens:

1. The event name is resolved (``PreToolUse`` -> ``tool:pre``). With no handler the result
   is ``continue`` with a copy of the data as given. Otherwise the data is copied, the
   registry's default fields are merged *under* it and ``timestamp`` (UTC, ISO 8601) is set
   by the registry: a caller's own ``timestamp`` is replaced, as amplifier-core 2.0.2 does.
   Handlers then see the data as 2.0.2 hands it over, as JSON carries it (``json_data``, on
   by default): what JSON cannot encode as ``str(value)``, a ``ToolResult`` as its text,
   tuples as lists; values that already are JSON are passed on as they are, without a copy.
2. Handlers subscribed to the event, exactly or through a pattern (``*``, ``tool:*``,
   ``*:error``), run one at a time: lower ``priority`` first, ties in registration order.
   Handlers may be sync or async.
3. ``deny`` stops the chain and is returned as it is (with ``source`` naming the handler).
4. ``modify`` with ``data`` replaces the data the next handler sees (made JSON-shaped the
   same way); so does the data of the winning ``ask_user`` (the input it asks about). What
   the user is asked about is fixed at that moment: a deep copy is taken, changes that
   handlers after the ask make (returned or in place) are dropped with a warning, and the
   result carries that copy, so what runs is what the user approved.
5. The final result follows the precedence deny > ask_user > inject_context > continue;
   data that handlers modified comes back as ``continue`` carrying it (amplifier-core
   2.0.2's contract: the caller reads ``result.data``, always the final data after all
   modifications). The first ``ask_user`` wins among several. Every injection an
   ``inject_context`` or ``ask_user`` result carries is kept, in order, as a
   :class:`~amplifier_core.models.ContextInjection` naming its handler and event, and the
   scalar context fields are projected from that list; every ``user_message`` is kept in
   ``user_messages``, whatever the action that carried it.
6. A handler that raises or runs past its timeout does not break emit: the failure is
   logged with handler name and event, passed to failure listeners (the coordinator's audit
   trail), and treated as ``continue``. A handler registered with ``fail_closed=True`` turns
   its own failure into ``deny`` instead: use it for security gates that must never fail open.
   What a handler returns is read by :func:`read_result`: ``None`` is continue, and a mapping
   of HookResult fields is that HookResult, as amplifier-core 2.0.2 reads it. Anything else
   (a mapping with an unknown key or action, a string, a number) is an ``invalid_result``
   failure, logged with what was returned and what a HookResult is, and a ``deny`` for every
   handler, as on amplifier-core 2.0.2: a guard's answer that cannot be read never becomes
   an allow.
   A ``TimeoutError`` the handler raises itself is an ordinary error, not a timeout. A
   timeout holds: a handler that swallows the cancellation is closed after
   ``HookRegistry.cancel_grace`` seconds, and a sync handler with a ``timeout`` of its own
   runs in a thread that is left behind at its deadline.
7. ``asyncio.CancelledError`` is never swallowed: cancelling the session cancels emit.
"""

from __future__ import annotations

import copy
import inspect
import os
import sys
from collections.abc import Awaitable, Iterable, Mapping
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from functools import lru_cache
from time import perf_counter as _clock
from time import time as _wall
from time import time_ns as _time_ns
from types import CoroutineType, FrameType
from typing import TYPE_CHECKING, Any, Final

from . import events as _events
from .handlers import (
    FailureKind,
    FailureListener,
    Handler,
    HandlerFailure,
    HandlerInfo,
    Unregister,
    handler_name,
    is_async_handler,
    read_result,
)
from .models import ContextInjection, HookResult, ToolResult, UserMessage

if TYPE_CHECKING:
    from logging import Logger

    from .observers import HandlerObserver, ObservedChains

__all__ = [
    "FailureKind",
    "FailureListener",
    "Handler",
    "HandlerInfo",
    "HookRegistry",
    "HookResult",
    "Unregister",
    "read_result",
]

_CONTINUE: Final = HookResult()
"""What a combined result is a copy of, unless a handler's deny or ask_user is."""
_carrying: Final = HookResult.carrying
"""Bound once: an attribute of a pydantic model class is slow to look up (about 0.1 us)."""


_NATIVE: Final = frozenset({str, int, float, bool, type(None)})
"""Value types JSON carries as they are; data made only of these (in dicts with ``str`` keys
and lists) is handed to handlers without a copy."""
_JSON_DEPTH: Final = 200
"""Containers nested deeper than this are handed over as they are, not normalised: what a
handler returns with ``modify`` becomes the data, so nothing is cut away from it."""
_PLAIN_BUDGET: Final = 100_000
"""Containers the plain-data check looks at before it gives up (and the data is copied)."""


_MEMO_ENTRIES: Final = 65_536
_MEMO_DEPTH: Final = 64
_MEMO_SHARED: Final = frozenset({str, int, float, bool, type(None)})
_MEMO_RUNS: Final = 256


class _NotPlain(Exception):
    """Raised inside :func:`_memo_copy` for a value that is not plain JSON data."""


# On JSON data, amplifier_hooks_redact.memo.snapshot (which the kernel may not import);
# tests/copies/test_held_copies.py holds the two equal.
def _memo_copy(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind in _MEMO_SHARED:
        return value
    if depth >= _MEMO_DEPTH:
        raise _NotPlain
    if kind is dict:
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            copied[key] = _memo_copy(item, depth + 1)
        return copied
    if kind is list:
        return [_memo_copy(item, depth + 1) for item in value]
    raise _NotPlain


class PlainMemo:
    """Lists' items already found to be plain JSON data, so that emit does not look at them
    again.

    Every ``provider:request`` of a growing conversation carries the same message dicts again.
    :class:`PlainMemo` remembers the items of lists that emit found to be plain JSON data (dicts
    with ``str`` keys, lists, strings, numbers, booleans, ``None``), each with a deep copy of what
    it held then (new dicts and lists, the same strings and numbers). The same item met again is
    plain when it still equals that copy: the interpreter compares the two in C, the unchanged
    strings by identity. An item changed in place since (a value replaced, a block appended) is
    unequal and is looked at again, and normalised if it is no longer plain.

    Equality does not see a value replaced by an equal one of another type: an item whose ``1``
    was replaced in place by ``Decimal(1)``, or whose string by an equal ``str`` subclass, is
    still taken as plain and handed over as it is. Nothing in the kernel or its modules does that.

    A list met at the same place of event data (``messages``, or ``request.messages`` one dict
    down) is first compared as a whole with copies of the items of the last one found plain
    there (:meth:`plain_list`): the leading items that equal them in place are taken as plain
    in one comparison made in C, and only the items after them are looked up one by one.

    One memo belongs to one registry; it forgets everything once it holds ``_MEMO_ENTRIES``.
    """

    __slots__ = ("_once", "_runs", "_seen")

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, Any]] = {}
        self._once: dict[int, Any] = {}  # met once: copied only when met again
        self._runs: dict[tuple[str, ...], list[Any]] = {}  # copies of lists found plain

    def plain_list(self, place: tuple[str, ...], items: list[Any]) -> bool:
        """:func:`_plain_items` for the list at ``place`` in event data (a key, or a key and
        one under it), its leading items that equal, in place, the copies of those of the
        last list found plain there not looked at one by one: one comparison of lists in C
        recognises them (a conversation only grows; its last item may be for one request)."""
        runs = self._runs
        copies = runs.get(place)
        start = 0
        if copies:
            length = min(len(items), len(copies))
            try:
                last = length - 1  # often for one event only: compared first
                if items[:last] == copies[:last]:
                    start = length if items[last] == copies[last] else last
            except Exception:  # an item that cannot be compared: every item is looked at
                start = 0
        if not _plain_items(items[start:] if start else items, self):
            runs.pop(place, None)
            return False
        kept = copies[:start] if copies else []
        for item in items[start:]:
            try:
                kept.append(_memo_copy(item, 0))
            except (_NotPlain, RecursionError):
                break
        if place not in runs and len(runs) >= _MEMO_RUNS:
            runs.clear()
        runs[place] = kept
        return True

    def known(self, value: Any) -> bool:
        """Whether ``value`` was remembered plain and still equals what it held then."""
        hit = self._seen.get(id(value))
        if hit is None or hit[0] is not value:
            return False
        try:
            return bool(value == hit[1])
        except Exception:  # something inside that cannot be compared: look again
            return False

    def remember(self, value: Any) -> None:
        """Remember ``value``, a dict or list just found plain. It is copied the second time
        it is found plain, not the first: data built anew for each event is never carried
        again, and is not copied."""
        ident = id(value)
        once = self._once
        if once.get(ident) is not value:
            if len(once) >= _MEMO_ENTRIES:
                once.clear()
            once[ident] = value
            return
        once.pop(ident, None)  # another thread may have cleared it
        try:
            copied = _memo_copy(value, 0)
        except (_NotPlain, RecursionError):
            return
        seen = self._seen
        if len(seen) >= _MEMO_ENTRIES:
            seen.clear()
        seen[id(value)] = (value, copied)


def _as_json(data: dict[str, Any], memo: PlainMemo | None = None) -> dict[str, Any]:
    """``data`` as amplifier-core 2.0.2 hands it to handlers: what JSON cannot encode as
    ``str(value)`` (a ``ToolResult`` as 2.0.2's text of it, paths, bytes, dates, decimals,
    models), tuples as lists, dict keys as JSON writes them. Values that already are JSON are
    kept, the very objects: plain data costs one look at each value and no copy. Never
    raises: a container that contains itself, or nesting past ``_JSON_DEPTH``, is kept as it
    is from there on; an object whose ``str()`` fails reads ``<unprintable TypeName>``. With
    ``memo``, the items of a list (at the top of the data or one dict down) found plain before
    and unchanged are not looked at again (a conversation carried by every request: see
    :class:`PlainMemo`)."""
    native = _NATIVE
    for key, value in data.items():
        if type(key) is not str:
            break
        kind = type(value)
        if kind in native:
            continue
        if kind is dict:  # a flat dict of scalars, the usual nested value: looked at here
            for inner, item in value.items():
                if type(inner) is not str or type(item) not in native:
                    break
            else:
                continue
        if memo is None:
            plain = _plain(value)
        elif kind is list:
            plain = memo.plain_list((key,), value)
        elif kind is dict:
            plain = _plain_fields(key, value, memo)
        else:
            plain = _plain(value, memo)
        if not plain:
            break
    else:
        return data
    active: set[int] = set()
    return {_json_key(k): _json(v, active) for k, v in data.items()}


def _plain_fields(key: str, value: dict[Any, Any], memo: PlainMemo) -> bool:
    """:func:`_plain` for the dict under ``key`` of event data, its lists by
    :meth:`PlainMemo.plain_list` (a request's messages under ``request``, say)."""
    for inner, item in value.items():
        if type(inner) is not str:
            return False
        kind = type(item)
        if kind in _NATIVE:
            continue
        if not (memo.plain_list((key, inner), item) if kind is list else _plain(item, memo)):
            return False
    return True


def _plain_items(items: list[Any], memo: PlainMemo) -> bool:
    """:func:`_plain` for a list, each dict or list item remembered in ``memo`` once found
    plain, and not looked at again while it equals what it held then."""
    native = _NATIVE
    for item in items:
        kind = type(item)
        if kind in native:
            continue
        if kind is not dict and kind is not list:
            return False
        if memo.known(item):
            continue
        if not _plain(item):
            return False
        memo.remember(item)
    return True


def _plain(value: Any, memo: PlainMemo | None = None) -> bool:
    """Whether ``value``, not a native scalar, is JSON already: a ``list`` or a ``dict``
    with ``str`` keys, of native scalars and such containers all the way down. Walked without
    recursion; past ``_PLAIN_BUDGET`` containers (a cycle, or very large data) the answer is
    no, and the careful copy takes over. With ``memo``, the items of lists remembered plain
    and unchanged are not looked at (:class:`PlainMemo`)."""
    cls = type(value)
    if cls is dict:  # a flat dict of scalars, the usual nested value, needs no walk
        for key, item in value.items():
            if type(key) is not str:
                return False
            if type(item) not in _NATIVE:
                break
        else:
            return True
    elif cls is not list:
        return False
    native = _NATIVE
    stack: list[Any] = [value]
    budget = _PLAIN_BUDGET
    while stack:
        budget -= 1
        if budget < 0:
            return False
        current = stack.pop()
        if type(current) is dict:
            for key in current:
                if type(key) is not str:
                    return False
            items = current.values()
        elif memo is not None:  # a list's items: those remembered plain are not looked at
            if not _plain_items(current, memo):
                return False
            continue
        else:
            items = current
        for item in items:
            kind = type(item)
            if kind in native:
                continue
            if kind is dict or kind is list:
                stack.append(item)
            else:
                return False
    return True


def _json(value: Any, active: set[int]) -> Any:
    """``value`` as ``json.loads(json.dumps(value, default=str))`` gives it back, except that
    a ``ToolResult`` reads as in 2.0.2 and that nothing raises."""
    cls = value.__class__
    if cls in _NATIVE:
        return value
    if isinstance(value, dict | list | tuple):
        ident = id(value)
        if ident in active or len(active) >= _JSON_DEPTH:
            return value  # a cycle, or too deep: as it is
        active.add(ident)
        try:
            if isinstance(value, dict):
                return {_json_key(k): _json(v, active) for k, v in value.items()}
            return [_json(item, active) for item in value]
        except Exception:  # a container subclass whose iteration fails: its text
            return _str(value)
        finally:
            active.discard(ident)
    if isinstance(value, str):  # a str subclass (StrEnum ...): its text, as json writes it
        return str.__str__(value)
    if isinstance(value, int):  # bool is native; IntEnum and other subclasses: the number
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, ToolResult):
        return _tool_result_text(value)
    return _str(value)


def _str(value: object) -> str:
    try:
        return str(value)
    except Exception:  # a broken __str__ must not break emit
        return f"<unprintable {type(value).__name__}>"


def _json_key(key: object) -> str:
    """A dict key as JSON writes it (``1`` -> ``"1"``, ``None`` -> ``"null"``); a key JSON
    refuses (a tuple ...) as ``str(key)``, where 2.0.2 raises."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return "null" if key is None else ("true" if key else "false")
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        return float.__repr__(key)
    return _str(key)


def _tool_result_text(result: ToolResult) -> str:
    """A ``ToolResult`` as 2.0.2's ``str()`` of it reads, which is what its handlers get: the
    output (``"Success"`` when empty), or ``"Error: <message>"`` (``"Failed"`` without one)."""
    if result.success:
        return _str(result.output) if result.output else "Success"
    if result.error:
        return f"Error: {result.error.get('message', 'Unknown error')}"
    return "Failed"


_KERNEL_DIR: Final = os.path.dirname(__file__) + os.sep


def _caller() -> str | None:
    """``file:line`` of the first frame outside the kernel that led to this call."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_KERNEL_DIR):
        frame = frame.f_back
    return None if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _watch_loop() -> None:
    """Have the running event loop watched for handlers that hold it
    (:mod:`amplifier_core.slow_handlers`, imported with the first registration in a loop);
    nothing outside a loop."""
    from .slow_handlers import mark_handler_frames, watch_running_loop

    mark_handler_frames((HookRegistry.emit.__code__, HookRegistry.emit_and_collect.__code__))
    watch_running_loop()


def _order(info: HandlerInfo) -> tuple[int, int]:
    return (info.priority, info.seq)


# ---------------------------------------------------------------------- running one handler


def _failure(error: BaseException) -> tuple[FailureKind, str]:
    """The kind and text of a handler's failure (see :func:`_handler_error`)."""
    if isinstance(error, HandlerFailure):
        return error.kind, error.error
    return "error", _handler_error(error)


def _handler_error(error: BaseException) -> str:
    """How a handler's exception is reported; raises ``error`` again when it is not the
    handler's to report: ``KeyboardInterrupt``, ``SystemExit``, or the emitting task's own
    cancellation (a handler's own ``CancelledError`` is a failure, as in 2.0.2)."""
    if isinstance(error, Exception):
        return f"{type(error).__name__}: {error}"
    if _own_cancellation(error):
        return "CancelledError raised by the handler"
    raise error


def _own_cancellation(error: BaseException) -> bool:
    """A ``CancelledError`` a handler raised itself, while the emitting task is not being
    cancelled (asyncio is loaded: this runs inside a coroutine)."""
    import asyncio

    if not isinstance(error, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is None or not task.cancelling()


async def _run(
    info: HandlerInfo, event: str, data: dict[str, Any], default: float | None, grace: float
) -> object:
    """Run any handler and await what it returns, within its ``timeout`` (else ``default``)
    seconds when there is one. A sync handler runs on the event loop, unless it has a
    ``timeout`` of its own: then in a thread (:func:`_in_thread`). (emit awaits an async
    handler without a deadline itself: the usual case needs none of this.)"""
    limit = info.timeout or default
    if info.timeout is not None and not info.is_async:
        result = await _in_thread(info, event, data)
    else:
        result = info.handler(event, data)
    if result is not None and result.__class__ is not HookResult and inspect.isawaitable(result):
        if limit is None:
            return await result
        return await _bounded(result, limit, grace)
    return result


async def _in_thread(info: HandlerInfo, event: str, data: dict[str, Any]) -> object:
    """Run a sync handler that has a ``timeout`` of its own in a thread, on a private copy of
    the data; at its deadline it is left behind (a thread cannot be stopped)."""
    import asyncio

    from .deadlines import in_thread

    try:
        async with asyncio.timeout(info.timeout) as scope:
            return await in_thread(info.handler, event, _private(data), name=info.name)
    except TimeoutError:
        if scope.expired():
            raise HandlerFailure(
                "timeout",
                f"timed out after {info.timeout:g}s (its thread is left to finish; "
                "what it returns is dropped)",
            ) from None
        raise  # the handler's own TimeoutError is an ordinary error


async def _bounded(awaitable: Awaitable[object], limit: float, grace: float) -> object:
    """Await what a handler returned for at most ``limit`` seconds. Past it the handler is
    cancelled and, should it not end within ``grace`` seconds, closed (see
    :func:`amplifier_core.deadlines.bounded`)."""
    import asyncio

    from . import deadlines

    coro = awaitable if awaitable.__class__ is CoroutineType else _as_coroutine(awaitable)
    task = asyncio.current_task()
    cancelling = task.cancelling() if task is not None else 0
    try:
        async with asyncio.timeout(limit) as scope:
            return await deadlines.bounded(coro, grace)
    except TimeoutError:
        if scope.expired():
            raise HandlerFailure("timeout", f"timed out after {limit:g}s") from None
        raise  # the handler's own TimeoutError is an ordinary error
    except deadlines.HandlerStopped as stopped:
        emit_cancelled = task is not None and task.cancelling() > cancelling
        if emit_cancelled or not scope.expired():
            raise asyncio.CancelledError from None
        raise HandlerFailure(
            "timeout", f"timed out after {limit:g}s; cancelled, {stopped}, so it was closed"
        ) from None


async def _as_coroutine(awaitable: Awaitable[object]) -> object:
    return await awaitable


def _private(data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``data``, or a shallow one where something in it cannot be copied."""
    try:
        return copy.deepcopy(data)
    except Exception:
        return dict(data)


def _logger() -> Logger:
    """This module's logger; logging is imported on the first handler failure, not on import."""
    import logging

    return logging.getLogger(__name__)


# ---------------------------------------------------------------------- combining results


@lru_cache(maxsize=1)
def _utc_second(second: int) -> str:
    """``second`` (Unix time) in UTC ISO 8601, to the second: formatted once a second."""
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")


_MILLIS: Final = tuple(f".{millis:03d}+00:00" for millis in range(1000))


class _Clock:
    """The time in UTC ISO 8601, to the millisecond (``2026-11-27T15:01:52.123+00:00``),
    formatted once per millisecond: every emit stamps its data, most within the same one."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[int, str] = (-1, "")  # (Unix time in ms, its text), set as one

    def now(self) -> str:
        millis = _time_ns() // 1_000_000
        last = self.last
        if last[0] == millis:
            return last[1]
        second, part = divmod(millis, 1000)
        text = _utc_second(second) + _MILLIS[part]
        self.last = (millis, text)
        return text


_now_iso: Final = _Clock().now
"""The time in UTC ISO 8601, to the millisecond (see :class:`_Clock`)."""


def _fail_closed(info: HandlerInfo, event: str, kind: FailureKind, error: str) -> HookResult:
    why = "is fail-closed" if info.fail_closed else "its result is read as a deny"
    return HookResult(
        action="deny",
        reason=f"hook {info.name!r} failed on {event!r} and {why}: {error}",
        source=info.name,
    )


class _Gathered:
    """What the handlers of one emit asked for beyond a plain ``continue``, in the order they
    ran: the first ``ask_user`` and a private copy of the data it asks about, every
    injection and every user message, each with the handler it came from."""

    __slots__ = ("ask", "asked", "injections", "json_data", "messages")

    def __init__(self, json_data: bool) -> None:
        self.json_data = json_data
        self.ask: HookResult | None = None
        self.asked: dict[str, Any] = {}
        self.injections: list[ContextInjection] = []
        self.messages: list[UserMessage] = []

    def add(
        self, result: HookResult, handler: str, event: str, data: dict[str, Any]
    ) -> dict[str, Any]:
        """Take in what ``handler`` returned (anything but a deny); return the data the next
        handler sees."""
        self.messages.extend(_sourced_messages(result.user_messages, handler))
        action = result.action
        if action == "continue":
            return data
        self.injections.extend(_sourced_injections(result.context_injections, handler, event))
        if action == "inject_context" or (action == "ask_user" and self.ask is not None):
            return data
        if self.ask is not None:  # a modify after the ask: what the user is asked about stays
            _dropped_after_ask(self.ask, handler, event)
            return data
        if result.data is not None:  # a modify, or an ask carrying the input it asks about
            data = _as_json(result.data) if self.json_data else result.data
        if action == "ask_user":
            self.ask = result if result.source else result.model_copy(update={"source": handler})
            self.asked = _private(data)
        return data

    def result(self, data: dict[str, Any], event: str) -> HookResult:
        """The combined result, ``data`` being what the last handler left."""
        ask = self.ask
        if ask is None:
            return _CONTINUE.merged(
                action="inject_context" if self.injections else "continue",
                data=data,
                injections=self.injections,
                messages=self.messages,
            )
        if not _same(data, self.asked):
            _dropped_after_ask(ask, None, event)
        return ask.merged(data=self.asked, injections=self.injections, messages=self.messages)


def _dropped_after_ask(ask: HookResult, handler: str | None, event: str) -> None:
    who = f"hook handler {handler!r}" if handler is not None else "a hook handler"
    how = "returned modified data" if handler is not None else "changed the data in place"
    _logger().warning(
        "%s %s on event %r after %r asked for approval; the change is dropped, so that "
        "what runs is what the user is asked about (give it a lower priority to have "
        "its change shown in the question)",
        who,
        how,
        event,
        ask.source,
    )


def _same(current: dict[str, Any], asked: dict[str, Any]) -> bool:
    try:
        return bool(current == asked)
    except Exception:  # values that cannot be compared count as changed
        return False


def _sourced_injections(
    items: list[ContextInjection], handler: str, event: str
) -> list[ContextInjection]:
    return [
        item
        if item.hook_name != "unknown" and item.event
        else item.model_copy(
            update={
                "hook_name": handler if item.hook_name == "unknown" else item.hook_name,
                "event": item.event or event,
            }
        )
        for item in items
    ]


def _sourced_messages(items: list[UserMessage], handler: str) -> list[UserMessage]:
    return [
        item if item.source != "hook" else item.model_copy(update={"source": handler})
        for item in items
    ]


def _event_data(event: str, data: object) -> dict[str, Any]:
    """``data`` given to emit as the dict it stands for: a mapping as a dict, an object with
    ``model_dump()`` (a pydantic model) as what that returns, a JSON object's text parsed.

    :raises TypeError: anything else, naming the event and the type.
    """
    if isinstance(data, Mapping):
        return dict(data)
    dump = getattr(data, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return dict(dumped)
        raise TypeError(
            f"emit({event!r}): {type(data).__name__}.model_dump() returned "
            f"{type(dumped).__name__}, not a dict"
        )
    if isinstance(data, str | bytes):
        import json

        try:
            parsed = json.loads(data)
        except ValueError as err:
            raise TypeError(f"emit({event!r}): data is text that is not JSON: {err}") from err
        if isinstance(parsed, dict):
            return parsed
        raise TypeError(f"emit({event!r}): data is JSON {type(parsed).__name__}, not an object")
    raise TypeError(
        f"emit({event!r}): data must be a dict (or a model with model_dump()), "
        f"got {type(data).__name__}"
    )


class HookRegistry:
    """Event -> handlers, with deterministic, priority-ordered emit.

    ``default_timeout`` (seconds, > 0) applies to every async handler registered without its
    own ``timeout``; ``None`` means handlers may take as long as they like. A handler past its
    deadline is cancelled; one that has not ended ``cancel_grace`` seconds later (it swallowed
    the cancellation, or its cleanup hangs) is closed and never resumed. A sync handler runs
    on the event loop unbounded, unless it was registered with a ``timeout`` of its own: then
    it runs in a thread of its own, on a deep copy of the data, and is left behind at its
    deadline.
    """

    cancel_grace: float = 1.0
    _observed: ObservedChains | None = None  # see add_observer

    # Event constants, as amplifier-core's registry exposes them.
    SESSION_START: Final = _events.SESSION_START
    SESSION_END: Final = _events.SESSION_END
    PROMPT_SUBMIT: Final = _events.PROMPT_SUBMIT
    TOOL_PRE: Final = _events.TOOL_PRE
    TOOL_POST: Final = _events.TOOL_POST
    CONTEXT_PRE_COMPACT: Final = _events.CONTEXT_PRE_COMPACT
    ORCHESTRATOR_COMPLETE: Final = _events.ORCHESTRATOR_COMPLETE
    USER_NOTIFICATION: Final = _events.USER_NOTIFICATION

    def __init__(self, *, default_timeout: float | None = None, json_data: bool = True) -> None:
        """``json_data`` (on by default): handlers see the event data as amplifier-core
        2.0.2's engine hands it over, as JSON carries it (every value JSON cannot hold as
        ``str(value)``, a ``ToolResult`` as its text, tuples as lists), and so does the
        result's ``data``; values that already are JSON are passed as they are, without a
        copy. Off, handlers see the objects the emitter gave."""
        if default_timeout is not None and default_timeout <= 0:
            raise ValueError(
                f"HookRegistry(default_timeout={default_timeout!r}): default_timeout must be "
                "> 0 seconds, or None for no limit"
            )
        self.default_timeout = default_timeout
        self.json_data = json_data
        self._exact: dict[str, list[HandlerInfo]] = {}
        self._patterns: list[HandlerInfo] = []
        self._chains: dict[str, tuple[HandlerInfo, ...]] = {}
        # event name as emitted (an alias too) -> (canonical name, chain), for emit
        self._routes: dict[str, tuple[str, tuple[HandlerInfo, ...]]] = {}
        self._defaults: dict[str, Any] = {}
        self._json_defaults: dict[str, Any] = {}  # the same, as handlers see them (json_data)
        self._seq = 0
        self._failure_listeners: list[FailureListener] = []
        self._plain_memo = PlainMemo()  # list items found plain: a conversation carried again

    # ------------------------------------------------------------------ registration

    def register(
        self,
        event: str,
        handler: Handler,
        priority: int = 0,
        name: str | None = None,
        *,
        timeout: float | None = None,
        fail_closed: bool = False,
    ) -> Unregister:
        """Subscribe ``handler`` to ``event`` and return a function that undoes exactly this.

        ``event`` may be a canonical name, a PascalCase alias (``PreToolUse``) or an fnmatch
        pattern (``*``, ``tool:*``). ``name`` defaults to the handler's qualified name and is
        what logs, audit records and :meth:`list_handlers` show. ``timeout`` (seconds) bounds
        an async handler; ``fail_closed`` makes this handler's failure a deny.
        """
        if not callable(handler):
            raise TypeError(
                f"HookRegistry.register({event!r}): handler must be callable, "
                f"got {type(handler).__name__}"
            )
        if timeout is not None and timeout <= 0:
            raise ValueError(
                f"HookRegistry.register({event!r}): timeout must be > 0, got {timeout}"
            )
        resolved = _events.canonical(event)
        self._seq += 1
        info = HandlerInfo(
            resolved,
            handler,
            priority,
            name or handler_name(handler),
            self._seq,
            timeout,
            fail_closed,
        )
        info.origin = _caller()
        _watch_loop()
        if info.pattern:
            self._patterns.append(info)
        else:
            self._exact.setdefault(resolved, []).append(info)
        self._changed()

        def unregister() -> None:
            self._remove(info)

        return unregister

    on = register

    def _changed(self) -> None:
        """Forget the cached chains: a registration changed."""
        self._chains.clear()
        self._routes.clear()

    def _remove(self, info: HandlerInfo) -> None:
        bucket = self._patterns if info.pattern else self._exact.get(info.event, [])
        for index, candidate in enumerate(bucket):
            if candidate is info:
                del bucket[index]
                self._changed()
                return

    def unregister(self, name: str) -> int:
        """Remove every handler registered under ``name``; return how many were removed."""
        removed = [h for h in self._all_infos() if h.name == name]
        for info in removed:
            self._remove(info)
        return len(removed)

    def _all_infos(self) -> Iterable[HandlerInfo]:
        for bucket in self._exact.values():
            yield from bucket
        yield from self._patterns

    def registrations(self) -> tuple[HandlerInfo, ...]:
        """Every registration (exact names, then patterns), for tools such as observe mode."""
        return tuple(self._all_infos())

    def replace_handler(self, info: HandlerInfo, handler: Handler, *, fail_closed: bool) -> None:
        """Run ``handler`` in place of registration ``info``'s handler: same event, name,
        priority, order and timeout (see :mod:`amplifier_core.observe_mode`)."""
        info.handler = handler
        info.is_async = is_async_handler(handler)
        info.plain_async = info.is_async and info.timeout is None
        info.fail_closed = fail_closed
        self._changed()

    def list_handlers(self, event: str | None = None) -> dict[str, list[str]]:
        """Handler names per event (or pattern), in the order they run."""
        if event is not None:
            resolved = _events.canonical(event)
            return {resolved: [h.name for h in self.handlers_for(resolved)]}
        listing: dict[str, list[HandlerInfo]] = {}
        for info in self._all_infos():
            listing.setdefault(info.event, []).append(info)
        return {key: [h.name for h in sorted(value, key=_order)] for key, value in listing.items()}

    def handlers_for(self, event: str) -> tuple[HandlerInfo, ...]:
        """The handlers that ``emit(event, ...)`` runs, in order."""
        resolved = _events.canonical(event)
        chain = self._chains.get(resolved)
        if chain is None:
            matched = list(self._exact.get(resolved, ()))
            matched.extend(p for p in self._patterns if fnmatchcase(resolved, p.event))
            chain = tuple(sorted(matched, key=_order))
            self._chains[resolved] = chain
        return chain

    def set_default_fields(self, **fields: Any) -> None:
        """Fields merged under every event's data (``session_id``, ``parent_id`` ...)."""
        self._defaults.update(fields)
        self._json_defaults = _as_json(dict(self._defaults))

    @property
    def default_fields(self) -> dict[str, Any]:
        return dict(self._defaults)

    def add_failure_listener(self, listener: FailureListener) -> Unregister:
        """Call ``listener`` for every handler failure; returns a function that removes it."""
        self._failure_listeners.append(listener)

        def remove() -> None:
            if listener in self._failure_listeners:
                self._failure_listeners.remove(listener)

        return remove

    def add_observer(self, observer: HandlerObserver, ignore: Iterable[str] = ()) -> Unregister:
        """Tell ``observer`` how each handler that emit runs ran (name, event, action,
        duration, failure), except the handlers named in ``ignore`` (an observer's own): see
        :mod:`amplifier_core.observers`. Returns a function that removes it. With no observer,
        emit runs the handlers unwrapped."""
        if self._observed is None:
            from .observers import ObservedChains  # imported with the first observer

            self._observed = ObservedChains(self)
        return self._observed.add(observer, ignore)

    # ------------------------------------------------------------------ emit

    async def emit(self, event: str, data: dict[str, Any] | None = None) -> HookResult:
        """Run every handler of ``event`` and return the combined :class:`HookResult`.

        ``data`` is a dict; as on amplifier-core 2.0.2, an object with ``model_dump()`` (a
        pydantic model) and a JSON object's text are taken as the dict they stand for."""
        if data is not None and type(data) is not dict:
            data = _event_data(event, data)
        route = self._routes.get(event)
        if route is None:
            route = self._route(event)
        event, chain = route
        if not chain:  # nobody listens: the data comes back as given
            return _carrying(dict(data) if data else {})
        if self.json_data:  # the defaults are JSON already, and so is the timestamp
            defaults = self._json_defaults
            if data:
                data = _as_json(data, self._plain_memo)
        else:
            defaults = self._defaults
        if not data:
            current = dict(defaults)
        elif defaults:
            current = {**defaults, **data}
        else:  # no defaults set: a copy of the data, the cheapest way
            current = data.copy()
        current["timestamp"] = _now_iso()
        if self._observed is not None:  # handlers run timed while someone observes them
            return await self._emit_observed(event, self._observed.chain(event, chain), current)
        default = self.default_timeout
        unbounded = default is None
        gathered: _Gathered | None = None

        for info in chain:
            try:
                if unbounded and info.plain_async:  # the usual handler, awaited right here
                    result: Any = await info.handler(event, current)  # type: ignore[misc]
                else:
                    result = await _run(info, event, current, default, self.cancel_grace)
                if type(result) is not HookResult:
                    if result is None:
                        continue
                    result = read_result(result)
            except BaseException as exc:  # a failing hook never breaks emit
                kind, error = _failure(exc)
                if self._fail(info, event, kind, error):
                    return _fail_closed(info, event, kind, error)
                continue
            action = result.action
            if action == "continue":
                if not result.user_messages:
                    continue
            elif action == "deny":
                denied: HookResult = result
                return denied if denied.source else denied.model_copy(update={"source": info.name})
            if gathered is None:
                gathered = _Gathered(self.json_data)
            current = gathered.add(result, info.name, event, current)

        if gathered is None:
            return _carrying(current)
        return gathered.result(current, event)

    async def _emit_observed(
        self, event: str, chain: tuple[HandlerInfo, ...], current: dict[str, Any]
    ) -> HookResult:
        """:meth:`emit`'s handler loop over an observed chain: a handler whose observer takes
        its plain figures (``info.tell``, :mod:`amplifier_core.observers`) is timed here, in
        place, rather than through a wrapper coroutine of its own; the others run as
        :meth:`emit` runs them (the wrapped ones timed by their wrapper)."""
        default = self.default_timeout
        unbounded = default is None
        gathered: _Gathered | None = None

        for info in chain:
            try:
                tell = info.tell
                if tell is not None and unbounded:  # the usual observed run, timed right here
                    started = _clock()
                    try:
                        result: Any = await info.inner(event, current)  # type: ignore[misc]
                    except BaseException:
                        self._observed.failed(info, event, current, started)  # type: ignore[union-attr]
                        raise
                    if result is None or result.__class__ is HookResult:
                        duration = _clock() - started
                        try:
                            tell(
                                "continue" if result is None else result.action,
                                duration,
                                _wall(),
                                current,
                            )
                        except Exception:  # a broken observer must not break emit
                            _logger().exception(
                                "handler-run observer %r raised on %r (%s)", tell, info.name, event
                            )
                    else:  # what emit reads below: a mapping of HookResult fields, or not
                        self._observed.done(info, event, current, started, result)  # type: ignore[union-attr]
                elif unbounded and info.plain_async:
                    result = await info.handler(event, current)  # type: ignore[misc]
                else:
                    result = await _run(info, event, current, default, self.cancel_grace)
                if type(result) is not HookResult:
                    if result is None:
                        continue
                    result = read_result(result)
            except BaseException as exc:  # a failing hook never breaks emit
                kind, error = _failure(exc)
                if self._fail(info, event, kind, error):
                    return _fail_closed(info, event, kind, error)
                continue
            action = result.action
            if action == "continue":
                if not result.user_messages:
                    continue
            elif action == "deny":
                denied: HookResult = result
                return denied if denied.source else denied.model_copy(update={"source": info.name})
            if gathered is None:
                gathered = _Gathered(self.json_data)
            current = gathered.add(result, info.name, event, current)

        if gathered is None:
            return _carrying(current)
        return gathered.result(current, event)

    def _route(self, name: str) -> tuple[str, tuple[HandlerInfo, ...]]:
        """The canonical event for ``name`` and the handlers emit runs for it, kept for the
        next emit of ``name``; a pattern is refused."""
        event = _events.canonical(name)
        if _events.is_pattern(event):
            raise ValueError(
                f"HookRegistry.emit({event!r}): a pattern is for subscribing; "
                "emit one concrete event name"
            )
        route = self._routes[name] = (event, self.handlers_for(event))
        return route

    def _fail(
        self,
        info: HandlerInfo,
        event: str,
        kind: FailureKind,
        error: str,
        *,
        collecting: bool = False,
    ) -> bool:
        """Log and report a handler's failure; whether emit denies for it: a fail-closed
        handler's failure, and a result that is not a HookResult (as amplifier-core 2.0.2
        does), are a deny. (``collecting``: emit_and_collect, which only skips it.)"""
        closes = info.fail_closed or (kind == "invalid_result" and not collecting)
        if collecting and kind == "invalid_result":
            then = "; skipped"
        elif info.fail_closed:
            then = "; failing closed (deny)"
        elif closes:
            then = "; denied (a result emit cannot read is a deny, as on amplifier-core 2.0.2)"
        else:
            then = "; treated as continue"
        log = _logger()
        log.warning(
            "hook handler %r failed on event %r (%s): %s%s", info.name, event, kind, error, then
        )
        for listener in tuple(self._failure_listeners):
            try:
                listener(event=event, handler=info.name, kind=kind, error=error, fail_closed=closes)
            except Exception:  # a broken listener must not break emit either
                log.exception("hook failure listener %r raised", listener)
        return closes

    async def emit_and_collect(
        self,
        event: str,
        data: dict[str, Any] | None = None,
        timeout: float | None = 1.0,  # noqa: ASYNC109 - amplifier-core's public signature
    ) -> list[Any]:
        """Run every handler of ``event`` and collect each result's ``data`` (not None).

        Unlike :meth:`emit` there is no action semantics: this gathers contributions. Each
        handler is bounded by ``timeout`` seconds; failures are logged and skipped.
        """
        import asyncio  # loaded by the running event loop already

        if data is not None and data.__class__ is not dict:
            data = _event_data(event, data)
        event = _events.canonical(event)
        current = dict(data) if data else {}  # as given: no defaults, no timestamp
        if self.json_data:
            current = _as_json(current)
        collected: list[Any] = []
        for info in self.handlers_for(event):
            try:
                async with asyncio.timeout(timeout) as scope:
                    result: object = info.handler(event, current)
                    if inspect.isawaitable(result):
                        result = await result
            except TimeoutError as exc:
                if scope.expired():
                    self._fail(info, event, "timeout", f"timed out after {timeout:g}s")
                else:
                    self._fail(info, event, "error", f"{type(exc).__name__}: {exc}")
                continue
            except BaseException as exc:
                self._fail(info, event, "error", _handler_error(exc))
                continue
            try:
                read = read_result(result)
            except HandlerFailure as failure:
                self._fail(info, event, failure.kind, failure.error, collecting=True)
                continue
            if read is not None and read.data is not None:
                collected.append(read.data)
        return collected
