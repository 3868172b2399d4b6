"""A ``prompt:complete`` deny with ``keep_working: true`` (a stop hook's block) sends the agent
back to work; any other deny, a used-up budget and a cancelled turn do not."""

from __future__ import annotations

from typing import Any

from amplifier_core import HookResult

from .conftest import RigFactory, say

KEEP = {"keep_working": True}


def stop_hook(answers: list[HookResult | None]) -> Any:
    """A prompt:complete handler giving ``answers`` in turn (then nothing)."""
    seen: list[dict[str, Any]] = []

    def handler(event: str, data: dict[str, Any]) -> HookResult | None:
        seen.append(dict(data))
        return answers.pop(0) if answers else None

    handler.seen = seen  # type: ignore[attr-defined]
    return handler


def blocks(reason: str) -> HookResult:
    return HookResult(action="deny", reason=reason, data=KEEP, source="stop-guard")


async def test_a_keep_working_deny_sends_the_agent_back_once_then_it_stops(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig([say("done"), say("tests fixed")])
    hook = stop_hook([blocks("run the tests first")])
    rig.coordinator.hooks.register("prompt:complete", hook, name="stop-guard")

    assert await rig.turn("fix the bug") == "tests fixed"

    assert [m["content"] for m in await rig.context.get_messages() if m["role"] == "user"] == [
        "fix the bug",
        "run the tests first",
    ]
    assert [d.get("stop_hook_active", False) for d in hook.seen] == [False, True]
    assert [d["status"] for d in hook.seen] == ["completed", "completed"]
    assert rig.names().count("execution:end") == 1
    assert rig.names().count("orchestrator:complete") == 1


async def test_a_deny_without_keep_working_is_not_acted_on(make_rig: RigFactory) -> None:
    rig = await make_rig([say("done")])
    hook = stop_hook([HookResult(action="deny", reason="a policy on every event")])
    rig.coordinator.hooks.register("prompt:complete", hook, name="policy")

    assert await rig.turn("hello") == "done"

    assert len(rig.provider.requests) == 1
    assert len(hook.seen) == 1
    assert not [n for n in rig.of("user:notification") if "stop hook" in n["message"]]


async def test_continuations_stop_at_max_stop_continuations(make_rig: RigFactory) -> None:
    rig = await make_rig([say("one"), say("two"), say("three")], max_stop_continuations=2)
    hook = stop_hook([blocks("again")] * 5)
    rig.coordinator.hooks.register("prompt:complete", hook, name="stop-guard")

    assert await rig.turn("go") == "three"

    assert len(rig.provider.requests) == 3
    assert len(hook.seen) == 3
    warning = [n for n in rig.of("user:notification") if n["level"] == "warning"]
    assert "max_stop_continuations" in warning[-1]["message"]


async def test_no_continuation_when_max_stop_continuations_is_zero(make_rig: RigFactory) -> None:
    rig = await make_rig([say("done")], max_stop_continuations=0)
    rig.coordinator.hooks.register("prompt:complete", stop_hook([blocks("x")]), name="g")

    assert await rig.turn("go") == "done"
    assert len(rig.provider.requests) == 1


async def test_no_continuation_past_max_iterations_and_no_dangling_message(
    make_rig: RigFactory,
) -> None:
    rig = await make_rig([say("done")], max_iterations=1)
    rig.coordinator.hooks.register("prompt:complete", stop_hook([blocks("more")]), name="g")

    assert await rig.turn("go") == "done"

    roles = [m["role"] for m in await rig.context.get_messages()]
    assert roles == ["user", "assistant"]
    warning = [n for n in rig.of("user:notification") if n["level"] == "warning"]
    assert "max_iterations" in warning[-1]["message"]


async def test_a_failing_continuation_fires_the_closing_events_once(make_rig: RigFactory) -> None:
    rig = await make_rig([say("done"), RuntimeError("provider down")])
    hook = stop_hook([blocks("check again")])
    rig.coordinator.hooks.register("prompt:complete", hook, name="stop-guard")

    await rig.turn("go")

    assert [d["status"] for d in hook.seen] == ["completed", "error"]
    assert rig.names().count("execution:end") == 1
    assert rig.names().count("orchestrator:complete") == 1
