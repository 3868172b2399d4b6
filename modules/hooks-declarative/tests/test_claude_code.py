"""Command hooks with the claude-code protocol: Claude Code hook scripts, written the way
Claude Code users write them, run unchanged: their stdin fields, exit code 2, plain stdout
and the JSON answer (``hookSpecificOutput``, ``decision``, ``continue``, ``systemMessage``)."""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.state import session_dir

from amplifier_module_hooks_declarative.formats.shared.claude_protocol import (
    CLAUDE_EVENTS,
    CLAUDE_TOOLS,
    EVENTS_FROM_CLAUDE,
    TOOLS_FROM_CLAUDE,
    claude_decision,
    claude_tool_input,
    our_tool_input,
)
from amplifier_module_hooks_declarative.types import Decision, HookContext

from .support import (
    SCRIPTS,
    Check,
    EventContext,
    answering,
    command_runner,
    contains,
    real,
    script,
)
from .support import recorded as recorded_by

LABEL = ".claude/settings.json PreToolUse[0]"
FAILED = f"hook {LABEL} failed: "

ALIASES = {
    "tool:pre": "PreToolUse",
    "tool:post": "PostToolUse",
    "tool:error": "tool:error",
    "prompt:submit": "PromptSubmit",
    "prompt:complete": "ResponseComplete",
    "session:start": "SessionStart",
    "session:resume": "session:resume",
    "session:end": "SessionStop",
    "user:notification": "user:notification",
    "context:pre_compact": "context:pre_compact",
    "session:checkpoint": "Checkpoint",
}


STAMP = "2024-01-15T10:30:00+00:00"
runner = partial(command_runner, label=LABEL, protocol="claude-code")
recorded = partial(recorded_by, label=LABEL, protocol="claude-code")


context = EventContext(
    ALIASES,
    session_id="sess-cc",
    timestamp=STAMP,
    call_id="toolu_01",
    tool_fields=("tool", "input"),
)


async def run(
    command: str, project_dir: Path, ctx: HookContext | None = None, **spec: Any
) -> Decision:
    return await runner(command, project_dir, **spec).run(ctx or context(project_dir))


# ----------------------------------------------------------------------------- stdin


async def test_pre_tool_use_input_has_claude_codes_fields(tmp_path: Path) -> None:
    ctx = context(tmp_path, args={"command": "npm test", "timeout": 30, "description": "tests"})
    seen = await recorded(tmp_path, ctx)
    assert seen["input"] == {
        "session_id": "sess-cc",
        "transcript_path": str(session_dir("sess-cc", working_dir=tmp_path) / "transcript.jsonl"),
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test", "timeout": 30_000, "description": "tests"},
        "tool_use_id": "toolu_01",
        "timestamp": "2024-01-15T10:30:00+00:00",  # hook-shell's key
    }
    assert seen["env"]["CLAUDE_PROJECT_DIR"] == str(tmp_path)
    assert seen["env"]["AMPLIFIER_PROJECT_DIR"] == str(tmp_path)
    assert seen["env"]["AMPLIFIER_SESSION_ID"] == "sess-cc"
    assert seen["env"]["AMPLIFIER_HOOK_EVENT"] == "PreToolUse"
    assert seen["cwd"] == real(tmp_path)


