"""GitHub Copilot hooks: every ``.github/hooks/*.json`` file, in the Copilot CLI / coding agent
dialect (``version: 1``, camelCase events, ``bash`` / ``powershell`` / ``cwd`` / ``env`` /
``timeoutSec``, ``toolArgs`` as JSON text, only ``preToolUse``'s deny acts) and in VS Code's
(PascalCase events, ``command``, exit code 2, ``continue: false``,
``hookSpecificOutput.permissionDecision``), run as real processes and by a mounted session."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.document import HookEntry, HookGroup, HooksConfigError
from amplifier_module_hooks_declarative.formats.copilot.reader import parse_copilot_hooks
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.trust import trust_project
from amplifier_module_hooks_declarative.types import Decision

from .support import FormatContext, answering, command_runner
from .support import recorded as recorded_by

SOURCE = ".github/hooks/guard.json"
LABEL = f"{SOURCE}:hooks.preToolUse[0]"
runner = partial(command_runner, label=LABEL, protocol="copilot")
recorded = partial(recorded_by, label=LABEL, protocol="copilot")


context = FormatContext(
    alias="preToolUse",
    session_id="sess-g",
    timestamp="2026-01-15T10:30:00+00:00",
    call_id="call_2",
)

# ----------------------------------------------------------------------------- reading


def test_a_cli_hook_runs_bash_in_its_cwd_with_its_env_and_timeout() -> None:
    text = json.dumps(
        {
            "version": 1,
            "hooks": {
                "preToolUse": [
                    {
                        "type": "command",
                        "bash": "./scripts/guard.sh",
                        "powershell": "./scripts/guard.ps1",
                        "cwd": ".github/hooks",
                        "env": {"MODE": "deny", "WHERE": "${HOME}/x"},
                        "timeoutSec": 5,
                    }
                ]
            },
        }
    )
    [block] = parse_copilot_hooks(text, SOURCE).events
    assert (block.name, block.event) == ("preToolUse", "tool:pre")
    [entry] = block.steps
    assert isinstance(entry, HookEntry)
    spec = entry.spec
    assert isinstance(spec, CommandHookSpec)
    assert spec.command == "cd .github/hooks && ./scripts/guard.sh"
    assert (spec.shell, spec.timeout_ms, spec.protocol) == ("bash", 5000, "copilot")
    assert spec.env["MODE"] == "deny"
    assert not spec.env["WHERE"].startswith("$")  # expanded when read


def test_a_vscode_hook_and_a_claude_shaped_group() -> None:
    text = json.dumps(
        {
            "hooks": {
                "PreToolUse": [
                    {"type": "command", "command": "./a.sh", "timeout": 10},
                    {"matcher": "run_in_terminal", "hooks": [{"type": "command", "command": "b"}]},
                ],
                "SessionStart": [{"type": "command", "command": "./start.sh"}],
            }
        }
    )
    pre, start, resume = parse_copilot_hooks(text, SOURCE).events
    assert (start.event, resume.event) == ("session:start", "session:resume")
    first, group = pre.steps
    assert isinstance(first, HookEntry)
    assert isinstance(first.spec, CommandHookSpec)
    assert (first.spec.shell, first.spec.timeout_ms) == ("sh", 10_000)
    assert isinstance(group, HookGroup)
    test = compile_claude_matcher(group.matcher)
    assert [t for t in ("bash", "write_file") if test(t)] == ["bash"]


@pytest.mark.parametrize(
    ("matcher", "runs_for"),
    [("bash", {"bash"}), ("create|edit", {"write_file", "edit_file"}), ("ba", set())],
)
def test_cli_matchers_match_the_whole_tool_name(matcher: str, runs_for: set[str]) -> None:
    hook = {"type": "command", "bash": "x", "matcher": matcher}
    text = json.dumps({"version": 1, "hooks": {"preToolUse": [hook]}})
    [block] = parse_copilot_hooks(text, "f").events
    [group] = block.steps
    assert isinstance(group, HookGroup)
    assert group.written == matcher
    test = compile_claude_matcher(group.matcher)
    assert {t for t in ("bash", "write_file", "edit_file", "read_file") if test(t)} == runs_for


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"version": 2, "hooks": {}}, "version"),
        ({"version": 1, "hooks": {"preToolUsed": []}}, "did you mean 'preToolUse'"),
        ({"version": 1, "hooks": {"preToolUse": [{"type": "command"}]}}, "bash or powershell"),
        ({"version": 1, "hooks": {"preToolUse": [{"bash": "x", "timeoutSec": 0}]}}, "timeoutSec"),
    ],
)
def test_errors_name_file_line_and_key(data: dict[str, Any], problem: str) -> None:
    with pytest.raises(HooksConfigError, match=problem) as caught:
        parse_copilot_hooks(json.dumps(data, indent=2), SOURCE)
    assert SOURCE in str(caught.value)


# ----------------------------------------------------------------------------- the CLI dialect


async def test_cli_stdin_has_tool_args_as_json_text(tmp_path: Path) -> None:
    args = {"file_path": "a.txt", "content": "hi"}
    stdin = (await recorded(tmp_path, context(tmp_path, tool="write_file", args=args)))["input"]
    assert stdin["toolName"] == "create"
    assert json.loads(stdin["toolArgs"]) == {"path": "a.txt", "file_text": "hi"}
    assert isinstance(stdin["timestamp"], int)
    assert stdin["cwd"] == str(tmp_path)


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ({"permissionDecision": "deny", "permissionDecisionReason": "no"}, "block"),
        ({"permissionDecision": "allow"}, "continue"),
        ({"permissionDecision": "ask", "permissionDecisionReason": "sure?"}, "continue"),
        ({"continue": False}, "continue"),
    ],
)
async def test_only_deny_acts_on_pre_tool_use(
    tmp_path: Path, answer: dict[str, Any], action: str
) -> None:
    assert (await runner(answering(answer), tmp_path).run(context(tmp_path))).action == action


async def test_other_events_outputs_are_ignored(tmp_path: Path) -> None:
    ctx = context(tmp_path, "postToolUse", "tool:post", data={"tool_result": {"output": "x"}})
    deny = {"permissionDecision": "deny", "permissionDecisionReason": "no"}
    assert await runner(answering(deny), tmp_path).run(ctx) == Decision(source=LABEL)


async def test_a_cli_non_zero_exit_is_a_failure_not_a_block(tmp_path: Path) -> None:
    decision = await runner("echo blocked >&2; exit 2", tmp_path).run(context(tmp_path))
    assert decision.action == "continue"
    assert decision.level == "warning"


async def test_agent_stop_block_keeps_working(tmp_path: Path) -> None:
    ctx = context(tmp_path, "agentStop", "prompt:complete", tool=None)
    answer = {"decision": "block", "reason": "tests are red"}
    decision = await runner(answering(answer), tmp_path).run(ctx)
    assert decision.keep_working
    assert decision.context == "tests are red"


# ----------------------------------------------------------------------------- VS Code's dialect


async def test_vscode_stdin_is_snake_case_with_vscode_tool_names(tmp_path: Path) -> None:
    args = {"file_path": "a.py", "old_string": "x", "new_string": "y"}
    ctx = context(tmp_path, "PreToolUse", tool="edit_file", args=args)
    stdin = (await recorded(tmp_path, ctx))["input"]
    assert stdin["hookEventName"] == "PreToolUse"
    assert stdin["tool_name"] == "replace_string_in_file"
    assert stdin["tool_input"] == {
        "filePath": str(tmp_path / "a.py"),
        "oldString": "x",
        "newString": "y",
    }
    assert stdin["tool_use_id"] == "call_2"


async def test_vscode_answers(tmp_path: Path) -> None:
    ctx = context(tmp_path, "PreToolUse")
    blocked = await runner("echo 'rm is off' >&2; exit 2", tmp_path).run(ctx)
    assert (blocked.action, blocked.message) == ("block", "rm is off")
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "policy",
        }
    }
    assert (await runner(answering(deny), tmp_path).run(ctx)).message == "policy"
    ask = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}
    assert (await runner(answering(ask), tmp_path).run(ctx)).action == "ask"
    rewrite = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "ls -la"},
        }
    }
    modified = await runner(answering(rewrite), tmp_path).run(ctx)
    assert (modified.action, modified.modified_args) == ("modify", {"command": "ls -la"})
    stopped = await runner(answering({"continue": False, "stopReason": "halt"}), tmp_path).run(ctx)
    assert stopped.stop
    assert stopped.message == "halt"
    failed = await runner("exit 1", tmp_path).run(ctx)
    assert failed.action == "continue"
    assert failed.level == "warning"


# ----------------------------------------------------------------------------- a session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".github" / "hooks" / "scripts").mkdir(parents=True)
    return path.resolve()


async def test_every_json_file_in_github_hooks_runs_once_trusted(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "log"
    guard = project / ".github" / "hooks" / "scripts" / "guard.sh"
    guard.write_text(
        "#!/bin/bash\nINPUT=$(cat)\n"
        "if echo \"$INPUT\" | grep -q 'rm -rf'; then\n"
        '  echo \'{"permissionDecision":"deny","permissionDecisionReason":"rm -rf blocked"}\'\n'
        "fi\n"
    )
    guard.chmod(0o755)
    hooks_dir = project / ".github" / "hooks"
    (hooks_dir / "a-guard.json").write_text(
        json.dumps(
            {
                "version": 1,
                "hooks": {
                    "preToolUse": [{"type": "command", "bash": "./.github/hooks/scripts/guard.sh"}]
                },
            }
        )
    )
    (hooks_dir / "b-log.json").write_text(
        json.dumps(
            {
                "version": 1,
                "hooks": {"postToolUse": [{"type": "command", "bash": f"cat >> '{log}'"}]},
            }
        )
    )
    bash = {"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    try:  # not trusted: nothing runs
        assert (await coordinator.hooks.emit("tool:pre", bash)).action != "deny"
    finally:
        await cleanup()
    trust_project(project)
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    try:
        result = await coordinator.hooks.emit("tool:pre", bash)
        assert (result.action, result.reason) == ("deny", "rm -rf blocked")
        post = {
            "tool_name": "bash",
            "tool_input": {"command": "ls"},
            "tool_result": {"output": "a"},
        }
        await coordinator.hooks.emit("tool:post", post)
        assert json.loads(log.read_text())["toolName"] == "bash"
    finally:
        await cleanup()
    # the script the file names is covered by the trust
    guard.write_text("#!/bin/bash\nexit 0\n")
    with pytest.raises(HooksConfigError, match=r"guard\.sh"):
        await mount(create_test_coordinator(), {"include_user": False, "project_dir": str(project)})
