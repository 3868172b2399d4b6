"""Trace one emit handler by handler: name, priority, action, time taken, and the final result.

The trace runs the event through a copy of the registry whose handlers are wrapped with a timer,
so the combined result follows exactly the same rules as :meth:`HookRegistry.emit`, and the
registry used by a session is never slowed down by tracing.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from dataclasses import dataclass, field
from typing import Any

from amplifier_core.hooks import HandlerInfo, HookRegistry
from amplifier_core.models import HookResult

__all__ = ["HandlerStep", "Trace", "trace_emit"]


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


def _wrap(info: HandlerInfo, step: HandlerStep) -> Any:
    async def traced(event: str, data: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            outcome: Any = info.handler(event, data)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except asyncio.CancelledError:
            step.action = "failed"
            step.error = "cancelled (timed out)"
            raise
        except Exception as exc:
            step.action = "failed"
            step.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            step.seconds = time.perf_counter() - started
        if isinstance(outcome, HookResult):
            step.action = outcome.action
            step.result = outcome
        elif outcome is None:
            step.action = "continue"
        else:
            step.action = "invalid result"
            step.error = f"returned {type(outcome).__name__}, not HookResult"
        return outcome

    return traced


async def trace_emit(registry: HookRegistry, event: str, data: dict[str, Any]) -> Trace:
    """Emit ``event`` through ``registry``'s handlers and record what each one did."""
    shadow = HookRegistry(default_timeout=registry.default_timeout)
    shadow.set_default_fields(**registry.default_fields)
    trace = Trace(event=event)
    for info in registry.handlers_for(event):
        step = HandlerStep(name=info.name, priority=info.priority, subscription=info.event)
        trace.steps.append(step)
        shadow.register(
            event,
            _wrap(info, step),
            priority=info.priority,
            name=info.name,
            timeout=info.timeout,
            fail_closed=info.fail_closed,
        )
    trace.result = await shadow.emit(event, data)
    return trace
