"""Gemini CLI hooks: ``.gemini/settings.json`` read as Gemini CLI reads it, and command hooks
with the gemini protocol: Gemini's stdin fields, tool names and argument keys, exit code 2,
and the JSON answer (``decision``, ``continue``, ``hookSpecificOutput``), run as real
processes."""

from __future__ import annotations

import json
import logging
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.document import HookGroup, HooksConfigError
from amplifier_module_hooks_declarative.formats.gemini.protocol import (
    GEMINI_TOOLS,
    TOOLS_FROM_GEMINI,
    gemini_decision,
    gemini_tool_input,
    our_tool_input,
)
from amplifier_module_hooks_declarative.formats.gemini.reader import (
    parse_gemini_settings,
    strip_json_comments,
)
from amplifier_module_hooks_declarative.parsing import foreign_tool_matcher
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.types import Decision

from .support import EventContext, answering, command_runner, real
from .support import recorded as recorded_by

LABEL = ".gemini/settings.json:hooks.BeforeTool[0].hooks[0]"
SOURCE = ".gemini/settings.json"
ALIASES = {
    "tool:pre": "BeforeTool",
    "tool:post": "AfterTool",
    "prompt:submit": "BeforeAgent",
    "prompt:complete": "AfterAgent",
    "session:start": "SessionStart",
    "session:resume": "SessionStart",
    "session:end": "SessionEnd",
    "user:notification": "Notification",
    "context:pre_compact": "PreCompress",
    "provider:request": "BeforeModel",
    "provider:response": "AfterModel",
}


STAMP = "2025-01-15T10:30:00+00:00"
runner = partial(command_runner, label=LABEL, protocol="gemini")
recorded = partial(recorded_by, label=LABEL, protocol="gemini")


context = EventContext(ALIASES, session_id="sess-g", timestamp=STAMP, call_id="call_1")


# ----------------------------------------------------------------------------- stdin


async def test_before_tool_input_has_geminis_fields_and_environment(tmp_path: Path) -> None:
    ctx = context(tmp_path, args={"command": "npm test", "description": "tests"})
    seen = await recorded(tmp_path, ctx)
    stdin = seen["input"]
    assert stdin["hook_event_name"] == "BeforeTool"
    assert stdin["tool_name"] == "run_shell_command"
    assert stdin["tool_input"] == {"command": "npm test", "description": "tests"}
    assert stdin["session_id"] == "sess-g"
    assert stdin["cwd"] == str(tmp_path)
    assert stdin["timestamp"] == "2025-01-15T10:30:00+00:00"
    assert stdin["transcript_path"].endswith("sess-g/transcript.jsonl")
    env = seen["env"]
    for name in ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"):
        assert env[name] == str(tmp_path)
    assert env["GEMINI_SESSION_ID"] == "sess-g"
    assert real(seen["cwd"]) == real(tmp_path)


async def test_after_tool_carries_geminis_tool_response(tmp_path: Path) -> None:
    result = {"success": False, "output": "partial", "error": {"type": "X", "message": "boom"}}
    ctx = context(tmp_path, "tool:post", data={"tool_result": result})
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert stdin["hook_event_name"] == "AfterTool"
    assert stdin["tool_response"] == {
        "llmContent": "partial",
        "returnDisplay": "partial",
        "error": {"message": "boom"},
    }


@pytest.mark.parametrize(
    ("event", "data", "expected"),
    [
        ("prompt:submit", {"prompt": "hi"}, {"prompt": "hi"}),
        (
            "prompt:complete",
            {"prompt": "hi", "response": "hello"},
            {"prompt": "hi", "prompt_response": "hello", "stop_hook_active": False},
        ),
        ("session:start", {}, {"source": "startup"}),
        ("session:resume", {}, {"source": "resume"}),
        ("session:end", {"status": "completed"}, {"reason": "exit"}),
        ("context:pre_compact", {}, {"trigger": "auto"}),
        (
            "user:notification",
            {"message": "approve?", "level": "info", "source": "approval"},
            {
                "notification_type": "ToolPermission",
                "message": "approve?",
                "details": {"level": "info", "source": "approval"},
            },
        ),
    ],
)
async def test_lifecycle_events_have_geminis_fields(
    tmp_path: Path, event: str, data: dict[str, Any], expected: dict[str, Any]
) -> None:
    stdin = (await recorded(tmp_path, context(tmp_path, event, tool=None, data=data)))["input"]
    assert stdin["hook_event_name"] == ALIASES[event]
    assert {key: stdin[key] for key in expected} == expected


