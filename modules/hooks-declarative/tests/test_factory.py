"""Factory Droid hooks: ``.factory/hooks.json`` read as Droid reads it (Claude Code's shape on
Droid's tool names) and command hooks with the factory protocol (Claude Code's answers,
``FACTORY_PROJECT_DIR``), run as real processes and by a mounted session."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.document import HookGroup, HooksConfigError
from amplifier_module_hooks_declarative.formats.factory.reader import parse_factory_hooks
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.trust import trust_project

from .support import FormatContext, answering, command_runner
from .support import recorded as recorded_by

SOURCE = ".factory/hooks.json"
LABEL = f"{SOURCE}:hooks.PreToolUse[0].hooks[0]"
runner = partial(command_runner, label=LABEL, protocol="factory")
recorded = partial(recorded_by, label=LABEL, protocol="factory")


context = FormatContext(
    alias="PreToolUse",
    session_id="sess-f",
    timestamp="2026-01-15T10:30:00+00:00",
    call_id="call_1",
)


@pytest.mark.parametrize(
    ("matcher", "runs_for"),
    [
        ("Execute", {"bash"}),
        ("Bash", {"bash"}),  # the name Droid's earlier docs used
        ("Create|Edit", {"write_file", "edit_file"}),
        ("Edit|Write", {"write_file", "edit_file"}),
        ("Read", {"read_file"}),
        ("Exec.*", {"bash"}),
        ("ApplyPatch", set()),
        ("", {"bash", "write_file", "edit_file", "read_file"}),
    ],
)
def test_matchers_follow_droid_tool_names(matcher: str, runs_for: set[str]) -> None:
    hooks = [{"type": "command", "command": "x"}]
    text = json.dumps({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": hooks}]}})
    [block] = parse_factory_hooks(text, SOURCE).events
    [group] = block.steps
    assert isinstance(group, HookGroup)
    spec = group.hooks[0].spec
    assert isinstance(spec, CommandHookSpec)
    assert (spec.protocol, spec.timeout_ms) == ("factory", 60_000)
    test = compile_claude_matcher(group.matcher)
    assert {t for t in ("bash", "write_file", "edit_file", "read_file") if test(t)} == runs_for


@pytest.mark.parametrize(
    ("tool", "args", "name"),
    [
        ("bash", {"command": "ls"}, "Execute"),
        ("write_file", {"file_path": "a.txt", "content": "x"}, "Create"),
        ("edit_file", {"file_path": "a.txt", "old_string": "x", "new_string": "y"}, "Edit"),
        ("read_file", {"file_path": "a.txt"}, "Read"),
        ("mcp__github__create_issue", {"title": "t"}, "mcp__github__create_issue"),
    ],
)
async def test_stdin_names_droids_tools(
    tmp_path: Path, tool: str, args: dict[str, Any], name: str
) -> None:
    seen = await recorded(tmp_path, context(tmp_path, tool=tool, args=args))
    assert seen["input"]["tool_name"] == name
    assert seen["input"]["hook_event_name"] == "PreToolUse"
    assert seen["env"]["FACTORY_PROJECT_DIR"] == str(tmp_path)
    assert "CLAUDE_PROJECT_DIR" not in seen["env"]
    if "file_path" in args:
        assert seen["input"]["tool_input"]["file_path"] == str(tmp_path / "a.txt")


async def test_answers_are_claude_codes(tmp_path: Path) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Dangerous command",
        }
    }
    decision = await runner(answering(deny), tmp_path).run(context(tmp_path))
    assert (decision.action, decision.message) == ("block", "Dangerous command")
    ask = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}
    assert (await runner(answering(ask), tmp_path).run(context(tmp_path))).action == "ask"
    blocked = await runner("echo 'protected file' >&2; exit 2", tmp_path).run(context(tmp_path))
    assert (blocked.action, blocked.message) == ("block", "protected file")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    (path / ".factory" / "hooks").mkdir(parents=True)
    return path.resolve()


async def test_a_project_guard_script_under_factory_project_dir_blocks(
    project: Path, tmp_path: Path
) -> None:
    guard = project / ".factory" / "hooks" / "guard.sh"
    guard.write_text(
        "#!/bin/sh\ngrep -q '\"rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; }\nexit 0\n"
    )
    guard.chmod(0o755)
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Execute",
                "hooks": [
                    {"type": "command", "command": '"$FACTORY_PROJECT_DIR"/.factory/hooks/guard.sh'}
                ],
            }
        ]
    }
    (project / SOURCE).write_text(json.dumps({"hooks": hooks}))
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    bash = {"tool_name": "bash", "tool_input": {"command": "rm -rf build"}}
    # untrusted: nothing runs
    cleanup = await mount(coordinator, {"include_user": False})
    try:
        assert (await coordinator.hooks.emit("tool:pre", bash)).action != "deny"
    finally:
        await cleanup()
    trust_project(project)
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"include_user": False})
    try:
        result = await coordinator.hooks.emit("tool:pre", bash)
        assert result.action == "deny"
        assert result.reason == "rm -rf is not allowed"
        safe = {"tool_name": "bash", "tool_input": {"command": "ls"}}
        assert (await coordinator.hooks.emit("tool:pre", safe)).action != "deny"
    finally:
        await cleanup()
    # the guard script is part of what the trust covers: changing it untrusts the project
    guard.write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(HooksConfigError, match=r"guard\.sh"):
        await mount(create_test_coordinator(), {"include_user": False, "project_dir": str(project)})


def test_events_at_the_top_level_are_read_as_droid_writes_them() -> None:
    hooks = [{"type": "command", "command": '"$FACTORY_PROJECT_DIR"/.factory/hooks/inject.cjs'}]
    text = json.dumps({"SessionStart": [{"matcher": "startup", "hooks": hooks}]}, indent=2)
    [start] = parse_factory_hooks(text, SOURCE).events
    assert start.event == "session:start"
    [group] = start.steps
    assert isinstance(group, HookGroup)
    assert group.label == f"{SOURCE}:SessionStart[0]"
