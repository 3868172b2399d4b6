"""The module coordinator: identity, mount points, capabilities, cleanup, display routing."""

from __future__ import annotations

import json
import logging
import types
from typing import Any

import pytest

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.context import InMemoryContext
from amplifier_core.coordinator import MOUNT_POINTS, ModuleCoordinator
from amplifier_core.display import DisplaySystem, LoggingDisplay, RecordingDisplay
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult, UserMessage


class Tool:
    def __init__(self, name: str) -> None:
        self.name = name


# ---------------------------------------------------------------- identity and config


async def test_session_object_supplies_identity_and_config() -> None:
    config = {"session": {"orchestrator": "loop", "injection_size_limit": 5}}
    session = types.SimpleNamespace(session_id="s-1", parent_id="p-0", config=config)
    coordinator = ModuleCoordinator(session)
    assert coordinator.session is session
    assert (coordinator.session_id, coordinator.parent_id) == ("s-1", "p-0")
    assert coordinator.config is config
    assert coordinator.injection_size_limit == 5

    seen: list[dict[str, Any]] = []
    coordinator.hooks.register("session:start", lambda _e, d: seen.append(d), name="spy")
    await coordinator.hooks.emit("session:start", {})
    assert (seen[0]["session_id"], seen[0]["parent_id"]) == ("s-1", "p-0")


def test_keyword_arguments_override_the_session_and_ids_are_generated() -> None:
    session = types.SimpleNamespace(session_id="from-session", parent_id=None, config={})
    coordinator = ModuleCoordinator(session, session_id="explicit", parent_id="parent")
    assert (coordinator.session_id, coordinator.parent_id) == ("explicit", "parent")
    generated = ModuleCoordinator()
    assert len(generated.session_id) == 36
    assert generated.parent_id is None
    assert generated.config == {}
    assert generated.session_id != ModuleCoordinator().session_id


def test_hooks_alias_and_mount_point_table() -> None:
    registry = HookRegistry()
    coordinator = ModuleCoordinator(hooks=registry)
    assert coordinator.hooks is registry
    assert coordinator.hook_registry is registry
    assert coordinator.get("hooks") is registry
    assert tuple(coordinator.mount_points) == MOUNT_POINTS
    assert coordinator.mount_points["providers"] == {}
    assert coordinator.mount_points["tools"] == {}
    assert coordinator.mount_points["orchestrator"] is None
    assert registry.default_fields["session_id"] == coordinator.session_id


