"""OpenAI Codex CLI hooks: ``.codex/hooks.json`` read as Codex reads it, and command hooks with
the codex protocol: Codex's stdin fields, its strict answers (``ask`` and ``continue: false``
refused on ``PreToolUse``, unknown keys refused, ``deny`` needs a reason), exit code 2, and a
``Stop`` block that keeps the agent working, run as real processes and by a mounted session."""

from __future__ import annotations

import asyncio
import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.document import HookGroup, HooksConfigError
from amplifier_module_hooks_declarative.formats.codex.reader import parse_codex_hooks
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.trust import trust_project
from amplifier_module_hooks_declarative.types import Decision

from .support import FormatContext, answering, command_runner, mounted
from .support import recorded as recorded_by

SOURCE = ".codex/hooks.json"
LABEL = f"{SOURCE}:hooks.PreToolUse[0].hooks[0]"
runner = partial(command_runner, label=LABEL, protocol="codex")
recorded = partial(recorded_by, label=LABEL, protocol="codex")


context = FormatContext(
    alias="PreToolUse",
    session_id="sess-x",
    timestamp="2026-01-15T10:30:00+00:00",
    call_id="call_9",
    fields={"turn_id": "turn-3", "model": "gpt-5-codex"},
)

# ----------------------------------------------------------------------------- reading


def test_the_file_is_claude_shaped_with_codex_defaults() -> None:
    text = json.dumps(
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]},
                    {
                        "matcher": "apply_patch",
                        "hooks": [{"type": "command", "command": "b", "timeout": 5}],
                    },
                ],
                "Stop": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "c"}]}],
            }
        }
    )
    document = parse_codex_hooks(text, SOURCE)
    pre, stop = document.events
    first, second = pre.steps
    assert isinstance(first, HookGroup)
    assert isinstance(second, HookGroup)
    spec_a, spec_b = first.hooks[0].spec, second.hooks[0].spec
    assert isinstance(spec_a, CommandHookSpec)
    assert isinstance(spec_b, CommandHookSpec)
    assert (spec_a.protocol, spec_a.timeout_ms) == ("codex", 600_000)
    assert spec_b.timeout_ms == 5000
    assert first.written == "Bash"
    assert isinstance(stop.steps[0], HookGroup)
    assert stop.steps[0].matcher is None


@pytest.mark.parametrize(
    ("matcher", "runs_for"),
    [
        ("Bash", {"bash"}),
        ("^Bash$", {"bash"}),
        ("apply_patch", {"write_file", "edit_file"}),
        ("Write", {"write_file", "edit_file"}),  # Codex also matches apply_patch as Write, Edit
        ("Edit|Write", {"write_file", "edit_file"}),
        ("mcp__github__.*", {"mcp__github__create_issue"}),
        ("mcp__github", set()),  # exact names: not a prefix
        ("*", {"bash", "write_file", "edit_file", "read_file", "mcp__github__create_issue"}),
        ("Read", set()),  # Codex has no read tool
    ],
)
def test_matchers_follow_codex_tool_names(matcher: str, runs_for: set[str]) -> None:
    text = json.dumps(
        {
            "hooks": {
                "PreToolUse": [{"matcher": matcher, "hooks": [{"command": "x", "type": "command"}]}]
            }
        }
    )
    [block] = parse_codex_hooks(text, SOURCE).events
    [group] = block.steps
    assert isinstance(group, HookGroup)
    test = compile_claude_matcher(group.matcher)
    tools = {"bash", "write_file", "edit_file", "read_file", "mcp__github__create_issue"}
    assert {tool for tool in tools if test(tool)} == runs_for


# ----------------------------------------------------------------------------- stdin


async def test_pre_tool_use_stdin_has_codex_fields(tmp_path: Path) -> None:
    seen = await recorded(tmp_path, context(tmp_path, args={"command": "npm test"}))
    stdin = seen["input"]
    assert stdin["hook_event_name"] == "PreToolUse"
    assert stdin["tool_name"] == "Bash"
    assert stdin["tool_input"] == {"command": "npm test"}
    assert stdin["turn_id"] == "turn-3"
    assert stdin["model"] == "gpt-5-codex"
    assert stdin["tool_use_id"] == "call_9"
    assert stdin["cwd"] == str(tmp_path)
    assert stdin["permission_mode"] == "default"
    assert "CLAUDE_PROJECT_DIR" not in seen["env"]


