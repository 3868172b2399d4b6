"""Receipts and coverage of real sessions: ``amplifier-hooks run`` in a subprocess writes the
audit log, ``receipts verify`` checks its chain (and names where a removed or edited record
breaks it), ``coverage`` reports each guard, and a required guard that did not run refuses
the tool call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(sys.executable).with_name("amplifier-hooks")

SCRIPTED = """\
prompts: [go]
turns:
  - tool_calls:
      - {name: bash, input: {command: "echo hi > out.txt"}}
      - {name: bash, input: {command: "rm -rf build"}}
  - text: done
"""

GUARDS = """\
bundle: {{name: receipts-test, version: 1.0.0}}
session:
  audit_log: {log}
hooks:
  - module: hooks-declarative
    config:
      include_user: false
      include_project: false
      hooks:
        PreToolUse:
          - type: matcher
            match: {{tool: Bash, args: {{command: "rm *"}}}}
            action: block
            message: no rm
          - matcher: {matcher}
            hooks:
              - type: command
                command: "echo '{{}}'"
                required: {required}
          - type: command
            command: "exit 3"
        PostToolUse:
          - type: command
            command: "echo '{{}}'"
"""


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *map(str, args)],
        env={**os.environ, "COLUMNS": "220", "AMPLIFIER_HOME": str(cwd / "home")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
    )


def _scripted(tmp_path: Path, bundle: Path) -> subprocess.CompletedProcess[str]:
    """``amplifier-hooks run`` of ``bundle`` on the scripted turns, asking answered no; it must
    succeed."""
    (tmp_path / "script.yaml").write_text(SCRIPTED, encoding="utf-8")
    done = _cli(
        "run",
        "--bundle",
        bundle,
        "--script",
        "script.yaml",
        "--workspace",
        "ws",
        "--deny",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _session(tmp_path: Path, *, matcher: str = "Bash", required: bool = False) -> Path:
    """Run one real session of the guards bundle; its audit log."""
    log = tmp_path / "audit.jsonl"
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        GUARDS.format(log=log, matcher=matcher, required=str(required).lower()), encoding="utf-8"
    )
    done = _scripted(tmp_path, bundle)
    (tmp_path / "run.out").write_text(done.stdout + done.stderr, encoding="utf-8")
    return log


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def session_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _session(tmp_path_factory.mktemp("session"))


def test_every_hook_run_of_a_session_leaves_a_receipt(session_log: Path) -> None:
    runs = [r for r in _records(session_log) if r["type"] == "hook_run"]
    declarative = {
        (r["hook"], r.get("tool_call_id")): r for r in runs if r["kind"] == "declarative"
    }
    calls = sorted({r["tool_call_id"] for r in runs if r["event"] == "tool:pre"})
    assert len(calls) == 2
    first, second = calls
    rule = declarative[("config:hooks.PreToolUse[0]", second)]
    assert (rule["decision"], rule["outcome"], rule["tool"]) == ("block", "ok", "bash")
    failing = declarative[("config:hooks.PreToolUse[2]", first)]
    assert (failing["outcome"], failing["exit_code"]) == ("error", 3)
    assert "exited with code 3" in failing["why"]
    skipped = declarative[("config:hooks.PreToolUse[2]", second)]
    assert skipped["outcome"] == "skipped"
    assert skipped["why"] == "config:hooks.PreToolUse[0] blocked the event before it"
    post = declarative[("config:hooks.PostToolUse[0]", first)]
    assert (post["outcome"], post["exit_code"], post["event"]) == ("ok", 0, "tool:post")
    for receipt in declarative.values():
        assert len(receipt["definition_sha256"]) == 64
        assert receipt["duration_ms"] >= 0
    dispatchers = [r for r in runs if r["kind"] == "dispatcher"]
    assert {r["hook"] for r in dispatchers} == {
        "hooks-declarative:tool:pre",
        "hooks-declarative:tool:post",
    }
    assert not [r for r in runs if r["hook"] == "amplifier-hooks.view"]  # the view is no hook
    assert _records(session_log)[-1]["type"] == "chain_end"


def test_inline_bundle_hooks_name_the_bundle_file_and_line(session_log: Path) -> None:
    bundle = (session_log.parent / "bundle.yaml").resolve()
    text = bundle.read_text(encoding="utf-8").splitlines()

    def line_of(fragment: str, start: int = 0) -> int:
        return next(n for n, line in enumerate(text, 1) if n > start and fragment in line)

    pre = line_of("PreToolUse:")
    expected = {  # an entry's line, or its command's
        "config:hooks.PreToolUse[0]": line_of("- type: matcher", pre),
        "config:hooks.PreToolUse[1].hooks[0]": line_of('command: "echo', pre),
        "config:hooks.PreToolUse[2]": line_of('command: "exit 3"', pre),
        "config:hooks.PostToolUse[0]": line_of('command: "echo', line_of("PostToolUse:")),
    }
    sources = {
        r["hook"]: r.get("source")
        for r in _records(session_log)
        if r["type"] == "hook_run" and r["kind"] == "declarative"
    }
    assert {hook: sources.get(hook) for hook in expected} == {
        hook: f"{bundle}:{line}" for hook, line in expected.items()
    }


def test_receipts_verify_passes_an_untouched_log(session_log: Path, tmp_path: Path) -> None:
    done = _cli("receipts", "verify", session_log, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "intact" in done.stdout
    report = json.loads(_cli("receipts", "verify", session_log, "--json", cwd=tmp_path).stdout)
    assert (report["intact"], report["sealed"]) == (True, True)
    assert report["records"] == len(_records(session_log))


def test_receipts_verify_names_a_removed_receipt(session_log: Path, tmp_path: Path) -> None:
    lines = session_log.read_text(encoding="utf-8").splitlines(keepends=True)
    index = [i for i, line in enumerate(lines) if '"kind": "declarative"' in line][1]
    removed = json.loads(lines[index])
    tampered = tmp_path / "removed.jsonl"
    tampered.write_text("".join(lines[:index] + lines[index + 1 :]), encoding="utf-8")
    done = _cli("receipts", "verify", tampered, cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"line {index + 1}" in done.stdout
    assert f"seq {removed['seq'] + 1} follows seq {removed['seq'] - 1}" in done.stdout
    assert "1 record(s) removed" in done.stdout


def test_receipts_verify_names_an_edited_receipt(session_log: Path, tmp_path: Path) -> None:
    lines = session_log.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"outcome": "error"' in line)
    lines[index] = lines[index].replace('"outcome": "error"', '"outcome": "ok"')
    tampered = tmp_path / "edited.jsonl"
    tampered.write_text("".join(lines), encoding="utf-8")
    done = _cli("receipts", "verify", tampered, "--json", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    breaks = json.loads(done.stdout)["breaks"]
    assert breaks[0]["line"] == index + 1
    assert "does not match its hash: it was edited" in breaks[0]["problem"]


def test_receipts_verify_says_a_log_cut_short_is_not_sealed(
    session_log: Path, tmp_path: Path
) -> None:
    lines = session_log.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-3]), encoding="utf-8")
    done = _cli("receipts", "verify", cut, cwd=tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "not sealed" in done.stdout


def test_coverage_reports_each_guard_per_call(session_log: Path) -> None:
    where = session_log.parent
    done = _cli("coverage", session_log, "--bundle", where / "bundle.yaml", "--json", cwd=where)
    assert done.returncode == 3, done.stdout + done.stderr  # the failing hook is a gap
    report = json.loads(done.stdout)
    guards = {g["guard"]: g for g in report["guards"]}
    rule = guards["config:hooks.PreToolUse[0]"]
    assert (rule["due"], rule["ran"], rule["complete"]) == (2, 2, True)
    grouped = guards["config:hooks.PreToolUse[1].hooks[0]"]
    assert (grouped["due"], grouped["ran"], grouped["skipped"]) == (2, 1, 1)  # after the block
    failing = guards["config:hooks.PreToolUse[2]"]
    assert (failing["due"], failing["failed"], failing["skipped"]) == (2, 1, 1)
    assert "config:hooks.PreToolUse[0] blocked the event before it" in failing["why"]
    assert guards["config:hooks.PostToolUse[0]"]["ran"] == 1


def test_a_guard_whose_matcher_misses_the_tool_name_is_named(tmp_path: Path) -> None:
    log = _session(tmp_path, matcher="BASH")
    done = _cli("coverage", log, "--bundle", tmp_path / "bundle.yaml", cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert (
        "never matched config:hooks.PreToolUse[1].hooks[0]: its matcher 'BASH' never matches "
        "the tool 'bash': they differ only in spelling"
    ) in " ".join(done.stdout.split())
    data = json.loads(
        _cli("coverage", log, "--bundle", tmp_path / "bundle.yaml", "--json", cwd=tmp_path).stdout
    )
    (guard,) = [g for g in data["guards"] if g["guard"] == "config:hooks.PreToolUse[1].hooks[0]"]
    assert (guard["due"], guard["not_matched"], guard["never_matched"]) == (0, 2, True)


def test_a_required_guard_that_never_matches_refuses_the_tool(tmp_path: Path) -> None:
    log = _session(tmp_path, matcher="BASH", required=True)
    shown = " ".join((tmp_path / "run.out").read_text(encoding="utf-8").split())
    assert "denied bash by session.require_guards" in shown
    assert not (tmp_path / "ws" / "out.txt").exists()  # the tool never ran
    records = _records(log)
    denied = [r for r in records if r["type"] == "deny" and r["hook"] == "session.require_guards"]
    assert len(denied) == 1  # the first call; the rm rule blocks the second before it
    assert "its matcher 'BASH' does not match the tool's name 'bash'" in denied[0]["reason"]
    unmatched = [r for r in records if r.get("outcome") == "unmatched"]
    assert [(r["required"], r["tool_call_id"]) for r in unmatched] == [(True, "call_1")]
    assert _cli("receipts", "verify", log, cwd=tmp_path).returncode == 0


def test_without_required_guards_the_same_session_runs_the_tool(tmp_path: Path) -> None:
    _session(tmp_path, matcher="BASH")
    assert (tmp_path / "ws" / "out.txt").read_text(encoding="utf-8") == "hi\n"


def test_session_require_guards_names_a_python_module_that_is_not_loaded(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    bundle = tmp_path / "bundle.yaml"
    bundle.write_text(
        textwrap.dedent(
            f"""\
            bundle: {{name: required-module, version: 1.0.0}}
            session:
              audit_log: {log}
              require_guards: [hooks-approval*]
            hooks:
              - module: hooks-logging
                config: {{path: {tmp_path / "events.jsonl"}}}
            """
        ),
        encoding="utf-8",
    )
    done = _scripted(tmp_path, bundle)
    shown = " ".join(done.stdout.split())
    assert "hooks-approval* (no hook of that name is loaded)" in shown
    assert not (tmp_path / "ws" / "out.txt").exists()


def test_replay_rehearses_coverage_of_an_observed_policy(tmp_path: Path) -> None:
    """A recorded session replayed through a policy in observe mode: the coverage of its
    guards, before it is enforced."""
    events = tmp_path / "events.jsonl"
    recorded = tmp_path / "recorded.yaml"
    recorded.write_text(
        textwrap.dedent(
            f"""\
            bundle: {{name: recorded, version: 1.0.0}}
            hooks:
              - module: hooks-logging
                config: {{path: {events}}}
            """
        ),
        encoding="utf-8",
    )
    done = _scripted(tmp_path, recorded)
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        textwrap.dedent(
            """\
            bundle: {name: policy, version: 1.0.0}
            hooks:
              - module: hooks-declarative
                config:
                  include_user: false
                  include_project: false
                  observe_sources: [config]
                  hooks:
                    PreToolUse:
                      - type: matcher
                        match: {tool: bash, args: {command: "rm *"}}
                        action: block
                      - type: matcher
                        match: {tool: Shell_Command}
                        action: block
            """
        ),
        encoding="utf-8",
    )
    done = _cli("replay", events, "--bundle", policy, "--coverage", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    coverage = json.loads(done.stdout)["coverage"]
    guards = {g["guard"]: g for g in coverage["guards"]}
    rm = guards["config:hooks.PreToolUse[0]"]
    assert (rm["due"], rm["ran"], rm["observed"]) == (2, 2, 2)
    shell = guards["config:hooks.PreToolUse[1]"]
    assert (shell["due"], shell["never_matched"]) == (0, True)
    text = _cli("replay", events, "--bundle", policy, "--coverage", cwd=tmp_path).stdout
    assert "observed config:hooks.PreToolUse[0]: 2 of its runs in observe mode" in " ".join(
        text.split()
    )


BASE_BUNDLE = """\
bundle: {name: base-guards, version: 1.0.0}
hooks:
  - module: hooks-declarative
    config:
      include_user: false
      include_project: false
      hooks:
        PreToolUse:
          - type: matcher
            match: {tool: bash, args: {command: "rm *"}}
            action: block
            message: no rm
