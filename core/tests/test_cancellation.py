"""The cancellation token: escalation, running tools, child tokens, callbacks, and the
coordinator's token."""

from __future__ import annotations

import asyncio
import logging

import pytest

from amplifier_core import ModuleCoordinator
from amplifier_core.cancellation import CancellationState, CancellationToken


def test_a_new_token_is_running_normally() -> None:
    token = CancellationToken()
    assert token.state == "none" == CancellationState.NONE.value
    assert not token.is_cancelled
    assert not token.is_graceful
    assert not token.is_immediate
    assert token.running_tools == set()
    assert token.running_tool_names == []


def test_requests_escalate_and_say_whether_they_changed_the_state() -> None:
    token = CancellationToken()
    assert token.request_graceful() is True
    assert (token.state, token.is_cancelled, token.is_graceful, token.is_immediate) == (
        "graceful",
        True,
        True,
        False,
    )
    assert token.request_graceful() is False
    assert token.request_immediate() is True
    assert (token.state, token.is_graceful, token.is_immediate) == ("immediate", False, True)
    assert token.request_immediate() is False
    assert token.request_graceful() is False  # never de-escalates
    assert token.state == CancellationState.IMMEDIATE.value


def test_immediate_can_be_requested_directly_and_request_cancellation_is_graceful() -> None:
    token = CancellationToken()
    assert token.request_immediate() is True
    assert token.is_immediate
    other = CancellationToken()
    assert other.request_cancellation() is None
    assert other.state == "graceful"


def test_reset_returns_to_none_and_forgets_running_tools() -> None:
    token = CancellationToken()
    token.register_tool_start("c1", "bash")
    token.request_immediate()
    token.reset()
    assert token.state == "none"
    assert not token.is_cancelled
    assert token.running_tools == set()
    assert token.request_graceful() is True  # a reset token can be cancelled again


def test_running_tools_are_tracked_by_call_id() -> None:
    token = CancellationToken()
    token.register_tool_start("c1", "bash")
    token.register_tool_start("c2", "read_file")
    token.register_tool_start("c3", "bash")
    assert token.running_tools == {"c1", "c2", "c3"}
    assert sorted(token.running_tool_names) == ["bash", "bash", "read_file"]
    token.register_tool_start("c1", "grep")  # the same id again replaces its name
    assert sorted(token.running_tool_names) == ["bash", "grep", "read_file"]
    token.register_tool_complete("c1")
    token.register_tool_complete("never-started")
    assert token.running_tools == {"c2", "c3"}
    assert sorted(token.running_tool_names) == ["bash", "read_file"]
    token.running_tools.add("not-really")  # a copy: the token is unchanged
    assert token.running_tools == {"c2", "c3"}


def test_a_request_reaches_children_and_grandchildren_but_not_the_parent() -> None:
    parent, child, grandchild = CancellationToken(), CancellationToken(), CancellationToken()
    parent.register_child(child)
    child.register_child(grandchild)
    parent.request_graceful()
    assert (child.state, grandchild.state) == ("graceful", "graceful")
    parent.request_immediate()
    assert (child.state, grandchild.state) == ("immediate", "immediate")

    upward_parent, upward_child = CancellationToken(), CancellationToken()
    upward_parent.register_child(upward_child)
    upward_child.request_immediate()
    assert upward_parent.state == "none"


def test_a_child_registered_late_catches_up_and_an_unregistered_one_is_left_alone() -> None:
    parent = CancellationToken()
    parent.request_graceful()
    late = CancellationToken()
    parent.register_child(late)
    assert late.state == "graceful"

    other_parent, child = CancellationToken(), CancellationToken()
    other_parent.register_child(child)
    other_parent.register_child(child)
    other_parent.unregister_child(child)
    other_parent.unregister_child(CancellationToken())  # not a child: ignored
    other_parent.request_immediate()
    assert child.state == "none"


def test_reset_does_not_reach_children_and_children_stay_registered() -> None:
    parent, child = CancellationToken(), CancellationToken()
    parent.register_child(child)
    parent.request_graceful()
    parent.reset()
    assert child.state == "graceful"
    child.reset()
    parent.request_immediate()
    assert child.state == "immediate"


