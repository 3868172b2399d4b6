"""Every Claude Code hook event: what its hooks read on stdin, what their answers do, which
groups run (matchers, ``parallel``, Stop / SubagentStop), and ``CLAUDE_ENV_FILE``.

Hooks are real processes (the scripts in ``tests/scripts``); nothing is mocked."""

from __future__ import annotations

import dataclasses
import json
import logging
import shlex
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.state import session_dir

from amplifier_module_hooks_declarative.dispatch import (
    Dispatcher,
    default_runner_factory,
    plan_steps,
)
from amplifier_module_hooks_declarative.document import HookGroup
from amplifier_module_hooks_declarative.formats.claude_code.reader import parse_claude_settings
from amplifier_module_hooks_declarative.formats.shared.claude_protocol import claude_event
from amplifier_module_hooks_declarative.mapping import (
    CLAUDE_EVENTS,
    NEVER_FIRED,
    Outcome,
    to_hook_result,
)
from amplifier_module_hooks_declarative.parsing import parse_hooks_data
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.session_env import (
    ENV_FILE_NAME,
    ENVIRONMENT_CAPABILITY,
    env_file_for,
    offer_session_environment,
    read_env_file,
)
from amplifier_module_hooks_declarative.types import Decision, HookContext

from .support import answering, command_runner, hook_context
from .support import recorded as recorded_by

LABEL = ".claude/settings.json Stop[0]"
STAMP = "2026-01-15T10:30:00+00:00"


recorded = partial(recorded_by, label=LABEL, protocol="claude-code")


def context(
    project_dir: Path,
    event: str,
    *,
    alias: str | None = None,
    tool: str | None = None,
    args: dict[str, Any] | None = None,
    data: dict[str, Any] | None = None,
) -> HookContext:
    return hook_context(
        project_dir,
        event,
        alias or event,
        session_id="sess-ev",
        timestamp=STAMP,
        fields={"session_id": "sess-ev", "parent_id": None},
        tool=tool,
        args={"command": "git push"} if args is None else args,
        call_id="toolu_9",
        data=data,
    )


async def run(command: str, project_dir: Path, ctx: HookContext, **spec: Any) -> Decision:
    runner = command_runner(command, project_dir, label=LABEL, protocol="claude-code", **spec)
    return await runner.run(ctx)


# ----------------------------------------------------------------------------- stdin


