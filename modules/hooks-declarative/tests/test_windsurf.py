"""Windsurf (Cascade) hooks: ``hooks.json`` read at the system, user and workspace levels as
Windsurf reads and merges them, and command hooks with the windsurf protocol: Cascade's stdin
per event, exit code 2 on pre-hooks, post-hooks that never block, run as real processes on a
mounted module."""

from __future__ import annotations

import json
import logging
import os
import shutil
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_declarative import mount
from amplifier_module_hooks_declarative.config import parse_config
from amplifier_module_hooks_declarative.discovery import find_sources, resolve_user_dir
from amplifier_module_hooks_declarative.document import HookGroup, HooksConfigError
from amplifier_module_hooks_declarative.formats.windsurf import (
    SYSTEM_FILE_VARIABLE,
    system_hooks_file,
)
from amplifier_module_hooks_declarative.formats.windsurf.protocol import WINDSURF_EVENTS
from amplifier_module_hooks_declarative.formats.windsurf.reader import parse_windsurf_hooks
from amplifier_module_hooks_declarative.patterns import compile_claude_matcher
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.trust import trust_project, trust_status
from amplifier_module_hooks_declarative.types import Decision

from .support import FormatContext, command_runner, real
from .support import recorded as recorded_by

SOURCE = ".windsurf/hooks.json"
LABEL = f"{SOURCE}:hooks.pre_run_command[0]"
STAMP = "2026-01-15T10:30:00+00:00"
runner = partial(command_runner, label=LABEL, protocol="windsurf")
recorded = partial(recorded_by, label=LABEL, protocol="windsurf")


context = FormatContext(
    alias="pre_run_command",
    session_id="traj-1",
    timestamp=STAMP,
    call_id="call_9",
    fields={"session_id": "traj-1", "turn": 3},
)


@pytest.fixture
def home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """conftest's home, and a system hooks file of the test's own."""
    monkeypatch.setenv(SYSTEM_FILE_VARIABLE, str(tmp_path / "etc" / "windsurf" / "hooks.json"))
    return home


def write_hooks(path: Path, hooks: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}, indent=2))


async def emit(project: Path, event: str, data: dict[str, Any], **config: Any) -> Any:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, config)
    try:
        return await coordinator.hooks.emit(event, data)
    finally:
        await cleanup()


# ----------------------------------------------------------------------------- stdin


async def test_pre_run_command_has_cascades_fields(tmp_path: Path) -> None:
    seen = await recorded(tmp_path, context(tmp_path, args={"command": "npm install x"}))
    assert seen["input"] == {
        "agent_action_name": "pre_run_command",
        "trajectory_id": "traj-1",
        "execution_id": "call_9",
        "timestamp": STAMP,
        "tool_info": {"command_line": "npm install x", "cwd": str(tmp_path)},
    }
    assert seen["cwd"] == real(tmp_path)
    assert not {"CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR"} & set(seen["env"])


