"""The variables a session offers under ``session.environment`` reach every later command."""

from __future__ import annotations

from pathlib import Path

from amplifier_core import ModuleCoordinator
from amplifier_module_tool_bash import ENVIRONMENT_CAPABILITY, BashTool, mount


async def _mounted(coordinator: ModuleCoordinator, working_dir: Path) -> BashTool:
    coordinator.register_capability("session.working_dir", str(working_dir))
    await mount(coordinator, {"env": {"STAGE": "config", "KEEP": "config"}})
    tool = coordinator.get("tools")["bash"]
    assert isinstance(tool, BashTool)
    return tool


async def test_offered_variables_reach_commands_and_win_over_env(tmp_path: Path) -> None:
    coordinator = ModuleCoordinator()
    tool = await _mounted(coordinator, tmp_path)
    before = await tool.execute({"command": "echo ${STAGE}-${FROM_HOOK:-unset}"})
    assert before.output["stdout"] == "config-unset\n"
    offered = {"FROM_HOOK": "set"}
    # offered after the tool mounted, and read at each call, as a hook's env file grows
    coordinator.register_capability(ENVIRONMENT_CAPABILITY, lambda: dict(offered))
    after = await tool.execute({"command": "echo ${STAGE}-${FROM_HOOK}-${KEEP}"})
    assert after.output["stdout"] == "config-set-config\n"
    offered["STAGE"] = "session"
    last = await tool.execute({"command": "echo $STAGE"})
    assert last.output["stdout"] == "session\n"


async def test_a_failing_offer_is_skipped_and_the_command_runs(tmp_path: Path) -> None:
    coordinator = ModuleCoordinator()
    tool = await _mounted(coordinator, tmp_path)

    def broken() -> dict[str, str]:
        raise OSError("env file unreadable")

    coordinator.register_capability(ENVIRONMENT_CAPABILITY, broken)
    result = await tool.execute({"command": "echo $STAGE"})
    assert result.success
    assert result.output["stdout"] == "config\n"


async def test_an_offered_entry_that_cannot_be_a_variable_is_skipped(tmp_path: Path) -> None:
    coordinator = ModuleCoordinator()
    tool = await _mounted(coordinator, tmp_path)
    offered = {"A=B": "x", "NUL": "a\0b", "GOOD": "yes"}
    coordinator.register_capability(ENVIRONMENT_CAPABILITY, lambda: dict(offered))
    result = await tool.execute({"command": "echo $GOOD-${NUL:-unset}"})
    assert result.success, result.error
    assert result.output["stdout"] == "yes-unset\n"