def test_bad_config_type_is_rejected() -> None:
    with pytest.raises(TypeError, match="config must be a dict"):
        ModuleCoordinator(config=["not", "a", "dict"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="config key session"):
        ModuleCoordinator(config={"session": "loop"})


def test_modules_may_keep_their_own_state_on_the_coordinator() -> None:
    coordinator = ModuleCoordinator()
    coordinator.todo_state = [  # type: ignore[attr-defined]
        {"content": "write tests", "status": "in_progress", "activeForm": "Writing tests"}
    ]
    assert coordinator.todo_state[0]["status"] == "in_progress"  # type: ignore[attr-defined]
    coordinator.loader = "loader"
    assert coordinator.loader == "loader"


def test_approval_and_display_systems_are_settable() -> None:
    coordinator = ModuleCoordinator()
    assert coordinator.approval_system is None
    assert coordinator.display_system is None
    approval, display = StaticApprovalSystem(), RecordingDisplay()
    coordinator.approval_system = approval
    coordinator.display_system = display
    assert coordinator.approval_system is approval
    assert coordinator.display_system is display


# ---------------------------------------------------------------- mount points


async def test_mount_get_unmount_tools_and_providers() -> None:
    coordinator = ModuleCoordinator()
    bash, grep = Tool("bash"), Tool("grep")
    await coordinator.mount("tools", bash)
    await coordinator.mount("tools", grep, name="search")
    assert coordinator.get("tools") == {"bash": bash, "search": grep}
    assert coordinator.get("tools") is coordinator.mount_points["tools"]
    assert coordinator.get("tools", "bash") is bash
    assert coordinator.get("tools", "missing") is None

    await coordinator.unmount("tools", "bash")
    await coordinator.unmount("tools", "bash")  # idempotent
    assert coordinator.get("tools") == {"search": grep}
    with pytest.raises(ValueError, match="Name required to unmount from"):
        await coordinator.unmount("tools")

    with pytest.raises(ValueError, match="name="):
        await coordinator.mount("providers", object())


async def test_single_mount_points_replace_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    coordinator = ModuleCoordinator()
    first, second = InMemoryContext(), InMemoryContext()
    await coordinator.mount("context", first)
    await coordinator.mount("context", second, name="ignored")
    assert coordinator.get("context") is second
    assert "replacing InMemoryContext at mount point 'context'" in caplog.text
    await coordinator.unmount("context")
    assert coordinator.get("context") is None


async def test_unknown_mount_points_and_hooks_are_refused() -> None:
    coordinator = ModuleCoordinator()
    for call in (
        coordinator.mount("toolz", Tool("x")),
        coordinator.unmount("toolz"),
    ):
        with pytest.raises(ValueError, match="Unknown mount point: toolz"):
            await call
    with pytest.raises(ValueError, match="Unknown mount point"):
        coordinator.get("toolz")
    with pytest.raises(ValueError, match=r"coordinator\.hooks\.register"):
        await coordinator.mount("hooks", HookRegistry())
    with pytest.raises(ValueError, match="unregister"):
        await coordinator.unmount("hooks")


# ---------------------------------------------------------------- capabilities, contributions


def test_capabilities() -> None:
    coordinator = ModuleCoordinator()
    assert coordinator.get_capability("agents.list") is None
    coordinator.register_capability("agents.list", list)
    assert coordinator.get_capability("agents.list") is list
    coordinator.register_capability("agents.list", dict)
    assert coordinator.get_capability("agents.list") is dict


def test_a_watched_capability_is_told_each_time_it_is_registered_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``get_capability(name, watch=...)`` returns the capability and calls ``watch`` with
    each later registration of that name only; a watcher that raises is logged and the
    registration holds."""
    coordinator = ModuleCoordinator()
    seen: list[object] = []
    coordinator.register_capability("app.names", ["a"])
    assert coordinator.get_capability("app.names", watch=seen.append) == ["a"]
    coordinator.register_capability("other", 1)
    coordinator.register_capability("app.names", ("b",))

    def broken(_value: object) -> None:
        raise RuntimeError("watcher broke")

    coordinator.get_capability("app.names", watch=broken)
    coordinator.register_capability("app.names", None)
    assert seen == [("b",), None]
    assert coordinator.get_capability("app.names") is None
    assert "capability watcher" in caplog.text
    assert "app.names" in caplog.text


async def test_contributions_are_collected_in_order_skipping_none_and_failures(
    caplog: pytest.LogCaptureFixture,
) -> None:
    coordinator = ModuleCoordinator()

    async def async_one() -> dict[str, str]:
        return {"event": "custom:a"}

    def failing() -> None:
        raise RuntimeError("nope")

    coordinator.register_contributor("observability.events", "a", async_one)
    coordinator.register_contributor("observability.events", "none", lambda: None)
    coordinator.register_contributor("observability.events", "bad", failing)
    coordinator.register_contributor("observability.events", "b", lambda: ["custom:b"])
    collected = await coordinator.collect_contributions("observability.events")
    assert collected == [{"event": "custom:a"}, ["custom:b"]]
    assert await coordinator.collect_contributions("nobody") == []
    assert "contributor 'bad' of channel 'observability.events' failed" in caplog.text
    assert [c["name"] for c in coordinator.channels["observability.events"]] == [
        "a",
        "none",
        "bad",
        "b",
    ]
    with pytest.raises(TypeError, match="callable"):
        coordinator.register_contributor("x", "y", "not callable")  # type: ignore[arg-type]


# ---------------------------------------------------------------- cleanup


async def test_cleanup_runs_in_reverse_order_and_survives_failures(
    caplog: pytest.LogCaptureFixture,
) -> None:
    coordinator = ModuleCoordinator()
    order: list[str] = []

    def sync_first() -> None:
        order.append("first")

    async def async_second() -> None:
        order.append("second")

    def broken_third() -> None:
        order.append("third")
        raise OSError("socket already closed")

    def returns_coroutine() -> Any:
        return async_second()

    coordinator.register_cleanup(sync_first)
    coordinator.register_cleanup(returns_coroutine)
    coordinator.register_cleanup(None)  # a mount that returned nothing
    coordinator.register_cleanup(broken_third)
    await coordinator.cleanup()
    assert order == ["third", "second", "first"]
    assert "cleanup" in caplog.text
    assert "broken_third" in caplog.text
    assert "socket already closed" in caplog.text

    await coordinator.cleanup()  # each cleanup runs once
    assert order == ["third", "second", "first"]
    with pytest.raises(TypeError, match="callable"):
        coordinator.register_cleanup(42)  # type: ignore[arg-type]


# ---------------------------------------------------------------- turn, cancel, introspection


async def test_request_cancel_sets_a_flag_and_an_event() -> None:
    coordinator = ModuleCoordinator()

    def state() -> tuple[bool, bool]:
        return (coordinator.cancellation.is_cancelled, coordinator.cancellation.is_immediate)

    assert state() == (False, False)
    await coordinator.request_cancel()
    assert state() == (True, False)
    await coordinator.cancellation.event.wait()
    await coordinator.request_cancel(immediate=True)
    assert state() == (True, True)
    coordinator.cancellation.reset()
    assert state() == (False, False)
    assert not coordinator.cancellation.event.is_set()


async def test_to_dict_is_json_ready() -> None:
    coordinator = ModuleCoordinator(session_id="s", approval_system=StaticApprovalSystem())
    await coordinator.mount("tools", Tool("bash"))
    await coordinator.mount("context", InMemoryContext())
    coordinator.register_capability("c", object())
    coordinator.hooks.register("tool:pre", lambda _e, _d: None, name="guard")
    summary = coordinator.to_dict()
    json.dumps(summary)
    assert summary["session_id"] == "s"
    assert summary["mount_points"]["tools"] == ["bash"]
    assert summary["mount_points"]["context"] == "InMemoryContext"
    assert summary["mount_points"]["hooks"] == {"tool:pre": ["guard"]}
    assert summary["capabilities"] == ["c"]
    assert summary["approval_system"] == "StaticApprovalSystem"
    assert summary["injection_size_limit"] is None  # unlimited unless configured (2.0.2)
    assert (summary["tools"], summary["has_context"], summary["has_orchestrator"]) == (
        ["bash"],
        True,
        False,
    )


# ---------------------------------------------------------------- subclassing


def test_amplifier_core_style_subclass_passing_arguments_to_new() -> None:
    class Mock(ModuleCoordinator):
        def __new__(cls) -> Mock:
            session = types.SimpleNamespace(session_id="test-session", parent_id=None, config={})
            return super().__new__(cls, session, StaticApprovalSystem(), RecordingDisplay())

        def __init__(self) -> None:
            self.mount_history: list[str] = []

    mock = Mock()
    assert mock.session_id == "test-session"
    assert isinstance(mock.approval_system, StaticApprovalSystem)
    assert isinstance(mock.display_system, RecordingDisplay)
    assert mock.mount_history == []
    assert mock.get("hooks") is mock.hooks


def test_plain_subclass_calling_super_init() -> None:
    class Custom(ModuleCoordinator):
        def __init__(self, label: str) -> None:
            super().__init__(session_id=f"custom-{label}")
            self.label = label

    custom = Custom("x")
    assert (custom.session_id, custom.label) == ("custom-x", "x")


# ---------------------------------------------------------------- results and display


async def test_user_messages_reach_the_display_with_level_and_source() -> None:
    display = RecordingDisplay()
    assert isinstance(display, DisplaySystem)
    coordinator = ModuleCoordinator(display_system=display)

    async def progress(_e: str, _d: dict[str, Any]) -> HookResult:
        return HookResult(user_message="Processed 3 files", suppress_output=True)

    async def checker(_e: str, _d: dict[str, Any]) -> HookResult:
        return HookResult(
            action="modify",
            data={"x": 1},
            user_message="2 critical issues",
            user_message_level="error",
            user_message_source="type-checker",
        )

    coordinator.hooks.register("tool:post", progress, name="progress")
    coordinator.hooks.register("tool:post", checker, name="checker")
    merged = await coordinator.hooks.emit("tool:post", {})
    result = await coordinator.process_hook_result(merged, "tool:post")
    assert result is merged
    assert display.messages == [
        UserMessage(message="Processed 3 files", level="info", source="progress"),
        UserMessage(message="2 critical issues", level="error", source="type-checker"),
    ]
    assert display.texts() == ["Processed 3 files", "2 critical issues"]


async def test_scalar_user_message_on_a_direct_result_uses_the_hook_name() -> None:
    display = RecordingDisplay()
    coordinator = ModuleCoordinator(display_system=display)
    result = HookResult.model_construct(user_message="hi", user_message_level="warning")
    await coordinator.process_hook_result(result, "tool:post", "direct")
    assert display.messages == [UserMessage(message="hi", level="warning", source="direct")]


async def test_async_display_systems_are_awaited() -> None:
    shown: list[tuple[str, str, str]] = []

    class AsyncDisplay:
        async def show_message(self, message: str, level: str, source: str = "hook") -> None:
            shown.append((message, level, source))

    coordinator = ModuleCoordinator(display_system=AsyncDisplay())
    await coordinator.process_hook_result(HookResult(user_message="async"), "tool:post", "h")
    assert shown == [("async", "info", "h")]


async def test_without_a_display_messages_are_logged_at_their_level(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="amplifier_core.coordinator")
    coordinator = ModuleCoordinator()
    result = HookResult(user_message="disk almost full", user_message_level="warning")
    await coordinator.process_hook_result(result, "tool:post", "disk-watch")
    (record,) = [r for r in caplog.records if r.name == "amplifier_core.coordinator"]
    assert record.levelno == logging.WARNING
    assert record.getMessage() == "[disk-watch] disk almost full"


async def test_a_failing_display_falls_back_to_the_log(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def show_message(self, message: str, level: str, source: str = "hook") -> None:
            raise RuntimeError("terminal gone")

    caplog.set_level(logging.INFO, logger="amplifier_core.coordinator")
    coordinator = ModuleCoordinator(display_system=Broken())
    result = await coordinator.process_hook_result(HookResult(user_message="m"), "e", "h")
    assert result.action == "continue"
    assert "display system Broken failed" in caplog.text
    assert "[h] m" in caplog.text


def test_logging_display_uses_the_message_level(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.display")
    caplog.set_level(logging.INFO, logger="test.display")
    LoggingDisplay(logger).show_message("bad", "error", "src")
    (record,) = caplog.records
    assert (record.levelno, record.getMessage()) == (logging.ERROR, "[src] bad")


async def test_deny_is_returned_as_is_and_suppress_output_is_kept() -> None:
    coordinator = ModuleCoordinator()
    deny = HookResult(action="deny", reason="nope", source="guard", suppress_output=True)
    assert await coordinator.process_hook_result(deny, "tool:pre") is deny
    assert coordinator.audit.of_type("deny")[0]["hook"] == "guard"


async def test_a_plain_dict_is_not_a_result() -> None:
    """As amplifier-core 2.0.2: a dict raises AttributeError (here naming hook and event)."""
    coordinator = ModuleCoordinator()
    with pytest.raises(AttributeError, match=r"hook 'h' on 'tool:pre' gave a dict, not a Hook"):
        await coordinator.process_hook_result({"action": "continue"}, "tool:pre", "h")
