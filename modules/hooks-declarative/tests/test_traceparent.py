"""A command hook runs inside the session's trace: when an observer offers the
``observability.traceparent`` capability (hooks-otel does), the hook's process gets
``TRACEPARENT`` in its environment, read at the moment the hook runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.dispatch import TRACEPARENT_CAPABILITY

HEADERS = [
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
]


async def _emit_twice(tmp_path: Path, offer: bool) -> list[str]:
    out = tmp_path / "seen.txt"
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(tmp_path))
    if offer:
        spans = iter(HEADERS)
        coordinator.register_capability(TRACEPARENT_CAPABILITY, lambda: next(spans))
    hook = {"type": "command", "command": f'echo "${{TRACEPARENT:-none}}" >> "{out}"'}
    config = {"include_user": False, "include_project": False, "hooks": {"PreToolUse": [hook]}}
    cleanup = await mount(coordinator, config)
    try:
        for _ in HEADERS:
            data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s-1"}
            result = await coordinator.hooks.emit("tool:pre", data)
            assert result.action == "continue"
    finally:
        await cleanup()
    return out.read_text().splitlines()


async def test_each_run_of_a_command_hook_gets_the_current_traceparent(tmp_path: Path) -> None:
    assert await _emit_twice(tmp_path, offer=True) == HEADERS


async def test_without_an_observer_a_command_hook_gets_no_traceparent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRACEPARENT", raising=False)
    assert await _emit_twice(tmp_path, offer=False) == ["none", "none"]
