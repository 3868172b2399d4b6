"""The compaction events: fired in order through the coordinator's hooks, with their data."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core import ModuleCoordinator
from amplifier_core.catalogue import validate_event_data
from amplifier_module_context_simple import STRATEGY, SimpleContextManager, mount, tokens_for_chars
from amplifier_module_context_simple.estimate import total_chars

from .conftest import RigFactory, exchange, system, user

EVENTS = ["context:pre_compact", "context:post_compact", "context:compaction"]


async def _over_budget(context: SimpleContextManager, exchanges: int = 6) -> None:
    await context.add_message(system("rules"))
    for n in range(exchanges):
        for message in exchange(n):
            await context.add_message(message)


async def test_one_compaction_fires_the_three_events_with_their_data(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000, target_usage=0.5)
    await _over_budget(r.context)
    count, tokens = len(r.context), r.context.estimated_tokens

    await r.context.get_messages_for_request()
    await r.context.get_messages_for_request()  # fits now: no second compaction

    assert r.events.names == EVENTS
    pre, post, record = (data for _, data in r.events.seen)
    for name, data in r.events.seen:
        assert validate_event_data(name, data) == [], name
    after = await r.context.get_messages()
    removed = count + 1 - len(after)  # the note is new
    assert pre["message_count"] == count
    assert pre["tokens"] == tokens
    assert pre["budget"] == 1_000
    assert pre["budget_source"] == "config"
    assert pre["target_tokens"] == 500
    assert post["message_count"] == len(after)
    assert post["tokens"] == r.context.estimated_tokens
    assert post["messages_removed"] == removed == post["removed_total"]
    assert post["removed_by_role"] == {
        "assistant": removed // 2,
        "tool": removed // 4,
        "user": removed // 4,
    }
    expected = {
        "strategy": STRATEGY,
        "messages_before": count,
        "messages_after": len(after),
        "tokens_before": tokens,
        "tokens_after": r.context.estimated_tokens,
        "messages_removed": removed,
        "removed_by_role": post["removed_by_role"],
        "budget": 1_000,
    }
    assert {key: record.get(key) for key in expected} == expected


async def test_the_call_budget_is_named_as_the_source(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000_000)
    await _over_budget(r.context)
    await r.context.get_messages_for_request(token_budget=900)
    (pre,) = r.events.data("context:pre_compact")
    assert pre["budget"] == 900
    assert pre["budget_source"] == "request"


async def test_a_failing_hook_does_not_stop_the_request(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000)

    def broken(event: str, data: dict[str, Any]) -> None:
        raise RuntimeError("observer down")

    r.coordinator.hooks.register("context:pre_compact", broken, name="broken")
    await _over_budget(r.context)
    sent = await r.context.get_messages_for_request()
    assert r.context.compactions == 1
    assert len(sent) < 25
    assert r.events.names == EVENTS


class ExplodingHooks:
    async def emit(self, event: str, data: dict[str, Any]) -> None:
        raise RuntimeError(f"registry gone during {event}")


async def test_a_failing_registry_or_none_at_all_does_not_stop_the_request() -> None:
    for hooks in (ExplodingHooks(), None):
        context = SimpleContextManager(hooks=hooks)
        context.config = context.config.model_copy(update={"max_tokens": 1_000})
        await _over_budget(context)
        await context.get_messages_for_request()
        assert context.compactions == 1


async def test_messages_added_while_the_hooks_run_are_kept(rig: RigFactory) -> None:
    r = await rig(max_tokens=1_000)
    late = user("typed while compacting")

    async def add_late(event: str, data: dict[str, Any]) -> None:
        await r.context.add_message(late)

    r.coordinator.hooks.register("context:pre_compact", add_late, name="late")
    await _over_budget(r.context)
    sent = await r.context.get_messages_for_request()
    assert sent[-1] is late
    assert r.context.estimated_tokens == tokens_for_chars(total_chars(sent))


async def test_a_conversation_replaced_while_the_hooks_run_is_not_overwritten(
    rig: RigFactory,
) -> None:
    r = await rig(max_tokens=1_000)
    resumed = [system("resumed"), user("where were we?")]

    async def resume(event: str, data: dict[str, Any]) -> None:
        await r.context.set_messages(resumed)

    r.coordinator.hooks.register("context:pre_compact", resume, name="resume")
    await _over_budget(r.context)
    assert await r.context.get_messages_for_request() == resumed
    assert r.events.names == ["context:pre_compact"]
    assert r.context.compactions == 0


async def test_mount_puts_the_context_at_its_mount_point_with_the_config() -> None:
    coordinator = ModuleCoordinator()
    await mount(coordinator, {"max_tokens": 1234, "target_usage": 0.25})
    context = coordinator.get("context")
    assert isinstance(context, SimpleContextManager)
    assert context.config.max_tokens == 1234
    assert context.config.target_usage == 0.25
    assert context.hooks is coordinator.hooks


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"max_tokens": 0}, "max_tokens: expected a number greater than 0, got int 0"),
        ({"max_tokns": 5}, "unknown key 'max_tokns' (did you mean 'max_tokens'?)"),
        ({"target_usage": 0.9, "compact_threshold": 0.5}, "must be smaller than"),
        ({"compact_threshold": 1.5}, "compact_threshold"),
        ("big", "expected a mapping"),
    ],
)
async def test_a_config_mistake_stops_the_mount_naming_the_key(config: Any, words: str) -> None:
    coordinator = ModuleCoordinator()
    with pytest.raises(ValueError, match=r"^context-simple: config: ") as raised:
        await mount(coordinator, config)
    assert words in str(raised.value)
    assert coordinator.get("context") is None