async def test_a_write_reaches_the_hook_as_an_apply_patch(tmp_path: Path) -> None:
    args = {"file_path": "src/a.py", "content": "x = 1\ny = 2\n"}
    stdin = (await recorded(tmp_path, context(tmp_path, tool="write_file", args=args)))["input"]
    assert stdin["tool_name"] == "apply_patch"
    patch = stdin["tool_input"]["command"]
    assert patch.splitlines() == [
        "*** Begin Patch",
        "*** Add File: src/a.py",
        "+x = 1",
        "+y = 2",
        "*** End Patch",
    ]


async def test_an_edit_is_an_update_hunk(tmp_path: Path) -> None:
    args = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
    stdin = (await recorded(tmp_path, context(tmp_path, tool="edit_file", args=args)))["input"]
    assert "*** Update File: a.py\n@@\n-x = 1\n+x = 2\n" in stdin["tool_input"]["command"]


async def test_session_start_gives_both_env_file_variables(tmp_path: Path) -> None:
    ctx = context(tmp_path, "SessionStart", "session:start", tool=None)
    seen = await recorded(tmp_path, ctx)
    assert seen["input"]["source"] == "startup"
    assert seen["env"]["CODEX_ENV_FILE"] == seen["env"]["CLAUDE_ENV_FILE"]


# ----------------------------------------------------------------------------- answers


DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "not on main",
    }
}


@pytest.mark.parametrize(
    ("answer", "action", "failed"),
    [
        (DENY, "block", False),
        ({"decision": "block", "reason": "legacy no"}, "block", False),
        (
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}},
            "continue",
            True,
        ),
        (
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}},
            "continue",
            True,
        ),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "  ",
                }
            },
            "continue",
            True,
        ),
        ({"continue": False, "stopReason": "halt"}, "continue", True),
        ({"decision": "approve"}, "continue", True),
        ({**DENY, "extra": 1}, "continue", True),  # an unknown key: Codex refuses the answer
        ({"hookSpecificOutput": {"permissionDecision": "deny"}}, "continue", True),
        ({"systemMessage": "careful"}, "continue", False),
    ],
)
async def test_pre_tool_use_answers_as_codex_reads_them(
    tmp_path: Path, answer: dict[str, Any], action: str, failed: bool
) -> None:
    decision = await runner(answering(answer), tmp_path).run(context(tmp_path))
    assert decision.action == action
    assert ("failed" in (decision.message or "")) is failed


async def test_allow_with_updated_input_rewrites_the_command(tmp_path: Path) -> None:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "git status --short"},
        }
    }
    decision = await runner(answering(answer), tmp_path).run(context(tmp_path))
    assert decision.action == "modify"
    assert decision.modified_args == {"command": "git status --short"}


async def test_exit_2_blocks_only_with_a_reason(tmp_path: Path) -> None:
    with_reason = await runner("echo 'no force push' >&2; exit 2", tmp_path).run(context(tmp_path))
    assert (with_reason.action, with_reason.message) == ("block", "no force push")
    without = await runner("exit 2", tmp_path).run(context(tmp_path))
    assert without.action == "continue"
    assert "wrote no reason" in (without.message or "")


async def test_another_exit_code_fails_open(tmp_path: Path) -> None:
    decision = await runner("exit 1", tmp_path).run(context(tmp_path))
    assert decision.action == "continue"
    assert decision.level == "warning"


async def test_plain_text_on_pre_tool_use_is_ignored(tmp_path: Path) -> None:
    decision = await runner("echo checked", tmp_path).run(context(tmp_path))
    assert decision == Decision(source=LABEL)


async def test_stop_block_keeps_the_agent_working(tmp_path: Path) -> None:
    ctx = context(tmp_path, "Stop", "prompt:complete", tool=None)
    decision = await runner(
        answering({"decision": "block", "reason": "run the tests"}), tmp_path
    ).run(ctx)
    assert decision.action == "block"
    assert decision.keep_working
    assert decision.context == "run the tests"
    refused = await runner(answering({"decision": "block"}), tmp_path).run(ctx)
    assert not refused.keep_working
    assert "without a non-empty reason" in (refused.message or "")
    plain = await runner("echo done", tmp_path).run(ctx)
    assert "invalid Stop JSON output" in (plain.message or "")


