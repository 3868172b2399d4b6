"""Options that write or delete are never approved by a rule that names the program.

The attacks run for real: a workspace with a test suite and a git repository, the module
mounted on a real coordinator whose approval system denies every question, and each command
run by bash only when the kernel let it through. Nothing the human was not asked about may
empty a directory or overwrite a file.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.approval import StaticApprovalSystem
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_module_hooks_approval import mount, parse_config
from amplifier_module_hooks_approval.flags import writing_flags
from amplifier_module_hooks_approval.rules import RuleSet
from amplifier_module_hooks_approval.subject import subject_of

from .support import bash, readme_rules

BROAD = [
    {"name": "tests", "action": "allow", "command": ["pytest", "pytest *", "python -m pytest *"]},
    {"name": "git", "action": "allow", "command": ["git log *", "git show *", "git diff *"]},
    {
        "name": "pipe",
        "action": "allow",
        "command_regex": r"git log [^|]*\| head -n [0-9]+",
        "allow_operators": ["|"],
    },
    {"name": "branch", "action": "allow", "command": "git branch *"},
    {"name": "tools", "action": "allow", "command": ["curl *", "sort *", "find *", "sed *"]},
]


@pytest.fixture
def project(workspace: Path) -> Path:
    """A workspace holding a passing test, a git repository with a commit, a file and a
    directory of precious things."""
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (workspace / "precious").mkdir()
    (workspace / "precious" / "keep.txt").write_text("keep me\n")
    (workspace / "notes.txt").write_text("my notes\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    for argv in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", "init"],
        ["git", "branch", "keep"],
    ):
        subprocess.run(argv, cwd=workspace, env=env, check=True)
    return workspace


async def run_through_gate(workspace: Path, rules: list[dict[str, Any]], command: str) -> str:
    """Ask the module about ``command`` (the human says no to every question); run it with
    bash when it was let through. Returns the kernel's final action."""
    coordinator = ModuleCoordinator(approval_system=StaticApprovalSystem("deny"))
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, {"rules": rules, "audit_log": None})
    emitted = await coordinator.hooks.emit("tool:pre", bash(command))
    result = await coordinator.process_hook_result(emitted, "tool:pre", "hooks-approval")
    if result.action == "continue":
        bin_dir = str(Path(sys.executable).parent)
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            cwd=workspace,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        await asyncio.wait_for(process.wait(), 120)
    return result.action


def intact(project: Path) -> None:
    assert (project / "precious" / "keep.txt").read_text() == "keep me\n"
    assert (project / "notes.txt").read_text() == "my notes\n"
    branches = subprocess.run(
        ["git", "branch", "--list", "keep"], cwd=project, capture_output=True, text=True, check=True
    ).stdout
    assert "keep" in branches


ATTACKS = [
    "pytest -q --basetemp=precious",
    "pytest -q --basetemp precious",
    "pytest -q --base''temp=precious",
    "python -m pytest -q --basetemp=precious",
    "pytest --junitxml=notes.txt",
    "pytest --junit-xml notes.txt",
    "pytest -qo log_file=notes.txt",
    "pytest -o cache_dir=precious",
    "pytest --log-file=notes.txt",
    "pytest --debug=notes.txt",
    "pytest --result-log=notes.txt",
    "pytest --report-log=notes.txt",
    "PYTEST_ADDOPTS=--basetemp=precious pytest -q",
    "git log --output=notes.txt",
    "git log --output notes.txt",
    "git log --outp=notes.txt",
    "git show --output=notes.txt HEAD",
    "git diff --output=notes.txt HEAD",
    "git log --oneline --output=notes.txt | head -n 1",
    "git branch -D keep",
    "git branch --delete --force keep",
    "git branch --dele keep",
    "git branch -m keep gone",
    "curl -so notes.txt file:///etc/hostname",
    "curl --output notes.txt file:///etc/hostname",
    "sort -o notes.txt tests/test_ok.py",
    "find precious -delete",
    "sed -i s/keep/lost/ precious/keep.txt",
]


