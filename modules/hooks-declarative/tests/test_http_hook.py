"""Claude Code ``type: http`` hooks against a real HTTP server on loopback: the event's Claude
Code object is POSTed, headers get only the allowed variables, the response decides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount

from .support import HttpEndpoint, claude_plugin


def _plugin(root: Path, hook: dict[str, Any]) -> Path:
    plugin = root / "remote-guard"
    claude_plugin(plugin)
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks, indent=2))
    return root


async def _emit(tmp_path: Path, hook: dict[str, Any]) -> Any:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    plugins = _plugin(tmp_path / "plugins", hook)
    cleanup = await mount(coordinator, {"include_user": False, "plugins": [str(plugins)]})
    data = {"tool_name": "bash", "tool_input": {"command": "rm -rf build"}, "session_id": "s-1"}
    try:
        return await coordinator.hooks.emit("tool:pre", data)
    finally:
        await cleanup()


async def test_the_event_is_posted_and_the_response_denies(
    endpoint: HttpEndpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0ken")
    monkeypatch.setenv("OTHER_SECRET", "must-not-leave")
    endpoint.answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "builds are not removed here",
        }
    }
    hook = {
        "type": "http",
        "url": endpoint.url,
        "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"},
        "allowedEnvVars": ["HOOK_TOKEN"],
        "timeout": 30,
    }
    result = await _emit(tmp_path, hook)
    assert result.action == "deny"
    assert result.reason.startswith("builds are not removed here")
    [(headers, body)] = endpoint.received
    assert headers["Authorization"] == "Bearer t0ken"
    assert headers["X-Other"] == ""
    assert body["hook_event_name"] == "PreToolUse"
    assert body["tool_name"] == "Bash"
    assert body["tool_input"] == {"command": "rm -rf build"}


async def test_an_error_status_is_a_warning_and_the_call_goes_on(
    endpoint: HttpEndpoint, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint.status = 500
    result = await _emit(tmp_path, {"type": "http", "url": endpoint.url})
    assert result is None or result.action == "continue"
    assert f"POST {endpoint.url} answered HTTP 500" in caplog.text
    assert len(endpoint.received) == 1


async def test_a_url_that_is_not_http_is_refused_naming_the_plugin_and_line(
    tmp_path: Path,
) -> None:
    from amplifier_module_hooks_declarative import HooksConfigError

    with pytest.raises(HooksConfigError) as caught:
        await _emit(tmp_path, {"type": "http", "url": "file:///etc/passwd"})
    assert "plugin remote-guard: hooks/hooks.json:" in str(caught.value)
    assert "hooks.PreToolUse[0].hooks[0].url: expected an http:// or https:// URL" in str(
        caught.value
    )
