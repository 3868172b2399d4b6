"""``amplifier-hooks replay``, run as a user runs it: the installed script on the log the demo
recorded, on a log with bad lines, on a Claude Code transcript, and against other bundles."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import yaml
from amplifier_hooks_cli.demo import DEMO_BUNDLE
from amplifier_hooks_testsupport.claude_transcript import bash_use, tool_result, transcript_entry

SCRIPT = Path(sys.executable).with_name("amplifier-hooks")
EXAMPLE_LOG = Path(__file__).resolve().parents[2] / "examples" / "demo-session.jsonl"


def _cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *map(str, args)],
        env={**os.environ, "COLUMNS": "220"},  # the tables whole, whatever runs the tests
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hooks-logging log of one run of ``amplifier-hooks demo``."""
    done = _cli("demo", "--keep")
    assert done.returncode == 0, done.stdout + done.stderr
    kept = re.search(r"workspace kept: (\S+)", done.stdout)
    assert kept is not None, done.stdout
    workspace = Path(kept.group(1))
    try:
        logs = list((workspace / ".amplifier" / "logs").glob("*.jsonl"))
        assert len(logs) == 1, logs
        copy = tmp_path_factory.mktemp("demo-log") / "demo.jsonl"
        shutil.copy(logs[0], copy)
    finally:
        shutil.rmtree(workspace)
    return copy


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _bundle_with(tmp_path: Path, name: str, rule: dict[str, Any], *, observe: bool = False) -> Path:
    """The demo bundle with one more hooks-approval rule."""
    data = yaml.safe_load(DEMO_BUNDLE.read_text(encoding="utf-8"))
    data["bundle"]["name"] = name
    for entry in data["hooks"]:
        if entry["module"] == "hooks-approval":
            entry["config"]["rules"].append(rule)
            if observe:
                entry["observe"] = True
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


NO_TODO = {"name": "no-todo", "action": "deny", "tools": ["todo"], "reason": "no todo lists"}


def _todo_pres(report: dict[str, Any]) -> list[int]:
    return [
        e["line"] for e in report["events"] if e["event"] == "tool:pre" and e["tool_name"] == "todo"
    ]


