"""Claude Code's current hook keys, from ``.claude/settings.json`` and a plugin's
``hooks/hooks.json``, run by a mounted session with real command hooks: ``if``,
``onFailure``, ``shell``, ``args``, ``asyncRewake``, ``type: mcp_tool``, every documented
event, and an unknown key or value that costs only the hook that carries it."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from amplifier_core.models import ToolResult
from amplifier_module_hooks_declarative.formats.claude_code.reader import (
    parse_claude_plugin_hooks,
    parse_claude_settings,
)
from amplifier_module_hooks_declarative.mapping import CLAUDE_EVENTS
from amplifier_module_hooks_declarative.permission_rules import compile_permission_rule
from amplifier_module_hooks_declarative.specs import CommandHookSpec, UnreadableHookSpec
from amplifier_module_hooks_declarative.trust import trust_project

from .support import claude_plugin, emitted, mounted

SETTINGS = ".claude/settings.json"


def write_settings(project: Path, hooks: dict[str, Any]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / SETTINGS).write_text(json.dumps({"hooks": hooks}, indent=2))
    trust_project(project)


def bash(command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}, "session_id": "s-1"}


def pre_bash(*hooks: dict[str, Any]) -> dict[str, Any]:
    return {"PreToolUse": [{"matcher": "Bash", "hooks": list(hooks)}]}


def touch(path: Path) -> str:
    return f"touch '{path}'"


def guard(marker: Path, reason: str = "no pushing") -> str:
    """A guard that records that it ran, then blocks with exit code 2."""
    return f"touch '{marker}'; echo '{reason}' >&2; exit 2"


# ----------------------------------------------------------------------------- if


async def test_if_starts_the_hook_only_for_matching_calls_and_splits_compound_commands(
    project: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    write_settings(
        project, pre_bash({"type": "command", "command": guard(ran), "if": "Bash(git push *)"})
    )
    coordinator, cleanup = await mounted(project)
    try:
        result = await coordinator.hooks.emit("tool:pre", bash("git status"))
        assert result.action != "deny"
        assert not ran.exists()  # not started at all
        result = await coordinator.hooks.emit("tool:pre", bash("echo hi && git push origin main"))
        assert result.action == "deny"
        assert "no pushing" in (result.reason or "")
        assert ran.exists()
    finally:
        await cleanup()


async def test_if_on_file_and_mcp_tools(project: Path, tmp_path: Path) -> None:
    edits, mcp = tmp_path / "edits", tmp_path / "mcp"
    write_settings(
        project,
        {
            "PreToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [{"type": "command", "command": guard(edits), "if": "Edit(src/**)"}],
                },
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": guard(mcp),
                            "if": "mcp__github__create_issue",
                        }
                    ]
                },
            ]
        },
    )
    coordinator, cleanup = await mounted(project)
    try:
        outside = {"tool_name": "edit_file", "tool_input": {"file_path": str(project / "lib/a.py")}}
        assert (await coordinator.hooks.emit("tool:pre", outside)).action != "deny"
        inside = {
            "tool_name": "edit_file",
            "tool_input": {"file_path": str(project / "src/a/b.py")},
        }
        assert (await coordinator.hooks.emit("tool:pre", inside)).action == "deny"
        assert edits.exists()
        assert not mcp.exists()
        other = {"tool_name": "mcp__github__list_issues", "tool_input": {}}
        assert (await coordinator.hooks.emit("tool:pre", other)).action != "deny"
        issue = {"tool_name": "mcp__github__create_issue", "tool_input": {"title": "x"}}
        assert (await coordinator.hooks.emit("tool:pre", issue)).action == "deny"
    finally:
        await cleanup()


_WORDS = st.sampled_from(
    ["ls", "echo", "cat", "grep", "git", "status", "log", "-la", "x.txt", "main", "push"]
)
_OPERATORS = st.sampled_from([" && ", " || ", "; ", " | ", " & ", "\n"])


@st.composite
def _compound(draw: st.DrawFn) -> tuple[str, bool]:
    """A compound command and whether one of its simple commands is a ``git push``."""
    count = draw(st.integers(1, 5))
    parts = []
    for _ in range(count):
        words = draw(st.lists(_WORDS, min_size=1, max_size=4))
        if words[:2] == ["git", "push"]:
            words = ["echo", *words]
        parts.append(" ".join(words))
    pushes = draw(st.booleans())
    if pushes:
        tail = draw(st.lists(_WORDS, max_size=3))
        quoted = draw(st.booleans())
        push = "'git' \"push\"" if quoted else "git push"
        parts.insert(draw(st.integers(0, len(parts))), " ".join([push, *tail]))
    operators = [draw(_OPERATORS) for _ in parts[1:]]
    command = parts[0] + "".join(op + part for op, part in zip(operators, parts[1:], strict=True))
    return command, pushes


@given(_compound())
@example(("git\npush && ls && ls", False))  # two lines are two commands, not one git push
@settings(max_examples=300, deadline=None)
def test_if_matches_a_compound_command_exactly_when_a_subcommand_matches(
    case: tuple[str, bool],
) -> None:
    command, pushes = case
    rule = compile_permission_rule("Bash(git push *)")
    assert rule("bash", {"command": command}, "/p") is pushes, command
    assert rule("Bash", {"command": command}, "/p") is pushes
    assert rule("read_file", {"command": command}, "/p") is False


def test_permission_rules_of_the_docs() -> None:
    def ok(rule: str, tool: str, args: dict[str, Any]) -> bool:
        return compile_permission_rule(rule)(tool, args, "/p")

    assert ok("Bash(npm run test:*)", "bash", {"command": "npm run test -- -x"})
    assert ok("Bash(git push *)", "bash", {"command": "FOO=1 git push"})
    assert not ok("Bash(ls *)", "bash", {"command": "lsof"})
    assert ok("Bash", "bash", {"command": "anything"})
    assert ok("Edit(*.ts)", "edit_file", {"file_path": "/p/deep/x.ts"})
    assert ok("Read(//etc/**)", "read_file", {"file_path": "/etc/passwd"})
    assert not ok("Read(//etc/**)", "read_file", {"file_path": "/p/etc/passwd"})
    assert ok("WebFetch(domain:example.com)", "web_fetch", {"url": "https://api.example.com/x"})
    assert not ok("WebFetch(domain:example.com)", "web_fetch", {"url": "https://example.org"})
    assert ok("mcp__github", "mcp__github__create_issue", {})
    assert ok("mcp__github__*", "mcp__github__create_issue", {})
    assert not ok("mcp__github", "mcp__gitlab__create_issue", {})
    with pytest.raises(ValueError, match="not a permission rule"):
        compile_permission_rule("Bash(git push")


# ----------------------------------------------------------------------------- onFailure


@pytest.mark.parametrize(
    ("command", "keys", "reason"),
    [
        ("exit 1", {"onFailure": "block"}, "exited with code 1"),
        ("sleep 5", {"onFailure": "block", "timeout": 0.2}, "timed out"),
        ("nosuchcommand-xyz", {"onFailure": "block"}, "was not found"),
        ("nosuchprog", {"onFailure": "block", "args": []}, "could not be started"),
    ],
)
async def test_on_failure_block_blocks_a_hook_that_fails(
    project: Path, command: str, keys: dict[str, Any], reason: str
) -> None:
    write_settings(project, pre_bash({"type": "command", "command": command, **keys}))
    result = await emitted(project, "tool:pre", bash("ls"))
    assert result.action == "deny"
    assert reason in (result.reason or "")


async def test_without_on_failure_a_failing_hook_does_not_block(project: Path) -> None:
    write_settings(project, pre_bash({"type": "command", "command": "exit 1"}))
    result = await emitted(project, "tool:pre", bash("ls"))
    assert result.action != "deny"


# ----------------------------------------------------------------------------- shell, args


async def test_shell_bash_runs_bash_and_args_run_without_a_shell(
    project: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    bashism = f"[[ -d '{project}' ]] && echo bash >> '{out}'"
    exec_form = {
        "type": "command",
        "command": "python3",
        "args": [
            "-c",
            "import sys; open(sys.argv[1], 'a').write(sys.argv[2] + '\\n')",
            str(out),
            "a; b $(x) ${CLAUDE_PROJECT_DIR}",
        ],
    }
    write_settings(
        project,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "parallel": False,
                    "hooks": [{"type": "command", "command": bashism, "shell": "bash"}, exec_form],
                }
            ]
        },
    )
    coordinator, cleanup = await mounted(project)
    try:
        await coordinator.hooks.emit("tool:pre", bash("ls"))
    finally:
        await cleanup()
    assert out.read_text().splitlines() == ["bash", f"a; b $(x) {project}"]


@pytest.mark.skipif(
    shutil.which("pwsh") is not None or shutil.which("powershell") is not None,
    reason="PowerShell is installed here",
)
async def test_shell_powershell_without_powershell_names_file_and_key_and_fails_that_hook_closed(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ran = tmp_path / "ran"
    write_settings(
        project,
        pre_bash(
            {"type": "command", "command": "Write-Output hi", "shell": "powershell"},
            {"type": "command", "command": touch(ran)},
        ),
    )
    with caplog.at_level(logging.WARNING):
        result = await emitted(project, "tool:pre", bash("ls"))
    message = (
        f"{SETTINGS}:10: hooks.PreToolUse[0].hooks[0].shell: 'powershell': no PowerShell on "
        "this machine"
    )
    assert message in caplog.text
    assert result.action == "deny"
    assert message in (result.reason or "")
    assert ran.exists()  # its sibling ran


# ----------------------------------------------------------------------------- asyncRewake


async def test_async_rewake_never_blocks_and_its_exit_2_reaches_the_agent_later(
    project: Path,
) -> None:
    write_settings(
        project,
        pre_bash(
            {
                "type": "command",
                "command": "echo 'tests fail in x.py' >&2; exit 2",
                "asyncRewake": True,
            }
        ),
    )
    coordinator, cleanup = await mounted(project)
    result = await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert result.action != "deny"
    await cleanup()  # lets the background hook finish (async_grace_s)
    messages = await coordinator.injections.own_context.get_messages()
    [text] = [m["content"] for m in messages]
    assert "tests fail in x.py" in text
    assert f"{SETTINGS}:hooks.PreToolUse[0].hooks[0]" in text


# ----------------------------------------------------------------------------- mcp_tool


class _Recorder:
    name = "mcp__audit__record"
    description = "records"
    input_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.calls: list[Any] = []

    async def execute(self, arguments: Any) -> ToolResult:
        self.calls.append(arguments)
        return ToolResult(success=True, output=json.dumps(self.answer))


async def test_an_mcp_tool_hook_calls_the_connected_servers_tool(project: Path) -> None:
    hook = {
        "type": "mcp_tool",
        "server": "audit",
        "tool": "record",
        "input": {"command": "${tool_input.command}", "who": "${session_id}", "in": "cwd=${cwd}"},
    }
    write_settings(project, pre_bash(hook))
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "audited: no",
        }
    }
    tool = _Recorder(deny)
    coordinator, cleanup = await mounted(project)
    await coordinator.mount("tools", tool, name=tool.name)
    try:
        result = await coordinator.hooks.emit("tool:pre", bash("rm -rf x"))
    finally:
        await cleanup()
    assert tool.calls == [{"command": "rm -rf x", "who": "s-1", "in": f"cwd={project}"}]
    assert result.action == "deny"
    assert "audited: no" in (result.reason or "")


async def test_an_mcp_tool_hook_without_its_server_warns_and_the_others_decide(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_settings(
        project,
        pre_bash(
            {"type": "mcp_tool", "server": "audit", "tool": "record"},
            {"type": "command", "command": "echo 'blocked by the guard' >&2; exit 2"},
        ),
    )
    with caplog.at_level(logging.WARNING):
        result = await emitted(project, "tool:pre", bash("ls"))
    assert "of server 'audit' is not connected" in caplog.text
    assert result.action == "deny"
    assert "blocked by the guard" in (result.reason or "")


# ----------------------------------------------------------------------------- events

DOCUMENTED_EVENTS = (
    "SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
    "PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure",
    "PostToolBatch", "Notification", "SubagentStart", "SubagentStop", "TaskCreated",
    "TaskCompleted", "Stop", "StopFailure", "TeammateIdle", "InstructionsLoaded",
    "ConfigChange", "CwdChanged", "FileChanged", "WorktreeCreate", "WorktreeRemove",
    "PreCompact", "PostCompact", "Elicitation", "ElicitationResult", "SessionEnd",
)  # fmt: skip
"""Claude Code's hook events as its hooks reference lists them."""


