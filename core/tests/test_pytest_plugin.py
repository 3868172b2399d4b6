"""The pytest plugin a hook author gets with the kernel: its fixtures, used as an author would."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.testing import EventRecorder, MockCoordinator


async def _mount_blocker(coordinator: Any, config: dict[str, Any]) -> Callable[[], None]:
    word = config.get("word", "rm")

    async def on_tool_pre(event: str, data: dict[str, Any]) -> HookResult:
        if word in data.get("tool_input", {}).get("command", ""):
            return HookResult(action="deny", reason=f"no {word}")
        return HookResult(user_message="checked")

    unregister: Callable[[], None] = coordinator.hooks.register(
        "tool:pre", on_tool_pre, name="blocker"
    )
    return unregister


def test_the_plugin_is_registered(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.has_plugin("amplifier_hooks")


def test_hook_registry_fixture_is_fresh(hook_registry: HookRegistry) -> None:
    assert hook_registry.list_handlers() == {}


async def test_a_module_in_a_few_lines(
    coordinator: MockCoordinator,
    event_recorder: EventRecorder,
    mount_module: Callable[..., Awaitable[Any]],
) -> None:
    await mount_module(_mount_blocker, {"word": "shutdown"})
    denied = await coordinator.hooks.emit("tool:pre", {"tool_input": {"command": "shutdown now"}})
    allowed = await coordinator.hooks.emit("tool:pre", {"tool_input": {"command": "ls"}})
    assert denied.action == "deny"
    assert denied.reason == "no shutdown"
    assert allowed.user_message == "checked"
    # the deny ended the first chain before the recorder's handler: recorded with its decision
    assert event_recorder.names == ["tool:pre", "tool:pre"]
    assert event_recorder.decisions == ["deny", "continue"]
    [(event, data, handler, reason)] = event_recorder.denied
    assert (event, handler, reason) == ("tool:pre", "blocker", "no shutdown")
    assert data["tool_input"] == {"command": "shutdown now"}
    processed = await coordinator.process_hook_result(allowed, "tool:pre", "blocker")
    assert processed.action == "continue"
    assert coordinator.display.texts() == ["checked"]


async def test_mount_module_cleans_up_after_the_test(
    coordinator: MockCoordinator, mount_module: Callable[..., Awaitable[Any]]
) -> None:
    cleanup = await mount_module(_mount_blocker)
    assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": ["blocker"]}
    cleanup()  # unregistering twice (here and at teardown) is harmless
    assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": []}


async def test_the_test_coordinator_allows_and_records_approvals(
    coordinator: MockCoordinator,
) -> None:
    ask = HookResult(action="ask_user", approval_prompt="Deploy?")
    result = await coordinator.process_hook_result(ask, "tool:pre", "gate")
    assert result.action == "continue"
    assert coordinator.approvals.requests == ["Deploy?"]


AUTHOR_TEST = """
async def test_an_async_hook_test_without_configuration(coordinator):
    result = await coordinator.hooks.emit("tool:pre", {"tool_input": {}})
    assert result.action == "continue"
"""


def _pytest_in(project: Any) -> Any:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_author.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_async_tests_run_in_a_project_with_no_configuration(tmp_path: Any) -> None:
    (tmp_path / "test_author.py").write_text(AUTHOR_TEST)
    done = _pytest_in(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    # pytest-asyncio's warning about an unset asyncio_default_fixture_loop_scope never shows
    assert "asyncio_default_fixture_loop_scope" not in done.stdout + done.stderr
    assert "warning" not in done.stdout.lower()


def test_a_project_that_chose_a_fixture_loop_scope_keeps_it(tmp_path: Any) -> None:
    (tmp_path / "test_author.py").write_text(
        AUTHOR_TEST
        + "\n\ndef test_scope(pytestconfig):\n"
        + "    assert pytestconfig.getini('asyncio_default_fixture_loop_scope') == 'module'\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_default_fixture_loop_scope = module\n")
    done = _pytest_in(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_a_project_that_chose_an_asyncio_mode_keeps_it(tmp_path: Any) -> None:
    (tmp_path / "test_author.py").write_text(AUTHOR_TEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = strict\n")
    done = _pytest_in(tmp_path)
    assert "1 passed" not in done.stdout  # strict mode: an unmarked async test does not run