async def test_model_events_carry_geminis_stable_request_and_response(tmp_path: Path) -> None:
    data = {
        "model": "m-1",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
        "response": {"content": "done", "stop_reason": "end_turn"},
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    ctx = context(tmp_path, "provider:response", tool=None, data=data)
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert stdin["llm_request"]["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "model", "content": "yo"},
    ]
    [candidate] = stdin["llm_response"]["candidates"]
    assert candidate["content"] == {"role": "model", "parts": ["done"]}
    assert stdin["llm_response"]["usageMetadata"] == {"totalTokenCount": 7}


def test_tool_names_and_argument_keys_translate_both_ways() -> None:
    assert GEMINI_TOOLS["bash"] == "run_shell_command"
    assert GEMINI_TOOLS["edit_file"] == "replace"
    assert TOOLS_FROM_GEMINI["replace"] == "edit_file"
    assert TOOLS_FROM_GEMINI["search_file_content"] == "grep"
    ours = {"file_path": "a.py", "offset": 10, "limit": 5}
    theirs = gemini_tool_input("read_file", ours)
    assert theirs == {"file_path": "a.py", "start_line": 10, "end_line": 14}
    assert our_tool_input("read_file", theirs, ours) == ours
    edit = {"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": True}
    assert gemini_tool_input("edit_file", edit)["allow_multiple"] is True
    back = our_tool_input("edit_file", {"allow_multiple": False, "instruction": "fix"}, edit)
    assert back == {"replace_all": False}
    assert gemini_tool_input("grep", {"pattern": "x", "path": "src", "glob": "*.py"}) == {
        "pattern": "x",
        "dir_path": "src",
        "include_pattern": "*.py",
    }
    assert our_tool_input("bash", {"command": "ls", "is_background": True}, {}) == {"command": "ls"}


# ----------------------------------------------------------------------------- answers


async def test_exit_code_2_blocks_a_tool_with_stderr(tmp_path: Path) -> None:
    command = "cat >/dev/null; echo 'rm is not allowed' >&2; exit 2"
    decision = await runner(command, tmp_path).run(context(tmp_path))
    assert decision == Decision(
        action="block", message="rm is not allowed", level="warning", source=LABEL
    )


async def test_exit_code_2_after_the_tool_ran_is_context_for_the_agent(tmp_path: Path) -> None:
    command = "cat >/dev/null; echo 'output withheld: secrets' >&2; exit 2"
    ctx = context(tmp_path, "tool:post", data={"tool_result": {"success": True, "output": "k"}})
    decision = await runner(command, tmp_path).run(ctx)
    assert decision == Decision(context="output withheld: secrets", source=LABEL)


async def test_other_exit_codes_follow_on_failure(tmp_path: Path) -> None:
    command = "cat >/dev/null; echo 'linter crashed' >&2; exit 1"
    warned = await runner(command, tmp_path).run(context(tmp_path))
    assert warned.action == "continue"
    assert warned.level == "warning"
    assert "exited with code 1" in (warned.message or "")
    assert "linter crashed" in (warned.message or "")
    blocked = await runner(command, tmp_path, on_failure="block").run(context(tmp_path))
    assert blocked.action == "block"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"decision": "deny", "reason": "no rm"},
            Decision(action="block", message="no rm", level="warning", source=LABEL),
        ),
        (
            {"decision": "block", "reason": "no", "systemMessage": "blocked a call"},
            Decision(action="block", message="no\nblocked a call", level="warning", source=LABEL),
        ),
        ({"decision": "allow"}, Decision(action="allow", source=LABEL)),
        ({"decision": "approve"}, Decision(action="allow", source=LABEL)),
        (
            {"decision": "ask", "reason": "Run this?"},
            Decision(action="ask", message="Run this?", source=LABEL),
        ),
        (
            {"continue": False, "stopReason": "halt"},
            Decision(action="block", message="halt", level="warning", stop=True, source=LABEL),
        ),
        (
            {"hookSpecificOutput": {"tool_input": {"command": "ls -la"}}},
            Decision(action="modify", modified_args={"command": "ls -la"}, source=LABEL),
        ),
        (
            {"systemMessage": "checked", "suppressOutput": True},
            Decision(message="checked", source=LABEL),
        ),
        (json.dumps(json.dumps({"decision": "deny", "reason": "twice"})), None),
    ],
)
async def test_json_answers_on_before_tool(
    tmp_path: Path, payload: dict[str, Any] | str, expected: Decision | None
) -> None:
    decision = await runner(answering(payload), tmp_path).run(context(tmp_path))
    if expected is None:  # a JSON string holding the object, which Gemini also accepts
        expected = Decision(action="block", message="twice", level="warning", source=LABEL)
    assert decision == expected