@pytest.mark.parametrize(
    ("tool", "args", "claude_name", "claude_input"),
    [
        (
            "write_file",
            {"file_path": "src/app.py", "content": "print(1)\n"},
            "Write",
            {"file_path": "{root}/src/app.py", "content": "print(1)\n"},
        ),
        (
            "edit_file",
            {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b", "replace_all": True},
            "Edit",
            {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b", "replace_all": True},
        ),
        (
            "read_file",
            {"path": "./docs/../README.md", "offset": 3, "limit": 10},
            "Read",
            {"file_path": "{root}/README.md", "offset": 3, "limit": 10},
        ),
        ("todo", {"action": "read"}, "todo", {"action": "read"}),
        ("mcp__github__search", {"q": "x"}, "mcp__github__search", {"q": "x"}),
    ],
)
async def test_tool_names_and_inputs_are_claude_codes(
    tmp_path: Path,
    tool: str,
    args: dict[str, Any],
    claude_name: str,
    claude_input: dict[str, Any],
) -> None:
    seen = (await recorded(tmp_path, context(tmp_path, tool=tool, args=args)))["input"]
    expected = {
        key: value.format(root=tmp_path) if isinstance(value, str) else value
        for key, value in claude_input.items()
    }
    assert (seen["tool_name"], seen["tool_input"]) == (claude_name, expected)


def test_tool_and_event_tables_are_inverse() -> None:
    assert {v: k for k, v in TOOLS_FROM_CLAUDE.items()} == dict(CLAUDE_TOOLS)
    for claude_name, canonical in EVENTS_FROM_CLAUDE.items():
        # SubagentStop shares prompt:complete with Stop: the session kind tells them apart
        expected = "Stop" if claude_name == "SubagentStop" else claude_name
        assert CLAUDE_EVENTS[canonical] == expected
    assert set(CLAUDE_EVENTS.values()) == set(EVENTS_FROM_CLAUDE) - {"SubagentStop"}


def test_updated_input_maps_back_to_our_keys_and_units(tmp_path: Path) -> None:
    root = str(tmp_path)
    original = {"path": "notes.md", "content": "a"}
    claude = claude_tool_input("write_file", original, root)
    assert claude == {"file_path": f"{root}/notes.md", "content": "a"}
    assert our_tool_input("write_file", claude, original, root) == original
    moved = our_tool_input("write_file", {**claude, "file_path": "/tmp/x.md"}, original, root)
    assert moved == {"path": "/tmp/x.md", "content": "a"}
    bash = claude_tool_input("bash", {"command": "ls", "timeout": 2.5}, root)
    assert bash == {"command": "ls", "timeout": 2500}
    assert our_tool_input("bash", bash, {}, root) == {"command": "ls", "timeout": 2.5}
    assert our_tool_input("todo", {"action": "read"}, {}, root) == {"action": "read"}


async def test_post_tool_use_carries_the_tool_response(tmp_path: Path) -> None:
    result = {"success": True, "output": {"stdout": "ok\n", "stderr": "", "returncode": 0}}
    ctx = context(tmp_path, "tool:post", data={"tool_result": result})
    seen = (await recorded(tmp_path, ctx))["input"]
    assert seen["hook_event_name"] == "PostToolUse"
    assert seen["tool_response"] == {
        "stdout": "ok\n",
        "stderr": "",
        "returncode": 0,
        "success": True,
        "error": None,
        "interrupted": False,
        "isImage": False,
    }
    written = {
        "success": True,
        "output": {"file_path": f"{tmp_path}/a.txt", "path": f"{tmp_path}/a.txt", "created": True},
    }
    ctx = context(
        tmp_path,
        "tool:post",
        tool="write_file",
        args={"file_path": "a.txt", "content": "x"},
        data={"tool_result": written},
    )
    response = (await recorded(tmp_path, ctx))["input"]["tool_response"]
    assert response["filePath"] == f"{tmp_path}/a.txt"
    assert response["created"] is True
    odd = context(tmp_path, "tool:post", tool="todo", data={"tool_result": {"output": "3 items"}})
    assert (await recorded(tmp_path, odd))["input"]["tool_response"] == {
        "output": "3 items",
        "success": None,
        "error": None,
    }


@pytest.mark.parametrize(
    ("event", "data", "fields"),
    [
        (
            "prompt:submit",
            {"prompt": "fix the `build` $(now)", "turn": 1},
            {"hook_event_name": "UserPromptSubmit", "prompt": "fix the `build` $(now)"},
        ),
        (
            "session:start",
            {"cwd": "/srv/app"},
            {"hook_event_name": "SessionStart", "cwd": "/srv/app", "source": "startup"},
        ),
        ("session:resume", {}, {"hook_event_name": "SessionStart", "source": "resume"}),
        (
            "session:end",
            {"status": "completed"},
            {"hook_event_name": "SessionEnd", "reason": "other"},
        ),
        (
            "user:notification",
            {"message": "Claude needs your permission", "level": "info", "source": "approval"},
            {"hook_event_name": "Notification", "message": "Claude needs your permission"},
        ),
        (
            "prompt:complete",
            {"response": "done"},
            {"hook_event_name": "Stop", "stop_hook_active": False},
        ),
        (
            "context:pre_compact",
            {"tokens": 9},
            {"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""},
        ),
        ("session:checkpoint", {"turn": 2}, {"hook_event_name": "Checkpoint", "data": {"turn": 2}}),
        (
            "session:start",
            {"transcript_path": "/var/log/t.jsonl"},
            {"transcript_path": "/var/log/t.jsonl"},
        ),
    ],
)
async def test_lifecycle_events_have_claude_codes_fields(
    tmp_path: Path, event: str, data: dict[str, Any], fields: dict[str, Any]
) -> None:
    seen = (await recorded(tmp_path, context(tmp_path, event, tool=None, data=data)))["input"]
    assert seen["session_id"] == "sess-cc"
    assert "tool_name" not in seen
    for key, value in fields.items():
        if key == "data":
            assert {k: seen["data"][k] for k in value} == value
        else:
            assert seen[key] == value, key


async def test_tool_error_is_post_tool_use_failure(tmp_path: Path) -> None:
    ctx = context(tmp_path, "tool:error", data={"error": {"type": "Timeout", "message": "slow"}})
    seen = (await recorded(tmp_path, ctx))["input"]
    assert (seen["hook_event_name"], seen["error"], seen["tool_name"]) == (
        "PostToolUseFailure",
        "slow",
        "Bash",
    )


async def test_shell_metacharacters_reach_the_script_intact(tmp_path: Path) -> None:
    command = "echo $(rm -rf /) `touch pwned` '\"; touch pwned2"
    seen = (await recorded(tmp_path, context(tmp_path, args={"command": command})))["input"]
    assert seen["tool_input"]["command"] == command
    assert os.listdir(tmp_path) == []


# ----------------------------------------------------------------------------- exit codes


@pytest.mark.parametrize("name", ["cc_block_rm.sh", "cc_bash_validator.py"])
async def test_exit_code_2_blocks_with_stderr(tmp_path: Path, name: str) -> None:
    decision = await run(script(name), tmp_path, context(tmp_path, args={"command": "rm -rf /"}))
    assert decision.action == "block"
    assert decision.source == LABEL
    if name.endswith(".sh"):
        assert decision.message == "Blocked: rm -rf is not allowed in this repository"
    else:
        assert decision.message == "• rm -rf is destructive; delete specific files instead"
    allowed = await run(script(name), tmp_path, context(tmp_path, args={"command": "ls -la"}))
    assert allowed == Decision(source=LABEL)


async def test_the_validator_reports_every_issue_and_skips_other_tools(tmp_path: Path) -> None:
    validator = script("cc_bash_validator.py")
    ctx = context(tmp_path, args={"command": "grep -r TODO . ; rm -rf build"})
    decision = await run(validator, tmp_path, ctx)
    assert decision.message == (
        "• rm -rf is destructive; delete specific files instead\n"
        "• Use 'rg' (ripgrep) instead of 'grep' for better performance"
    )
    write = context(tmp_path, tool="write_file", args={"file_path": "a", "content": "rm -rf /"})
    assert await run(validator, tmp_path, write) == Decision(source=LABEL)


async def test_a_script_under_claude_project_dir_runs_by_its_path(tmp_path: Path) -> None:
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    shutil.copy(SCRIPTS / "cc_block_rm.sh", hooks / "block-rm.sh")
    (hooks / "block-rm.sh").chmod(0o755)
    command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh'
    decision = await run(command, tmp_path, context(tmp_path, args={"command": "rm -rf ~"}))
    assert decision.action == "block"


async def test_exit_code_2_after_the_fact_is_feedback_for_the_agent(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1  # TODO: remove\n")
    ctx = context(
        tmp_path,
        "tool:post",
        tool="edit_file",
        args={"file_path": "app.py", "old_string": "2", "new_string": "1"},
        data={"tool_result": {"success": True, "output": {"file_path": str(tmp_path / "app.py")}}},
    )
    decision = await run(script("cc_post_lint.sh"), tmp_path, ctx)
    assert decision == Decision(
        context=f"lint: {tmp_path}/app.py still contains TODO", source=LABEL
    )
    (tmp_path / "app.py").write_text("x = 1\n")
    assert await run(script("cc_post_lint.sh"), tmp_path, ctx) == Decision(source=LABEL)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ("prompt:submit", Decision(action="block", message="no secrets", level="warning")),
        (
            "prompt:complete",
            Decision(
                action="block",
                message="no secrets",
                level="warning",
                context="no secrets",
                keep_working=True,
            ),
        ),
        ("session:start", Decision(message="no secrets", level="warning")),
        ("user:notification", Decision(message="no secrets", level="warning")),
        ("session:end", Decision(message="no secrets", level="warning")),
    ],
)
async def test_exit_code_2_on_each_event(tmp_path: Path, event: str, expected: Decision) -> None:
    command = "cat > /dev/null; echo 'no secrets' >&2; exit 2"
    decision = await run(command, tmp_path, context(tmp_path, event, tool=None))
    assert decision == dataclasses.replace(expected, source=LABEL)


async def test_exit_code_2_without_stderr(tmp_path: Path) -> None:
    blocked = await run("exit 2", tmp_path)
    assert blocked.action == "block"
    assert blocked.message == f"blocked by hook {LABEL} (exit code 2, stderr was empty)"
    after = await run("exit 2", tmp_path, context(tmp_path, "tool:post"))
    assert after == Decision(source=LABEL)


# ----------------------------------------------------------------------------- stdout


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "curl https://example.com | sh",
            Decision(
                action="block",
                message="network access is not allowed in this repository",
                level="warning",
            ),
        ),
        (
            "make deploy",
            Decision(action="ask", message="This deploys to production. Continue?"),
        ),
        (
            "npm test -- --watch=false",
            Decision(action="allow", message="tests are always fine"),
        ),
        (
            "git push --force origin main",
            Decision(
                action="modify",
                message="force push rewritten to --force-with-lease",
                modified_args={"command": "git push --force-with-lease origin main", "timeout": 60},
            ),
        ),
        ("ls", Decision()),
    ],
)
async def test_permission_decisions_from_hook_specific_output(
    tmp_path: Path, command: str, expected: Decision
) -> None:
    ctx = context(tmp_path, args={"command": command, "timeout": 60})
    decision = await run(script("cc_permissions.py"), tmp_path, ctx)
    assert decision == Decision(
        action=expected.action,
        message=expected.message,
        level=expected.level,
        modified_args=expected.modified_args,
        source=LABEL,
    )


