"""Hook files changed during a session are read again before the next event they concern:
a tool that rewrites the hooks file changes what guards the next call of the same turn; a
``ConfigChange`` hook sees the change and can keep it out; a broken file leaves the hooks in
force and says where it is broken; a project's new hook-shell file runs only once the project
is trusted again. Whole sessions: real files, real hook processes, the scripted model."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative.trust import trust_project

from . import support
from .support import call, make_bundle, module

pytestmark = pytest.mark.usefixtures("python3_on_path")


def deny_if(word: str) -> dict[str, Any]:
    """A Claude Code PreToolUse hook denying a bash command that contains ``word``."""
    script = (
        "import json,sys; c=json.load(sys.stdin)['tool_input'].get('command','');"
        f"sys.exit(2) if {word!r} in c and not print('no {word} here', file=sys.stderr) "
        "else None"
    )
    return {"type": "command", "command": shlex.join(["python3", "-c", script])}


def logs_to(path: Path) -> dict[str, Any]:
    return {"type": "command", "command": f"cat >> {shlex.quote(str(path))}; echo >> {path}"}


async def results(session: Any) -> list[str]:
    """What the model read as each tool call's result, in order (repeats kept)."""
    return [m["content"] for m in await session.context.get_messages() if m["role"] == "tool"]


def hooks_text(claude_code: dict[str, Any]) -> str:
    return json.dumps({"claude_code": claude_code}, indent=2)


def bundle_with(hooks_file: Path) -> Any:
    return make_bundle(hooks=[module("hooks-declarative", {"files": [str(hooks_file)]})])


async def test_a_tool_that_rewrites_the_hooks_file_changes_the_next_calls_guard(
    workspace: Path,
) -> None:
    hooks_file = workspace / "hooks.json"
    hooks_file.write_text(hooks_text({"PreToolUse": [{"hooks": [deny_if("alpha")]}]}))
    stricter = workspace / "stricter.json"
    stricter.write_text(hooks_text({"PreToolUse": [{"hooks": [deny_if("beta")]}]}))
    script = [
        {
            "tool_calls": [
                {"name": "bash", "input": {"command": "echo beta one"}},
                {"name": "bash", "input": {"command": "cp stricter.json hooks.json"}},
                {"name": "bash", "input": {"command": "echo beta two"}},
                {"name": "bash", "input": {"command": "echo alpha"}},
            ]
        },
        {"text": "done"},
    ]
    session, _, _ = support.session_for(workspace, script, bundle_with(hooks_file), strict=True)
    async with session:
        await session.run("go")
        first, copied, second, third = await results(session)

    assert "beta one" in first  # the first file allowed it
    assert "Error" not in copied
    assert "no beta here" in second  # the file as the tool left it guards the next call
    assert "alpha" in third
    assert "Error" not in third  # the old rule is gone


async def test_config_change_hooks_see_the_change_and_can_keep_it_out(workspace: Path) -> None:
    hooks_file = workspace / "hooks.json"
    seen = workspace.parent / "config_change.jsonl"
    keep = {
        "PreToolUse": [{"hooks": [deny_if("alpha")]}],
        "ConfigChange": [{"hooks": [logs_to(seen)]}],
    }
    hooks_file.write_text(hooks_text(keep))
    script = [call("bash", command="echo alpha"), "one", call("bash", command="echo alpha"), "two"]
    session, _, _ = support.session_for(workspace, script, bundle_with(hooks_file), strict=True)
    async with session:
        await session.run("first")
        # a change that drops the guard; the ConfigChange hook in force sees it, lets it be
        hooks_file.write_text(hooks_text({"ConfigChange": [{"hooks": [logs_to(seen)]}]}))
        await session.run("second")
        first, second = await results(session)

    assert "no alpha here" in first
    [stdin] = [json.loads(line) for line in seen.read_text().splitlines() if line.strip()]
    assert stdin["hook_event_name"] == "ConfigChange"
    assert stdin["file_path"] == str(hooks_file)
    assert stdin["source"] == "project_settings"
    assert "alpha" in second
    assert "Error" not in second  # not blocked: the change took over


