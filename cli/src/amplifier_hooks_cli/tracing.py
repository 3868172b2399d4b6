"""Trace one emit handler by handler: name, priority, action, time taken, and the final result.

A trace is read from the kernel's handler-run observers (:mod:`amplifier_core.observers`)
while the event runs through the session's own registry: the handlers that run, and the
combined result, are exactly the session's, and every other observer of the registry
(telemetry such as hooks-otel, a replay's collector) sees the same runs as it does without a
trace.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from amplifier_core import events as ev
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.observers import HandlerRun

__all__ = ["HandlerStep", "Trace", "Tracer", "trace_emit"]


@dataclass(slots=True)
class HandlerStep:
    """What one handler did during a traced emit."""

    name: str
    priority: int
    subscription: str
    action: str = "not run"
    seconds: float = 0.0
    error: str | None = None
    result: HookResult | None = None


@dataclass(slots=True)
class Trace:
    """Every handler's step, in run order, and the combined result."""

    event: str
    steps: list[HandlerStep] = field(default_factory=list)
    result: HookResult | None = None

    def record(self, run: HandlerRun) -> None:
        """Fill the first step of ``run``'s handler that has not run yet."""
        for step in self.steps:
            if step.name == run.handler and step.action == "not run":
                break
        else:
            return
        step.seconds = run.duration
        step.result = run.result
        if run.failure is None:
            step.action = run.action
        elif run.failure == "invalid_result":
            step.action = "invalid result"
            step.error = run.error
        else:
            step.action = "failed"
            step.error = run.error if run.failure == "error" else f"{run.failure}: {run.error}"


Emit = Callable[[str, dict[str, Any]], Awaitable[HookResult]]


class Tracer:
    """Traces the emits of one registry while it is open (:meth:`close` ends it).

    ``emit`` is how an event is emitted (default: the registry's own ``emit``, as its class
    defines it, so that a view may put :meth:`emit` in its place on the instance)."""

    def __init__(self, registry: HookRegistry, emit: Emit | None = None) -> None:
        self._registry = registry
        self._emit: Emit = emit if emit is not None else HookRegistry.emit.__get__(registry)
        self._open: list[Trace] = []
        self._remove = registry.add_observer(self._seen)

    def _seen(self, run: HandlerRun) -> None:
        for trace in reversed(self._open):  # the innermost emit of the run's event
            if trace.event == run.event:
                trace.record(run)
                return

    async def emit(self, event: str, data: dict[str, Any] | None = None) -> Trace:
        """Emit ``event`` and return its trace (its ``result`` is what emit returned)."""
        trace = Trace(event=ev.canonical(event))
        for info in self._registry.handlers_for(trace.event):
            trace.steps.append(HandlerStep(info.name, info.priority, info.event))
        self._open.append(trace)
        try:
            trace.result = await self._emit(event, dict(data or {}))
        finally:
            self._open.remove(trace)
        return trace

    def close(self) -> None:
        """Stop observing the registry."""
        self._remove()


async def trace_emit(registry: HookRegistry, event: str, data: dict[str, Any]) -> Trace:
    """Emit ``event`` through ``registry`` and record what each handler did."""
    tracer = Tracer(registry)
    try:
        return await tracer.emit(event, data)
    finally:
        tracer.close()