def test_every_documented_event_is_accepted() -> None:
    hooks = {
        name: [{"hooks": [{"type": "command", "command": "true"}]}] for name in DOCUMENTED_EVENTS
    }
    document = parse_claude_settings(json.dumps({"hooks": hooks}), SETTINGS)
    assert set(DOCUMENTED_EVENTS) <= set(CLAUDE_EVENTS)
    named = {block.name for block in document.events}
    assert named == {name for name in DOCUMENTED_EVENTS if CLAUDE_EVENTS[name] is not None}


# ----------------------------------------------------------------------------- unknown keys


async def test_an_unknown_key_fails_only_its_hook_closed_in_settings(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ran = tmp_path / "ran"
    write_settings(
        project,
        pre_bash(
            {"type": "command", "command": "true", "retries": 3},
            {"type": "command", "command": touch(ran)},
        ),
    )
    with caplog.at_level(logging.WARNING):
        result = await emitted(project, "tool:pre", bash("ls"))
    message = f"{SETTINGS}:10: hooks.PreToolUse[0].hooks[0].retries: unknown key 'retries'"
    assert message in caplog.text
    assert result.action == "deny"
    assert message in (result.reason or "")
    assert ran.exists()


async def test_with_strict_off_an_unknown_key_warns_and_lets_the_call_through(
    project: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    write_settings(
        project,
        pre_bash(
            {"type": "websocket", "url": "ws://x"}, {"type": "command", "command": touch(ran)}
        ),
    )
    result = await emitted(project, "tool:pre", bash("ls"), config={"strict": False})
    assert result.action != "deny"
    assert ran.exists()


async def test_an_unknown_key_in_a_plugin_fails_only_its_hook_closed_too(
    project: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    root = tmp_path / "plugins" / "newer"
    claude_plugin(root)
    hooks = pre_bash(
        {"type": "command", "command": "true", "if": "Bash(git push *)", "priority": 1},
        {"type": "command", "command": touch(ran)},
    )
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=2))
    coordinator, cleanup = await mounted(project, {"plugins": [str(tmp_path / "plugins")]})
    try:
        status = await coordinator.hooks.emit("tool:pre", bash("git status"))
        push = await coordinator.hooks.emit("tool:pre", bash("git push"))
    finally:
        await cleanup()
    assert status.action != "deny"  # its valid `if` still narrows what it guards
    assert push.action == "deny"
    assert "hooks.PreToolUse[0].hooks[0].priority: unknown key 'priority'" in (push.reason or "")
    assert ran.exists()


_UNKNOWN_KEYS = st.sampled_from(["retries", "priority", "onSuccess", "x-future", "Timeout"])
_UNKNOWN_VALUES = st.sampled_from(
    [("type", "websocket"), ("shell", "zsh"), ("onFailure", "retry"), ("if", "Bash(git")]
)


@given(
    st.lists(st.lists(st.booleans(), min_size=1, max_size=3), min_size=1, max_size=3),
    st.data(),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_unknown_keys_at_random_positions_never_cost_the_siblings(
    shape: list[list[bool]], data: st.DataObject
) -> None:
    groups = []
    broken: set[tuple[int, int]] = set()
    for g, hooks in enumerate(shape):
        group_broken = data.draw(st.integers(0, 9)) == 0
        group: dict[str, Any] = {"matcher": "Bash", "hooks": []}
        if group_broken:
            group[data.draw(_UNKNOWN_KEYS)] = True
        for h, bad in enumerate(hooks):
            hook: dict[str, Any] = {"type": "command", "command": f"echo {g}.{h}"}
            if bad:
                if data.draw(st.booleans()):
                    hook[data.draw(_UNKNOWN_KEYS)] = data.draw(st.integers())
                else:
                    key, value = data.draw(_UNKNOWN_VALUES)
                    hook[key] = value
            if bad or group_broken:
                broken.add((g, h))
            group["hooks"].append(hook)
        groups.append(group)
    text = json.dumps({"hooks": {"PreToolUse": groups}}, indent=2)
    for parse in (parse_claude_settings, parse_claude_plugin_hooks):
        document = parse(text, SETTINGS)
        [block] = document.events
        for g, step in enumerate(block.steps):
            assert not isinstance(step, CommandHookSpec)
            for h, entry in enumerate(step.hooks):  # type: ignore[union-attr]
                if (g, h) in broken:
                    assert isinstance(entry.spec, UnreadableHookSpec)
                    assert f"{SETTINGS}:" in entry.spec.problem
                    assert f"hooks.PreToolUse[{g}]" in entry.spec.problem
                else:
                    assert isinstance(entry.spec, CommandHookSpec)
                    assert entry.spec.command == f"echo {g}.{h}"


async def test_a_plugins_exec_form_hook_gets_its_root_unquoted(
    project: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    root = tmp_path / "plugin cache" / "exec"
    claude_plugin(root)
    (root / "hooks" / "record.py").write_text(
        "import sys\nopen(sys.argv[1], 'w').write(sys.argv[2])\n"
    )
    hook = {
        "type": "command",
        "command": "python3",
        "args": ["${CLAUDE_PLUGIN_ROOT}/hooks/record.py", str(out), "${CLAUDE_PLUGIN_ROOT}"],
    }
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": pre_bash(hook)}))
    coordinator, cleanup = await mounted(project, {"plugins": [str(root)]})
    try:
        await coordinator.hooks.emit("tool:pre", bash("ls"))
    finally:
        await cleanup()
    assert out.read_text() == str(root.resolve())


def _run_settings(hooks: dict[str, Any], config: dict[str, Any]) -> tuple[str, list[str]]:
    """Mount a fresh project holding ``hooks`` and emit one Bash call: the result's action and
    what the hooks appended to ``ran``."""

    async def go(project: Path) -> str:
        result = await emitted(project, "tool:pre", bash("ls"), config=config)
        return str(result.action)

    with tempfile.TemporaryDirectory() as directory:
        project = Path(directory).resolve()
        text = json.dumps({"hooks": hooks}).replace("@RAN@", str(project / "ran"))
        (project / ".claude").mkdir()
        (project / SETTINGS).write_text(text)
        trust_project(project)
        action = asyncio.run(go(project))
        ran = project / "ran"
        return action, sorted(ran.read_text().split()) if ran.exists() else []


@given(
    st.lists(st.lists(st.booleans(), min_size=1, max_size=3), min_size=1, max_size=3),
    st.booleans(),
    st.data(),
)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_mounted_session_runs_every_readable_hook_whatever_its_siblings_carry(
    shape: list[list[bool]], strict: bool, data: st.DataObject
) -> None:
    groups = []
    readable = []
    for g, hooks in enumerate(shape):
        entries: list[dict[str, Any]] = []
        for h, bad in enumerate(hooks):
            hook: dict[str, Any] = {"type": "command", "command": f"echo {g}.{h} >> '@RAN@'"}
            if bad:
                key, value = (
                    data.draw(_UNKNOWN_VALUES)
                    if data.draw(st.booleans())
                    else (
                        data.draw(_UNKNOWN_KEYS),
                        1,
                    )
                )
                hook[key] = value
            else:
                readable.append(f"{g}.{h}")
            entries.append(hook)
        groups.append({"matcher": "Bash", "hooks": entries})
    action, ran = _run_settings({"PreToolUse": groups}, {"strict": strict})
    assert ran == sorted(readable)  # every readable hook ran, each to its end
    assert (action == "deny") is (strict and len(readable) < sum(map(len, shape)))


async def test_a_newer_event_is_named_and_skipped_while_the_files_guards_run(
    project: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ran = tmp_path / "ran"
    hooks = {
        "PreModelRequest": [{"hooks": [{"type": "command", "command": "exit 2"}]}],
        **pre_bash({"type": "command", "command": guard(ran)}),
    }
    write_settings(project, hooks)
    with caplog.at_level(logging.WARNING):
        result = await emitted(project, "tool:pre", bash("ls"))
    assert (
        f"{SETTINGS}:3: hooks.PreModelRequest: Claude Code event 'PreModelRequest' is not known "
        "here and never fires"
    ) in caplog.text
    assert result.action == "deny"
    assert ran.exists()


def test_a_misspelt_event_is_still_an_error() -> None:
    text = json.dumps({"hooks": {"PreToolUze": []}})
    with pytest.raises(ValueError, match="did you mean 'PreToolUse'"):
        parse_claude_settings(text, SETTINGS)


def test_hooks_list_shows_a_hooks_if_and_an_unreadable_hooks_problem(project: Path) -> None:
    from amplifier_module_hooks_declarative import parse_config
    from amplifier_module_hooks_declarative.survey import survey_sources

    write_settings(
        project,
        pre_bash(
            {"type": "command", "command": "echo guard", "if": "Bash(git push *)"},
            {"type": "command", "command": "true", "retries": 2},
        ),
    )
    survey = survey_sources(parse_config({}), project_dir=project, user_dir=project / "user")
    details = [hook.detail for hook in survey.hooks]
    assert details[0] == "echo guard (if Bash(git push *))"
    assert details[1].startswith(f"unreadable: {SETTINGS}:15: hooks.PreToolUse[0].hooks[1].retries")
