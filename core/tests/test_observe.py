"""Observe mode: a module mounted with ``observe=True`` decides nothing and says what it would
have decided, as ``hook:observed`` events."""

from __future__ import annotations

import textwrap
import threading
import uuid
from pathlib import Path
from typing import Any

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.hooks import HookRegistry
from amplifier_core.loader import ModuleLoader
from amplifier_core.models import HookResult
from amplifier_core.observe_mode import observed_mount

_GUARD = """
import threading

from amplifier_core.models import HookResult


def mount(coordinator, config):
    hooks = coordinator.hooks

    async def deny_rm(event, data):
        if data["tool_input"].get("command", "").startswith("rm "):
            return HookResult(action="deny", reason="no rm")
        return None

    def ask_push(event, data):  # sync, with a timeout: runs in a thread
        if data["tool_input"].get("command", "").startswith("git push"):
            return HookResult(action="ask_user", approval_prompt="Push?")
        return HookResult()

    def rewrite(event, data):
        return HookResult(action="modify", data={**data, "tool_input": {"command": "true"}})

    def broken(event, data):
        raise RuntimeError("guard is broken")

    undo = [
        hooks.register("tool:pre", deny_rm, name="guard.rm"),
        hooks.register("tool:pre", ask_push, name="guard.push", timeout=5.0),
        hooks.register("tool:pre", rewrite, priority=5, name="guard.rewrite"),
        hooks.register("tool:pre", broken, priority=9, name="guard.broken", fail_closed=True),
    ]

    def cleanup():
        for u in undo:
            u()

    return cleanup
"""


def _module(tmp_path: Path) -> tuple[str, str]:
    """A guard module of its own (id and source directory): each test imports a fresh one."""
    suffix = uuid.uuid4().hex[:8]
    package = tmp_path / "src" / f"amplifier_module_guard_{suffix}"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(_GUARD), encoding="utf-8")
    return f"guard-{suffix}", str(tmp_path / "src")


async def _mounted(tmp_path: Path, *, observe: bool) -> tuple[ModuleCoordinator, list[Any]]:
    coordinator = ModuleCoordinator()
    seen: list[dict[str, Any]] = []
    coordinator.hooks.register("hook:observed", lambda e, d: seen.append(d), name="seen")
    loader = ModuleLoader(coordinator)
    module_id, source = _module(tmp_path)
    mounted = await loader.mount(module_id, {}, source, observe=observe)
    assert mounted is not None, loader.failures
    assert mounted.observe is observe
    return coordinator, seen


def _call(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}}


async def test_observed_module_decides_nothing_and_reports_each_would_have(
    tmp_path: Path,
) -> None:
    coordinator, seen = await _mounted(tmp_path, observe=True)

    denied = await coordinator.hooks.emit("tool:pre", _call("rm -rf build"))
    assert denied.action == "continue"
    assert denied.data is not None
    assert denied.data["tool_input"] == {"command": "rm -rf build"}  # the modify not applied
    assert [(d["hook"], d["decision"], d["reason"]) for d in seen] == [
        ("guard.rm", "deny", "no rm"),
        ("guard.rewrite", "modify", None),
        ("guard.broken", "failed", "RuntimeError: guard is broken"),
    ]
    [module_id] = {d["module_id"] for d in seen}
    assert module_id.startswith("guard-")
    assert seen[0]["event"] == "tool:pre"
    assert seen[0]["tool_name"] == "bash"
    assert seen[0]["event_data"]["tool_input"] == {"command": "rm -rf build"}
    assert seen[1]["data"]["tool_input"] == {"command": "true"}

    seen.clear()
    asked = await coordinator.hooks.emit("tool:pre", _call("git push"))
    assert asked.action == "continue"
    assert [(d["hook"], d["decision"]) for d in seen] == [
        ("guard.push", "ask_user"),
        ("guard.rewrite", "modify"),
        ("guard.broken", "failed"),
    ]
    assert seen[0]["approval_prompt"] == "Push?"


async def test_the_same_module_enforced_decides(tmp_path: Path) -> None:
    coordinator, seen = await _mounted(tmp_path, observe=False)

    result = await coordinator.hooks.emit("tool:pre", _call("rm -rf build"))

    assert result.action == "deny"
    assert result.reason == "no rm"
    assert seen == []


async def test_a_sync_handler_with_a_timeout_still_runs_in_a_thread() -> None:
    registry = HookRegistry()
    threads: list[str] = []

    def gate(event: str, data: dict[str, Any]) -> HookResult:
        threads.append(threading.current_thread().name)
        return HookResult(action="deny", reason="no")

    async def mount() -> None:
        registry.register("tool:pre", gate, name="gate", timeout=5.0)

    await observed_mount(registry, "gate-module", mount)
    result = await registry.emit("tool:pre", _call("ls"))

    assert result.action == "continue"
    assert threads
    assert threads[0] != threading.main_thread().name


async def test_an_observed_handler_on_every_event_never_observes_itself() -> None:
    registry = HookRegistry()
    observed: list[dict[str, Any]] = []
    registry.register("hook:observed", lambda e, d: observed.append(d), name="seen")

    async def mount() -> None:
        registry.register("*", lambda e, d: HookResult(action="deny", reason=e), name="all")

    await observed_mount(registry, "everything", mount)
    result = await registry.emit("prompt:submit", {"prompt": "hi"})

    assert result.action == "continue"
    assert [(d["event"], d["decision"]) for d in observed] == [("prompt:submit", "deny")]


async def test_a_registry_that_cannot_list_its_handlers_is_a_mount_failure(
    tmp_path: Path,
) -> None:
    class Plain:
        def register(self, *args: Any, **kwargs: Any) -> None:
            return None

        async def emit(self, event: str, data: dict[str, Any]) -> HookResult:
            return HookResult()

    class Host:
        hooks = Plain()

    loader = ModuleLoader(Host())  # type: ignore[arg-type]
    module_id, source = _module(tmp_path)
    mounted = await loader.mount(module_id, {}, source, observe=True)

    assert mounted is None
    [failure] = loader.failures
    assert f"{module_id}: observe: true needs a hook registry" in failure.message
    assert failure.module_id == module_id