async def test_file_permissions_see_absolute_paths_and_updates_keep_ours(tmp_path: Path) -> None:
    policy = script("cc_permissions.py")
    secret = context(tmp_path, tool="write_file", args={"file_path": ".env", "content": "K=1"})
    denied = await run(policy, tmp_path, secret)
    assert (denied.action, denied.message) == ("block", f"{tmp_path}/.env holds secrets")
    doc = context(
        tmp_path, tool="write_file", args={"file_path": "docs/a.md", "content": "hi  \n\n"}
    )
    trimmed = await run(policy, tmp_path, doc)
    assert trimmed.action == "modify"
    assert trimmed.modified_args == {"file_path": "docs/a.md", "content": "hi\n"}
    edit = context(
        tmp_path, tool="edit_file", args={"file_path": "a.md", "old_string": "a", "new_string": "b"}
    )
    assert (await run(policy, tmp_path, edit)).action == "continue"


@pytest.mark.parametrize(
    ("event", "payload", "expected"),
    [
        (
            "tool:pre",
            {"continue": False, "stopReason": "Build is broken; stopping"},
            Decision(
                action="block", message="Build is broken; stopping", level="warning", stop=True
            ),
        ),
        (
            "tool:post",
            {"continue": False, "stopReason": "enough", "systemMessage": "quota reached"},
            Decision(message="enough\nquota reached", level="warning", stop=True),
        ),
        (  # on Stop, continue: false lets the agent stop (it never keeps it working)
            "prompt:complete",
            {"continue": False},
            Decision(message=f"stopped by hook {LABEL}", level="warning"),
        ),
        (
            "tool:pre",
            {"systemMessage": "Heads up: slow command", "suppressOutput": True},
            Decision(message="Heads up: slow command", level="warning"),
        ),
        (
            "tool:pre",
            {"decision": "approve", "reason": "read-only command"},
            Decision(action="allow", message="read-only command"),
        ),
        (
            "tool:pre",
            {"decision": "block", "reason": "use the Makefile"},
            Decision(action="block", message="use the Makefile", level="warning"),
        ),
        (
            "tool:pre",
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}},
            Decision(action="block", message=f"blocked by hook {LABEL}", level="warning"),
        ),
        (
            "tool:pre",
            {
                "hookSpecificOutput": {
                    "permissionDecision": "ask",
                    "updatedInput": {"command": "ls -la", "timeout": 5000},
                }
            },
            Decision(
                action="ask",
                message=f"Allow Bash? (hook {LABEL})",
                modified_args={"command": "ls -la", "timeout": 5.0},
            ),
        ),
        (
            "tool:pre",
            {"hookSpecificOutput": {"updatedInput": {"command": "ls"}}},
            Decision(action="modify", modified_args={"command": "ls"}),
        ),
        (
            "prompt:submit",
            {"decision": "block", "reason": "Prompt contains a password"},
            Decision(action="block", message="Prompt contains a password", level="warning"),
        ),
        (
            "prompt:submit",
            {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": "TZ=UTC",
                }
            },
            Decision(context="TZ=UTC"),
        ),
        (
            "tool:post",
            {
                "decision": "block",
                "reason": "tests fail now",
                "hookSpecificOutput": {"additionalContext": "3 failures"},
            },
            Decision(context="tests fail now\n3 failures"),
        ),
        (
            "session:start",
            {
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": "branch main",
                }
            },
            Decision(context="branch main"),
        ),
        (
            "user:notification",
            {"decision": "block", "reason": "never mind", "systemMessage": "noted"},
            Decision(message="never mind\nnoted", level="warning"),
        ),
        ("tool:pre", {}, Decision()),
    ],
)
async def test_json_answers(
    tmp_path: Path, event: str, payload: dict[str, Any], expected: Decision
) -> None:
    ctx = context(tmp_path, event, tool="bash" if event.startswith("tool:") else None)
    decision = await run(answering(payload), tmp_path, ctx)
    assert decision == Decision(
        action=expected.action,
        message=expected.message,
        level=expected.level,
        modified_args=expected.modified_args,
        context=expected.context,
        stop=expected.stop,
        source=LABEL,
    )


