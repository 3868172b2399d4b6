"""Deadlines that hold for hook handlers, whatever the handler does with them.

:func:`bounded` awaits a handler's coroutine inside the emitting task, as a plain ``await``
would, but steps it itself. Past the deadline the coroutine gets ``CancelledError`` (it may
clean up, with awaits, for ``grace`` seconds); a coroutine that swallows the cancellation or is
still cleaning up when the grace runs out is closed where it stands (``GeneratorExit`` at its
await, so its ``finally`` blocks run) and never resumed. No extra task is created, so a handler
that finishes in time costs one generator more than a plain ``await``.

:func:`in_thread` runs a sync handler in a daemon thread of its own and awaits its result, so
that the deadline around it can expire while the handler blocks. A thread cannot be stopped: a
handler past its deadline is left to finish on its own, and what it returns then is dropped.

This module is loaded with the first handler that has a deadline, not with
``import amplifier_core``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Final, TypeVar

__all__ = ["DEFAULT_GRACE", "HandlerStopped", "bounded", "in_thread"]

#: Seconds a cancelled handler has to finish its cleanup before it is closed.
DEFAULT_GRACE: Final = 1.0

T = TypeVar("T")


class HandlerStopped(Exception):
    """A cancelled handler did not stop within its grace and was closed."""


def _close(coro: Coroutine[Any, Any, Any]) -> None:
    """Close ``coro`` at its await; one that awaits again in its ``finally`` is dropped."""
    with contextlib.suppress(RuntimeError):  # "coroutine ignored GeneratorExit"
        coro.close()


@types.coroutine
def bounded(coro: Coroutine[Any, Any, T], grace: float = DEFAULT_GRACE) -> Generator[Any, Any, T]:
    """Await ``coro`` so that a cancellation (a deadline around this call) always ends it:
    ``await bounded(coro)`` runs it step by step in the awaiting task.

    :raises HandlerStopped: the coroutine was cancelled and did not end within ``grace``
        seconds; it was closed. The caller tells a deadline from a cancelled emit.

    The usual run (no exception comes in at an await) stays in this loop; the first exception
    sent in hands the rest of the run to :func:`_after_throw`, which keeps the grace.
    """
    sent: Any = None
    while True:
        try:
            step = coro.send(sent)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        try:
            sent = yield step
        except GeneratorExit:
            _close(coro)
            raise
        except BaseException as exc:
            return (yield from _after_throw(coro, exc, grace))


def _after_throw(
    coro: Coroutine[Any, Any, T], thrown: BaseException | None, grace: float
) -> Generator[Any, Any, T]:
    loop = asyncio.get_running_loop()
    sent: Any = None
    until: float | None = None  # the end of the grace, once a cancellation came in
    waiting: list[Any] = [None]  # what the coroutine waits on now, for the grace timer
    over = [False]
    timer: asyncio.TimerHandle | None = None

    def grace_over() -> None:
        over[0] = True
        target = waiting[0]
        if target is not None and hasattr(target, "cancel"):
            target.cancel()  # wakes the task, which comes back here

    def start_grace(exc: BaseException | None) -> None:
        nonlocal until, timer
        if until is None and isinstance(exc, asyncio.CancelledError):
            until = loop.time() + grace
            timer = loop.call_at(until, grace_over)

    start_grace(thrown)
    try:
        while True:
            if until is not None and (over[0] or loop.time() >= until):
                _close(coro)
                raise HandlerStopped(f"it did not stop within {grace:g}s of being cancelled")
            try:
                step = coro.send(sent) if thrown is None else coro.throw(thrown)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]
            waiting[0] = step
            try:
                sent, thrown = (yield step), None
            except GeneratorExit:
                _close(coro)
                raise
            except BaseException as exc:
                sent, thrown = None, exc
                start_grace(exc)
            finally:
                waiting[0] = None
    finally:
        if timer is not None:
            timer.cancel()


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():  # the deadline passed: nobody waits for this any more
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


async def in_thread(function: Callable[..., T], *args: Any, name: str = "hook") -> T:
    """Run ``function(*args)`` in a daemon thread (with this task's context) and await it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def run() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = context.run(function, *args)
        except BaseException as exc:  # handed to the awaiting task, not lost in the thread
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop closed while the handler ran
            loop.call_soon_threadsafe(_settle, future, value, error)

    threading.Thread(target=run, name=f"hook handler {name}", daemon=True).start()
    return await future