async def test_additional_context_is_escaped_as_gemini_does(tmp_path: Path) -> None:
    payload = {"hookSpecificOutput": {"additionalContext": "branch <main> is protected"}}
    ctx = context(tmp_path, "prompt:submit", tool=None, data={"prompt": "hi"})
    decision = await runner(answering(payload), tmp_path).run(ctx)
    assert decision == Decision(context="branch &lt;main&gt; is protected", source=LABEL)


async def test_flow_control_is_ignored_on_advisory_events(tmp_path: Path) -> None:
    payload = {"decision": "deny", "continue": False, "systemMessage": "bye"}
    ctx = context(tmp_path, "session:end", tool=None, data={"status": "completed"})
    decision = await runner(answering(payload), tmp_path).run(ctx)
    assert decision == Decision(message="bye", source=LABEL)


async def test_after_agent_deny_sends_the_agent_back_to_work(tmp_path: Path) -> None:
    payload = {"decision": "deny", "reason": "tests are failing, fix them"}
    ctx = context(tmp_path, "prompt:complete", tool=None, data={"response": "done"})
    decision = await runner(answering(payload), tmp_path).run(ctx)
    reason = "tests are failing, fix them"
    assert decision == Decision(
        action="block",
        message=reason,
        level="warning",
        context=reason,
        source=LABEL,
        keep_working=True,
    )