"""

TOP_BUNDLE = """\
bundle: {{name: team-guards, version: 1.0.0}}
includes:
  - bundle: {base}
session:
  audit_log: {log}
hooks:
  - module: hooks-declarative
    config:
      hooks:
        PreToolUse:
          - type: command
            command: "echo '{{}}'"
"""


def test_hooks_of_an_included_bundle_name_the_file_and_line_that_wrote_them(
    tmp_path: Path,
) -> None:
    """A bundle composed with ``includes:``: each inline hook's receipts name the file of the
    composition that wrote its entry, and the entry's line there (a command's: its
    command's line)."""
    base = tmp_path / "base.yaml"
    base.write_text(BASE_BUNDLE, encoding="utf-8")
    log = tmp_path / "audit.jsonl"
    top = tmp_path / "bundle.yaml"
    top.write_text(TOP_BUNDLE.format(base=base, log=log), encoding="utf-8")
    (tmp_path / "script.yaml").write_text(SCRIPTED, encoding="utf-8")
    done = _cli(
        "run", "--bundle", top, "--script", "script.yaml", "--workspace", "ws", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sources = {
        r["hook"]: r.get("source")
        for r in _records(log)
        if r["type"] == "hook_run" and r["kind"] == "declarative"
    }
    base_line = 1 + BASE_BUNDLE.splitlines().index("          - type: matcher")
    top_line = 1 + TOP_BUNDLE.splitlines().index("            command: \"echo '{{}}'\"")
    assert sources == {
        "config:hooks.PreToolUse[0]": f"{base.resolve()}:{base_line}",
        "config:hooks.PreToolUse[1]": f"{top.resolve()}:{top_line}",
    }
