"""Answers of LLM hooks, kept so that an identical request never reaches the model twice.

:class:`LlmCache` maps a request key (:func:`request_key`: model, provider identity, rendered
prompt, ``max_tokens``) to the model's answer text. It is

- bounded: at most ``max_size`` answers, the least recently used one is dropped first;
- timed: an answer is served for ``ttl_s`` seconds after it arrived (each call may give its
  own time-to-live, so hooks with different ``cache_ttl_s`` can share one cache);
- single-flight: while a request is in flight, identical requests wait for its answer
  instead of sending their own;
- failure-free: a call that raises stores nothing, so the next identical request tries again.

The clock is injectable (``clock=``) so that expiry is tested without sleeping.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

__all__ = ["CacheStats", "LlmCache", "request_key"]


def request_key(*, model: str, provider_id: str, prompt: str, max_tokens: int) -> Hashable:
    """The cache key of one request; ``provider_id`` names the provider asked (its mount
    name), so two providers never share an answer."""
    return (model, provider_id, prompt, max_tokens)


@dataclass(slots=True)
class CacheStats:
    """Counters since the cache was made: answers served from the cache, calls made,
    callers that joined a call in flight, answers dropped for room or age, failed calls."""

    hits: int = 0
    misses: int = 0
    joined: int = 0
    evicted: int = 0
    expired: int = 0
    failures: int = 0


class LlmCache:
    """A bounded, timed, single-flight cache of answer texts.

    :param max_size: most answers kept (least recently used dropped first); > 0.
    :param ttl_s: default seconds an answer is served after it arrived; > 0.
    :param clock: monotonic seconds (``time.monotonic``); a test passes a fake one.
    :raises ValueError: ``max_size`` or ``ttl_s`` not positive.
    """

    def __init__(
        self,
        max_size: int = 1024,
        ttl_s: float = 3600.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_size <= 0:
            raise ValueError(f"LlmCache: max_size must be > 0, got {max_size}")
        if ttl_s <= 0:
            raise ValueError(f"LlmCache: ttl_s must be > 0, got {ttl_s}")
        self.max_size = max_size
        self.ttl_s = ttl_s
        self.clock = clock
        self.stats = CacheStats()
        self._entries: OrderedDict[Hashable, tuple[str, float]] = OrderedDict()
        self._inflight: dict[Hashable, _Flight] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return (
            f"LlmCache(max_size={self.max_size}, ttl_s={self.ttl_s:g}, "
            f"entries={len(self._entries)}, in_flight={len(self._inflight)})"
        )

    def clear(self) -> None:
        """Forget every answer (calls in flight finish and are stored)."""
        self._entries.clear()

    def get(self, key: Hashable) -> str | None:
        """The answer cached under ``key`` if it has not expired (a hit: marks it recently
        used and counts in :attr:`stats`)."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        value, expires = entry
        if self.clock() >= expires:
            del self._entries[key]
            self.stats.expired += 1
            return None
        self._entries.move_to_end(key)
        self.stats.hits += 1
        return value

    def put(self, key: Hashable, value: str, ttl_s: float | None = None) -> None:
        """Keep ``value`` under ``key`` for ``ttl_s`` seconds (default :attr:`ttl_s`)."""
        self._entries[key] = (value, self.clock() + (self.ttl_s if ttl_s is None else ttl_s))
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_size:
            self._entries.popitem(last=False)
            self.stats.evicted += 1

    async def get_or_call(
        self,
        key: Hashable,
        call: Callable[[], Awaitable[str]],
        *,
        ttl_s: float | None = None,
    ) -> tuple[str, bool]:
        """The cached answer for ``key``, else the answer of ``call()``; and whether it was cached.

        Identical keys arriving while ``call()`` runs wait for that one call. The call runs
        in its own task, so a caller that is cancelled (its hook timed out) does not cancel
        it for the others; when the last waiting caller gives up, the call is cancelled.
        When it raises, every waiter gets the error and nothing is stored.
        """
        cached = self.get(key)
        if cached is not None:
            return cached, True
        flight = self._inflight.get(key)
        if flight is None:
            self.stats.misses += 1
            flight = _Flight(asyncio.ensure_future(self._fill(key, call, ttl_s)))
            flight.task.add_done_callback(_observe)
            self._inflight[key] = flight
        else:
            self.stats.joined += 1
        flight.waiters += 1
        try:
            return await asyncio.shield(flight.task), False
        finally:
            flight.waiters -= 1
            if flight.waiters == 0 and not flight.task.done():
                # every caller gave up (timed out, cancelled): abandon the call, so the next
                # identical request starts afresh instead of joining one about to fail
                flight.task.cancel()
                if self._inflight.get(key) is flight:
                    del self._inflight[key]

    async def _fill(
        self, key: Hashable, call: Callable[[], Awaitable[str]], ttl_s: float | None
    ) -> str:
        task = asyncio.current_task()
        try:
            value = await call()
        except BaseException:
            self.stats.failures += 1
            raise
        else:
            self.put(key, value, ttl_s)
            return value
        finally:
            flight = self._inflight.get(key)
            if flight is not None and flight.task is task:
                del self._inflight[key]


@dataclass(slots=True)
class _Flight:
    """A call in flight and how many callers wait for it."""

    task: asyncio.Future[str]
    waiters: int = 0


def _observe(task: asyncio.Future[str]) -> None:
    """Retrieve a failed call's error so that no "exception was never retrieved" is logged
    when every caller has given up waiting."""
    if not task.cancelled():
        task.exception()