@pytest.mark.parametrize(
    ("event", "alias", "tool", "data", "fields"),
    [
        (
            "approval:required",
            None,
            "bash",
            {"prompt": "Run git push?"},
            {
                "hook_event_name": "PermissionRequest",
                "tool_name": "Bash",
                "tool_input": {"command": "git push"},
                "permission_suggestions": [],
            },
        ),
        (
            "approval:denied",
            None,
            "bash",
            {"reason": "User denied"},
            {"hook_event_name": "PermissionDenied", "tool_name": "Bash", "reason": "User denied"},
        ),
        (
            "tool:post",
            None,
            "bash",
            {"tool_result": {"success": True, "output": {"stdout": "ok\n", "returncode": 0}}},
            {
                "hook_event_name": "PostToolUse",
                "tool_response": {
                    "stdout": "ok\n",
                    "returncode": 0,
                    "success": True,
                    "error": None,
                    "stderr": "",
                    "interrupted": False,
                    "isImage": False,
                },
                "tool_result": {"success": True, "output": {"stdout": "ok\n", "returncode": 0}},
            },
        ),
        (
            "tool:error",
            None,
            "bash",
            {"error": {"type": "Timeout", "message": "slow"}},
            {"hook_event_name": "PostToolUseFailure", "error": "slow", "is_interrupt": False},
        ),
        (
            "user:notification",
            None,
            None,
            {"message": "Allow bash?", "level": "info", "source": "approval"},
            {
                "hook_event_name": "Notification",
                "message": "Allow bash?",
                "notification_type": "permission_prompt",
            },
        ),
        (
            "prompt:submit",
            None,
            None,
            {"prompt": "fix it"},
            {"hook_event_name": "UserPromptSubmit", "prompt": "fix it"},
        ),
        (
            "prompt:complete",
            "Stop",
            None,
            {"response": "All done."},
            {
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": "All done.",
            },
        ),
        (
            "prompt:complete",
            "Stop",
            None,
            {"stop_hook_active": True},
            {"hook_event_name": "Stop", "stop_hook_active": True},
        ),
        (
            "prompt:complete",
            "SubagentStop",
            None,
            {"parent_id": "parent-1", "metadata": {"agent_type": "reviewer"}},
            {
                "hook_event_name": "SubagentStop",
                "stop_hook_active": False,
                "agent_id": "sess-ev",
                "agent_type": "reviewer",
            },
        ),
        (
            "session:fork",
            None,
            None,
            {"parent": "parent-1", "metadata": {"agent_type": "reviewer"}},
            {"hook_event_name": "SubagentStart", "agent_id": "sess-ev", "agent_type": "reviewer"},
        ),
        (
            "session:start",
            None,
            None,
            {},
            {"hook_event_name": "SessionStart", "source": "startup", "trigger": "startup"},
        ),
        (
            "session:start",
            None,
            None,
            {"source": "clear"},
            {"hook_event_name": "SessionStart", "source": "clear"},
        ),
        (
            "session:resume",
            None,
            None,
            {},
            {"hook_event_name": "SessionStart", "source": "resume"},
        ),
        (
            "session:end",
            None,
            None,
            {"status": "completed"},
            {"hook_event_name": "SessionEnd", "reason": "other"},
        ),
        (
            "session:end",
            None,
            None,
            {"reason": "logout"},
            {"hook_event_name": "SessionEnd", "reason": "logout"},
        ),
        (
            "context:pre_compact",
            None,
            None,
            {"trigger": "manual", "custom_instructions": "keep the plan"},
            {
                "hook_event_name": "PreCompact",
                "trigger": "manual",
                "custom_instructions": "keep the plan",
            },
        ),
        (
            "context:post_compact",
            None,
            None,
            {},
            {"hook_event_name": "PostCompact", "trigger": "auto"},
        ),
    ],
)
async def test_each_event_has_claude_codes_stdin_fields(
    tmp_path: Path,
    event: str,
    alias: str | None,
    tool: str | None,
    data: dict[str, Any],
    fields: dict[str, Any],
) -> None:
    ctx = context(tmp_path, event, alias=alias, tool=tool, data=data)
    seen = (await recorded(tmp_path, ctx))["input"]
    assert seen["session_id"] == "sess-ev"
    assert seen["permission_mode"] == "default"
    assert seen["timestamp"] == STAMP
    for key, value in fields.items():
        assert seen[key] == value, key


def test_every_claude_code_name_is_known_and_the_unfired_ones_are_none() -> None:
    for name in NEVER_FIRED:
        assert CLAUDE_EVENTS[name] is None
    assert {k for k, v in CLAUDE_EVENTS.items() if v is not None} == {
        "PreToolUse",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "SessionStart",
        "SessionEnd",
        "Notification",
        "PreCompact",
        "PostCompact",
        "InstructionsLoaded",
        "ConfigChange",
    }


def test_a_child_sessions_prompt_complete_is_subagent_stop(tmp_path: Path) -> None:
    child = context(tmp_path, "prompt:complete", data={"parent_id": "p"})
    assert claude_event(child) == "SubagentStop"
    assert claude_event(context(tmp_path, "prompt:complete")) == "Stop"


# ----------------------------------------------------------------------------- exit code 2


