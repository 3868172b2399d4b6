"""Handler-run observers: be told how each hook handler ran, without changing how it runs.

An observer is a callable ``(run: HandlerRun) -> None`` registered with
:meth:`HookRegistry.add_observer <amplifier_core.hooks.HookRegistry.add_observer>`. For every
handler that :meth:`~amplifier_core.hooks.HookRegistry.emit` runs, it is called once, after the
handler ended, with a :class:`HandlerRun`: the handler's name, the event, the action its result
asked for (``continue`` / ``deny`` / ``ask_user`` / ``modify`` / ``inject_context``), how long
it ran, and, when it failed, the kind of failure (``error``, ``timeout``, ``invalid_result``)
and its message. A failed run's action is what emit made of it: ``continue``, or ``deny`` for a
handler registered with ``fail_closed=True`` and for a result emit cannot read.

Observers are called in the emitting task, inside emit: keep them short (hand the figures to
a queue or a batching exporter). An observer that raises is logged and skipped; it never
breaks emit. With no observer registered, emit runs the handlers exactly as before: the
observed chain is built only once an observer exists (see ``docs/observability.md``).

How it works: while an observer is registered, emit runs each handler through a thin wrapper
(same name, priority, timeout and fail-closed flag) that times it and reports its result. A
failure is reported from the registry's failure listener, which knows the kind of failure
(a timeout is only known there), with the duration the wrapper measured. An async handler
whose one observer takes its plain figures (``plain_for``: receipts) is timed by emit itself,
in place, when the registry has no default timeout (``HandlerInfo.tell``): no wrapper coroutine
per run. ``emit_and_collect`` is not observed: it gathers contributions, it has no decisions.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

from .handlers import FailureKind, FailureListener, HandlerInfo, Unregister, read_result
from .models import HookResult

__all__ = [
    "HandlerObserver",
    "HandlerRun",
    "ObservedChains",
    "ObservedRegistry",
    "PlainObserver",
]

_clock = time.perf_counter
_wall = time.time


class HandlerRun(NamedTuple):
    """How one handler ran on one event (an immutable record: a named tuple, the cheapest
    to build on every run).

    :ivar handler: the name it was registered under.
    :ivar event: the canonical event name.
    :ivar action: ``continue``, ``deny``, ``ask_user``, ``modify`` or ``inject_context``.
    :ivar duration: seconds it ran (for a timeout: until the registry gave up on it).
    :ivar ended: wall-clock time (``time.time()``) when it ended.
    :ivar data: the event data the handler was given.
    :ivar result: the :class:`HookResult` it returned (``None`` when it returned ``None`` or
        failed).
    :ivar failure: ``None``, or ``"error"``, ``"timeout"`` or ``"invalid_result"``.
    :ivar error: the failure's message.
    :ivar fail_closed: the failure was a deny: the handler was registered with
        ``fail_closed=True``, or returned what emit cannot read as a HookResult.
    """

    handler: str
    event: str
    action: str
    duration: float
    ended: float
    data: dict[str, Any]
    result: HookResult | None = None
    failure: FailureKind | None = None
    error: str | None = None
    fail_closed: bool = False

    @property
    def reason(self) -> str | None:
        """The result's reason (set by a deny), or the failure's message."""
        if self.result is not None and self.result.reason:
            return self.result.reason
        return self.error


class HandlerObserver(Protocol):
    """Told about every handler run of an emit (see the module docstring)."""

    def __call__(self, run: HandlerRun) -> None: ...


class PlainObserver(Protocol):
    """An observer's ``plain`` attribute, when it has one: told the figures of an async
    handler's run that ended without failure (name, event, action, duration, the wall-clock
    time it ended, the event data) instead of a :class:`HandlerRun` built for it (the
    cheapest report, for an observer on every run: receipts). An observer may also have
    ``plain_for(name, event)``, returning the callable told ``(action, duration, ended,
    data)`` of that handler's runs on that event: asked when a chain is wrapped, so what
    is the same on every run is looked up once."""

    def __call__(
        self, handler: str, event: str, action: str, duration: float, ended: float, data: Any
    ) -> None: ...


def _teller(
    observer: HandlerObserver, name: str, event: str
) -> Callable[[str, float, float, Any], None] | None:
    """How ``observer`` takes the plain figures of handler ``name``'s runs on ``event``
    (action, duration, the wall-clock time it ended, the data): its ``plain_for(name,
    event)`` when it has one (made once per wrapped chain), else its ``plain``; ``None``:
    it takes only :class:`HandlerRun` records."""
    plain_for = getattr(observer, "plain_for", None)
    if plain_for is not None:
        return plain_for(name, event)  # type: ignore[no-any-return]
    plain: PlainObserver | None = getattr(observer, "plain", None)
    if plain is None:
        return None

    def tell(action: str, duration: float, ended: float, data: Any) -> None:
        plain(name, event, action, duration, ended, data)

    return tell


def _logger() -> Any:
    import logging

    return logging.getLogger("amplifier_core.hooks")


class ObservedRegistry(Protocol):
    """What the observers read of the registry (:class:`~amplifier_core.hooks.HookRegistry`)."""

    @property
    def default_timeout(self) -> float | None: ...

    def handlers_for(self, event: str) -> Sequence[HandlerInfo]: ...

    def add_failure_listener(self, listener: FailureListener) -> Unregister: ...


class ObservedChains:
    """The observers of one registry and the wrapped chains emit runs while there are any."""

    __slots__ = ("_observers", "_pending", "_registry", "_remove_listener", "_wrapped")

    def __init__(self, registry: ObservedRegistry) -> None:
        self._registry = registry
        self._observers: tuple[tuple[HandlerObserver, frozenset[str]], ...] = ()
        self._wrapped: dict[str, tuple[tuple[HandlerInfo, ...], tuple[HandlerInfo, ...]]] = {}
        # (handler, event) -> (duration, ended, data) of a run that failed, until the failure
        # listener (called right after, in the same emit) reports it
        self._pending: dict[tuple[str, str], tuple[float, float, dict[str, Any]]] = {}
        self._remove_listener: Unregister | None = None

    @property
    def active(self) -> bool:
        return bool(self._observers)

    def add(self, observer: HandlerObserver, ignore: Iterable[str] = ()) -> Unregister:
        """Register ``observer`` (not told about the handlers named in ``ignore``); the
        returned function removes exactly this registration."""
        if not callable(observer):
            raise TypeError(
                f"HookRegistry.add_observer: observer must be callable, got "
                f"{type(observer).__name__}"
            )
        entry = (observer, frozenset(ignore))
        self._observers = (*self._observers, entry)
        self._wrapped.clear()
        if self._remove_listener is None:
            self._remove_listener = self._registry.add_failure_listener(self._on_failure)

        def remove() -> None:
            observers = list(self._observers)
            for index, candidate in enumerate(observers):
                if candidate is entry:
                    del observers[index]
                    break
            self._observers = tuple(observers)
            self._wrapped.clear()
            if not observers:
                self._wrapped.clear()
                self._pending.clear()
                if self._remove_listener is not None:
                    self._remove_listener()
                    self._remove_listener = None

        return remove

    def chain(self, event: str, chain: tuple[HandlerInfo, ...]) -> tuple[HandlerInfo, ...]:
        """The observed version of ``chain`` (built once per chain the registry caches)."""
        if not self._observers:
            return chain
        cached = self._wrapped.get(event)
        if cached is not None and cached[0] is chain:
            return cached[1]
        wrapped = tuple(self._wrap(info, event) for info in chain)
        self._wrapped[event] = (chain, wrapped)
        return wrapped

    # ------------------------------------------------------------------ reporting

    def report(self, run: HandlerRun) -> None:
        for observer, ignore in self._observers:
            if run.handler in ignore:
                continue
            try:
                observer(run)
            except Exception:  # a broken observer must not break emit
                _logger().exception(
                    "handler-run observer %r raised on %r (%s)", observer, run.handler, run.event
                )

    def done(
        self,
        info: HandlerInfo,
        event: str,
        data: dict[str, Any],
        started: float,
        result: object,
    ) -> None:
        """Report the run of ``info`` on ``event`` that started at ``started`` (the
        performance clock) and returned ``result``: a failure to read it is reported by the
        failure listener."""
        ended = _clock()
        if result is not None and not isinstance(result, HookResult):
            try:  # a mapping of HookResult fields is that result, as emit reads it
                result = read_result(result)
            except Exception:  # the registry reports it as invalid_result
                self._pending[(info.name, event)] = (ended - started, time.time(), data)
                return
        if result is None or isinstance(result, HookResult):
            action = "continue" if result is None else result.action
            self.report(
                HandlerRun(
                    info.name,
                    event,
                    action,
                    ended - started,
                    time.time(),
                    data,
                    result,
                    fail_closed=info.fail_closed,
                )
            )

    def failed(self, info: HandlerInfo, event: str, data: dict[str, Any], started: float) -> None:
        """``info``'s run raised: its duration, for the failure listener to report."""
        self._pending[(info.name, event)] = (_clock() - started, time.time(), data)

    def _on_failure(
        self, *, event: str, handler: str, kind: FailureKind, error: str, fail_closed: bool
    ) -> None:
        measured = self._pending.pop((handler, event), None)
        if measured is None:  # a sync handler's thread still runs past its deadline
            limit = next(
                (i.timeout for i in self._registry.handlers_for(event) if i.name == handler),
                None,
            )
            limit = limit if limit is not None else self._registry.default_timeout
            measured = (limit or 0.0, time.time(), {})
        self.report(
            HandlerRun(
                handler,
                event,
                "deny" if fail_closed else "continue",
                measured[0],
                measured[1],
                measured[2],
                None,
                kind,
                error,
                fail_closed,
            )
        )

    # ------------------------------------------------------------------ wrapping

    def _wrap(self, info: HandlerInfo, event: str) -> HandlerInfo:
        name = info.name
        listening = tuple(obs for obs, ignore in self._observers if name not in ignore)
        if not listening:
            return info  # nobody listens to this one: it runs as registered
        told = tuple(_teller(obs, name, event) for obs in listening)
        plain: tuple[Callable[[str, float, float, Any], None], ...] | None = (
            told if all(told) else None  # type: ignore[assignment]
        )
        if info.is_async:
            wrapper: Callable[..., Any] = self._async_wrapper(info, listening, plain)
        else:
            handler = info.handler
            threaded = info.timeout is not None

            def run_sync(event: str, data: dict[str, Any]) -> object:
                started = _clock()
                try:
                    result = handler(event, data)
                except BaseException:
                    self.failed(info, event, data, started)
                    raise
                if (
                    result is not None
                    and result.__class__ is not HookResult
                    and inspect.isawaitable(result)
                ):
                    return self._finish(info, event, data, started, result)
                if threaded and info.timeout is not None and _clock() - started >= info.timeout:
                    return result  # past its deadline: the registry dropped it, and said so
                self.done(info, event, data, started, result)
                return result

            wrapper = run_sync
        wrapped = HandlerInfo(
            info.event,
            wrapper,
            info.priority,
            info.name,
            info.seq,
            info.timeout,
            info.fail_closed,
        )
        wrapped.is_async = info.is_async
        if info.plain_async and plain is not None and len(plain) == 1:
            wrapped.tell = plain[0]  # emit times it in place (HookRegistry._emit_observed)
            wrapped.inner = info.handler
        return wrapped

    def _async_wrapper(
        self,
        info: HandlerInfo,
        listening: tuple[HandlerObserver, ...],
        plain: tuple[Callable[[str, float, float, Any], None], ...] | None,
    ) -> Callable[..., Any]:
        """The timed wrapper of an async handler (:meth:`_wrap`)."""
        name = info.name
        handler = info.handler
        fail_closed = info.fail_closed
        only = plain[0] if plain is not None and len(plain) == 1 else None

        async def run_async(event: str, data: dict[str, Any]) -> object:
            started = _clock()
            try:
                result = await handler(event, data)  # type: ignore[misc]
            except BaseException:
                self.failed(info, event, data, started)
                raise
            if result is None or result.__class__ is HookResult:  # the usual: told here
                action = "continue" if result is None else result.action
                duration = _clock() - started
                if only is not None:  # the usual: one observer (receipts)
                    try:
                        only(action, duration, _wall(), data)
                    except Exception:  # a broken observer must not break emit
                        _logger().exception(
                            "handler-run observer %r raised on %r (%s)", only, name, event
                        )
                    return result
                if plain is not None:  # every observer takes the plain figures
                    ended = _wall()
                    for tell in plain:
                        try:
                            tell(action, duration, ended, data)
                        except Exception:  # a broken observer must not break emit
                            _logger().exception(
                                "handler-run observer %r raised on %r (%s)", tell, name, event
                            )
                    return result
                run = HandlerRun(
                    name,
                    event,
                    action,
                    duration,
                    _wall(),
                    data,
                    result,
                    None,
                    None,
                    fail_closed,
                )
                for observer in listening:
                    try:
                        observer(run)
                    except Exception:  # a broken observer must not break emit
                        _logger().exception(
                            "handler-run observer %r raised on %r (%s)", observer, name, event
                        )
                return result
            self.done(info, event, data, started, result)
            return result

        return run_async

    async def _finish(
        self,
        info: HandlerInfo,
        event: str,
        data: dict[str, Any],
        started: float,
        awaitable: Awaitable[object],
    ) -> object:
        """A sync handler that returned an awaitable: time it to the end."""
        try:
            result = await awaitable
        except BaseException:
            self.failed(info, event, data, started)
            raise
        self.done(info, event, data, started, result)
        return result
