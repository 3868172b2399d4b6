"""Timeouts that hold: a handler past its deadline never keeps emit waiting.

Written as the hooks that tried: an async handler that swallows every cancellation, one whose
cleanup hangs, a sync handler that blocks, an awaitable that never completes. Each emit below
is guarded by a generous outer bound, so a regression fails instead of hanging the suite; the
assertions are about what happened, never about how long it took.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult

GUARD = 30.0  # seconds; only a hang gets anywhere near it
Failures = list[dict[str, Any]]


def registry(default_timeout: float = 0.05) -> tuple[HookRegistry, Failures]:
    hooks = HookRegistry(default_timeout=default_timeout)
    hooks.cancel_grace = 0.05
    failures: Failures = []
    hooks.add_failure_listener(lambda **kw: failures.append(kw))
    return hooks, failures


async def emit(hooks: HookRegistry, data: dict[str, Any] | None = None) -> HookResult:
    async with asyncio.timeout(GUARD):
        return await hooks.emit("tool:pre", data or {"tool_name": "bash"})


async def test_a_handler_that_swallows_cancellation_is_closed_and_the_chain_goes_on() -> None:
    hooks, failures = registry()
    closed = asyncio.Event()
    cancels = 0

    async def stubborn(event: str, data: dict[str, Any]) -> None:
        nonlocal cancels
        try:
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    cancels += 1
        finally:
            closed.set()

    async def after(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="deny", reason="the chain went on")

    hooks.register("tool:pre", stubborn, name="stubborn")
    hooks.register("tool:pre", after, priority=1, name="after")
    result = await emit(hooks)
    assert result.action == "deny"
    assert result.reason == "the chain went on"
    assert closed.is_set(), "the handler's finally ran: it was closed, not left running"
    assert cancels >= 1
    assert [(f["handler"], f["kind"]) for f in failures] == [("stubborn", "timeout")]
    assert "so it was closed" in failures[0]["error"]


async def test_a_swallowing_gate_that_fails_closed_denies() -> None:
    hooks, _ = registry()

    async def gate(event: str, data: dict[str, Any]) -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue

    hooks.register("tool:pre", gate, name="gate", fail_closed=True)
    result = await emit(hooks)
    assert result.action == "deny"
    assert result.source == "gate"
    assert "timed out" in (result.reason or "")


async def test_a_handler_may_clean_up_within_its_grace() -> None:
    hooks, failures = registry()
    hooks.cancel_grace = GUARD  # plenty: the cleanup must be allowed to finish
    cleaned = False

    async def tidy(event: str, data: dict[str, Any]) -> None:
        nonlocal cleaned
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0)
            cleaned = True
            raise

    hooks.register("tool:pre", tidy, name="tidy")
    await emit(hooks)
    assert cleaned
    assert failures[0]["kind"] == "timeout"
    assert failures[0]["error"] == "timed out after 0.05s"


async def test_a_hanging_cleanup_is_cut_at_the_end_of_the_grace() -> None:
    hooks, failures = registry()

    async def hangs_in_cleanup(event: str, data: dict[str, Any]) -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.Event().wait()  # never set

    hooks.register("tool:pre", hangs_in_cleanup, name="hangs")
    result = await emit(hooks)
    assert result.action == "continue"
    assert failures[0]["kind"] == "timeout"


async def test_an_awaitable_that_never_completes_times_out() -> None:
    hooks, failures = registry()
    never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def returns_a_future(event: str, data: dict[str, Any]) -> Any:
        return never

    hooks.register("tool:pre", returns_a_future, name="future")
    await emit(hooks)
    assert failures[0]["kind"] == "timeout"


async def test_cancelling_the_emit_still_cancels_it_while_a_handler_swallows() -> None:
    hooks, _ = registry(default_timeout=GUARD)
    started = asyncio.Event()

    async def stubborn(event: str, data: dict[str, Any]) -> None:
        started.set()
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                continue

    hooks.register("tool:pre", stubborn, name="stubborn")
    task = asyncio.ensure_future(hooks.emit("tool:pre", {}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(GUARD):
            await task
    assert task.cancelled()


async def test_a_sync_handler_with_a_timeout_is_left_behind_and_its_result_dropped() -> None:
    hooks, failures = registry()
    release = threading.Event()
    finished = threading.Event()

    def blocks(event: str, data: dict[str, Any]) -> HookResult:
        release.wait(GUARD)
        finished.set()
        return HookResult(action="deny", reason="too late to count")

    hooks.register("tool:pre", blocks, name="blocks", timeout=0.05)
    try:
        result = await emit(hooks)
    finally:
        release.set()
    assert result.action == "continue"
    assert failures[0]["kind"] == "timeout"
    assert "thread" in failures[0]["error"]
    assert await asyncio.to_thread(finished.wait, GUARD)
    await asyncio.sleep(0)  # the late answer reaches the loop and is dropped without error


async def test_a_sync_handler_with_a_timeout_that_answers_in_time_counts() -> None:
    hooks, failures = registry()
    where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")
    where.set("the emitting task")
    seen: list[str] = []

    def rewrites(event: str, data: dict[str, Any]) -> HookResult:
        seen.append(where.get())
        data["tool_input"]["command"] = "changed in place"  # a private copy: no effect
        checked = threading.current_thread().name
        return HookResult(action="modify", data={**data, "checked": checked})

    hooks.register("tool:pre", rewrites, name="rewrites", timeout=GUARD)
    original = {"command": "ls"}
    result = await emit(hooks, {"tool_input": original})
    assert failures == []
    assert seen == ["the emitting task"]
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["checked"] == "hook handler rewrites"
    assert original == {"command": "ls"}


async def test_a_sync_handler_without_its_own_timeout_runs_on_the_loop() -> None:
    hooks, _ = registry()
    threads: list[str] = []

    def plain(event: str, data: dict[str, Any]) -> None:
        threads.append(threading.current_thread().name)

    hooks.register("tool:pre", plain, name="plain")
    await emit(hooks)
    assert threads == [threading.current_thread().name]
