"""A handler that holds the event loop is named in a warning with its event and how long it
held it; one that awaits is not."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.slow_handlers import LoopWatch, watch_running_loop

THRESHOLD = 0.1
BLOCK = 1.5  # fifteen thresholds: the watch thread has ample time to see it


async def _watched(monkeypatch: pytest.MonkeyPatch) -> LoopWatch:
    monkeypatch.setenv("AMPLIFIER_SLOW_HANDLER_S", str(THRESHOLD))
    watch = watch_running_loop()
    assert watch is not None
    return watch


async def _settled(watch: LoopWatch, count: int) -> None:
    """Wait (bounded) until the watch has seen the loop run again ``count`` times."""
    target = watch.beats + count
    for _ in range(1000):
        if watch.beats >= target:
            return
        await asyncio.sleep(0.01)


async def test_a_blocking_async_handler_is_named_with_event_and_duration(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    watch = await _watched(monkeypatch)
    registry = HookRegistry()

    async def sleeper(event: str, data: dict[str, Any]) -> HookResult:
        time.sleep(BLOCK)  # noqa: ASYNC251 - the mistake under test
        return HookResult()

    registry.register("tool:pre", sleeper, name="blocking-guard")
    with caplog.at_level(logging.WARNING, "amplifier_core.hooks"):
        await registry.emit("tool:pre", {"tool_name": "bash"})
        await _settled(watch, 3)
    [(handler, event, seconds)] = watch.reported
    assert (handler, event) == ("blocking-guard", "tool:pre")
    assert seconds >= BLOCK * 0.9
    [message] = [r.getMessage() for r in caplog.records if "held the event loop" in r.getMessage()]
    assert "'blocking-guard'" in message
    assert "'tool:pre'" in message


async def test_a_handler_that_awaits_is_not_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    watch = await _watched(monkeypatch)
    registry = HookRegistry()

    async def waiter(event: str, data: dict[str, Any]) -> HookResult:
        await asyncio.sleep(BLOCK / 3)
        return HookResult()

    registry.register("tool:pre", waiter, name="awaiting-guard")
    await registry.emit("tool:pre", {})
    await _settled(watch, 3)
    assert watch.reported == []


def test_outside_a_loop_nothing_is_watched() -> None:
    assert watch_running_loop(THRESHOLD) is None
