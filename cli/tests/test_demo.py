"""``amplifier-hooks demo``: each reference module's effect is visible in one offline session.

The demo runs once in process (its workspace kept, so the files it left can be read too), once
without git and with two modules denied, and once as the installed script with no terminal.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_cli.demo import DEMO_BUNDLE, DEMO_SCRIPT, run_demo
from rich.console import Console

SCRIPT = Path(sys.executable).with_name("amplifier-hooks")
LOADER_ENV = ("AMPLIFIER_MODULES_ALLOW", "AMPLIFIER_MODULES_DENY", "AMPLIFIER_MODULES_STRICT")
MODULES = (
    "hooks-redaction",
    "hooks-logging",
    "hooks-declarative",
    "hooks-status-context",
    "hooks-todo-reminder",
    "hooks-python-check",
    "hooks-approval",
)
SECRETS = ("ghp_Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o", "dev@example.com")
NEVER_WAITS = 600.0
"""Seconds after which the installed demo is taken to be waiting for a person (it never
should: with no terminal it answers its approvals itself); far above any machine's load."""


@dataclass(frozen=True)
class Run:
    """One in-process run of the demo: exit code, plain output, the workspace it kept."""

    code: int
    out: str
    workspace: Path

    def row(self, module: str) -> str:
        """The 'what it did' cell of ``module`` in the summary's table of modules."""
        table = self.out[self.out.index("\nmodule ") :]
        line = next((line for line in table.splitlines() if re.match(rf"{module}\s+│", line)), None)
        assert line is not None, f"no summary row for {module}:\n{self.out}"
        return line.split("│", 1)[1].strip()

    def jsonl(self, pattern: str) -> list[dict[str, Any]]:
        files = sorted(self.workspace.glob(pattern))
        assert files, f"no {pattern} in {self.workspace}"
        return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def _run(bundle: Path | None = None) -> Run:
    buffer = io.StringIO()
    console = Console(file=buffer, width=1000, color_system=None, force_terminal=False)
    code = asyncio.run(run_demo(console, keep=True, bundle_path=bundle))
    out = buffer.getvalue()
    kept = re.search(r"^workspace kept: (.+)$", out, re.MULTILINE)
    assert kept is not None, out
    return Run(code, out, Path(kept.group(1)))


def _clean_loader_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LOADER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CI", "true")


@pytest.fixture(scope="module")
def demo() -> Iterator[Run]:
    with pytest.MonkeyPatch.context() as patch:
        _clean_loader_env(patch)
        run = _run()
    try:
        yield run
    finally:
        shutil.rmtree(run.workspace, ignore_errors=True)


# -- the whole story, in process -------------------------------------------------------------


def test_every_reference_module_is_mounted_and_the_demo_exits_0(demo: Run) -> None:
    assert demo.code == 0, demo.out
    mounted = next(line for line in demo.out.splitlines() if line.startswith("mounted: "))
    assert [m.split(" ")[0] for m in mounted.removeprefix("mounted: ").split(", ")] == list(MODULES)
    assert "skipped module" not in demo.out
    assert "Traceback" not in demo.out
    assert "(a git repository: branch main, 1 commit)" in demo.out
    assert re.search(r"^\d+ events fired in 2 turns; demo finished in \d+\.\d+ s$", demo.out, re.M)


def test_redaction_rewrites_the_prompt_before_the_model_sees_it(demo: Run) -> None:
    assert "hook hooks-redaction modify on prompt:submit" in demo.out
    assert (
        "the prompt is now 'My GitHub token is [REDACTED:github_token] and my mail is "
        "[REDACTED:email]" in demo.out
    )
    assert "hooks-redaction says: Redacted 2 secrets (email: 1, github_token: 1)" in demo.out
    row = demo.row("hooks-redaction")
    assert row.startswith("Redacted 2 secrets (email: 1, github_token: 1) on prompt:submit")
    assert "the model saw 'My GitHub token is [REDACTED:github_token]" in row


