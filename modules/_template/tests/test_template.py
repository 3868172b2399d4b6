"""The template module, tested the way a module author would: a test coordinator and real emits."""

from __future__ import annotations

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_template import mount


async def test_denies_listed_tool_and_cleans_up() -> None:
    coordinator = create_test_coordinator()
    cleanup = await mount(coordinator, {"deny_tools": ["bash"]})

    denied = await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {}})
    allowed = await coordinator.hooks.emit("tool:pre", {"tool_name": "read_file"})
    assert denied.action == "deny"
    assert denied.reason == "tool 'bash' is disabled in this project"
    assert allowed.action == "continue"

    cleanup()
    assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": []}


async def test_notes_results_only_when_configured() -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {"note_results": True})
    failed = {"tool_name": "bash", "tool_result": {"success": False}}
    result = await coordinator.hooks.emit("tool:post", failed)
    assert result.user_message == "bash failed"
    assert result.user_message_level == "warning"

    quiet = create_test_coordinator()
    await mount(quiet, {})
    assert (await quiet.hooks.emit("tool:post", failed)).user_message is None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"deny_tool": ["bash"]}, "deny_tool: Extra inputs are not permitted"),
        ({"deny_tools": "bash"}, "deny_tools: Input should be a valid list"),
        ({"priority": "high"}, "priority: Input should be a valid integer"),
    ],
)
async def test_bad_config_is_rejected_clearly(config: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=r"^hooks-template: config: ") as caught:
        await mount(create_test_coordinator(), config)
    assert message in str(caught.value)