@pytest.mark.parametrize(
    ("alias", "event", "tool", "args", "data", "info"),
    [
        ("pre_read_code", "tool:pre", "read_file", {"file_path": "a.py"}, {}, {"file_path": "A"}),
        (
            "pre_write_code",
            "tool:pre",
            "edit_file",
            {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"},
            {},
            {"file_path": "A", "edits": [{"old_string": "x = 1", "new_string": "x = 2"}]},
        ),
        (
            "post_write_code",
            "tool:post",
            "write_file",
            {"file_path": "a.py", "content": "new"},
            {"tool_result": {"output": "ok"}},
            {"file_path": "A", "edits": [{"old_string": "", "new_string": "new"}]},
        ),
        (
            "post_run_command",
            "tool:post",
            "bash",
            {"command": "ls"},
            {"tool_result": {"output": {"stdout": "a\n", "stderr": ""}}},
            {"command_line": "ls", "cwd": "P", "output": "a\n"},
        ),
        (
            "pre_mcp_tool_use",
            "tool:pre",
            "mcp__github__create_issue",
            {"title": "t"},
            {},
            {
                "mcp_server_name": "github",
                "mcp_tool_name": "create_issue",
                "mcp_tool_arguments": {"title": "t"},
            },
        ),
        ("pre_user_prompt", "prompt:submit", None, {}, {"prompt": "hi"}, {"user_prompt": "hi"}),
        (
            "post_cascade_response",
            "prompt:complete",
            None,
            {},
            {"response": "Done."},
            {"response": "Done."},
        ),
    ],
)
async def test_tool_info_per_event(
    tmp_path: Path,
    alias: str,
    event: str,
    tool: str | None,
    args: dict[str, Any],
    data: dict[str, Any],
    info: dict[str, Any],
) -> None:
    ctx = context(tmp_path, alias, event, tool=tool, args=args, data=data)
    stdin = (await recorded(tmp_path, ctx))["input"]
    expected = {
        key: (str(tmp_path / "a.py") if value == "A" else str(tmp_path) if value == "P" else value)
        for key, value in info.items()
    }
    assert stdin["agent_action_name"] == alias
    assert stdin["tool_info"] == expected


# ----------------------------------------------------------------------------- exit codes


async def test_exit_2_blocks_a_pre_hook_with_stderr_and_never_a_post_hook(tmp_path: Path) -> None:
    blocking = "cat > /dev/null; echo 'no force pushes' >&2; exit 2"
    decided = await runner(blocking, tmp_path).run(context(tmp_path))
    assert (decided.action, decided.message) == ("block", "no force pushes")
    post = context(tmp_path, "post_run_command", "tool:post")
    decided = await runner(blocking, tmp_path).run(post)
    assert decided.action == "continue"
    assert (decided.message, decided.level) == ("no force pushes", "warning")


async def test_stdout_decides_nothing_and_other_codes_let_the_action_proceed(
    tmp_path: Path,
) -> None:
    deny_json = 'cat > /dev/null; echo \'{"decision": "deny", "permission": "deny"}\''
    assert await runner(deny_json, tmp_path).run(context(tmp_path)) == Decision(source=LABEL)
    failing = await runner("cat > /dev/null; exit 1", tmp_path).run(context(tmp_path))
    assert failing.action == "continue"
    assert failing.level == "warning"
    assert "exited with code 1" in (failing.message or "")


# ----------------------------------------------------------------------------- hooks.json

HOOKS = """{
  "version": 1,
  "hooks": {
    "pre_run_command": [
      {"command": "python3 .windsurf/hooks/guard.py", "show_output": true},
      {"command": "./lint.sh", "working_directory": "tools dir", "timeout": 5}
    ],
    "post_write_code": [{"command": "npx prettier --write", "show_output": false}],
    "pre_mcp_tool_use": [{"powershell": "guard.ps1"}],
    "post_setup_worktree": [{"command": "npm ci"}],
    "pre_deploy": [{"command": "./deploy-guard.sh"}]
  }
}
"""


def test_hooks_json_is_read_as_windsurf_reads_it(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        document = parse_windsurf_hooks(HOOKS, SOURCE)
    assert [(block.name, block.event) for block in document.events] == [
        ("pre_run_command", "tool:pre"),
        ("post_write_code", "tool:post"),
    ]
    guard, lint = document.events[0].steps
    assert isinstance(guard, HookGroup)
    assert isinstance(lint, HookGroup)
    spec = guard.hooks[0].spec
    assert isinstance(spec, CommandHookSpec)
    assert (spec.command, spec.protocol, spec.on_failure) == (
        "python3 .windsurf/hooks/guard.py",
        "windsurf",
        "warn",
    )
    assert guard.hooks[0].label == f"{SOURCE}:hooks.pre_run_command[0]"
    assert guard.hooks[0].line == 5
    lint_spec = lint.hooks[0].spec
    assert isinstance(lint_spec, CommandHookSpec)
    assert lint_spec.command == "cd 'tools dir' && ./lint.sh"
    only_bash = compile_claude_matcher(guard.matcher)
    assert only_bash("bash")
    assert not only_bash("read_file")
    [edit] = document.events[1].steps
    assert isinstance(edit, HookGroup)
    writes = compile_claude_matcher(edit.matcher)
    assert writes("write_file")
    assert writes("edit_file")
    assert not writes("bash")
    for named in ("version", "timeout", "powershell", "post_setup_worktree", "pre_deploy"):
        assert named in caplog.text


def test_errors_name_file_line_and_key_path() -> None:
    text = '{\n  "hooks": {\n    "pre_run_command": [\n      {"command": 3}\n    ]\n  }\n}\n'
    with pytest.raises(HooksConfigError) as caught:
        parse_windsurf_hooks(text, SOURCE)
    assert str(caught.value) == (
        f"hooks-declarative: {SOURCE}:4: hooks.pre_run_command[0].command: "
        "expected a string, got int 3"
    )
    with pytest.raises(HooksConfigError, match=r"hooks: expected an object"):
        parse_windsurf_hooks('{"hooks": []}', SOURCE)


def test_system_file_per_platform_and_its_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SYSTEM_FILE_VARIABLE, raising=False)
    for platform, expected in (
        ("linux", "/etc/windsurf/hooks.json"),
        ("darwin", "/Library/Application Support/Windsurf/hooks.json"),
    ):
        monkeypatch.setattr("sys.platform", platform)
        assert system_hooks_file() == Path(expected)
    monkeypatch.setenv(SYSTEM_FILE_VARIABLE, "/opt/policy/hooks.json")
    assert system_hooks_file() == Path("/opt/policy/hooks.json")


def test_system_user_and_workspace_files_merge_in_windsurfs_order(
    home: Path, project: Path
) -> None:
    settings = parse_config({"claude_code": False, "gemini": False, "cursor": False})
    found = find_sources(settings, project_dir=project, user_dir=resolve_user_dir(settings))
    windsurf = [s.label for s in found if "windsurf" in s.kind]
    system = system_hooks_file()
    assert windsurf == [str(system), "~/.codeium/windsurf/hooks.json", SOURCE]
    settings = parse_config({"windsurf": False})
    found = find_sources(settings, project_dir=project, user_dir=resolve_user_dir(settings))
    assert not [s for s in found if "windsurf" in s.kind]


async def test_a_mounted_session_runs_every_level_in_order(home: Path, project: Path) -> None:
    log = project / "order.log"
    hook = f"cat > /dev/null; echo {{level}} >> '{log}'"
    write_hooks(
        system_hooks_file(), {"pre_run_command": [{"command": hook.format(level="system")}]}
    )
    write_hooks(
        home / ".codeium" / "windsurf" / "hooks.json",
        {"pre_run_command": [{"command": hook.format(level="user")}]},
    )
    guard = "cat > /dev/null; echo workspace >> order.log; echo 'not here' >&2; exit 2"
    write_hooks(project / SOURCE, {"pre_run_command": [{"command": guard}]})
    trust_project(project)
    data = {"tool_name": "bash", "tool_input": {"command": "rm -rf x"}, "session_id": "s"}
    result = await emit(project, "tool:pre", data)
    assert result.action == "deny"
    assert result.reason == "not here"
    assert log.read_text().split() == ["system", "user", "workspace"]
    read = {"tool_name": "read_file", "tool_input": {"file_path": "a"}, "session_id": "s"}
    assert (await emit(project, "tool:pre", read)).action == "continue"


async def test_an_untrusted_workspace_file_runs_nothing(home: Path, project: Path) -> None:
    write_hooks(
        project / SOURCE,
        {"pre_run_command": [{"command": "touch ran; exit 2"}]},
    )
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s"}
    result = await emit(project, "tool:pre", data)
    assert result.action == "continue"
    assert not (project / "ran").exists()


def test_trust_covers_the_windsurf_directory(home: Path, project: Path) -> None:
    script = project / ".windsurf" / "hooks" / "guard.py"
    script.parent.mkdir(parents=True)
    script.write_text("import sys\n")
    write_hooks(project / SOURCE, {"pre_run_command": [{"command": "python3 helper/x.py"}]})
    (project / "helper").mkdir()
    (project / "helper" / "x.py").write_text("print(1)\n")
    trust_project(project)
    assert trust_status(project).trusted
    script.write_text("import os; os.system('curl evil')\n")
    changed = trust_status(project)
    assert not changed.trusted
    assert ".windsurf/hooks/guard.py" in (changed.why_not() or "")
    trust_project(project)
    (project / "helper" / "x.py").write_text("print(2)\n")
    assert "helper/x.py" in (trust_status(project).why_not() or "")


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not os.environ.get("AMPLIFIER_HOOKS_REQUIRE_BWRAP"),
    reason="bubblewrap missing (CI sets AMPLIFIER_HOOKS_REQUIRE_BWRAP: there it must run)",
)
async def test_sandbox_project_contains_a_workspace_hook(home: Path, project: Path) -> None:
    command = "cat > /dev/null; touch ran; echo '{}' > .windsurf/hooks.json; exit 0"
    write_hooks(project / SOURCE, {"pre_run_command": [{"command": command}]})
    trust_project(project)
    before = (project / SOURCE).read_text()
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s"}
    result = await emit(project, "tool:pre", data, include_user=False, sandbox="project")
    assert result.action == "continue"
    assert (project / "ran").exists()  # the project is writable
    assert (project / SOURCE).read_text() == before  # its hooks file is not


