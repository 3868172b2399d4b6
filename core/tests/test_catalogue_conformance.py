"""What the kernel really emits matches what docs/events.md promises for each event."""

from __future__ import annotations

from typing import Any

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.catalogue import validate_event_data
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.loader import ModuleLoader
from amplifier_core.models import HookResult


def _capture(coordinator: ModuleCoordinator) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []
    coordinator.hooks.register("*", lambda e, d: seen.append((e, dict(d))), name="capture")
    return seen


async def test_approval_events_carry_their_documented_keys() -> None:
    for decision in ("allow", "deny"):
        coordinator = ModuleCoordinator(approval_system=StaticApprovalSystem(decision))
        seen = _capture(coordinator)
        ask = HookResult(
            action="ask_user",
            approval_prompt="Run rm?",
            data={"tool_name": "bash", "tool_input": {"command": "rm x"}},
            source="gate",
        )
        await coordinator.process_hook_result(ask, "tool:pre", "gate")
        names = [name for name, _ in seen]
        expected = "approval:granted" if decision == "allow" else "approval:denied"
        assert names == ["approval:required", expected]
        for name, data in seen:
            assert validate_event_data(name, data) == [], (name, data)
            assert data["tool_name"] == "bash"
            assert data["hook"] == "gate"


async def test_module_load_failed_carries_its_documented_keys() -> None:
    coordinator = ModuleCoordinator()
    seen = _capture(coordinator)
    loader = ModuleLoader(coordinator, allow=None, deny=None, strict=False)
    await loader.mount("hooks-that-does-not-exist", {})
    assert [name for name, _ in seen] == ["module:load_failed"]
    assert validate_event_data(*seen[0]) == []