@pytest.mark.parametrize("command", ATTACKS)
async def test_a_writing_option_is_asked_about_and_nothing_is_destroyed(
    project: Path, command: str
) -> None:
    assert await run_through_gate(project, BROAD, command) == "deny"
    intact(project)


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q --basetemp=precious",
        "pytest --junitxml=notes.txt",
        "git log --oneline --output=notes.txt | head -n 1",
        "git log --output=notes.txt",
    ],
)
async def test_the_readme_rules_and_built_in_rules_hold(project: Path, command: str) -> None:
    assert await run_through_gate(project, readme_rules(), command) == "deny"
    intact(project)


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "pytest -q tests/test_ok.py",
        "python -m pytest -q -k ok",
        "git log --oneline -n 1",
        "git log --oneline | head -n 1",
        "git branch --list",
    ],
)
async def test_plain_uses_still_run_without_a_question(project: Path, command: str) -> None:
    assert await run_through_gate(project, BROAD, command) == "continue"
    intact(project)


async def test_allow_flags_lets_a_named_option_through(project: Path) -> None:
    rules = [{"action": "allow", "command": "pytest *", "allow_flags": ["--junitxml"]}]
    assert await run_through_gate(project, rules, "pytest -q --junitxml=report.xml") == "continue"
    assert (project / "report.xml").is_file()
    assert await run_through_gate(project, rules, "pytest -q --basetemp=precious") == "deny"
    intact(project)


def test_the_prompt_names_the_option_and_the_rule() -> None:
    rules = RuleSet(parse_config({"rules": BROAD}))
    decision = rules.decide(subject_of(bash("pytest -q --basetemp=/tmp/x"), "/ws"))
    assert decision.action == "ask"
    assert decision.near_miss is not None
    assert decision.near_miss.rule.name == "tests"
    assert decision.near_miss.operators == ("option --basetemp",)


@pytest.mark.parametrize(
    ("command", "found"),
    [
        ("pytest -kfoo -q", ()),  # -k takes a value: "foo" is not a bundle of options
        ("pytest -rA -x", ()),
        ("pytest --co -q", ()),
        ("pytest -p no:cacheprovider", ("-p",)),
        ("uv run pytest --junitxml x", ("--junitxml",)),
        ("python3 -m pytest -c other.ini", ("-c",)),
        ("git -c core.pager=sh log", ("-c",)),
        ("git --git-dir=/tmp/x log", ("--git-dir",)),
        ("git log --ext-diff -p", ("--ext-diff",)),
        ("git push --forc origin", ("--force",)),
        ("git push -uf origin main", ("-f",)),
        ("go test -coverprofile=c.out ./...", ("-coverprofile",)),
        ("mytool --output-file x", ("--output-file",)),
        ("mytool --dump=x --save-to y", ("--dump", "--save-to")),
        ("MAVEN_OPTS=-Dx=1 mvn test", ("MAVEN_OPTS=",)),
        ("npm_config_script_shell=/tmp/x npm test", ("npm_config_script_shell=",)),
        ("ls -la --color=auto", ()),
        ("git status --porcelain", ()),
        ("git diff --stat HEAD~1 -- src", ()),
    ],
)
def test_writing_options_are_read_as_the_program_parses_them(
    command: str, found: tuple[str, ...]
) -> None:
    assert writing_flags(command) == found


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_accepts_the_abbreviations_the_table_covers(project: Path) -> None:
    """Evidence for the table: git's option parser takes ``--dele`` for ``--delete``."""
    subprocess.run(["git", "branch", "scratch"], cwd=project, check=True)
    subprocess.run(
        ["git", "branch", "--dele", "scratch"], cwd=project, check=True, capture_output=True
    )
    listed = subprocess.run(
        ["git", "branch", "--list", "scratch"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert listed == ""
    assert writing_flags("git branch --dele scratch") == ("--delete",)


async def test_a_call_nested_10000_deep_is_asked_about_not_a_crash(workspace: Path) -> None:
    deep: Any = "bottom"
    for _ in range(10_000):
        deep = {"d": [deep]}
    coordinator = ModuleCoordinator(approval_system=StaticApprovalSystem("deny"))
    coordinator.register_capability("session.working_dir", str(workspace))
    await mount(coordinator, {"other_tools_action": "ask", "audit_log": str(workspace / "a.jsonl")})
    data = {"tool_name": "query", "tool_input": {"ast": deep}, "tool_call_id": "c1"}
    emitted = await coordinator.hooks.emit("tool:pre", data)
    assert emitted.action == "ask_user"
    assert emitted.approval_prompt is not None
    assert "Call query with this input?" in emitted.approval_prompt
    assert "sha256" in emitted.approval_prompt  # elided: the digest names the whole input
    result = await coordinator.process_hook_result(emitted, "tool:pre", "hooks-approval")
    assert result.action == "deny"
    assert (workspace / "a.jsonl").read_text().count("\n") == 2  # request and decision