@pytest.mark.parametrize(
    ("event", "alias", "tool", "expected"),
    [
        ("tool:pre", None, "bash", Decision(action="block", message="no", level="warning")),
        (
            "approval:required",
            None,
            "bash",
            Decision(action="block", message="no", level="warning"),
        ),
        ("tool:post", None, "bash", Decision(context="no")),
        ("tool:error", None, "bash", Decision(context="no")),
        ("prompt:submit", None, None, Decision(action="block", message="no", level="warning")),
        (
            "prompt:complete",
            "Stop",
            None,
            Decision(
                action="block", message="no", level="warning", context="no", keep_working=True
            ),
        ),
        (
            "prompt:complete",
            "SubagentStop",
            None,
            Decision(
                action="block", message="no", level="warning", context="no", keep_working=True
            ),
        ),
        ("session:fork", None, None, Decision(message="no", level="warning")),
        ("user:notification", None, None, Decision(message="no", level="warning")),
        (  # Claude Code 2.1.105: PreCompact can block compaction
            "context:pre_compact",
            None,
            None,
            Decision(action="block", message="no", level="warning"),
        ),
        ("context:post_compact", None, None, Decision(message="no", level="warning")),
        ("session:start", None, None, Decision(message="no", level="warning")),
        ("session:end", None, None, Decision(message="no", level="warning")),
    ],
)
async def test_exit_code_2_does_what_claude_codes_table_says(
    tmp_path: Path, event: str, alias: str | None, tool: str | None, expected: Decision
) -> None:
    ctx = context(tmp_path, event, alias=alias, tool=tool)
    decision = await run("cat > /dev/null; echo no >&2; exit 2", tmp_path, ctx)
    assert decision == dataclasses.replace(expected, source=LABEL)


# ----------------------------------------------------------------------------- stdout


@pytest.mark.parametrize(
    ("event", "alias", "payload", "expected"),
    [
        (  # PermissionRequest allow, with the input rewritten (Claude's keys and units)
            "approval:required",
            None,
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {
                        "behavior": "allow",
                        "updatedInput": {"command": "git push --dry-run", "timeout": 9000},
                    },
                }
            },
            Decision(
                action="allow", modified_args={"command": "git push --dry-run", "timeout": 9.0}
            ),
        ),
        (
            "approval:required",
            None,
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": "no pushes on Fridays"},
                }
            },
            Decision(action="block", message="no pushes on Fridays", level="warning"),
        ),
        (
            "approval:required",
            None,
            {
                "hookSpecificOutput": {
                    "decision": {"behavior": "deny", "message": "stop", "interrupt": True}
                }
            },
            Decision(action="block", message="stop", level="warning", interrupt=True),
        ),
        (  # no decision: the human is asked as usual
            "approval:required",
            None,
            {"systemMessage": "checked"},
            Decision(message="checked", level="warning"),
        ),
        (
            "tool:post",
            None,
            {"contextInjection": "lint: 2 warnings"},  # hook-shell's output key
            Decision(context="lint: 2 warnings"),
        ),
        (
            "tool:pre",
            None,
            {
                "decision": "approve",
                "contextInjection": "from hook-shell",
                "hookSpecificOutput": {"additionalContext": "from Claude Code"},
            },
            Decision(action="allow", context="from Claude Code\nfrom hook-shell"),
        ),
        (  # hook-shell scripts answer "approve" on any event: nothing to decide there
            "prompt:submit",
            None,
            {"decision": "approve", "systemMessage": "ok"},
            Decision(message="ok", level="warning"),
        ),
        (
            "prompt:complete",
            "Stop",
            {"decision": "block", "reason": "run the tests first"},
            Decision(
                action="block",
                message="run the tests first",
                level="warning",
                context="run the tests first",
                keep_working=True,
            ),
        ),
        (  # continue: false wins over decision: block, and lets the agent stop
            "prompt:complete",
            "Stop",
            {"continue": False, "stopReason": "budget spent", "decision": "block", "reason": "x"},
            Decision(message="budget spent", level="warning"),
        ),
        (
            "session:fork",
            None,
            {
                "hookSpecificOutput": {
                    "hookEventName": "SubagentStart",
                    "additionalContext": "review only",
                }
            },
            Decision(context="review only"),
        ),
        (
            "tool:error",
            None,
            {"hookSpecificOutput": {"additionalContext": "retry with --verbose"}},
            Decision(context="retry with --verbose"),
        ),
        (
            "approval:required",
            None,
            {"continue": False, "stopReason": "halt"},
            Decision(action="block", message="halt", level="warning", stop=True),
        ),
    ],
)
async def test_outputs_per_event(
    tmp_path: Path,
    event: str,
    alias: str | None,
    payload: dict[str, Any],
    expected: Decision,
) -> None:
    tool = "bash" if event.startswith(("tool:", "approval:")) else None
    ctx = context(tmp_path, event, alias=alias, tool=tool)
    decision = await run(answering(payload), tmp_path, ctx)
    assert decision == dataclasses.replace(expected, source=LABEL)


