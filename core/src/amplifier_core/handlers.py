"""What a hook handler is to the registry (:mod:`amplifier_core.hooks`): its type
(:data:`Handler`), its registration (:class:`HandlerInfo`: event or pattern, priority, timeout,
fail-closed flag), how what it returns is read (:func:`read_result`) and how a failure is named
(:data:`FailureKind`, :class:`FailureListener`). The registry and its observers
(:mod:`amplifier_core.observers`) both build on it."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, Protocol, TypeAlias

from . import events as _events
from .models import HookResult

__all__ = [
    "FailureKind",
    "FailureListener",
    "Handler",
    "HandlerFailure",
    "HandlerInfo",
    "Unregister",
    "handler_name",
    "is_async_handler",
    "read_result",
]

Handler: TypeAlias = Callable[
    [str, dict[str, Any]], "Awaitable[HookResult | None] | HookResult | None"
]
Unregister: TypeAlias = Callable[[], None]
FailureKind = Literal["error", "timeout", "invalid_result"]


class FailureListener(Protocol):
    """Told about every handler failure (the coordinator's audit trail is one)."""

    def __call__(
        self, *, event: str, handler: str, kind: FailureKind, error: str, fail_closed: bool
    ) -> None: ...


def handler_name(handler: Callable[..., Any]) -> str:
    """The name a handler registered without one gets: its qualified name."""
    name = getattr(handler, "__qualname__", None) or getattr(handler, "__name__", None)
    return str(name) if name else type(handler).__name__


def is_async_handler(handler: Callable[..., Any]) -> bool:
    """Whether calling ``handler`` gives a coroutine (an async function or ``__call__``)."""
    if inspect.iscoroutinefunction(handler):
        return True
    call = getattr(handler, "__call__", None)  # noqa: B004 - async __call__ on an instance
    return call is not None and inspect.iscoroutinefunction(call)


class HandlerInfo:
    """One registration: what runs, for which event or pattern, in which order."""

    __slots__ = (
        "event",
        "fail_closed",
        "handler",
        "inner",
        "is_async",
        "name",
        "origin",
        "pattern",
        "plain_async",
        "priority",
        "seq",
        "tell",
        "timeout",
    )

    def __init__(
        self,
        event: str,
        handler: Handler,
        priority: int,
        name: str,
        seq: int,
        timeout: float | None,
        fail_closed: bool,
    ) -> None:
        self.event = event
        self.handler = handler
        self.priority = priority
        self.name = name
        self.seq = seq
        self.timeout = timeout
        self.fail_closed = fail_closed
        self.is_async = is_async_handler(handler)
        # async, without a timeout of its own: emit awaits it in place (no default timeout)
        self.plain_async = self.is_async and timeout is None
        self.pattern = _events.is_pattern(event)
        self.origin: str | None = None
        """``file:line`` of the ``register`` call (the first frame outside the kernel)."""
        self.tell: Callable[[str, float, float, Any], None] | None = None
        """In an observed chain (:mod:`amplifier_core.observers`): what takes the plain
        figures of this async handler's runs (it has no timeout of its own), ``(action,
        duration, ended, data)``; emit then times :attr:`inner` itself instead of awaiting
        :attr:`handler`, its wrapper."""
        self.inner: Handler | None = None
        """The registered handler, when :attr:`tell` is set."""

    def __repr__(self) -> str:
        return f"HandlerInfo({self.name!r}, event={self.event!r}, priority={self.priority})"


class HandlerFailure(Exception):
    """A handler failure that is not the handler's own exception: a timeout, a bad result."""

    def __init__(self, kind: FailureKind, error: str) -> None:
        super().__init__(error)
        self.kind: FailureKind = kind
        self.error = error


def read_result(result: object) -> HookResult | None:
    """What a handler returned, as emit takes it: a :class:`HookResult` as it is, ``None``
    (continue), and, as amplifier-core 2.0.2 reads them, a mapping of HookResult fields
    (``{"action": "deny", "reason": "..."}``) as that HookResult.

    :raises HandlerFailure: ``invalid_result``: anything else, or a mapping that is not a
        HookResult's fields; the message says what was returned and what a HookResult is.
    """
    if result is None or isinstance(result, HookResult):
        return result
    detail = ""
    if isinstance(result, Mapping):
        from pydantic import ValidationError

        try:
            return HookResult.model_validate(dict(result))
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the mapping"
            detail = f" ({where}: {first['msg']})"
    raise HandlerFailure(
        "invalid_result",
        f"returned {type(result).__name__} {result!r:.200}, which is not a HookResult{detail}; "
        "return amplifier_core.models.HookResult(action='deny', reason='...') (or its fields "
        "as a dict: action continue|deny|modify|inject_context|ask_user, reason, data, ...), "
        "or None to continue",
    )
