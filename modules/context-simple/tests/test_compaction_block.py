"""A ``context:pre_compact`` handler that denies cancels that compaction, and only that one."""

from __future__ import annotations

from typing import Any

from amplifier_core import HookResult

from .conftest import RigFactory, exchange, system


async def _over_budget(context: Any, exchanges: int = 6) -> None:
    await context.add_message(system("rules"))
    for n in range(exchanges):
        for message in exchange(n):
            await context.add_message(message)


async def test_a_denied_pre_compact_sends_the_whole_conversation_and_asks_again(
    rig: RigFactory,
) -> None:
    r = await rig(max_tokens=1_000, target_usage=0.5)
    answers = ["deny", "deny", "continue"]
    asked: list[int] = []

    def guard(event: str, data: dict[str, Any]) -> HookResult:
        asked.append(data["message_count"])
        action = answers[len(asked) - 1]
        return HookResult(action=action, reason="a migration is half done")  # type: ignore[arg-type]

    r.coordinator.hooks.register("context:pre_compact", guard, name="guard")
    await _over_budget(r.context)
    whole = len(r.context)

    first = await r.context.get_messages_for_request()
    second = await r.context.get_messages_for_request()
    assert len(first) == len(second) == whole  # nothing dropped while the hook says no
    assert r.context.compactions == 0
    assert r.context.compactions_blocked == 2
    assert r.events.names == ["context:pre_compact", "context:pre_compact"]  # no post events

    third = await r.context.get_messages_for_request()  # the hook lets it happen now
    assert len(third) < whole
    assert r.context.compactions == 1
    assert asked == [whole, whole, whole]