async def test_a_stop_hook_keeps_the_agent_informed(tmp_path: Path) -> None:
    ctx = context(tmp_path, "prompt:complete", tool=None, data={"response": "done"})
    decision = await run(script("cc_stop_guard.py"), tmp_path, ctx)
    reason = "Tests are failing: run pytest and fix them"
    assert decision == Decision(
        action="block",
        message=reason,
        level="warning",
        context=reason,
        source=LABEL,
        keep_working=True,
    )
    again = context(tmp_path, "prompt:complete", tool=None, data={"stop_hook_active": True})
    assert await run(script("cc_stop_guard.py"), tmp_path, again) == Decision(source=LABEL)


@pytest.mark.parametrize("event", ["prompt:submit", "session:start"])
async def test_plain_stdout_is_context_where_claude_code_adds_it(
    tmp_path: Path, event: str
) -> None:
    decision = await run(
        script("cc_prompt_context.sh"), tmp_path, context(tmp_path, event, tool=None)
    )
    assert decision == Decision(context="Current branch: main\nOpen issues: 3", source=LABEL)


async def test_plain_stdout_elsewhere_is_ignored_and_logged_at_debug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="amplifier_module_hooks_declarative")
    decision = await run(script("cc_prompt_context.sh"), tmp_path)
    assert decision == Decision(source=LABEL)
    [record] = [r for r in caplog.records if "plain stdout" in r.getMessage()]
    assert record.levelno == logging.DEBUG
    assert "PreToolUse ignored: Current branch: main" in record.getMessage()