@pytest.mark.parametrize(
    ("event", "payload", "problem"),
    [
        (
            "tool:post",
            {"hookSpecificOutput": {"hookEventName": "PreToolUse"}},
            "hookSpecificOutput.hookEventName is 'PreToolUse' on a PostToolUse event",
        ),
        (
            "tool:post",
            {"hookSpecificOutput": {"permissionDecision": "allow"}},
            "hookSpecificOutput.permissionDecision is for PreToolUse, not PostToolUse",
        ),
        (
            "approval:required",
            {"hookSpecificOutput": {"decision": {"behavior": "ask"}}},
            "hookSpecificOutput.decision.behavior is 'ask', expected allow or deny",
        ),
        (
            "approval:required",
            {"hookSpecificOutput": {"decision": "allow"}},
            "hookSpecificOutput.decision is str 'allow', expected an object",
        ),
        ("tool:post", {"contextInjection": 3}, "contextInjection is int 3, expected a string"),
    ],
)
async def test_wrong_answers_are_hook_failures_naming_the_field(
    tmp_path: Path, event: str, payload: dict[str, Any], problem: str
) -> None:
    ctx = context(tmp_path, event, tool="bash")
    decision = await run(answering(payload), tmp_path, ctx, on_failure="block")
    assert decision.action == "block"
    assert problem in (decision.message or "")
    assert LABEL in (decision.message or "")


def test_an_allow_on_permission_request_becomes_the_gates_decision() -> None:
    data = {"tool_name": "bash", "tool_input": {"command": "git push"}}
    outcome = Outcome()
    outcome.add(Decision(action="allow", modified_args={"command": "git push -n"}, source="h"))
    result = to_hook_result(outcome, "approval:required", data)
    assert result is not None
    assert result.action == "modify"
    assert result.data is not None
    assert result.data["decision"] == "allow"
    assert result.data["tool_input"] == {"command": "git push -n"}
    silent = Outcome()
    silent.add(Decision(action="allow", source="h"))
    assert to_hook_result(silent, "tool:pre", data) is None  # elsewhere allow says nothing


# ----------------------------------------------------------------------------- matchers


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        (None, "bash", True),  # missing: every tool
        ("", "mcp__github__create_issue", True),  # empty: every tool
        ("*", "write_file", True),  # star: every tool
        ("Bash", "bash", True),  # Claude Code's name of our tool
        ("Bash", "Bash", True),
        ("bash", "bash", True),  # our own name
        ("BASH", "bash", False),  # case-sensitive
        ("write", "write_file", False),  # case-sensitive, and exact
        ("Edit|Write", "edit_file", True),  # a list of exact names
        ("Edit|Write", "NotebookEdit", False),  # exact: no substring match
        ("Notebook.*", "NotebookEdit", True),  # regex
        ("Web.*", "web_search", True),  # regex, on our tool's Claude Code name
        (".*Edit$", "MultiEdit", True),
        ("Bas", "bash", False),
        ("mcp__memory__create_entities", "mcp__memory__create_entities", True),  # exact MCP
        ("mcp__memory__create_entities", "mcp__memory__delete", False),
        ("mcp__memory__.*", "mcp__memory__create_entities", True),  # a server's tools
        ("mcp__memory__.*", "mcp__filesystem__read", False),
        ("mcp__.*__write.*", "mcp__filesystem__write_file", True),  # across servers
        ("mcp__.*__write.*", "mcp__filesystem__read_file", False),
    ],
)
def test_matchers_follow_claude_codes_rules(matcher: str | None, tool: str, expected: bool) -> None:
    assert compile_claude_matcher(matcher)(tool) is expected