def test_the_log_holds_the_session_without_a_secret(demo: Run) -> None:
    records = demo.jsonl(".amplifier/logs/*.jsonl")
    events = {r["event"] for r in records}
    assert {"session:start", "prompt:submit", "tool:pre", "tool:post", "session:end"} <= events
    text = json.dumps(records)
    assert "[REDACTED:github_token]" in text
    assert not [s for s in SECRETS if s in text]
    assert re.search(
        rf"^wrote {len(records)} lines to \.amplifier/logs/demo-\d+\.jsonl .*; no secret in the "
        r"log$",
        demo.row("hooks-logging"),
    )


def test_status_context_block_reaches_every_request_and_follows_the_tree(demo: Run) -> None:
    assert "hook hooks-status-context inject_context on provider:request" in demo.out
    assert "│ Current branch: main" in demo.out
    assert "│ Status: clean" in demo.out
    assert re.search(r"│ [0-9a-f]{7,} Start stats$", demo.out, re.M)  # the workspace's commit
    assert "│ ?? stats.py" in demo.out  # after the model wrote it
    row = demo.row("hooks-status-context")
    reached = re.match(r"its block reached (\d+) of (\d+) model requests", row)
    assert reached is not None, row
    assert reached.group(1) == reached.group(2) == "7"
    assert "'Current branch: main', 'Status: clean'" in row
    assert "after the tools ran it also said '?? stats.py'" in row


def test_todo_reminder_shows_the_list_in_the_next_request(demo: Run) -> None:
    out = demo.out
    written = out.index("tool todo")
    shown = out.index("hook hooks-todo-reminder inject_context on provider:request")
    assert written < shown < out.index("assistant: The tree is clean.")
    assert "│ Your todo list: 0 of 3 done, 1 in progress, 2 pending" in out
    assert "│ [>] Checking git status" in out
    assert "│ [x] Check git status" in out  # the update reached the request after it
    assert demo.row("hooks-todo-reminder") == (
        "showed the model its todo list in 6 of 7 model requests; the last: "
        "'Your todo list: 2 of 3 done, 1 in progress, 0 pending'"
    )


def test_python_check_feedback_reaches_the_model_which_fixes_the_file(demo: Run) -> None:
    out = demo.out
    assert "hook hooks-python-check inject_context on tool:post" in out
    assert "│ python-check found 2 issues in stats.py (ruff 1, stubs 1):" in out
    assert "│ stats.py:1:8: [ruff F401] `os` imported but unused" in out
    assert "│ stats.py:6:7: [stubs TODO] TODO marker: an empty list" in out
    assert "python-check says: python-check: 2 issues in stats.py (ruff 1, stubs 1)" in out
    assert "python-check says: python-check: stats.py is clean (ruff, format, stubs)" in out
    row = demo.row("hooks-python-check")
    assert row.startswith("fed back to the model with the tool result (2 of 2 reached a request)")
    assert "mypy is off in this demo's config" in row
    fixed = (demo.workspace / "stats.py").read_text()
    assert "import os" not in fixed
    assert "TODO" not in fixed


def test_approval_lets_git_status_through_and_the_policy_denies_the_push(demo: Run) -> None:
    out = demo.out
    assert (
        "hook hooks-approval allowed bash `git status` without asking: rule builtin:git-read" in out
    )
    assert re.search(r"tool bash \{\"command\": \"git status\".*-> ok", out)
    assert "hook hooks-approval allowed write_file stats.py without asking: rule python-files" in (
        out
    )
    assert "hook hooks-approval ask_user on tool:pre" in out
    assert "$ git push origin main" in out
    assert "-> Deny (no one to ask; policy: deny)" in out
    assert "denied bash by hooks-approval" in out
    assert demo.row("hooks-approval") == (
        "allowed without asking: bash `git status` (builtin:git-read), write_file stats.py "
        "(python-files) (2x); asked for approval: bash `git push origin main` -> Deny (no one "
        "to ask; policy: deny)"
    )
    audit = demo.jsonl(".amplifier/approvals/*.jsonl")
    decided = [(r["kind"], r.get("command") or r.get("path"), r["decision"]) for r in audit]
    assert decided == [
        ("rule", "git status", "allow"),
        ("rule", "stats.py", "allow"),
        ("rule", "stats.py", "allow"),
        ("request", "git push origin main", "ask"),
        ("decision", "git push origin main", "deny"),
    ]


