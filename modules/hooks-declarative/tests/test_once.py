"""The mount's and the managed policy's cleanups do their work once, however often called."""

from __future__ import annotations

import asyncio

import pytest

from amplifier_module_hooks_declarative.once import once


async def test_the_work_is_done_on_the_first_call_only() -> None:
    runs: list[int] = []

    async def work() -> None:
        runs.append(len(runs))

    cleanup = once(work)
    for _ in range(3):
        await cleanup()
    assert runs == [0]


async def test_a_call_during_the_first_returns_without_doing_the_work_again() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    runs = 0

    async def work() -> None:
        nonlocal runs
        runs += 1
        started.set()
        await release.wait()

    cleanup = once(work)
    first = asyncio.create_task(cleanup())
    await started.wait()
    await cleanup()  # returns while the first is still waiting
    assert not first.done()
    release.set()
    await first
    assert runs == 1


async def test_a_failed_first_call_is_not_tried_again() -> None:
    calls = 0

    async def work() -> None:
        nonlocal calls
        calls += 1
        raise OSError("the hooks could not be closed")

    cleanup = once(work)
    with pytest.raises(OSError, match="the hooks could not be closed"):
        await cleanup()
    await cleanup()
    assert calls == 1