_EVENTS = st.sampled_from([*WINDSURF_EVENTS, "pre_deploy", "post_anything"])
_HOOK = st.fixed_dictionaries(
    {"command": st.text(alphabet="abc ./-", min_size=1, max_size=12).filter(str.strip)},
    optional={
        "show_output": st.booleans(),
        "working_directory": st.sampled_from(["tools", "a b"]),
        "timeout": st.integers(1, 99),
    },
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_EVENTS, st.lists(_HOOK, max_size=3), max_size=8))
def test_every_known_event_with_hooks_is_read_and_nothing_else(
    hooks: dict[str, list[dict[str, Any]]],
) -> None:
    document = parse_windsurf_hooks(json.dumps({"version": 1, "hooks": hooks}), SOURCE)
    expected = [
        (name, event, len(items))
        for name, items in hooks.items()
        if items and name in WINDSURF_EVENTS
        for event in WINDSURF_EVENTS[name][0]
    ]
    assert [(b.name, b.event, len(b.steps)) for b in document.events] == expected
    for block in document.events:
        for step, item in zip(block.steps, hooks[block.name], strict=True):
            assert isinstance(step, HookGroup)
            spec = step.hooks[0].spec
            assert isinstance(spec, CommandHookSpec)
            assert spec.protocol == "windsurf"
            assert spec.command.endswith(item["command"])
            assert spec.command.startswith("cd ") == ("working_directory" in item)