def test_declarative_matcher_blocks_rm_and_the_command_hook_runs(demo: Run) -> None:
    out = demo.out
    assert "hook hooks-declarative:tool:pre deny on tool:pre" in out
    assert (
        "denied bash by config:hooks.PreToolUse[0]: Destructive rm commands need a human at the "
        "keyboard" in out
    )
    assert (demo.workspace / "build" / "app.bin").is_file()  # rm -rf build never ran
    # "PromptSubmit" comes from $AMPLIFIER_HOOK_EVENT: the shell really ran the printf
    assert "hook hooks-declarative:prompt:submit inject_context on prompt:submit" in out
    assert (
        "│ Project rule (from the PromptSubmit command hook): look at git status before you "
        "change files." in out
    )
    row = demo.row("hooks-declarative")
    assert row.startswith("a command hook ran on prompt:submit (2x) and added 'Project rule")
    assert row.endswith(
        "blocked bash `rm -rf build` (config:hooks.PreToolUse[0]): Destructive rm commands need "
        "a human at the keyboard"
    )


def test_the_bundle_names_only_what_the_all_extra_installs() -> None:
    from importlib.metadata import requires

    extra = {
        r.split(";")[0].strip().removeprefix("amplifier-module-")
        for r in requires("amplifier-hooks") or []
        if re.search(r"extra\s*==\s*[\"']all[\"']", r) and r.startswith("amplifier-module-")
    }
    assert set(MODULES) <= extra, sorted(set(MODULES) - extra)


def test_a_bundle_with_the_template_module_shows_its_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_loader_env(monkeypatch)
    bundle = tmp_path / "demo-bundle.yaml"
    bundle.write_text(
        DEMO_BUNDLE.read_text()
        + "  - module: hooks-template\n"
        + "    config:\n"
        + "      note_results: true\n"
    )
    shutil.copy(DEMO_SCRIPT, tmp_path / "demo-script.yaml")
    run = _run(bundle)
    try:
        assert run.code == 0, run.out
        assert "hooks-template says: bash finished" in run.out
        assert "hooks-template says: write_file finished" in run.out
        assert run.row("hooks-template") == (
            "told the human about 6 tool calls: todo finished (3x), bash finished, "
            "write_file finished (2x)"
        )
    finally:
        shutil.rmtree(run.workspace, ignore_errors=True)


# -- when parts are missing ------------------------------------------------------------------


def test_without_git_and_two_modules_the_demo_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clean_loader_env(monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path))  # no git to be found
    monkeypatch.setenv("AMPLIFIER_MODULES_DENY", "hooks-python-check,hooks-approval")
    run = _run()
    try:
        assert run.code == 0, run.out
        assert "(not a git repository: git is not installed)" in run.out
        for module in ("hooks-python-check", "hooks-approval"):
            mentions = [line for line in run.out.splitlines() if module in line]
            assert mentions == [
                f"skipped module {module}: denied by AMPLIFIER_MODULES_DENY (pattern '{module}')"
            ]
        assert "2 module(s) of the bundle not mounted (shown above)" in run.out
        assert "Git: not available" in run.row("hooks-status-context")
        assert "showed the model its todo list in 6 of 7" in run.row("hooks-todo-reminder")
        assert "blocked bash `rm -rf build`" in run.row("hooks-declarative")
        assert not (run.workspace / ".git").exists()
    finally:
        shutil.rmtree(run.workspace, ignore_errors=True)


# -- the installed script --------------------------------------------------------------------


def test_installed_demo_runs_unattended(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # a user hooks file that would block every bash call: the demo must not read it
    hooks = home / ".amplifier" / "hooks.yaml"
    hooks.parent.mkdir(parents=True)
    hooks.write_text(
        "hooks:\n  PreToolUse:\n    - {type: matcher, match: {tool: Bash}, action: block}\n"
    )
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    dropped = ("COLUMNS", "AMPLIFIER_HOME", *LOADER_ENV)
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(CI="true", HOME=str(home))
    done = subprocess.run(
        [str(SCRIPT), "demo"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=NEVER_WAITS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Traceback" not in out + done.stderr
    assert "allowed bash `git status` without asking" in out
    assert "assistant: The push needs your approval" in out
    assert re.search(r"demo finished in \d+\.\d+ s", out)
    assert list(cwd.iterdir()) == []  # the workspace was temporary