def test_tokens_registered_as_each_others_children_do_not_loop() -> None:
    first, second = CancellationToken(), CancellationToken()
    first.register_child(second)
    second.register_child(first)
    first.request_graceful()
    assert (first.state, second.state) == ("graceful", "graceful")


def test_register_child_refuses_what_is_not_a_token() -> None:
    with pytest.raises(TypeError):
        CancellationToken().register_child("child")  # type: ignore[arg-type]


async def test_callbacks_run_in_order_on_each_trigger_and_a_failing_one_does_not_stop_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = CancellationToken()
    calls: list[str] = []

    async def first() -> None:
        calls.append("first")

    async def failing() -> None:
        calls.append("failing")
        raise RuntimeError("boom")

    def plain() -> None:
        calls.append("plain")

    token.on_cancel(first)
    token.on_cancel(failing)
    token.on_cancel(plain)
    token.request_graceful()
    assert calls == []  # a request alone runs nothing
    with caplog.at_level(logging.ERROR):
        await token.trigger_callbacks()
    assert calls == ["first", "failing", "plain"]
    await token.trigger_callbacks()
    assert calls == ["first", "failing", "plain"] * 2


async def test_triggering_runs_only_this_tokens_callbacks() -> None:
    parent, child = CancellationToken(), CancellationToken()
    parent.register_child(child)
    calls: list[str] = []

    async def on_child() -> None:
        calls.append("child")

    child.on_cancel(on_child)
    parent.request_graceful()
    await parent.trigger_callbacks()
    assert calls == []
    await child.trigger_callbacks()
    assert calls == ["child"]


# --- the coordinator's token --------------------------------------------------------------


def test_each_coordinator_has_one_token_of_its_own() -> None:
    first, second = ModuleCoordinator(), ModuleCoordinator()
    assert first.cancellation is first.cancellation
    assert first.cancellation is not second.cancellation
    assert isinstance(first.cancellation, CancellationToken)
    assert not first.cancellation.is_cancelled
    assert not first.cancellation.event.is_set()


async def test_request_cancel_is_seen_by_the_token() -> None:
    coordinator = ModuleCoordinator()
    await coordinator.request_cancel()
    token = coordinator.cancellation
    assert token.is_graceful
    assert coordinator.cancellation.is_cancelled
    assert not coordinator.cancellation.is_immediate
    assert coordinator.cancellation.event.is_set()
    await coordinator.request_cancel(immediate=True)
    assert token.is_immediate
    assert coordinator.cancellation.is_immediate
    await coordinator.request_cancel()  # a later graceful request keeps it immediate
    assert coordinator.cancellation.is_immediate


async def test_a_request_on_the_token_is_seen_by_the_coordinator_and_wakes_waiters() -> None:
    coordinator = ModuleCoordinator()
    assert coordinator.cancellation.request_immediate() is True
    assert coordinator.cancellation.is_cancelled
    assert coordinator.cancellation.is_immediate
    await coordinator.cancellation.event.wait()  # already set: returns at once


async def test_a_token_reset_clears_the_request_and_its_event() -> None:
    coordinator = ModuleCoordinator()
    await coordinator.request_cancel(immediate=True)
    coordinator.cancellation.reset()
    assert coordinator.cancellation.state == "none"
    assert not coordinator.cancellation.is_cancelled
    assert not coordinator.cancellation.is_immediate
    assert not coordinator.cancellation.event.is_set()

    coordinator.cancellation.request_graceful()
    assert coordinator.cancellation.event.is_set()
    coordinator.cancellation.reset()
    assert not coordinator.cancellation.is_cancelled
    assert not coordinator.cancellation.event.is_set()


async def test_the_tokens_event_wakes_a_waiter_that_waited_before_the_request() -> None:
    token = CancellationToken()
    waiter = asyncio.ensure_future(token.event.wait())
    await asyncio.sleep(0)  # the waiter is parked on the event
    assert not waiter.done()
    token.request_graceful()
    assert await asyncio.wait_for(waiter, timeout=30) is True


async def test_a_parent_sessions_request_reaches_a_child_coordinator() -> None:
    parent, child = ModuleCoordinator(), ModuleCoordinator()
    parent.cancellation.register_child(child.cancellation)
    await parent.request_cancel()
    assert child.cancellation.is_cancelled
    assert child.cancellation.event.is_set()
    assert child.to_dict()["cancel_requested"] is True
