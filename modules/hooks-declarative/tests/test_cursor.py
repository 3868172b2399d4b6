"""Cursor hooks: ``hooks.json`` (``version: 1``) read as Cursor reads it, and command hooks
with the cursor protocol: Cursor's stdin fields per event, ``permission`` answers, exit code 2
and ``failClosed``, run as real processes."""

from __future__ import annotations

import json
import logging
import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.document import HookGroup, HooksConfigError
from amplifier_module_hooks_declarative.formats.cursor.protocol import (
    cursor_decision,
    cursor_input,
    cursor_tool,
)
from amplifier_module_hooks_declarative.formats.cursor.reader import (
    parse_cursor_hooks,
    parse_user_cursor_hooks,
)
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.tool_identity import DEFAULT_CURSOR_VERSION
from amplifier_module_hooks_declarative.types import Decision

from .support import FormatContext, answering, command_runner
from .support import recorded as recorded_by

SOURCE = ".cursor/hooks.json"
LABEL = f"{SOURCE}:hooks.beforeShellExecution[0]"


STAMP = "2025-01-15T10:30:00+00:00"
runner = partial(command_runner, label=LABEL, protocol="cursor")
recorded = partial(recorded_by, label=LABEL, protocol="cursor")


context = FormatContext(
    alias="beforeShellExecution",
    session_id="sess-c",
    timestamp=STAMP,
    call_id="call_7",
    fields={"session_id": "sess-c", "turn": 2},
)

# ----------------------------------------------------------------------------- stdin


async def test_before_shell_execution_has_cursors_fields(tmp_path: Path) -> None:
    seen = await recorded(tmp_path, context(tmp_path, args={"command": "npm install"}))
    assert seen["input"] == {
        "conversation_id": "sess-c",
        "generation_id": "sess-c:2",
        "model": "default",
        "hook_event_name": "beforeShellExecution",
        "cursor_version": DEFAULT_CURSOR_VERSION,
        "workspace_roots": [str(tmp_path)],
        "user_email": None,
        "transcript_path": None,
        "command": "npm install",
        "cwd": str(tmp_path),
    }
    assert seen["env"]["CURSOR_PROJECT_DIR"] == str(tmp_path)
    assert seen["env"]["CURSOR_VERSION"] == DEFAULT_CURSOR_VERSION
    assert seen["env"]["CLAUDE_PROJECT_DIR"] == str(tmp_path)


async def test_before_read_file_carries_the_files_content(tmp_path: Path) -> None:
    (tmp_path / "secrets.env").write_text("API_KEY=abc\n")
    ctx = context(tmp_path, "beforeReadFile", tool="read_file", args={"file_path": "secrets.env"})
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert stdin["hook_event_name"] == "beforeReadFile"
    assert stdin["file_path"] == str(tmp_path / "secrets.env")
    assert stdin["content"] == "API_KEY=abc\n"
    assert stdin["attachments"] == []


@pytest.mark.parametrize(
    ("tool", "args", "edits"),
    [
        (
            "write_file",
            {"file_path": "a.txt", "content": "new"},
            [{"old_string": "", "new_string": "new"}],
        ),
        (
            "edit_file",
            {"file_path": "a.txt", "old_string": "x = 1", "new_string": "x = 2"},
            [{"old_string": "x = 1", "new_string": "x = 2"}],
        ),
    ],
)
async def test_after_file_edit_lists_the_edits(
    tmp_path: Path, tool: str, args: dict[str, Any], edits: list[dict[str, str]]
) -> None:
    ctx = context(tmp_path, "afterFileEdit", "tool:post", tool=tool, args=args)
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert stdin["hook_event_name"] == "afterFileEdit"
    assert stdin["file_path"] == str(tmp_path / "a.txt")
    assert stdin["edits"] == edits


async def test_mcp_and_generic_tool_events(tmp_path: Path) -> None:
    ctx = context(tmp_path, "beforeMCPExecution", tool="mcp__db__query", args={"sql": "select 1"})
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert (stdin["tool_name"], stdin["server"]) == ("query", "db")
    assert json.loads(stdin["tool_input"]) == {"sql": "select 1"}
    ctx = context(tmp_path, "preToolUse", tool="edit_file", args={"file_path": "a"})
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert (stdin["tool_name"], stdin["tool_use_id"]) == ("Write", "call_7")
    assert cursor_tool("bash") == "Shell"
    assert cursor_tool("mcp__db__query") == "MCP:query"