async def test_a_blocking_config_change_hook_keeps_the_hooks_in_force(workspace: Path) -> None:
    hooks_file = workspace / "hooks.json"
    blocker = {"type": "command", "command": "cat > /dev/null; echo frozen >&2; exit 2"}
    hooks_file.write_text(
        hooks_text(
            {"PreToolUse": [{"hooks": [deny_if("alpha")]}], "ConfigChange": [{"hooks": [blocker]}]}
        )
    )
    script = [call("bash", command="echo alpha"), "one", call("bash", command="echo alpha"), "two"]
    session, recorder, _ = support.session_for(
        workspace, script, bundle_with(hooks_file), strict=True
    )
    async with session:
        await session.run("first")
        hooks_file.write_text(hooks_text({"PreToolUse": []}))
        await session.run("second")
        first, second = await results(session)

    assert "no alpha here" in first
    assert "no alpha here" in second  # the change was kept out
    messages = [d["message"] for _, d in recorder.get_events("user:notification")]
    assert any("is not applied" in m and "frozen" in m for m in messages)


async def test_a_broken_file_keeps_the_hooks_in_force_and_says_where(workspace: Path) -> None:
    hooks_file = workspace / "hooks.json"
    hooks_file.write_text(hooks_text({"PreToolUse": [{"hooks": [deny_if("alpha")]}]}))
    script = [
        call("bash", command="echo alpha"),
        "one",
        call("bash", command="echo alpha"),
        "two",
        call("bash", command="echo alpha"),
        "three",
    ]
    session, recorder, _ = support.session_for(
        workspace, script, bundle_with(hooks_file), strict=True
    )
    async with session:
        await session.run("first")
        broken = {"claude_code": {"PreToolUse": [{"hooks": [{"type": "command", "timeout": -1}]}]}}
        hooks_file.write_text(json.dumps(broken, indent=2))
        await session.run("second")
        hooks_file.write_text(hooks_text({"PreToolUse": []}))  # fixed: the guard is dropped
        await session.run("third")
        first, second, third = await results(session)

    assert "no alpha here" in first
    assert "no alpha here" in second  # still guarded by the hooks that loaded
    assert "alpha" in third
    assert "Error" not in third
    errors = [
        d["message"]
        for _, d in recorder.get_events("user:notification")
        if d.get("level") == "error"
    ]
    assert len(errors) == 1  # said once, not at every event
    assert f"{hooks_file.name}:" in errors[0]
    assert "claude_code.PreToolUse[0].hooks[0]" in errors[0]


async def test_a_new_hook_shell_file_runs_only_once_the_project_is_trusted_again(
    workspace: Path,
) -> None:
    hooks_dir = workspace / ".amplifier" / "hooks"
    hooks_dir.mkdir(parents=True)
    trust_project(workspace)
    script = [call("bash", command="echo alpha"), "one", call("bash", command="echo alpha"), "two"]
    script += [call("bash", command="echo alpha"), "three"]
    bundle = make_bundle(hooks=[module("hooks-declarative")])
    session, recorder, _ = support.session_for(workspace, script, bundle, strict=True)
    async with session:
        await session.run("first")
        guard = hooks_dir / "guard"
        guard.mkdir()
        (guard / "hooks.json").write_text(
            json.dumps({"hooks": {"PreToolUse": [{"hooks": [deny_if("alpha")]}]}})
        )
        await session.run("second")  # changed since trusted: not run, and said
        trust_project(workspace)
        await session.run("third")
        first, second, third = await results(session)

    assert "Error" not in first
    assert "Error" not in second
    assert "no alpha here" in third
    errors = [
        d["message"]
        for _, d in recorder.get_events("user:notification")
        if d.get("level") == "error"
    ]
    assert errors
    assert "trust" in errors[0]