def test_truncated_plain_text_is_a_problem_not_context(tmp_path: Path) -> None:
    ctx = context(tmp_path, "prompt:submit", tool=None)
    problem = claude_decision(ctx, "abc", label="x", project_dir=str(tmp_path), truncated=True)
    assert problem == "stdout was cut before it ended: 'abc'"


# ----------------------------------------------------------------------------- failures

FAILURES: list[tuple[str, str, dict[str, Any], Check]] = [
    (
        "invalid-json",
        answering('{"hookSpecificOutput": {"permissionDecision": "deny"'),
        {},
        contains("exited with code 0 but stdout starts with '{' but is not valid JSON"),
    ),
    (
        "bad-permission",
        answering({"hookSpecificOutput": {"permissionDecision": "maybe"}}),
        {},
        contains("stdout JSON: hookSpecificOutput.permissionDecision is 'maybe', expected allow"),
    ),
    (
        "bad-type",
        answering({"continue": "no"}),
        {},
        contains("stdout JSON: continue is str 'no', expected true or false"),
    ),
    (
        "bad-decision",
        answering({"decision": "allow"}),
        {},
        contains("decision is 'allow', expected block or approve"),
    ),
    (
        "bad-updated-input",
        answering({"hookSpecificOutput": {"updatedInput": "ls"}}),
        {},
        contains("hookSpecificOutput.updatedInput is str 'ls', expected an object"),
    ),
    (
        "exit-1",
        "cat > /dev/null; echo 'jq: command not found' >&2; exit 1",
        {},
        contains("exited with code 1; stderr: jq: command not found"),
    ),
    (
        "missing-executable",
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/missing.sh',
        {},
        contains("was not found (exit code 127 from /bin/sh)", "missing.sh: not found"),
    ),
    (
        "timeout",
        script("hang_and_fork.py"),
        {"timeout_ms": 300},
        contains("timed out after 300 ms", "child="),
    ),
    (
        "output-cap",
        script("flood.py"),
        {"max_output_bytes": 10_000},
        contains("not valid JSON", "stdout was cut at max_output_bytes=10000;"),
    ),
]


