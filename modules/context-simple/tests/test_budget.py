"""Where the budget of a request comes from: the call, the provider's window, the config."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core import ModelInfo, ProviderInfo
from amplifier_module_context_simple import (
    OUTPUT_RESERVE,
    SAFETY_MARGIN,
    ContextConfig,
    provider_budget,
    request_budget,
)

from .conftest import RigFactory, exchange

WINDOW = 200_000
OUTPUT = 64_000
EXPECTED = WINDOW - int(OUTPUT * OUTPUT_RESERVE) - SAFETY_MARGIN


class ModelProvider:
    """Reports its current model through ``get_model_info()``."""

    def __init__(self, window: int = WINDOW, output: int = OUTPUT) -> None:
        self.window, self.output = window, output

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="m", display_name="M", defaults={"context_window": 1})

    def get_model_info(self) -> ModelInfo:
        return ModelInfo(
            id="m-1", display_name="M 1", context_window=self.window, max_output_tokens=self.output
        )


class DefaultsProvider:
    """Reports its window in ``get_info().defaults`` only."""

    def __init__(self, defaults: dict[str, Any]) -> None:
        self.defaults = defaults

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="d", display_name="D", defaults=self.defaults)


class SilentProvider:
    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="s", display_name="S")


class BrokenProvider:
    def get_info(self) -> ProviderInfo:
        raise RuntimeError("no info today")


class AsyncInfoProvider:
    async def get_model_info(self) -> ModelInfo:  # an awaitable answer is not used
        raise AssertionError("never awaited")

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="a", display_name="A", defaults={"context_window": 50_000})


CONFIG = ContextConfig(max_tokens=10_000)


def test_the_model_info_window_wins_over_the_provider_defaults() -> None:
    assert provider_budget(ModelProvider()) == EXPECTED
    assert request_budget(None, ModelProvider(), CONFIG) == (EXPECTED, "provider")


def test_provider_defaults_give_the_window_when_there_is_no_model_info() -> None:
    provider = DefaultsProvider({"context_window": WINDOW, "max_output_tokens": OUTPUT})
    assert request_budget(None, provider, CONFIG) == (EXPECTED, "provider")
    window_only = DefaultsProvider({"context_window": 32_000})
    assert provider_budget(window_only) == 32_000 - SAFETY_MARGIN


def test_a_small_window_keeps_at_least_half_of_it() -> None:
    assert provider_budget(ModelProvider(window=4_096, output=4_096)) == 2_048


@pytest.mark.parametrize(
    "provider",
    [
        SilentProvider(),
        BrokenProvider(),
        DefaultsProvider({"context_window": "big"}),
        DefaultsProvider({"context_window": 0}),
        DefaultsProvider({"context_window": True}),
        object(),
        None,
    ],
    ids=["silent", "raises", "text", "zero", "bool", "no-methods", "none"],
)
def test_without_a_usable_window_the_config_decides(provider: object) -> None:
    assert request_budget(None, provider, CONFIG) == (10_000, "config")


def test_an_asynchronous_model_info_is_skipped_for_the_defaults() -> None:
    assert provider_budget(AsyncInfoProvider()) == 50_000 - SAFETY_MARGIN


def test_the_call_budget_wins_and_the_provider_can_be_ignored() -> None:
    assert request_budget(1_234, ModelProvider(), CONFIG) == (1_234, "request")
    ignoring = ContextConfig(max_tokens=10_000, use_provider_window=False)
    assert request_budget(None, ModelProvider(), ignoring) == (10_000, "config")


@pytest.mark.parametrize("bad", [0, -5, 2.5, True, "100"])
def test_a_bad_call_budget_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ValueError, match=r"^context-simple: get_messages_for_request\(token_b"):
        request_budget(bad, None, CONFIG)  # type: ignore[arg-type]


async def test_a_provider_window_triggers_compaction_the_config_alone_would_not(
    rig: RigFactory,
) -> None:
    r = await rig(max_tokens=1_000_000)
    for n in range(8):
        for message in exchange(n, 2_000):
            await r.context.add_message(message)
    small = ModelProvider(window=8_000, output=1_000)  # budget 6,500 tokens
    assert await r.context.get_messages_for_request() == await r.context.get_messages()
    assert r.events.names == []
    await r.context.get_messages_for_request(provider=small)
    (pre,) = r.events.data("context:pre_compact")
    assert pre["budget"] == 6_500
    assert pre["budget_source"] == "provider"
    assert r.context.estimated_tokens <= 6_500 * 0.5


async def test_the_provider_is_asked_at_every_request(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000_000)
    provider = ModelProvider(window=1_000_000, output=1_000)
    for message in [*exchange(1, 3_000), *exchange(2, 3_000)]:
        await r.context.add_message(message)
    await r.context.get_messages_for_request(provider=provider)
    assert r.events.names == []
    provider.window = 6_000  # the session switched to a model with a smaller window
    await r.context.get_messages_for_request(provider=provider)
    assert r.events.data("context:pre_compact")[0]["budget"] == 6_000 - 500 - SAFETY_MARGIN
