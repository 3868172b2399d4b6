"""A hook-shell hook's answer is read as hook-shell's bridge reads it; the same script in a
Claude Code settings file keeps Claude Code's reading.

Each test installs real scripts as hook-shell's README says (a directory under
``.amplifier/hooks/`` with its ``hooks.json``, the script made executable), mounts the module
in a trusted project and emits the event: the scripts run as real processes. Three cases
differ from Claude Code's reading: a deny whose hook printed nothing on stderr (hook-shell's
``Hook blocked operation``, the hook named only in the result's source and the log), a
``systemMessage`` of a hook that neither blocks nor injects (not shown, logged), and output
hook-shell cannot read (ignored, logged).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.models import HookResult
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.trust import trust_project

HAS_SOURCE = "source" in HookResult.model_fields
BASH = {"tool_name": "bash", "tool_input": {"command": "rm -rf build"}, "session_id": "s-1"}


def install(project: Path, name: str, script: str, event: str = "PreToolUse") -> str:
    """``.amplifier/hooks/<name>/`` with ``hook.sh`` (executable) and its ``hooks.json``; the
    label the module gives the hook."""
    directory = project / ".amplifier" / "hooks" / name
    directory.mkdir(parents=True)
    (directory / "hook.sh").write_text("#!/bin/sh\ncat > /dev/null\n" + script)
    (directory / "hook.sh").chmod(0o755)
    command = f"${{AMPLIFIER_HOOKS_DIR}}/{name}/hook.sh"
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    hooks = {"description": name, "hooks": {event: [group]}}
    (directory / "hooks.json").write_text(json.dumps(hooks, indent=2))
    return f".amplifier/hooks/{name}/hooks.json:hooks.{event}[0].hooks[0]"


def settings_hook(project: Path, script: str, event: str = "PreToolUse") -> None:
    """The same kind of script as a Claude Code project settings hook."""
    path = project / ".claude" / "hook.sh"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\ncat > /dev/null\n" + script)
    path.chmod(0o755)
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": str(path)}]}
    settings = {"hooks": {event: [group]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))


async def emit(project: Path, event: str = "tool:pre", data: dict[str, Any] | None = None) -> Any:
    trust_project(project)
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    try:
        return await coordinator.hooks.emit(event, dict(data or BASH))
    finally:
        await cleanup()


def logged(caplog: pytest.LogCaptureFixture, *parts: str) -> list[str]:
    """The log messages that contain every one of ``parts``."""
    return [r.getMessage() for r in caplog.records if all(p in r.getMessage() for p in parts)]


# ------------------------------------------------------------------ a deny with no reason


async def test_an_exit_2_with_an_empty_stderr_gives_hook_shells_reason_and_names_the_hook_aside(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    label = install(project, "guard", "exit 2\n")
    caplog.set_level(logging.INFO, logger="amplifier_module_hooks_declarative")
    result = await emit(project)
    assert result.action == "deny"
    assert result.reason == "Hook blocked operation"  # the model sees hook-shell's words
    assert result.user_message is None
    if HAS_SOURCE:  # the kernel's audit of the deny names the hook
        assert result.source == label
    assert logged(caplog, label, "exit code 2, stderr was empty")


async def test_a_hook_shell_deny_gives_stderr_or_its_json_reason_and_shows_its_system_message(
    project: Path,
) -> None:
    install(project, "a-guard", "echo 'no rm here' >&2\nexit 2\n")
    result = await emit(project)
    assert (result.action, result.reason, result.user_message) == ("deny", "no rm here", None)

    other = project.parent / "other"
    other.mkdir()
    answer = {"decision": "block", "systemMessage": "Security: blocked"}
    install(other, "json-guard", f"echo '{json.dumps(answer)}'\n")
    result = await emit(other)
    assert result.action == "deny"
    assert result.reason == "Hook blocked operation"  # no reason given: hook-shell's
    assert result.user_message == "Security: blocked"


async def test_the_same_empty_exit_2_from_claude_code_settings_names_the_hook(
    project: Path,
) -> None:
    settings_hook(project, "exit 2\n")
    result = await emit(project)
    assert result.action == "deny"
    assert "blocked by hook .claude/settings.json" in result.reason
    assert "stderr was empty" in result.reason


# ------------------------------------------------- a system message that decides nothing


async def test_the_system_message_of_a_hook_that_neither_blocks_nor_injects_is_only_logged(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    answer = {"decision": "approve", "systemMessage": "Lint check passed"}
    label = install(project, "linter", f"echo '{json.dumps(answer)}'\n", "PostToolUse")
    caplog.set_level(logging.INFO, logger="amplifier_module_hooks_declarative")
    data = {**BASH, "tool_result": {"success": True, "output": ""}}
    result = await emit(project, "tool:post", data)
    assert result is None or (result.action == "continue" and result.user_message is None)
    assert logged(caplog, label, "systemMessage not shown", "Lint check passed")


async def test_a_system_message_beside_injected_context_is_shown_as_hook_shell_shows_it(
    project: Path,
) -> None:
    answer = {"contextInjection": "2 lint issues", "systemMessage": "Linted"}
    install(project, "linter", f"echo '{json.dumps(answer)}'\n", "PostToolUse")
    data = {**BASH, "tool_result": {"success": True, "output": ""}}
    result = await emit(project, "tool:post", data)
    assert result.action == "inject_context"
    assert result.context_injection == "2 lint issues"
    assert result.user_message == "Linted"


async def test_the_same_system_message_from_claude_code_settings_is_shown(project: Path) -> None:
    answer = {"systemMessage": "Lint check passed"}
    settings_hook(project, f"echo '{json.dumps(answer)}'\n", "PostToolUse")
    data = {**BASH, "tool_result": {"success": True, "output": ""}}
    result = await emit(project, "tool:post", data)
    assert result.user_message == "Lint check passed"


# ------------------------------------------------------------- output hook-shell cannot read


@pytest.mark.parametrize(
    "stdout",
    [
        '{\n  "contextInjection": "issues:\tE501"\n}',  # a raw tab: invalid JSON
        "1 file reformatted\n{}",  # text before the object
        "[1, 2]",  # JSON, but not an object
        '{"contextInjection": 5}',  # not the type hook-shell's result takes
    ],
)
async def test_output_hook_shell_cannot_read_is_ignored_unseen_and_logged(
    project: Path, caplog: pytest.LogCaptureFixture, stdout: str
) -> None:
    (project / "out.txt").write_text(stdout)
    label = install(project, "linter", 'cat "$AMPLIFIER_PROJECT_DIR/out.txt"\n', "PostToolUse")
    caplog.set_level(logging.WARNING, logger="amplifier_module_hooks_declarative")
    data = {**BASH, "tool_result": {"success": True, "output": ""}}
    result = await emit(project, "tool:post", data)
    assert result is None or (
        result.action == "continue" and result.user_message is None and not result.context_injection
    )
    assert logged(caplog, label, "failed", "continuing unseen")


async def test_a_failing_exit_code_is_logged_and_its_stdout_still_read(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """hook-shell reads stdout whatever the exit code (but 2): a block printed before an exit
    1 still denies; an exit 1 with nothing printed lets the tool run."""
    answer = {"decision": "block", "reason": "unsafe"}
    label = install(project, "guard", f"echo '{json.dumps(answer)}'\nexit 1\n")
    caplog.set_level(logging.WARNING, logger="amplifier_module_hooks_declarative")
    result = await emit(project)
    assert (result.action, result.reason) == ("deny", "unsafe")
    assert logged(caplog, label, "exited with code 1")

    other = project.parent / "other"
    other.mkdir()
    install(other, "broken", "echo 'oops' >&2\nexit 1\n")
    result = await emit(other)
    assert result is None or (result.action == "continue" and result.user_message is None)


async def test_the_same_unreadable_output_from_claude_code_settings_is_a_warning(
    project: Path,
) -> None:
    settings_hook(project, 'printf \'{\\n  "systemMessage": "a\\tb"\\n}\'\n', "PostToolUse")
    data = {**BASH, "tool_result": {"success": True, "output": ""}}
    result = await emit(project, "tool:post", data)
    assert result.action == "continue"
    assert "not valid JSON" in (result.user_message or "")


async def test_a_hook_past_its_timeout_lets_the_event_pass_unseen_and_is_logged(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """hook-shell kills a hook past its ``timeout`` and goes on; so does this, with a log
    record. The hook would sleep 60 s; its ``timeout`` is 1 s."""
    label = install(project, "slow", "sleep 60\nexit 2\n")
    path = project / ".amplifier" / "hooks" / "slow" / "hooks.json"
    hooks = json.loads(path.read_text())
    hooks["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = 1
    path.write_text(json.dumps(hooks))
    caplog.set_level(logging.WARNING, logger="amplifier_module_hooks_declarative")
    result = await emit(project)
    assert result is None or (result.action == "continue" and result.user_message is None)
    assert logged(caplog, label, "timed out after 1000 ms", "continuing unseen")