async def test_prompt_and_stop_fields(tmp_path: Path) -> None:
    ctx = context(tmp_path, "beforeSubmitPrompt", "prompt:submit", tool=None, data={"prompt": "hi"})
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert (stdin["prompt"], stdin["attachments"]) == ("hi", [])
    ctx = context(tmp_path, "stop", "prompt:complete", tool=None, data={"response": "done"})
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert (stdin["hook_event_name"], stdin["status"], stdin["loop_count"]) == (
        "stop",
        "completed",
        0,
    )


# ----------------------------------------------------------------------------- answers


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"permission": "deny", "user_message": "Blocked rm", "agent_message": "Use git clean"},
            Decision(action="block", message="Use git clean", level="warning", source=LABEL),
        ),
        (
            {"permission": "deny", "user_message": "Blocked rm"},
            Decision(action="block", message="Blocked rm", level="warning", source=LABEL),
        ),
        (
            {"permission": "ask", "user_message": "Run npm publish?"},
            Decision(action="ask", message="Run npm publish?", source=LABEL),
        ),
        ({"permission": "allow"}, Decision(action="allow", source=LABEL)),
        (
            {"permission": "allow", "agent_message": "ran under a sandbox"},
            Decision(action="allow", context="ran under a sandbox", source=LABEL),
        ),
    ],
)
async def test_permission_answers(
    tmp_path: Path, payload: dict[str, Any], expected: Decision
) -> None:
    assert await runner(answering(payload), tmp_path).run(context(tmp_path)) == expected


async def test_exit_code_2_is_a_deny_and_other_codes_fail_open(tmp_path: Path) -> None:
    deny = "cat >/dev/null; echo 'no force push' >&2; exit 2"
    assert await runner(deny, tmp_path).run(context(tmp_path)) == Decision(
        action="block", message="no force push", level="warning", source=LABEL
    )
    crash = "cat >/dev/null; exit 3"
    opened = await runner(crash, tmp_path).run(context(tmp_path))
    assert opened.action == "continue"
    assert "exited with code 3" in (opened.message or "")
    closed = await runner(crash, tmp_path, on_failure="block").run(context(tmp_path))
    assert closed.action == "block"


async def test_before_submit_prompt_continue_false_blocks(tmp_path: Path) -> None:
    ctx = context(tmp_path, "beforeSubmitPrompt", "prompt:submit", tool=None, data={"prompt": "x"})
    payload = {"continue": False, "user_message": "prompt contains a secret"}
    assert await runner(answering(payload), tmp_path).run(ctx) == Decision(
        action="block", message="prompt contains a secret", level="warning", source=LABEL
    )


async def test_stop_followup_and_session_context(tmp_path: Path) -> None:
    ctx = context(tmp_path, "stop", "prompt:complete", tool=None)
    payload = {"followup_message": "now run the tests"}
    assert await runner(answering(payload), tmp_path).run(ctx) == Decision(
        action="block",
        message="now run the tests",
        context="now run the tests",
        source=LABEL,
        keep_working=True,
    )
    ctx = context(tmp_path, "sessionStart", "session:start", tool=None)
    payload = {"additional_context": "branch is main"}
    assert await runner(answering(payload), tmp_path).run(ctx) == Decision(
        context="branch is main", source=LABEL
    )


def test_pre_tool_use_updated_input_and_bad_answers(tmp_path: Path) -> None:
    ctx = context(tmp_path, "preToolUse")
    answer = '{"permission": "allow", "updated_input": {"command": "ls -la"}}'
    assert cursor_decision(ctx, answer, label=LABEL) == Decision(
        action="modify", modified_args={"command": "ls -la"}, source=LABEL
    )
    assert "not JSON" in str(cursor_decision(ctx, "ok", label=LABEL))
    assert cursor_decision(ctx, '{"permission": "maybe"}', label=LABEL) == (
        "stdout JSON: permission is 'maybe', expected allow, deny or ask"
    )


@pytest.mark.parametrize(
    ("alias", "event", "tool"),
    [
        ("afterFileEdit", "tool:post", "write_file"),
        ("afterShellExecution", "tool:post", "bash"),
        ("afterAgentResponse", "prompt:complete", None),
        ("sessionEnd", "session:end", None),
    ],
)
async def test_plain_text_where_cursor_reads_no_output_is_a_silent_success(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, alias: str, event: str, tool: str | None
) -> None:
    """A formatter that prints what it did after an edit succeeded, as in Cursor."""
    ctx = context(tmp_path, alias, event, tool=tool, args={"file_path": "a.py"} if tool else {})
    hook = runner("echo 'formatted 1 file'; echo '[1]'", tmp_path)
    with caplog.at_level(logging.WARNING):
        assert await hook.run(ctx) == Decision(source=LABEL)
    assert "failed" not in caplog.text


