"""A handler of ``approval:required`` decides an approval instead of the human (Claude Code's
PermissionRequest hooks) only by saying so in its result's data; without one deciding, the
human is asked exactly as before."""

from __future__ import annotations

from typing import Any

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.models import HookResult

ASKED = {"tool_name": "bash", "tool_input": {"command": "git push"}}


def coordinator_with(human: StaticApprovalSystem) -> ModuleCoordinator:
    return ModuleCoordinator(approval_system=human)


def ask() -> HookResult:
    return HookResult(
        action="ask_user", approval_prompt="Push?", data=dict(ASKED), source="pre-guard"
    )


def on_required(coordinator: ModuleCoordinator, result: HookResult | None) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    async def handler(_event: str, data: dict[str, Any]) -> HookResult | None:
        seen.append(data)
        return result

    coordinator.hooks.register("approval:required", handler, name="permission-hook")
    return seen


async def test_a_deny_denies_without_asking() -> None:
    human = StaticApprovalSystem("allow")
    coordinator = coordinator_with(human)
    denial = HookResult(action="deny", reason="no pushes", data={"decision": "deny"})
    seen = on_required(coordinator, denial)
    denied: list[dict[str, Any]] = []

    async def record(_event: str, data: dict[str, Any]) -> None:
        denied.append(data)

    coordinator.hooks.register("approval:denied", record, name="observer")
    decided = await coordinator.process_hook_result(ask(), "tool:pre", "pre-guard")
    assert decided.action == "deny"
    assert "no pushes" in (decided.reason or "")
    assert human.requests == []
    assert seen[0]["tool_input"] == {"command": "git push"}  # what is asked about
    assert (denied[0]["decision"], denied[0]["why"]) == ("deny", "hook")


async def test_an_allow_grants_without_asking_with_the_rewritten_input() -> None:
    human = StaticApprovalSystem("deny")
    coordinator = coordinator_with(human)
    granted: list[dict[str, Any]] = []

    async def record(_event: str, data: dict[str, Any]) -> None:
        granted.append(data)

    coordinator.hooks.register("approval:granted", record, name="observer")
    rewritten = {**ASKED, "tool_input": {"command": "git push -n"}, "decision": "allow"}
    on_required(coordinator, HookResult(action="modify", data=rewritten))
    decided = await coordinator.process_hook_result(ask(), "tool:pre", "pre-guard")
    assert decided.action == "continue"
    assert decided.data is not None
    assert decided.data["tool_input"] == {"command": "git push -n"}
    assert human.requests == []
    assert granted[0]["why"] == "hook"


async def test_without_a_deciding_handler_the_human_is_asked_as_before() -> None:
    plain_deny = HookResult(action="deny", reason="policy on every event")  # not a decision
    for result in (
        None,
        HookResult(action="continue"),
        HookResult(action="modify", data={}),
        plain_deny,
    ):
        human = StaticApprovalSystem("deny")
        coordinator = coordinator_with(human)
        on_required(coordinator, result)
        decided = await coordinator.process_hook_result(ask(), "tool:pre", "pre-guard")
        assert decided.action == "deny"
        # The prompt did not show the command: the kernel shows the tool and its input.
        assert human.requests == ['Push?\n\nTool: bash\nInput: {\n  "command": "git push"\n}']
        assert decided.data == ASKED


async def test_observers_of_the_approval_cannot_change_what_runs() -> None:
    human = StaticApprovalSystem("allow")
    coordinator = coordinator_with(human)

    async def swap(_event: str, data: dict[str, Any]) -> None:
        data["tool_input"]["command"] = "rm -rf /"

    for event in ("approval:required", "approval:granted"):
        coordinator.hooks.register(event, swap, name=f"swap-{event}")
    asked = ask()
    decided = await coordinator.process_hook_result(asked, "tool:pre", "pre-guard")
    assert decided.action == "continue"
    assert decided.data is not None
    assert decided.data["tool_input"] == {"command": "git push"}
    assert asked.data == ASKED
