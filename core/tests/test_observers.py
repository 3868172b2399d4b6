"""Handler-run observers: each handler run is reported once, with what it decided and how
long it took; failures with their kind; nothing changes for emit's callers."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.observers import HandlerRun


def _observed(registry: HookRegistry) -> list[HandlerRun]:
    runs: list[HandlerRun] = []
    registry.add_observer(runs.append)
    return runs


async def test_each_run_reports_name_event_action_and_duration() -> None:
    registry = HookRegistry()
    runs = _observed(registry)

    async def modifies(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "x": 2})

    def injects(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="inject_context", context_injection="note")

    async def denies(event: str, data: dict[str, Any]) -> HookResult:
        assert data["x"] == 2
        return HookResult(action="deny", reason="no rm")

    registry.register("tool:pre", modifies, priority=1, name="mod")
    registry.register("tool:pre", injects, priority=2, name="inj")
    registry.register("tool:pre", denies, priority=3, name="deny")
    registry.register("tool:pre", lambda e, d: None, priority=4, name="never")

    result = await registry.emit("tool:pre", {"tool_name": "bash", "x": 1})

    assert result.action == "deny"
    assert result.source == "deny"
    assert [(r.handler, r.event, r.action) for r in runs] == [
        ("mod", "tool:pre", "modify"),
        ("inj", "tool:pre", "inject_context"),
        ("deny", "tool:pre", "deny"),
    ]
    assert runs[2].reason == "no rm"
    assert runs[2].data["x"] == 2  # what the handler saw
    assert all(r.duration >= 0 and r.failure is None for r in runs)


async def test_failures_are_reported_with_their_kind() -> None:
    registry = HookRegistry()
    runs = _observed(registry)
    release = asyncio.Event()

    async def raises(event: str, data: dict[str, Any]) -> HookResult:
        raise RuntimeError("boom")

    async def hangs(event: str, data: dict[str, Any]) -> HookResult:
        await release.wait()
        return HookResult()

    def invalid(event: str, data: dict[str, Any]) -> Any:
        return "yes"

    async def guard(event: str, data: dict[str, Any]) -> HookResult:
        raise ValueError("cannot decide")

    registry.register("tool:pre", raises, priority=1, name="raises")
    registry.register("tool:pre", hangs, priority=2, name="hangs", timeout=0.05)
    registry.register("tool:pre", guard, priority=4, name="guard", fail_closed=True)
    registry.register("tool:post", invalid, name="invalid")

    result = await registry.emit("tool:pre", {"tool_name": "bash"})
    unread = await registry.emit("tool:post", {"tool_name": "bash"})

    assert (result.action, unread.action) == ("deny", "deny")
    assert [(r.handler, r.action, r.failure) for r in runs] == [
        ("raises", "continue", "error"),
        ("hangs", "continue", "timeout"),
        ("guard", "deny", "error"),
        ("invalid", "deny", "invalid_result"),
    ]
    assert runs[0].error == "RuntimeError: boom"
    assert runs[0].data["tool_name"] == "bash"  # what the failed handler was given
    assert runs[1].duration > 0  # measured until the deadline fired
    assert runs[2].fail_closed


async def test_sync_handler_past_its_own_timeout_is_reported_once_as_timeout() -> None:
    registry = HookRegistry()
    runs = _observed(registry)
    release = threading.Event()

    def blocks(event: str, data: dict[str, Any]) -> HookResult:
        release.wait(30)
        return HookResult(action="deny", reason="late")

    registry.register("tool:pre", blocks, name="blocks", timeout=0.05)
    result = await registry.emit("tool:pre", {})
    release.set()
    assert result.action == "continue"
    assert [(r.handler, r.failure, r.duration) for r in runs] == [("blocks", "timeout", 0.05)]


async def test_a_broken_observer_never_breaks_emit_and_removal_restores_the_plain_chain() -> None:
    registry = HookRegistry()
    seen: list[str] = []

    def broken(run: HandlerRun) -> None:
        raise RuntimeError("observer bug")

    remove_broken = registry.add_observer(broken)
    remove_good = registry.add_observer(lambda run: seen.append(run.handler))

    async def handler(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="ask_user", approval_prompt="ok?")

    registry.register("tool:pre", handler, name="asks")
    assert (await registry.emit("tool:pre", {})).action == "ask_user"
    assert seen == ["asks"]

    remove_broken()
    remove_good()
    assert (await registry.emit("tool:pre", {})).action == "ask_user"
    assert seen == ["asks"]
    assert registry._observed is not None
    assert not registry._observed.active
    (info,) = registry.handlers_for("tool:pre")
    assert info.handler is handler  # callers of handlers_for never see the wrapper


async def test_registration_changes_are_observed() -> None:
    registry = HookRegistry()
    runs = _observed(registry)
    registry.register("prompt:submit", lambda e, d: None, name="first")
    await registry.emit("prompt:submit", {})
    registry.register("prompt:submit", lambda e, d: HookResult(), name="second")
    await registry.emit("prompt:submit", {})
    assert [r.handler for r in runs] == ["first", "first", "second"]


def test_observer_must_be_callable() -> None:
    with pytest.raises(TypeError, match="observer must be callable"):
        HookRegistry().add_observer(42)  # type: ignore[arg-type]


async def test_ignored_handlers_run_unwrapped_and_unreported() -> None:
    registry = HookRegistry()
    runs: list[HandlerRun] = []
    registry.add_observer(runs.append, ignore=("own",))

    async def own(event: str, data: dict[str, Any]) -> None:
        return None

    registry.register("tool:pre", own, name="own")
    registry.register("tool:pre", lambda e, d: HookResult(action="deny", reason="x"), name="gate")
    assert (await registry.emit("tool:pre", {})).action == "deny"
    assert [r.handler for r in runs] == ["gate"]
    assert registry._observed is not None
    first, second = registry._observed.chain("tool:pre", registry.handlers_for("tool:pre"))
    assert first.handler is own
    assert second.handler is not registry.handlers_for("tool:pre")[1].handler
