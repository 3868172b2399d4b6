"""The LLM answer cache: LRU bound, time-to-live, single flight, failures never kept."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from amplifier_module_hooks_declarative.runners.llm_cache import LlmCache, request_key


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


class Model:
    """Answers ``answer`` (after ``delay`` s) and counts how often it was asked."""

    def __init__(self, answer: str = "yes", delay: float = 0.0) -> None:
        self.answer = answer
        self.delay = delay
        self.calls = 0
        self.fail_next = 0

    def ask(self, suffix: str = "") -> Callable[[], Awaitable[str]]:
        async def call() -> str:
            self.calls += 1
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.fail_next:
                self.fail_next -= 1
                raise ConnectionError("model unreachable")
            return self.answer + suffix

        return call


async def test_second_identical_call_is_a_hit() -> None:
    cache, model = LlmCache(), Model()

    first = await cache.get_or_call("k", model.ask())
    second = await cache.get_or_call("k", model.ask())

    assert first == ("yes", False)
    assert second == ("yes", True)
    assert model.calls == 1
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)
    assert len(cache) == 1


async def test_entry_expires_after_ttl() -> None:
    clock, model = Clock(), Model()
    cache = LlmCache(ttl_s=10, clock=clock)

    await cache.get_or_call("k", model.ask())
    clock.now += 9.99
    assert (await cache.get_or_call("k", model.ask()))[1] is True
    clock.now += 0.01
    assert (await cache.get_or_call("k", model.ask()))[1] is False
    assert model.calls == 2
    assert cache.stats.expired == 1


async def test_ttl_per_call_overrides_the_default() -> None:
    clock, model = Clock(), Model()
    cache = LlmCache(ttl_s=3600, clock=clock)

    await cache.get_or_call("short", model.ask(), ttl_s=1)
    await cache.get_or_call("long", model.ask())
    clock.now += 2

    assert cache.get("short") is None
    assert cache.get("long") == "yes"


async def test_least_recently_used_is_dropped() -> None:
    cache, model = LlmCache(max_size=2), Model()

    await cache.get_or_call("a", model.ask("-a"))
    await cache.get_or_call("b", model.ask("-b"))
    assert cache.get("a") == "yes-a"  # a is now more recent than b
    await cache.get_or_call("c", model.ask("-c"))

    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == ("yes-a", "yes-c")
    assert cache.stats.evicted == 1
    assert len(cache) == 2


async def test_concurrent_identical_calls_share_one_call() -> None:
    cache, model = LlmCache(), Model(delay=0.02)

    results = await asyncio.gather(*(cache.get_or_call("k", model.ask()) for _ in range(10)))

    assert model.calls == 1
    assert [value for value, _ in results] == ["yes"] * 10
    assert cache.stats.joined == 9
    assert await cache.get_or_call("k", model.ask()) == ("yes", True)


async def test_different_keys_do_not_share() -> None:
    cache, model = LlmCache(), Model(delay=0.01)

    await asyncio.gather(*(cache.get_or_call(n, model.ask()) for n in range(5)))

    assert model.calls == 5


async def test_failure_reaches_every_waiter_and_is_not_stored() -> None:
    cache, model = LlmCache(), Model(delay=0.02)
    model.fail_next = 1

    results = await asyncio.gather(
        *(cache.get_or_call("k", model.ask()) for _ in range(4)), return_exceptions=True
    )

    assert model.calls == 1
    assert all(isinstance(result, ConnectionError) for result in results)
    assert len(cache) == 0
    assert cache.stats.failures == 1
    assert await cache.get_or_call("k", model.ask()) == ("yes", False)
    assert model.calls == 2


async def test_a_waiter_giving_up_does_not_cancel_the_call_for_others() -> None:
    cache, model = LlmCache(), Model(delay=0.05)

    impatient = asyncio.ensure_future(cache.get_or_call("k", model.ask()))
    await asyncio.sleep(0)
    patient = asyncio.ensure_future(cache.get_or_call("k", model.ask()))
    await asyncio.sleep(0.01)
    impatient.cancel()

    assert await patient == ("yes", False)
    assert impatient.cancelled()
    assert model.calls == 1
    assert cache.get("k") == "yes"


async def test_call_is_abandoned_when_every_waiter_gives_up() -> None:
    cache, model = LlmCache(), Model(delay=5.0)

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.02):
            await cache.get_or_call("k", model.ask())
    model.delay = 0.0

    assert await cache.get_or_call("k", model.ask()) == ("yes", False)
    assert model.calls == 2
    assert cache.stats.failures == 1


def test_put_and_clear() -> None:
    cache = LlmCache(max_size=3)
    for key in "abcd":
        cache.put(key, key.upper())

    assert [cache.get(key) for key in "abcd"] == [None, "B", "C", "D"]
    cache.clear()
    assert len(cache) == 0
    assert "entries=0" in repr(cache)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_size": 0}, "LlmCache: max_size must be > 0, got 0"),
        ({"ttl_s": 0}, "LlmCache: ttl_s must be > 0, got 0"),
    ],
)
def test_bad_settings_are_rejected(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        LlmCache(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_request_key_covers_what_changes_the_answer() -> None:
    def key(
        *,
        model: str = "claude-3-haiku",
        provider: str = "guard",
        prompt: str = "p",
        max_tokens: int = 100,
    ) -> object:
        return request_key(model=model, provider_id=provider, prompt=prompt, max_tokens=max_tokens)

    assert key() == key()
    assert key() != key(model="claude-3-5-haiku")
    assert key() != key(prompt="q")
    assert key() != key(max_tokens=50)
    assert key() != key(provider="other")