async def test_plain_text_where_cursor_reads_an_answer_is_still_a_failure(tmp_path: Path) -> None:
    hook = runner("echo 'formatted 1 file'", tmp_path)
    decision = await hook.run(context(tmp_path))
    assert decision.level == "warning"
    assert "stdout is not JSON" in str(decision.message)


# ----------------------------------------------------------------------------- hooks.json


HOOKS = """{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [{"command": "./hooks/guard.sh", "timeout": 5, "failClosed": true}],
    "afterFileEdit": [{"command": "./hooks/format.sh"}],
    "preToolUse": [{"command": "./hooks/any.sh", "matcher": "Shell|Read"}],
    "sessionStart": [{"command": "./hooks/start.sh"}],
    "subagentStart": [{"command": "./hooks/sub.sh"}]
  }
}
"""


def test_hooks_json_is_read_as_cursor_reads_it(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        document = parse_cursor_hooks(HOOKS, SOURCE)
    names = [(block.name, block.event) for block in document.events]
    assert names == [
        ("beforeShellExecution", "tool:pre"),
        ("afterFileEdit", "tool:post"),
        ("preToolUse", "tool:pre"),
        ("sessionStart", "session:start"),
        ("sessionStart", "session:resume"),
    ]
    [guard] = document.events[0].steps
    assert isinstance(guard, HookGroup)
    spec = guard.hooks[0].spec
    assert isinstance(spec, CommandHookSpec)
    assert (spec.command, spec.timeout_ms, spec.on_failure, spec.protocol) == (
        "./hooks/guard.sh",
        5000,
        "block",
        "cursor",
    )
    assert guard.hooks[0].label == f"{SOURCE}:hooks.beforeShellExecution[0]"
    assert guard.hooks[0].line == 4
    only_bash = compile_claude_matcher(guard.matcher)
    assert only_bash("bash")
    assert not only_bash("read_file")
    [edit] = document.events[1].steps
    assert isinstance(edit, HookGroup)
    edits = compile_claude_matcher(edit.matcher)
    assert edits("write_file")
    assert edits("edit_file")
    assert not edits("bash")
    [generic] = document.events[2].steps
    assert isinstance(generic, HookGroup)
    cursor_names = compile_claude_matcher(generic.matcher)
    assert cursor_names("bash")
    assert cursor_names("read_file")
    assert not cursor_names("write_file")
    assert "hooks.subagentStart" in caplog.text
    assert "no counterpart" in caplog.text


def test_user_hooks_run_in_the_cursor_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    document = parse_user_cursor_hooks(HOOKS, "~/.cursor/hooks.json")
    [group] = document.events[0].steps
    assert isinstance(group, HookGroup)
    spec = group.hooks[0].spec
    assert isinstance(spec, CommandHookSpec)
    assert spec.command == f"cd {tmp_path / '.cursor'} && ./hooks/guard.sh"


def test_errors_name_file_line_and_key_path() -> None:
    text = """{
  "version": 2,
  "hooks": {
    "beforeShellExec": [{"command": "x.sh"}],
    "stop": [{"command": "y.sh", "timeout": -1}]
  }
}"""
    with pytest.raises(HooksConfigError) as caught:
        parse_cursor_hooks(text, SOURCE)
    message = str(caught.value)
    assert f"{SOURCE}:2: version: expected 1" in message
    assert f"{SOURCE}:4: hooks.beforeShellExec: unknown Cursor hook event" in message
    assert "(did you mean 'beforeShellExecution'?)" in message
    assert f"{SOURCE}:5: hooks.stop[0].timeout: expected seconds greater than 0" in message


async def test_before_read_file_of_a_fifo_sends_no_content_and_never_blocks(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # nothing ever writes to it: reading it would block forever
    ctx = context(tmp_path, "beforeReadFile", tool="read_file", args={"file_path": str(fifo)})
    stdin = cursor_input(ctx, str(tmp_path))
    assert stdin["file_path"] == str(fifo)
    assert stdin["content"] == ""


def test_pre_compact_has_cursors_context_fields(tmp_path: Path) -> None:
    data = {"message_count": 40, "tokens": 90_000, "budget": 120_000}
    ctx = context(tmp_path, "preCompact", "context:pre_compact", tool=None, data=data)
    payload = cursor_input(ctx, str(tmp_path), version="1.7.52")
    assert payload["cursor_version"] == "1.7.52"
    assert {k: payload[k] for k in list(payload)[8:]} == {
        "trigger": "auto",
        "context_usage_percent": 75,
        "context_tokens": 90_000,
        "context_window_size": 120_000,
        "message_count": 40,
        "messages_to_compact": 40,
        "is_first_compaction": False,
    }