def test_plain_text_is_a_message_and_bad_fields_are_problems(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    assert gemini_decision(ctx, "all good", label=LABEL) == Decision(
        message="all good", source=LABEL
    )
    assert gemini_decision(ctx, '{"decision": "maybe"}', label=LABEL) == (
        "stdout JSON: decision is 'maybe', expected allow, deny, block or ask"
    )
    for other in ("[1, 2]", "true", "null", "3"):  # Gemini reads no output from these
        assert gemini_decision(ctx, other, label=LABEL) == Decision(source=LABEL)
    assert "cut before it ended" in str(gemini_decision(ctx, '{"dec', label=LABEL, truncated=True))


# ----------------------------------------------------------------------------- matchers


@pytest.mark.parametrize(
    ("pattern", "accepts", "rejects"),
    [
        ("run_shell_command", ["bash"], ["read_file", "write_file"]),
        ("write_file|replace", ["write_file", "edit_file"], ["bash", "read_file"]),
        ("read_.*", ["read_file"], ["bash", "edit_file"]),
        ("shell", ["bash"], ["read_file"]),  # searched, as Gemini's RegExp.test
        ("my_tool", ["my_tool"], ["bash"]),  # a tool Gemini does not know: its own name
        ("[", [], ["bash", "read_file"]),  # invalid: an exact name
    ],
)
def test_tool_matchers_follow_gemini(pattern: str, accepts: list[str], rejects: list[str]) -> None:
    test = compile_claude_matcher(foreign_tool_matcher(pattern, GEMINI_TOOLS))
    assert all(test(tool) for tool in accepts)
    assert not any(test(tool) for tool in rejects)


def test_empty_and_star_matchers_match_every_tool() -> None:
    assert foreign_tool_matcher("", GEMINI_TOOLS) is None
    assert foreign_tool_matcher("*", GEMINI_TOOLS) is None


# ----------------------------------------------------------------------------- settings


SETTINGS = """{
  // Gemini CLI reads comments in settings.json
  "model": {"name": "gemini-2.5-pro"},
  "hooksConfig": {"disabled": ["noisy"]},
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [
          {"name": "security-check", "type": "command",
           "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh", "timeout": 5000},
          {"name": "noisy", "type": "command", "command": "echo hi"}
        ]
      }
    ],
    "AfterTool": [
      {"sequential": true, "hooks": [{"type": "command", "command": "a.sh", "env": {"X": "1"}}]}
    ],
    "SessionStart": [
      {"matcher": "resume", "hooks": [{"type": "command", "command": "resume.sh"}]},
      {"matcher": "startup", "hooks": [{"type": "command", "command": "start.sh"}]},
      {"matcher": "clear", "hooks": [{"type": "command", "command": "clear.sh"}]}
    ],
    /* on provider:request, after BeforeModel's hooks */
    "BeforeToolSelection": [{"hooks": [{"type": "command", "command": "t.sh"}]}]
  }
}
"""


def test_settings_are_read_as_gemini_reads_them(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        document = parse_gemini_settings(SETTINGS, SOURCE)
    by_event = {block.event: block for block in document.events}
    assert set(by_event) == {
        "tool:pre",
        "tool:post",
        "session:start",
        "session:resume",
        "provider:request",
    }
    [group] = by_event["tool:pre"].steps
    assert isinstance(group, HookGroup)
    assert group.parallel
    [entry] = group.hooks  # "noisy" is disabled by hooksConfig.disabled
    spec = entry.spec
    assert isinstance(spec, CommandHookSpec)
    assert spec.protocol == "gemini"
    assert spec.timeout_ms == 5000
    assert spec.command == "$GEMINI_PROJECT_DIR/.gemini/hooks/security.sh"
    assert entry.label == f"{SOURCE}:hooks.BeforeTool[0].hooks[0]"
    assert entry.line == 11
    test = compile_claude_matcher(group.matcher)
    assert test("write_file")
    assert test("edit_file")
    assert not test("bash")
    [after] = by_event["tool:post"].steps
    assert isinstance(after, HookGroup)
    assert not after.parallel
    assert isinstance(after.hooks[0].spec, CommandHookSpec)
    assert after.hooks[0].spec.env == {"X": "1"}
    assert after.hooks[0].spec.timeout_ms == 60_000

    def commands(event: str) -> list[str]:
        return [
            e.spec.command
            for s in by_event[event].steps
            if isinstance(s, HookGroup)
            for e in s.hooks
            if isinstance(e.spec, CommandHookSpec)
        ]

    assert commands("session:start") == ["start.sh"]
    assert commands("session:resume") == ["resume.sh"]
    assert commands("provider:request") == ["t.sh"]
    assert "no counterpart" not in caplog.text


def test_hooks_config_enabled_false_turns_every_hook_off() -> None:
    text = '{"hooksConfig": {"enabled": false}, "hooks": {"BeforeTool": ' + (
        '[{"hooks": [{"type": "command", "command": "x.sh"}]}]}}'
    )
    assert parse_gemini_settings(text, SOURCE).events == ()


def test_comments_are_blanked_and_strings_kept() -> None:
    text = '{"a": "http://x//y", /* c */ "b": 1} // end'
    assert json.loads(strip_json_comments(text)) == {"a": "http://x//y", "b": 1}


def test_errors_name_file_line_and_key_path() -> None:
    text = """{
  "hooks": {
    "BeforeTol": [{"hooks": []}],
    "AfterTool": [
      {"hooks": [{"type": "command", "command": "x.sh", "timeout": "5s"}]},
      {"hooks": [{"type": "prompt", "prompt": "is it safe?"}]}
    ]
  }
}"""
    with pytest.raises(HooksConfigError) as caught:
        parse_gemini_settings(text, SOURCE)
    message = str(caught.value)
    assert f"{SOURCE}:3: hooks.BeforeTol: unknown Gemini CLI event 'BeforeTol'" in message
    assert "(did you mean 'BeforeTool'?)" in message
    assert f"{SOURCE}:5: hooks.AfterTool[0].hooks[0].timeout: expected milliseconds" in message
    assert f"{SOURCE}:6: hooks.AfterTool[1].hooks[0].type: expected 'command'" in message


def test_invalid_json_names_the_line() -> None:
    with pytest.raises(HooksConfigError, match=r"\.gemini/settings\.json:3: invalid JSON"):
        parse_gemini_settings('{\n  "hooks": {}\n  "x": 1\n}', SOURCE)


async def test_an_mcp_tool_comes_with_its_mcp_context(tmp_path: Path) -> None:
    ctx = context(tmp_path, tool="mcp__github__create_issue", args={"title": "t"})
    seen = await recorded(tmp_path, ctx)
    assert seen["input"]["tool_name"] == "mcp__github__create_issue"
    assert seen["input"]["mcp_context"] == {"server_name": "github", "tool_name": "create_issue"}
    assert "mcp_context" not in (await recorded(tmp_path, context(tmp_path)))["input"]
