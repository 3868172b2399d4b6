"""A cleanup that does its work the first time it is called and nothing after."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

__all__ = ["once"]


def once(action: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
    """An async callable that awaits ``action`` on its first call only; a later call, even
    one made while the first is still running, returns at once."""
    done = False

    async def run() -> None:
        nonlocal done
        if done:
            return
        done = True
        await action()

    return run