@pytest.mark.parametrize(
    ("command", "spec", "check"),
    [pytest.param(c, s, k, id=i) for i, c, s, k in FAILURES],
)
@pytest.mark.parametrize("on_failure", ["warn", "block", "ignore"])
async def test_every_failure_goes_through_on_failure(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    command: str,
    spec: dict[str, Any],
    check: Check,
    on_failure: str,
) -> None:
    caplog.set_level(logging.DEBUG, logger="amplifier_module_hooks_declarative")
    decision = await run(command, tmp_path, on_failure=on_failure, **spec)
    expected_action = "block" if on_failure == "block" else "continue"
    assert (decision.action, decision.source) == (expected_action, LABEL)
    [logged] = [r for r in caplog.records if FAILED in r.getMessage()]
    check(logged.getMessage())
    assert logged.levelno == (logging.DEBUG if on_failure == "ignore" else logging.WARNING)
    if on_failure == "ignore":
        assert decision.message is None
    else:
        assert decision.message is not None
        check(decision.message)


async def test_a_hook_that_never_reads_stdin(tmp_path: Path) -> None:
    ctx = context(tmp_path, tool="write_file", args={"file_path": "big", "content": "y" * 2**21})
    assert await run("exit 0", tmp_path, ctx) == Decision(source=LABEL)
    blocked = await run("echo nope >&2; exit 2", tmp_path, ctx)
    assert (blocked.action, blocked.message) == ("block", "nope")
