"""Every config key, each shown doing what the README says; bad config rejected clearly."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.state import session_dir

from amplifier_core.hooks import HookRegistry
from amplifier_core.testing import MockCoordinator
from amplifier_module_hooks_approval import ApprovalConfig, RuleConfig, mount, parse_config

from .support import bash, records

WRITE = {"tool_name": "write_file", "tool_input": {"file_path": "a.txt", "content": "hi\n"}}
READ = {"tool_name": "read_file", "tool_input": {"file_path": "a.txt"}}


async def emit(coordinator: MockCoordinator, config: dict[str, Any], data: dict[str, Any]) -> Any:
    await mount(coordinator, {"audit_log": None, **config})
    return await coordinator.hooks.emit("tool:pre", data)


def test_defaults() -> None:
    config = parse_config(None)
    assert config == parse_config({})
    assert config.tools == ("bash", "write_file", "edit_file")
    assert (config.default_action, config.other_tools_action) == ("ask", "allow")
    assert config.approval_options == ("Allow once", "Allow always", "Deny")
    assert (config.approval_timeout, config.approval_default) == (300.0, "deny")
    assert config.audit_log == "{session_dir}/approvals.jsonl"
    assert config.builtin_rules
    assert config.fail_closed
    assert config.emit_approval_events
    assert (config.max_command_chars, config.preview_lines, config.preview_line_chars) == (
        2000,
        10,
        200,
    )
    assert config.priority == 900
    assert (config.decision_timeout, config.decision_steps) == (2.0, None)


async def test_tools(coordinator: MockCoordinator) -> None:
    result = await emit(coordinator, {"tools": ["read_*"]}, READ)
    assert result.action == "ask_user"
    assert (await coordinator.hooks.emit("tool:pre", WRITE)).action == "continue"
    assert parse_config({"tools": "bash"}).tools == ("bash",)
    coordinator.hooks.unregister("hooks-approval")
    nothing_gated = await emit(coordinator, {"tools": []}, bash("rm -rf /"))
    assert nothing_gated.action == "continue"


@pytest.mark.parametrize(
    ("value", "action"), [("allow", "continue"), ("deny", "deny"), ("ask", "ask_user")]
)
async def test_default_action(coordinator: MockCoordinator, value: str, action: str) -> None:
    result = await emit(coordinator, {"default_action": value}, WRITE)
    assert result.action == action
    if value == "deny":
        assert result.reason == (
            "hooks-approval: this write_file call is denied by default_action 'deny' "
            "(no rule allows it)"
        )


@pytest.mark.parametrize(
    ("value", "action"), [("allow", "continue"), ("deny", "deny"), ("ask", "ask_user")]
)
async def test_other_tools_action(coordinator: MockCoordinator, value: str, action: str) -> None:
    result = await emit(coordinator, {"other_tools_action": value}, READ)
    assert result.action == action
    if value == "ask":
        assert result.approval_prompt.endswith(
            "Why asked: other_tools_action is 'ask' and no rule decided this call."
        )


async def test_builtin_rules(coordinator: MockCoordinator) -> None:
    assert (await emit(coordinator, {}, bash("git status"))).action == "continue"
    coordinator.hooks.unregister("hooks-approval")
    assert (
        await emit(coordinator, {"builtin_rules": False}, bash("git status"))
    ).action == "ask_user"


async def test_rules_and_each_rule_key(coordinator: MockCoordinator, workspace: Path) -> None:
    config = {
        "rules": [
            {
                "name": "tests",
                "action": "allow",
                "tools": "bash",
                "command": ["pytest", "pytest *"],
            },
            {"action": "allow", "command_regex": r"make (lint|fmt)"},
            {"name": "docs", "action": "allow", "tools": ["write_file"], "path": "docs/**"},
            {"name": "locks", "action": "deny", "path_regex": r".*\.lock", "reason": "generated"},
            {"name": "pipe", "action": "allow", "command": "cat *", "allow_operators": ["|"]},
            {"name": "push", "action": "ask", "command": "git push*"},
        ],
        "default_action": "deny",
    }
    await mount(coordinator, {"audit_log": None, **config})

    async def action(data: dict[str, Any]) -> tuple[str, str | None]:
        result = await coordinator.hooks.emit("tool:pre", data)
        return result.action, result.reason

    def write(path: str) -> dict[str, Any]:
        return {"tool_name": "write_file", "tool_input": {"file_path": path, "content": "x"}}

    assert (await action(bash("pytest -q")))[0] == "continue"  # command (a list of globs)
    assert (await action(bash("make lint")))[0] == "continue"  # command_regex, unnamed rule
    assert (await action(write("docs/guide/a.md")))[0] == "continue"  # path, tools
    assert (await action(write("src/a.md")))[0] == "deny"
    assert await action(write("poetry.lock")) == (  # path_regex, name, reason
        "deny",
        "hooks-approval: rule 'locks' denies this write_file call: generated",
    )
    assert (await action(bash("cat a | wc -l")))[0] == "continue"  # allow_operators
    assert (await action(bash("cat a > b")))[0] == "deny"
    assert (await action(bash("git push")))[0] == "ask_user"  # action: ask
    unnamed = parse_config(config)
    assert isinstance(unnamed.rules[1], RuleConfig)
    assert unnamed.rules[1].name is None


async def test_approval_options_timeout_and_default(coordinator: MockCoordinator) -> None:
    config = {
        "approval_options": ["Yes", "Yes, always", "No"],
        "approval_timeout": 12.5,
        "approval_default": "allow",
    }
    result = await emit(coordinator, config, bash("make"))
    assert result.action == "ask_user"
    assert result.approval_options == ["Yes", "Yes, always", "No"]
    assert result.approval_timeout == 12.5
    assert result.approval_default == "allow"
    assert result.reason == "hooks-approval: default_action is 'ask'"


async def test_ask_user_defaults(coordinator: MockCoordinator) -> None:
    result = await emit(coordinator, {}, bash("make"))
    assert result.approval_options == ["Allow once", "Allow always", "Deny"]
    assert (result.approval_timeout, result.approval_default) == (300.0, "deny")


async def test_audit_log_template_is_relative_to_the_workspace(
    coordinator: MockCoordinator, workspace: Path
) -> None:
    await mount(coordinator, {"audit_log": "logs/{session_id}/approvals.jsonl"})
    await coordinator.hooks.emit("tool:pre", bash("ls"))
    (record,) = records(workspace / "logs" / "test-session" / "approvals.jsonl")
    assert record["rule"] == "builtin:list-files"


async def test_audit_log_default_is_the_sessions_state_directory(
    coordinator: MockCoordinator, workspace: Path
) -> None:
    await mount(coordinator, {})
    await coordinator.hooks.emit("tool:pre", bash("pwd"))
    assert (session_dir("test-session", working_dir=workspace) / "approvals.jsonl").is_file()
    assert not (workspace / ".amplifier").exists()


async def test_audit_log_expands_home_and_null_turns_it_off(
    coordinator: MockCoordinator, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    await mount(coordinator, {"audit_log": "~/audit/{session_id}.jsonl"})
    await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert (tmp_path / "home" / "audit" / "test-session.jsonl").is_file()

    quiet = MockCoordinator()
    quiet.register_capability("session.working_dir", str(workspace))
    await mount(quiet, {"audit_log": None})
    await quiet.hooks.emit("tool:pre", bash("ls"))
    assert not (workspace / ".amplifier").exists()


async def test_audit_log_session_ids_cannot_climb_out(workspace: Path) -> None:
    coordinator = MockCoordinator(session_id="../../etc/evil")
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, {"audit_log": "audit/{session_id}.jsonl"})
    await coordinator.hooks.emit("tool:pre", bash("ls"))
    assert [p.name for p in (workspace / "audit").iterdir()] == [".._.._etc_evil.jsonl"]


async def test_redact_audit_log(coordinator: MockCoordinator, tmp_path: Path) -> None:
    token = "ghp_" + "Zx9" * 12
    for enabled in (True, False):
        log = tmp_path / f"{enabled}.jsonl"
        cleanup = await mount(coordinator, {"audit_log": str(log), "redact_audit_log": enabled})
        await coordinator.hooks.emit("tool:pre", bash(f"echo {token}"))
        cleanup()
        assert (token in log.read_text()) is not enabled


async def test_emit_approval_events() -> None:
    class Coordinator:  # a kernel whose coordinator does not run an approval gate
        def __init__(self) -> None:
            self.hooks = HookRegistry()
            self.session_id = "s"

    seen: dict[bool, list[str]] = {True: [], False: []}
    for enabled, events in seen.items():
        coordinator = Coordinator()
        coordinator.hooks.register("approval:*", lambda e, d, got=events: got.append(e), name="obs")
        await mount(coordinator, {"audit_log": None, "emit_approval_events": enabled})
        await coordinator.hooks.emit("tool:pre", bash("make"))
    assert seen == {True: ["approval:required"], False: []}


async def test_max_command_chars(coordinator: MockCoordinator) -> None:
    result = await emit(coordinator, {"max_command_chars": 80}, bash("echo " + "q" * 200))
    assert "… [125 characters elided] …" in result.approval_prompt


async def test_preview_lines_and_line_chars(coordinator: MockCoordinator) -> None:
    content = "\n".join("w" * 50 for _ in range(5))
    data = {"tool_name": "write_file", "tool_input": {"file_path": "a", "content": content}}
    result = await emit(coordinator, {"preview_lines": 2, "preview_line_chars": 20}, data)
    lines = result.approval_prompt.splitlines()
    assert lines[3:6] == [
        "  1 | " + "w" * 20 + " … (+30 characters)",
        "  2 | " + "w" * 20 + " … (+30 characters)",
        "  … 3 more lines",
    ]
    coordinator.hooks.unregister("hooks-approval")
    none = await emit(coordinator, {"preview_lines": 0}, data)
    assert none.approval_prompt.splitlines()[2:] == [
        "Content: 254 bytes in 5 lines, sha256 "
        + hashlib.sha256(content.encode()).hexdigest()[:16],
        "Why asked: write_file needs approval and no rule decided this call.",
    ]


async def test_priority(coordinator: MockCoordinator) -> None:
    await mount(coordinator, {"audit_log": None, "priority": -5})
    (info,) = coordinator.hooks.handlers_for("tool:pre")
    assert (info.name, info.priority) == ("hooks-approval", -5)
    coordinator.hooks.unregister("hooks-approval")
    await mount(coordinator, {"audit_log": None})
    (info,) = coordinator.hooks.handlers_for("tool:pre")
    assert info.priority == 900


async def test_priority_late_judges_the_modified_input(coordinator: MockCoordinator) -> None:
    def rewrite(event: str, data: dict[str, Any]) -> Any:
        from amplifier_core.models import HookResult

        return HookResult(action="modify", data={**data, "tool_input": {"command": "ls"}})

    coordinator.hooks.register("tool:pre", rewrite, priority=0, name="rewrite")
    result = await emit(coordinator, {}, bash("rm -rf /"))
    assert result.action == "continue"  # the approval hook saw "ls" and let it through


@pytest.mark.parametrize(("fail_closed", "action"), [(True, "deny"), (False, "continue")])
async def test_fail_closed(coordinator: MockCoordinator, fail_closed: bool, action: str) -> None:
    data = {"tool_name": "write_file", "tool_input": {"file_path": "a\x00b", "content": "x"}}
    result = await emit(coordinator, {"fail_closed": fail_closed}, data)
    assert result.action == action
    if fail_closed:
        assert result.reason == (
            "hooks-approval: could not decide whether this call needs approval "
            "(ValueError: embedded null byte); denied because fail_closed is true"
        )


@pytest.mark.parametrize(("default", "action"), [("ask", "ask_user"), ("deny", "deny")])
async def test_decision_timeout(coordinator: MockCoordinator, default: str, action: str) -> None:
    # a deadline of 0 has passed before the first step: nothing is read, nothing allowed;
    # ``ls`` (a built-in allow) is asked, or denied under default_action deny
    config = {"decision_timeout": 0, "default_action": default}
    result = await emit(coordinator, config, bash("ls"))
    assert result.action == action
    assert "could not be read within decision_timeout (0 s)" in (result.reason or "")


async def test_decision_steps(coordinator: MockCoordinator) -> None:
    # the same command is allowed within its steps and asked past them, on any machine
    assert (await emit(coordinator, {"decision_steps": 10_000}, bash("ls -la"))).action == (
        "continue"
    )
    result = await emit(coordinator, {"decision_steps": 50}, bash("ls " + "a " * 200))
    assert result.action == "ask_user"
    assert "or decision_steps (50)" in (result.reason or "")


def test_every_key_has_a_test_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    for key in ApprovalConfig.model_fields:
        assert f"def test_{key}" in source or f'"{key}"' in source, key
    for key in RuleConfig.model_fields:
        assert f'"{key}"' in source, key


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"tool": ["bash"]}, "tool: unknown key 'tool' (did you mean 'tools'?)"),
        ({"tools": [""]}, "tools[0]: must be a non-empty string"),
        (
            {"default_action": "maybe"},
            "default_action: expected one of 'allow', 'ask' or 'deny', got str 'maybe'",
        ),
        (
            {"other_tools_action": 1},
            "other_tools_action: expected one of 'allow', 'ask' or 'deny', got int 1",
        ),
        (
            {"builtin_rules": "sometimes"},
            "builtin_rules: expected true or false, got str 'sometimes'",
        ),
        ({"rules": {"action": "deny"}}, "rules: expected a list, got a mapping"),
        ({"rules": [{}]}, "rules[0].action: missing required key 'action'"),
        (
            {"rules": [{"action": "deny", "comand": "rm*"}]},
            "rules[0].comand: unknown key 'comand' (did you mean 'command'?)",
        ),
        (
            {"rules": [{"action": "allow", "command_regex": "("}]},
            "rules[0].command_regex[0]: not a valid regular expression (missing ), "
            "unterminated subpattern at position 0): '('",
        ),
        (
            {"rules": [{"action": "allow", "path_regex": ["ok", "[a"]}]},
            "rules[0].path_regex[1]: not a valid regular expression",
        ),
        (
            {"rules": [{"action": "allow", "path": " "}]},
            "rules[0].path[0]: a path glob must not be empty",
        ),
        (
            {"rules": [{"action": "allow", "tools": []}]},
            "rules[0].tools: expected at least 1 item, got 0 items",
        ),
        (
            {"rules": [{"action": "allow", "allow_operators": ["&&", "%"]}]},
            "rules[0].allow_operators[1]: unknown shell operator '%'; expected one of: "
            "; && || | & > < $( ` ( ) newline",
        ),
        (
            {"rules": [{"action": "allow", "allow_operators": 3}]},
            "rules[0].allow_operators: expected true or false or a list, got int 3",
        ),
        (
            {"rules": [{"action": "deny", "allow_operators": True}]},
            "rules[0]: allow_operators: only an allow rule can allow shell operators",
        ),
        (
            {"rules": [{"action": "ask", "allow_flags": ["--junitxml"]}]},
            "rules[0]: allow_flags: only an allow rule can allow writing options",
        ),
        (
            {"rules": [{"action": "deny", "name": "x"}, {"action": "ask", "name": "x"}]},
            "rules[1].name: 'x' is already the name of rules[0]",
        ),
        (
            {"rules": [{"action": "deny", "name": "builtin:mine"}]},
            "rules[0].name: 'builtin:mine' is reserved",
        ),
        (
            {"rules": [{"action": "deny", "reason": ""}]},
            "rules[0].reason: must be a non-empty string",
        ),
        ({"approval_options": []}, "approval_options: expected at least 1 item, got 0 items"),
        (
            {"approval_options": ["Allow", "Allow"]},
            "approval_options: ['Allow', 'Allow'] repeats an option",
        ),
        ({"approval_timeout": 0}, "approval_timeout: expected a number greater than 0, got int 0"),
        (
            {"approval_default": "ask"},
            "approval_default: expected one of 'allow' or 'deny', got str 'ask'",
        ),
        (
            {"audit_log": "{user}/a.jsonl"},
            "audit_log: uses unknown placeholder {user}; allowed: {home}, {project}, "
            "{session_dir}, {session_id}, {state}",
        ),
        (
            {"audit_log": "a/{session_id!r}.jsonl"},
            "audit_log: placeholder {session_id} must not carry a format spec",
        ),
        ({"audit_log": "a/{"}, "audit_log: is not a valid path template"),
        ({"audit_log": ""}, "audit_log: must be a path template, or null"),
        (
            {"emit_approval_events": "yes please"},
            "emit_approval_events: expected true or false, got str 'yes please'",
        ),
        (
            {"max_command_chars": 10},
            "max_command_chars: expected a number at least 80, got int 10",
        ),
        ({"preview_lines": -1}, "preview_lines: expected a number at least 0, got int -1"),
        (
            {"preview_line_chars": 5},
            "preview_line_chars: expected a number at least 20, got int 5",
        ),
        ({"priority": "late"}, "priority: expected an integer, got str 'late'"),
        ({"fail_closed": "maybe"}, "fail_closed: expected true or false, got str 'maybe'"),
        ({"decision_timeout": -1}, "decision_timeout: expected a number at least 0, got int -1"),
        ({"decision_steps": -1}, "decision_steps: expected a number at least 0, got int -1"),
        (["bash"], "expected a mapping of keys, got a list"),
    ],
)
async def test_bad_config_is_rejected_clearly(
    coordinator: MockCoordinator, config: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=r"^hooks-approval: config: ") as caught:
        await mount(coordinator, config)
    assert message in str(caught.value)
    assert coordinator.hooks.list_handlers("tool:pre") == {"tool:pre": []}


def test_config_is_frozen() -> None:
    config = parse_config({})
    with pytest.raises(ValueError, match="frozen"):
        config.tools = ("x",)
    assert config.tools == ("bash", "write_file", "edit_file")