def dispatcher_for(tmp_path: Path, settings: dict[str, Any]) -> Dispatcher:
    document = parse_claude_settings(json.dumps({"hooks": settings}), ".claude/settings.json")
    steps = plan_steps([document], default_runner_factory(str(tmp_path)))
    return Dispatcher(steps, project_dir=str(tmp_path))


def appender(log: Path, word: str, *, delay: str = "0") -> dict[str, Any]:
    """A hook that appends ``word`` to ``log`` after sleeping ``delay`` seconds."""
    command = f"cat > /dev/null; sleep {delay}; echo {word} >> {shlex.quote(str(log))}"
    return {"type": "command", "command": command}


async def test_matchers_of_events_without_a_tool_select_by_their_field(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    dispatcher = dispatcher_for(
        tmp_path,
        {
            "Notification": [
                {"matcher": "permission_prompt", "hooks": [appender(log, "permission")]},
                {"matcher": "idle_prompt", "hooks": [appender(log, "idle")]},
                {"hooks": [appender(log, "always")]},
            ],
            "PreCompact": [{"matcher": "manual", "hooks": [appender(log, "manual")]}],
        },
    )
    await dispatcher.dispatch(
        "user:notification", {"message": "Allow?", "source": "approval", "session_id": "s"}
    )
    await dispatcher.dispatch("context:pre_compact", {"trigger": "auto", "session_id": "s"})
    await dispatcher.dispatch("context:pre_compact", {"trigger": "manual", "session_id": "s"})
    # the matching groups of one event run at once, so within an event the order is free
    assert sorted(log.read_text().split()) == ["always", "manual", "permission"]
    await dispatcher.dispatch("user:notification", {"message": "x", "source": "session"})
    await dispatcher.dispatch(
        "user:notification", {"message": "x", "notification_type": "idle_prompt"}
    )
    words = log.read_text().split()
    assert words[:4] == [*words[:2], "manual", "always"]
    assert sorted(words[4:]) == ["always", "idle"]


async def test_stop_runs_in_a_top_level_session_and_subagent_stop_in_a_child(
    tmp_path: Path,
) -> None:
    log = tmp_path / "log.txt"
    dispatcher = dispatcher_for(
        tmp_path,
        {
            "Stop": [{"hooks": [appender(log, "stop")]}],
            "SubagentStop": [{"hooks": [appender(log, "subagent")]}],
        },
    )
    await dispatcher.dispatch("prompt:complete", {"session_id": "top", "parent_id": None})
    assert log.read_text().split() == ["stop"]
    await dispatcher.dispatch("prompt:complete", {"session_id": "child", "parent_id": "top"})
    assert log.read_text().split() == ["stop", "subagent"]


async def test_parallel_false_runs_a_groups_hooks_in_order(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    hooks = [appender(log, "first", delay="0.3"), appender(log, "second")]
    dispatcher = dispatcher_for(tmp_path, {"SessionEnd": [{"parallel": False, "hooks": hooks}]})
    [step] = dispatcher.steps
    assert step.parallel is False
    await dispatcher.dispatch("session:end", {"session_id": "s"})
    assert log.read_text().split() == ["first", "second"]


def test_groups_run_in_parallel_unless_they_say_otherwise() -> None:
    hook = {"type": "command", "command": "true"}
    document = parse_hooks_data(
        {"claude_code": {"Stop": [{"hooks": [hook]}, {"parallel": True, "hooks": [hook]}]}},
        "config",
    )
    groups = [step for step in document.events[0].steps if isinstance(step, HookGroup)]
    assert [group.parallel for group in groups] == [True, True]


def test_parallel_must_be_a_boolean() -> None:
    text = '{"hooks": {"Stop": [{"parallel": "no", "hooks": []}]}}'
    with pytest.raises(ValueError, match=r"hooks\.Stop\[0\]\.parallel: expected true or false"):
        parse_claude_settings(text, ".claude/settings.json")


def test_never_fired_events_are_accepted_and_skipped_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text = '{"hooks": {"CwdChanged": [{"hooks": [{"type": "command", "command": "./x.sh"}]}]}}'
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        document = parse_claude_settings(text, ".claude/settings.json")
    assert document.events == ()
    assert "'CwdChanged' is never fired here" in caplog.text


# ----------------------------------------------------------------------------- CLAUDE_ENV_FILE


async def test_session_start_hooks_get_the_sessions_env_file(tmp_path: Path) -> None:
    seen = await recorded(tmp_path, context(tmp_path, "session:start"))
    path = session_dir("sess-ev", working_dir=tmp_path) / ENV_FILE_NAME
    assert seen["env"]["CLAUDE_ENV_FILE"] == str(path)
    assert seen["env"]["AMPLIFIER_ENV_FILE"] == str(path)  # hook-shell's name
    assert path.is_file()
    other = await recorded(tmp_path, context(tmp_path, "tool:pre", tool="bash"))
    assert "CLAUDE_ENV_FILE" not in other["env"]


def test_the_env_file_is_read_as_export_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / ENV_FILE_NAME
    path.write_text(
        "# written by a SessionStart hook\n"
        "export NODE_ENV=production\n"
        "API_URL='https://example.test/a b'\n"
        'export GREETING="hello \\"you\\""  # trailing comment\n'
        "export NODE_ENV=development\n"
        "echo not an assignment\n"
        "\n"
    )
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        found = read_env_file(path)
    assert found == {
        "NODE_ENV": "development",
        "API_URL": "https://example.test/a b",
        "GREETING": 'hello "you"',
    }
    assert f"{path}:6: skipped 'echo not an assignment'" in caplog.text
    assert read_env_file(tmp_path / "missing") == {}


class _Coordinator:
    """The two capability methods and the session id a coordinator offers."""

    def __init__(self) -> None:
        self.session_id = "sess-ev"
        self.capabilities: dict[str, Any] = {}

    def register_capability(self, name: str, value: Any) -> None:
        self.capabilities[name] = value

    def get_capability(self, name: str) -> Any:
        return self.capabilities.get(name)


def test_the_capability_reads_the_file_at_each_call(tmp_path: Path) -> None:
    coordinator = _Coordinator()
    coordinator.register_capability(ENVIRONMENT_CAPABILITY, lambda: {"A": "1", "B": "1"})
    offer_session_environment(coordinator, str(tmp_path))
    environment = coordinator.get_capability(ENVIRONMENT_CAPABILITY)
    assert environment() == {"A": "1", "B": "1"}
    env_file_for("sess-ev", str(tmp_path)).write_text("export B=2\nexport C=3\n")
    assert environment() == {"A": "1", "B": "2", "C": "3"}


def test_the_env_file_expands_variables_as_a_shell_would_without_running_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    marker = tmp_path / "ran"
    path = tmp_path / ENV_FILE_NAME
    path.write_text(
        'export PATH="/usr/local/bin:$PATH"\n'
        "export A=1 B=\"two words\" C='$HOME stays'\n"
        "D=${A}x\n"
        f"E=$(touch {marker})\n"
        f"export F=1; touch {marker}\n"
        f"G=`touch {marker}`\n"
    )
    with caplog.at_level(logging.WARNING, logger="amplifier_module_hooks_declarative"):
        found = read_env_file(path)
    assert found == {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "A": "1",
        "B": "two words",
        "C": "$HOME stays",
        "D": "1x",
    }
    assert not marker.exists()
    assert [f"{path}:{n}: skipped" in caplog.text for n in (4, 5, 6)] == [True] * 3


async def test_a_tool_matcher_does_not_run_for_an_approval_about_no_tool(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    dispatcher = dispatcher_for(
        tmp_path,
        {
            "PermissionRequest": [
                {"matcher": "Bash", "hooks": [appender(log, "bash-only")]},
                {"matcher": "*", "hooks": [appender(log, "every")]},
            ]
        },
    )
    await dispatcher.dispatch("approval:required", {"session_id": "s", "prompt": "Delete prod?"})
    assert log.read_text().split() == ["every"]
    await dispatcher.dispatch(
        "approval:required",
        {"session_id": "s", "tool_name": "bash", "tool_input": {"command": "ls"}},
    )
    assert sorted(log.read_text().split()) == ["bash-only", "every", "every"]