async def test_post_tool_use_block_feeds_the_agent(tmp_path: Path) -> None:
    ctx = context(tmp_path, "PostToolUse", "tool:post", data={"tool_result": {"output": "ok"}})
    decision = await runner(
        answering({"decision": "block", "reason": "lint failed"}), tmp_path
    ).run(ctx)
    assert decision.action == "continue"
    assert decision.context == "lint failed"


async def test_user_prompt_submit_context_and_block(tmp_path: Path) -> None:
    ctx = context(tmp_path, "UserPromptSubmit", "prompt:submit", tool=None, data={"prompt": "hi"})
    answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "x"}}
    assert (await runner(answering(answer), tmp_path).run(ctx)).context == "x"
    blocked = await runner(answering({"decision": "block", "reason": "secret"}), tmp_path).run(ctx)
    assert blocked.action == "block"


# ----------------------------------------------------------------------------- a session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".codex").mkdir(parents=True)
    return path.resolve()


def write_hooks(project: Path, hooks: dict[str, Any]) -> None:
    (project / SOURCE).write_text(json.dumps({"hooks": hooks}, indent=2))


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}, "session_id": "s-1"}


async def test_matching_hooks_run_concurrently_and_each_runs_to_its_end(
    project: Path, tmp_path: Path
) -> None:
    """Two hooks that each wait for the other's mark: they finish only when started together,
    as Codex starts every matching hook; the second still runs when the first denies."""
    one, two = tmp_path / "one", tmp_path / "two"

    def waiter(mine: Path, other: Path, deny: bool) -> str:
        tail = "echo 'denied' >&2; exit 2" if deny else "exit 0"
        return (
            f"touch '{mine}'; for i in $(seq 1 200); do [ -e '{other}' ] && break; sleep 0.05; "
            f"done; [ -e '{other}' ] || exit 1; {tail}"
        )

    write_hooks(
        project,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": waiter(one, two, True)}],
                },
                {
                    "matcher": "^Bash$",
                    "hooks": [{"type": "command", "command": waiter(two, one, False)}],
                },
            ]
        },
    )
    trust_project(project)
    coordinator, cleanup = await mounted(project)
    try:
        result = await asyncio.wait_for(coordinator.hooks.emit("tool:pre", bash("ls")), 60)
        assert result.action == "deny"
        assert result.reason == "denied"
        assert one.exists()
        assert two.exists()
    finally:
        await cleanup()


async def test_an_untrusted_repository_runs_nothing(project: Path, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    write_hooks(
        project,
        {"PreToolUse": [{"hooks": [{"type": "command", "command": f"touch '{ran}'; exit 2"}]}]},
    )
    coordinator, cleanup = await mounted(project)
    try:
        result = await coordinator.hooks.emit("tool:pre", bash("rm -rf /"))
        assert result.action != "deny"
        assert not ran.exists()
    finally:
        await cleanup()


async def test_a_changed_file_after_trust_stops_the_mount(project: Path) -> None:
    write_hooks(project, {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 0"}]}]})
    trust_project(project)
    write_hooks(project, {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 2"}]}]})
    with pytest.raises(HooksConfigError, match=r"\.codex/hooks\.json"):
        await mounted(project)


async def test_codex_false_turns_the_file_off(project: Path, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    write_hooks(
        project,
        {"PreToolUse": [{"hooks": [{"type": "command", "command": f"touch '{ran}'; exit 2"}]}]},
    )
    trust_project(project)
    coordinator, cleanup = await mounted(project, {"codex": False})
    try:
        assert (await coordinator.hooks.emit("tool:pre", bash("ls"))).action != "deny"
        assert not ran.exists()
    finally:
        await cleanup()


@pytest.mark.parametrize(
    ("decision", "action", "failed"),
    [
        ({"behavior": "allow"}, "allow", False),
        ({"behavior": "deny", "message": "not on CI"}, "block", False),
        ({"behavior": "allow", "updatedInput": {"command": "ls"}}, "continue", True),
        ({"behavior": "allow", "interrupt": True}, "continue", True),
    ],
)
async def test_permission_request_answers(
    tmp_path: Path, decision: dict[str, Any], action: str, failed: bool
) -> None:
    ctx = context(tmp_path, "PermissionRequest", "approval:required")
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    found = await runner(answering(answer), tmp_path).run(ctx)
    assert found.action == action
    assert ("failed" in (found.message or "")) is failed
