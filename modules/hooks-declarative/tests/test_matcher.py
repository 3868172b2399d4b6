"""Matcher hooks: tool-name globs and Claude Code matchers, path and string argument globs,
regular expressions, and the decision each action produces."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_declarative import HookContext, MatcherHookSpec, MatcherRunner
from amplifier_module_hooks_declarative.patterns import (
    compile_arg_pattern,
    compile_claude_matcher,
    compile_tool_pattern,
    is_path_key,
    tool_names,
)

PROJECT = "/work/project"


def context(
    tool: str | None = "bash", args: dict[str, Any] | None = None, **data: Any
) -> HookContext:
    return HookContext(
        event="tool:pre" if tool else "prompt:submit",
        alias="PreToolUse" if tool else "PromptSubmit",
        data={"tool_name": tool, "tool_input": args or {}} if tool else data,
        session_id="s-1",
        project_dir=PROJECT,
        tool=tool,
        args=args or {},
    )


def rule(match: dict[str, Any], action: str = "block", **extra: Any) -> MatcherRunner:
    spec = MatcherHookSpec.model_validate(
        {"type": "matcher", "match": match, "action": action, **extra}
    )
    return MatcherRunner(spec, label="hooks.yaml:hooks.PreToolUse[0]", project_dir=PROJECT)


# ----------------------------------------------------------------------- tool names


@pytest.mark.parametrize(
    ("pattern", "tool", "expected"),
    [
        ("Bash", "bash", True),  # the Claude Code name of our tool
        ("Bash", "Bash", True),
        ("bash", "bash", True),
        ("Bash", "bashful", False),
        ("BASH", "bash", False),  # case-sensitive
        ("Write", "write_file", True),
        ("Write|Edit", "edit_file", True),
        ("Write|Edit", "write_file", True),
        ("Write | Edit", "edit_file", True),  # spaces around | are ignored
        ("Write|Edit", "bash", False),
        ("MultiEdit", "edit_file", True),
        ("Read", "read_file", True),
        ("TodoWrite", "todo", True),
        ("*_file", "write_file", True),
        ("*_file", "bash", False),
        ("mcp__*", "mcp__memory__save", True),
        ("*", "anything", True),
        ("", "anything", True),
        ("Bash|*", "anything", True),
        ("read_*", "Read", True),  # a Claude-named tool also has our name
    ],
)
def test_tool_globs(pattern: str, tool: str, expected: bool) -> None:
    assert compile_tool_pattern(pattern)(tool) is expected


@pytest.mark.parametrize(
    ("pattern", "tool", "expected"),
    [
        ("^(Bash|Write)$", "write_file", True),
        ("^Bash$", "bash", True),
        ("file", "read_file", True),  # searched, not anchored
        ("^file", "read_file", False),
    ],
)
def test_tool_regex(pattern: str, tool: str, expected: bool) -> None:
    assert compile_tool_pattern(pattern, regex=True)(tool) is expected


def test_tool_names_go_both_ways() -> None:
    assert tool_names("bash") == ("bash", "Bash")
    assert tool_names("Write") == ("Write", "write_file")
    assert tool_names("edit_file") == ("edit_file", "Edit", "MultiEdit")
    assert tool_names("custom") == ("custom",)


@pytest.mark.parametrize(
    ("matcher", "tool", "expected"),
    [
        (None, "bash", True),
        ("", "bash", True),
        ("*", "bash", True),
        ("Bash", "bash", True),
        ("Bash", "Bash", True),
        ("Bas", "bash", False),  # simple names are exact, as in Claude Code
        ("Edit|Write", "write_file", True),
        ("Edit|Write", "read_file", False),
        ("Notebook.*", "NotebookEdit", True),
        ("mcp__memory__.*", "mcp__memory__create", True),
        ("mcp__memory__.*", "mcp__github__issue", False),
        ("Web.*", "web_fetch", True),  # via its Claude Code name WebFetch
    ],
)
def test_claude_code_matchers(matcher: str | None, tool: str, expected: bool) -> None:
    assert compile_claude_matcher(matcher)(tool) is expected


def test_invalid_regexes_raise() -> None:
    with pytest.raises(re.error):
        compile_claude_matcher("Bash(")
    with pytest.raises(re.error):
        compile_tool_pattern("(", regex=True)
    with pytest.raises(re.error):
        compile_arg_pattern("command", "[", regex=True)


# ----------------------------------------------------------------------- argument globs


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/.env*", ".env", True),
        ("**/.env*", "config/.env.local", True),
        ("**/.env*", "a/b/c/.env.production", True),
        ("**/.env*", f"{PROJECT}/.env", True),
        ("**/.env*", "/somewhere/else/.env", True),
        ("**/.env*", "./config/../.env", True),  # normalised first
        ("**/.env*", "config/env", False),
        ("**/.env*", "src/main.py", False),
        ("**/.env*", "x.env", False),
        (".env*", "deep/dir/.env.local", True),  # no slash: the last component, any depth
        ("*.py", "src/pkg/a.py", True),
        ("*.py", "src/pkg/a.pyc", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),  # * stays inside one directory
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/sub/deeper/a.py", True),
        ("src/**", "src/sub/a.py", True),
        ("config/*.yaml", f"{PROJECT}/config/app.yaml", True),  # project-relative
        ("config/*.yaml", "/elsewhere/config/app.yaml", False),
        ("/etc/**", "/etc/passwd", True),
        ("/etc/**", "etc/passwd", False),
        (f"{PROJECT}/secrets/*", "secrets/key.pem", True),  # relative value, absolute rule
        ("[ab].txt", "dir/a.txt", True),
        ("[!ab].txt", "dir/a.txt", False),
        ("[!ab].txt", "dir/c.txt", True),
        ("file?.md", "file1.md", True),
        ("file?.md", "file/.md", False),
    ],
)
def test_path_globs(pattern: str, path: str, expected: bool) -> None:
    assert compile_arg_pattern("file_path", pattern)(path, PROJECT) is expected


def test_home_in_path_patterns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    test = compile_arg_pattern("path", "~/.ssh/*")
    assert test(str(tmp_path / ".ssh" / "id_rsa"), PROJECT)
    assert test("~/.ssh/config", PROJECT)
    assert not test(str(tmp_path / "notes" / "id_rsa"), PROJECT)


@pytest.mark.parametrize(
    ("pattern", "command", "expected"),
    [
        ("rm *", "rm -rf /tmp/build", True),  # * crosses / in a string glob
        ("rm *", "rm x", True),
        ("rm *", "sudo rm -rf /", False),  # the whole string must match
        ("rm *", "rmdir x", False),
        ("*rm -rf*", "cd /tmp && rm -rf build", True),
        ("git push --force*", "git push --force origin main", True),
        ("git push --force*", "git push origin", False),
    ],
)
def test_string_globs(pattern: str, command: str, expected: bool) -> None:
    assert compile_arg_pattern("command", pattern)(command, PROJECT) is expected


def test_which_keys_are_paths() -> None:
    for key in ("path", "file_path", "notebook_path", "output_path", "cwd", "work_dir"):
        assert is_path_key(key), key
    for key in ("command", "content", "pattern", "url"):
        assert not is_path_key(key), key


def test_list_and_non_string_values() -> None:
    any_env = compile_arg_pattern("paths", "**/.env*")
    assert any_env(["README.md", "config/.env"], PROJECT)
    assert not any_env(["README.md", 3], PROJECT)
    timeout = compile_arg_pattern("timeout", "6*")
    assert timeout(600, PROJECT)
    flags = compile_arg_pattern("options", '*"force": true*')
    assert flags({"force": True}, PROJECT)


def test_regex_arguments_are_searched() -> None:
    test = compile_arg_pattern("command", r"rm\s+-(rf|fr)\b", regex=True)
    assert test("cd x && rm  -rf build", PROJECT)
    assert not test("rm -r build", PROJECT)


# ----------------------------------------------------------------------- the runner


async def test_the_issue_rule_blocks_rm_in_bash() -> None:
    runner = rule(
        {"tool": "Bash", "args": {"command": "rm *"}},
        message="Destructive rm commands require confirmation",
    )
    blocked = await runner.run(context("bash", {"command": "rm -rf build"}))
    assert blocked.action == "block"
    assert blocked.message == "Destructive rm commands require confirmation"
    assert blocked.source == "hooks.yaml:hooks.PreToolUse[0]"
    passed = await runner.run(context("bash", {"command": "ls -la"}))
    assert passed.action == "continue"
    other_tool = await runner.run(context("write_file", {"command": "rm -rf build"}))
    assert other_tool.action == "continue"


async def test_the_issue_rule_blocks_env_files_with_path_meaning_file_path() -> None:
    runner = rule({"tool": "Write", "args": {"path": "**/.env*"}}, message="no env files")
    for path in (".env", "config/.env.local", f"{PROJECT}/.env"):
        decision = await runner.run(context("write_file", {"file_path": path, "content": "x"}))
        assert decision.action == "block", path
    decision = await runner.run(context("write_file", {"file_path": "notes.md", "content": "x"}))
    assert decision.action == "continue"
    legacy = await runner.run(context("write_file", {"path": ".env"}))
    assert legacy.action == "block"


async def test_every_argument_must_match_and_missing_ones_do_not() -> None:
    runner = rule({"tool": "Edit", "args": {"file_path": "*.py", "new_string": "*eval(*"}})
    hit = context("edit_file", {"file_path": "a.py", "new_string": "x = eval(y)"})
    assert (await runner.run(hit)).action == "block"
    miss = context("edit_file", {"file_path": "a.py", "new_string": "x = 1"})
    assert (await runner.run(miss)).action == "continue"
    absent = context("edit_file", {"file_path": "a.py"})
    assert (await runner.run(absent)).action == "continue"


async def test_regex_form() -> None:
    runner = rule({"tool": "^bash$", "args": {"command": r"curl .*\|\s*sh"}, "regex": True})
    assert (await runner.run(context("bash", {"command": "curl x.sh | sh"}))).action == "block"
    assert (await runner.run(context("bash", {"command": "curl x.sh"}))).action == "continue"


async def test_events_without_a_tool_match_their_data() -> None:
    runner = rule({"args": {"prompt": "*password*"}}, message="no secrets in prompts")
    decision = await runner.run(context(None, prompt="my password is hunter2"))
    assert decision.action == "block"
    assert (await runner.run(context(None, prompt="hello"))).action == "continue"
    tool_rule = rule({"tool": "Bash"})
    assert (await tool_rule.run(context(None, prompt="rm"))).action == "continue"
    catch_all = rule({}, action="allow", message="seen")
    seen = await catch_all.run(context(None, prompt="x"))
    assert (seen.action, seen.message) == ("allow", "seen")


async def test_actions_and_default_messages() -> None:
    hit = context("bash", {"command": "git push"})
    ask = await rule({"tool": "Bash"}, action="ask").run(hit)
    assert ask.action == "ask"
    assert ask.message == "Allow bash? (matcher hook hooks.yaml:hooks.PreToolUse[0])"
    asked = await rule({"tool": "Bash"}, action="ask", message="Push to the remote?").run(hit)
    assert asked.message == "Push to the remote?"
    block = await rule({"tool": "Bash"}).run(hit)
    assert block.message == "blocked by matcher hook hooks.yaml:hooks.PreToolUse[0]"
    allow = await rule({"tool": "Bash"}, action="allow").run(hit)
    assert (allow.action, allow.message) == ("allow", None)


class Hostile:
    def __str__(self) -> str:
        raise RuntimeError("unprintable")

    __repr__ = __str__


@pytest.mark.parametrize(("policy", "action"), [("block", "block"), ("warn", "continue")])
async def test_a_rule_that_fails_follows_on_failure(policy: str, action: str) -> None:
    runner = rule({"tool": "Bash", "args": {"command": "rm *"}}, on_failure=policy)
    decision = await runner.run(context("bash", {"command": Hostile()}))
    assert decision.action == action
    assert decision.message is not None
    assert "matching raised RuntimeError: unprintable" in decision.message