def test_demo_log_replays_through_the_demo_bundle_without_differences(demo_log: Path) -> None:
    done = _cli("replay", demo_log, "--bundle", DEMO_BUNDLE, "--fail-on-diff", "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    report = _json(done)
    assert report["format"] == "hooks-logging"
    assert report["differences"] == []
    assert report["problems"] == []
    assert report["mount_failures"] == []
    assert report["bundles"][0]["left_out"] == ["hooks-logging"]
    # the decisions the demo shows: rm -rf blocked by the matcher, git push asked
    gated = {
        e["tool_name"] + ":" + e["recorded"]: e["bundles"]["hooks-demo"]["outcome"]
        for e in report["events"]
        if e["event"] == "tool:pre" and e["recorded"] != "allow"
    }
    assert gated == {"bash:deny": "deny", "bash:ask": "ask"}
    hooks = {h["hook"]: h for h in report["hooks"]}
    assert hooks["hooks-approval"]["asks"] == 1
    assert hooks["hooks-declarative:tool:pre"]["denies"] == 1
    assert hooks["hooks-redaction"]["runs"] > 0
    for row in hooks.values():
        assert 0 <= row["p50_ms"] <= row["p95_ms"] <= row["max_ms"]
    # every event was replayed, in the log's order
    lines = [e["line"] for e in report["events"]]
    assert lines == sorted(lines)
    assert len(lines) > 50
    assert all(e["bundles"]["hooks-demo"] is not None for e in report["events"])


def test_the_human_report_says_no_differences(demo_log: Path) -> None:
    done = _cli("replay", demo_log, "--bundle", DEMO_BUNDLE)

    assert done.returncode == 0, done.stderr
    assert "no differences against recorded" in done.stdout
    for column in ("runs", "denies", "asks", "modifies", "failures", "p50 ms", "p95 ms"):
        assert column in done.stdout
    assert "hooks-approval" in done.stdout


def test_an_extra_guard_is_listed_as_differences(demo_log: Path, tmp_path: Path) -> None:
    stricter = _bundle_with(tmp_path, "stricter", NO_TODO)

    failed = _cli("replay", demo_log, "--bundle", stricter, "--fail-on-diff", "--json")
    assert failed.returncode == 1, failed.stderr
    report = _json(failed)
    todo_lines = _todo_pres(report)
    assert len(todo_lines) >= 2
    assert [(d["line"], d["expected"], d["got"], d["got_by"]) for d in report["differences"]] == [
        (line, "allow", "deny", "hooks-approval") for line in todo_lines
    ]
    hooks = {h["hook"]: h for h in report["hooks"]}
    assert hooks["hooks-approval"]["denies"] == len(todo_lines)

    listed = _cli("replay", demo_log, "--bundle", stricter)
    assert listed.returncode == 0, listed.stderr  # without --fail-on-diff: listed, exit 0
    assert "differences against recorded" in listed.stdout
    assert "todo" in listed.stdout


def test_compare_lists_where_two_bundles_differ(demo_log: Path, tmp_path: Path) -> None:
    stricter = _bundle_with(tmp_path, "stricter", NO_TODO)

    done = _cli(
        "replay",
        demo_log,
        "--bundle",
        stricter,
        "--compare",
        DEMO_BUNDLE,
        "--json",
        "--fail-on-diff",
    )

    assert done.returncode == 1, done.stderr
    report = _json(done)
    assert report["against"] == "hooks-demo"
    todo_lines = _todo_pres(report)
    outcome = [d for d in report["differences"] if d["what"] == "outcome"]
    per_hook = [d for d in report["differences"] if d["what"] == "hook hooks-approval"]
    assert [(d["line"], d["expected"], d["got"]) for d in outcome] == [
        (line, "allow", "deny") for line in todo_lines
    ]
    assert [(d["line"], d["expected"], d["got"]) for d in per_hook] == [
        (line, "allow", "deny") for line in todo_lines
    ]
    assert {b["label"] for b in report["bundles"]} == {"stricter", "hooks-demo"}


def test_an_observed_guard_decides_nothing_and_is_counted(demo_log: Path, tmp_path: Path) -> None:
    observed = _bundle_with(tmp_path, "observed", NO_TODO, observe=True)

    done = _cli("replay", demo_log, "--bundle", observed, "--json", "--fail-on-diff")

    # hooks-approval in observe mode asks nobody: the git push it asked about in the demo now
    # runs, and that is the one difference; its would-have decisions are counted
    assert done.returncode == 1, done.stdout + done.stderr
    report = _json(done)
    assert [(d["tool_name"], d["expected"], d["got"]) for d in report["differences"]] == [
        ("bash", "ask", "allow")
    ]
    hooks = {h["hook"]: h for h in report["hooks"]}
    todo_lines = _todo_pres(report)
    assert hooks["hooks-approval"]["observed"] == len(todo_lines) + 1
    assert hooks["hooks-approval"]["denies"] == 0
    assert hooks["hooks-approval"]["asks"] == 0
    seen = {
        (e["line"], o["decision"])
        for e in report["events"]
        for o in e["bundles"]["observed"]["observed"]
    }
    push = report["differences"][0]["line"]
    assert seen == {(line, "deny") for line in todo_lines} | {(push, "ask_user")}


_RAISING_HOOK = """
from amplifier_core.models import HookResult


async def mount(coordinator, config):
    def check(event, data):
        if not isinstance(data.get("tool_input"), dict):
            raise ValueError("tool_input is not an object")
        return HookResult()

    return coordinator.hooks.register("tool:pre", check, name="strict-input")
"""


def test_bad_lines_are_reported_by_number_and_the_rest_replays(
    demo_log: Path, tmp_path: Path
) -> None:
    lines = demo_log.read_text(encoding="utf-8").splitlines(keepends=True)
    bad_record = json.loads(lines[0])
    bad_record["event"], bad_record["data"] = "tool:pre", {"tool_name": "bash", "tool_input": "ls"}
    edited = [
        *lines[:3],
        "this is not json\n",  # line 4
        json.dumps(bad_record) + "\n",  # line 5: its tool_input makes a hook fail
        *lines[3:],
        lines[-1][: len(lines[-1]) // 2],  # a cut-short last line
    ]
    log = tmp_path / "bad.jsonl"
    log.write_text("".join(edited), encoding="utf-8")
    module = tmp_path / "amplifier_module_hooks_strict"
    module.mkdir()
    (module / "__init__.py").write_text(_RAISING_HOOK, encoding="utf-8")
    bundle = tmp_path / "strict.yaml"
    bundle.write_text(
        textwrap.dedent(
            f"""
            bundle: {{name: strict}}
            hooks:
              - module: hooks-strict
                source: {module}
            """
        ),
        encoding="utf-8",
    )

    done = _cli("replay", log, "--bundle", bundle, "--json")

    assert done.returncode == 0, done.stderr
    report = _json(done)
    problems = {p["line"]: p["message"] for p in report["problems"]}
    assert "not JSON" in problems[4]
    assert "strict-input" in problems[5]
    assert "tool_input is not an object" in problems[5]
    last = len(edited)
    assert "cut short" in problems[last]
    assert len(problems) == 3
    replayed = [e["line"] for e in report["events"]]
    assert 5 in replayed
    assert len(replayed) == len(lines) - _consequences(lines) + 1
    row = next(h for h in report["hooks"] if h["hook"] == "strict-input")
    assert row["failures"] == 1
    assert row["runs"] >= 2

    human = _cli("replay", log, "--bundle", bundle)
    assert f"{log}:4:" in human.stdout
    assert f"{log}:{last}:" in human.stdout


def _consequences(lines: list[str]) -> int:
    """Records of a hooks-logging log that say what was decided, not events to replay."""
    skipped = {
        "policy:violation",
        "approval:required",
        "approval:granted",
        "approval:denied",
        "hook:observed",
        "hooks-logging:dropped",
    }
    return sum(1 for line in lines if json.loads(line)["event"] in skipped)


def test_an_unknown_format_is_refused_with_its_line(tmp_path: Path) -> None:
    log = tmp_path / "other.jsonl"
    log.write_text('\n{"level": "info", "msg": "a line of another logger"}\n', encoding="utf-8")

    done = _cli("replay", log, "--bundle", DEMO_BUNDLE)

    assert done.returncode == 1
    assert f"{log}:2: unknown format" in done.stderr


def test_a_claude_code_transcript_replays(tmp_path: Path) -> None:
    blocked = "PreToolUse:Bash hook error: [rm guard]: blocked: no recursive deletes"
    entry = partial(transcript_entry, session_id="2f0c6c9e-cc11-4b5e-9a55-0d1f3e2a7b10")
    transcript = [
        json.dumps({"type": "summary", "summary": "Cleaning up", "leafUuid": "u5"}),
        entry("user", "Clean out the build directory", 1),
        entry(
            "assistant", [{"type": "text", "text": "Sure."}, bash_use("toolu_1", "rm -rf build")], 2
        ),
        entry("user", [tool_result("toolu_1", blocked, is_error=True)], 3),
        entry("assistant", [bash_use("toolu_2", "git status")], 4),
        entry("user", [tool_result("toolu_2", "clean")], 5),
    ]
    log = tmp_path / "2f0c6c9e-cc11-4b5e-9a55-0d1f3e2a7b10.jsonl"
    log.write_text("\n".join(transcript) + "\n", encoding="utf-8")

    done = _cli("replay", log, "--bundle", DEMO_BUNDLE, "--json", "--fail-on-diff")

    assert done.returncode == 0, done.stdout + done.stderr
    report = _json(done)
    assert report["format"] == "claude-code"
    events = [(e["line"], e["event"], e["recorded"]) for e in report["events"]]
    assert events == [
        (2, "prompt:submit", "allow"),
        (3, "tool:pre", "deny"),
        (4, "tool:error", "allow"),
        (5, "tool:pre", "allow"),
        (6, "tool:post", "allow"),
    ]
    outcomes = [e["bundles"]["hooks-demo"]["outcome"] for e in report["events"]]
    assert outcomes == ["allow", "deny", "allow", "allow", "allow"]
    assert report["differences"] == []
    assert report["problems"] == []


def test_on_a_terminal_a_progress_bar_runs_and_tables_are_drawn() -> None:
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "220", "LINES": "50", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    with subprocess.Popen(
        [str(SCRIPT), "replay", str(EXAMPLE_LOG), "--bundle", str(DEMO_BUNDLE)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
    ) as process:
        os.close(slave)
        chunks: list[bytes] = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the command ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(master)
        assert process.wait(timeout=300) == 0
    raw = b"".join(chunks).decode("utf-8", "replace")
    assert "\x1b[" in raw  # styled for a terminal
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)
    assert "replaying" in shown  # rich's progress bar, on standard error
    assert "no differences against recorded" in shown
    assert "┏" in shown  # a table drawn for a terminal


@pytest.mark.parametrize("audit", ["{}", "{audit_log: 'audit/{session_id}.jsonl'}"])
def test_a_replay_writes_no_record_anywhere(tmp_path: Path, audit: str) -> None:
    """hooks-approval's audit log (by default in the state directory) is off for a replay,
    and hooks-logging is not mounted: the state directory and the working directory stay as
    they were."""
    home = tmp_path / "home"
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        f"hooks:\n  - module: hooks-approval\n    config: {audit}\n  - module: hooks-logging\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(SCRIPT), "replay", str(EXAMPLE_LOG), "--bundle", str(bundle), "--json"],
        env={**os.environ, "AMPLIFIER_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert _json(done)["events"]  # it did replay the session
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "bundle.yaml"
    ]
