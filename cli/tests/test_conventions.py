"""The command line's conventions for scripts and terminals: exit codes that carry a decision,
``--json`` output with stable shapes, and ``NO_COLOR``.

Each command runs for real: the installed script (under a pseudo-terminal where colour is in
question) or click's runner in process.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from amplifier_hooks_cli.commands.emit import EXIT_CODES
from amplifier_hooks_cli.main import main
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-bundle.yaml"
SCRIPT = Path(sys.executable).with_name("amplifier-hooks")

DENYING = """\
hooks:
  - module: hooks-template
    config:
      deny_tools: [bash]
"""

ASKING = """\
hooks:
  - module: hooks-declarative
    config:
      include_user: false
      include_project: false
      hooks:
        PreToolUse:
          - type: matcher
            match: {tool: Bash, args: {command: "deploy*"}}
            action: ask
            message: Deploying needs a human
"""

FAILING = """\
hooks:
  - module: raising
    source: raising_hook:mount
"""

RAISING_HOOK = """\
async def boom(event, data):
    raise RuntimeError("the hook broke")


async def mount(coordinator, config):
    return coordinator.hooks.register("tool:pre", boom, name="raising")
"""


def invoke(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200", **(env or {})})


def on_a_terminal(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run the installed script with a pseudo-terminal as its output; its exit code and
    everything it wrote, escapes included."""
    leader, follower = pty.openpty()
    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    process = subprocess.Popen(
        [str(SCRIPT), *args],
        cwd=cwd,
        env={**clean, "TERM": "xterm-256color", "COLUMNS": "200", **env},
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal is closed once the process has exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- emit: the decision is the exit code ----------------------------------------------------


def _emit(tmp_path: Path, bundle: str, command: str, *extra: str) -> Result:
    path = write(tmp_path / "bundle.yaml", bundle)
    data = json.dumps({"tool_name": "bash", "tool_input": {"command": command}})
    return invoke("emit", "tool:pre", "--bundle", str(path), "--data", data, *extra)


def test_emit_exits_with_the_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "raising_hook.py", RAISING_HOOK)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _emit(tmp_path, DENYING, "ls").exit_code == EXIT_CODES["deny"] == 3
    assert _emit(tmp_path, ASKING, "deploy prod").exit_code == EXIT_CODES["ask"] == 4
    assert _emit(tmp_path, ASKING, "ls").exit_code == EXIT_CODES["allow"] == 0
    failed = _emit(tmp_path, FAILING, "ls")
    assert failed.exit_code == EXIT_CODES["failed"] == 5, failed.output


def test_emit_json_is_one_object_with_the_decision(tmp_path: Path) -> None:
    done = _emit(tmp_path, DENYING, "rm -rf /", "--json")
    assert done.exit_code == 3
    shown = json.loads(done.stdout)
    assert set(shown) == {"event", "decision", "exit_code", "filled", "handlers", "result"}
    assert (shown["event"], shown["decision"], shown["exit_code"]) == ("tool:pre", "deny", 3)
    assert shown["filled"] == ["tool", "tool_call_id"] or "tool" in shown["filled"]
    [handler] = shown["handlers"]
    assert handler["name"] == "hooks-template.tool_pre"
    assert handler["action"] == "deny"
    assert handler["reason"] == "tool 'bash' is disabled in this project"
    assert shown["result"]["action"] == "deny"
    allowed = json.loads(_emit(tmp_path, ASKING, "ls", "--json").stdout)
    assert (allowed["decision"], allowed["exit_code"]) == ("allow", 0)


# -- --json on the listing commands ----------------------------------------------------------


def test_validate_json_lists_what_a_session_mounts(tmp_path: Path) -> None:
    done = invoke("validate", str(DEMO), "--json")
    assert done.exit_code == 0, done.output
    shown = json.loads(done.stdout)
    assert (shown["bundle"], shown["ok"], shown["problems"]) == (str(DEMO), True, [])
    kinds: dict[str, list[str]] = {}
    for row in shown["modules"]:
        assert set(row) == {"module", "kind", "default", "mounted", "optional", "origin", "source"}
        kinds.setdefault(row["kind"], []).append(row["module"])
    assert kinds["tool"] == ["tool-bash", "tool-filesystem", "tool-todo"]
    assert len(kinds["hook"]) == 7
    assert kinds["orchestrator"] == ["loop-session"]
    broken = write(tmp_path / "broken.yaml", "hooks:\n  - module: hooks-logginng\n")
    failed = invoke("validate", str(broken), "--json")
    assert failed.exit_code == 1
    problems = json.loads(failed.stdout)["problems"]
    assert problems[0].startswith(f"{broken}:2: hooks[0].module: module 'hooks-logginng'")
    assert "did you mean 'hooks-logging'?" in problems[0]


def test_validate_counts_the_default_tools_a_session_mounts() -> None:
    done = invoke("validate", str(DEMO))
    assert done.exit_code == 0, done.output
    assert "(7 hook(s), 1 provider(s), 3 tool(s), as a session mounts them" in done.stdout


def test_modules_events_and_trust_list_print_json(tmp_path: Path) -> None:
    modules = invoke("modules", "--json", "--no-import")
    assert modules.exit_code == 0, modules.output
    rows = json.loads(modules.stdout)["modules"]
    template = next(r for r in rows if r["id"] == "hooks-template")
    assert template["distribution"] == "amplifier-module-hooks-template"
    assert (template["loads"], template["problem"]) == (None, None)
    checked = json.loads(invoke("modules", "--json").stdout)["modules"]
    assert next(r for r in checked if r["id"] == "hooks-template")["loads"] is True
    events = json.loads(invoke("events", "--json").stdout)["events"]
    pre = next(e for e in events if e["name"] == "tool:pre")
    assert "PreToolUse" in pre["aliases"]
    assert {"name": "tool_name", "required": True}.items() <= next(
        f for f in pre["fields"] if f["name"] == "tool_name"
    ).items()
    assert "deny" in [e["action"] for e in pre["effects"]]
    home = {"AMPLIFIER_HOME": str(tmp_path / "home")}
    empty = invoke("trust", "--list", "--json", env=home)
    assert json.loads(empty.stdout) == {"projects": []}
    project = tmp_path / "project"
    (project / ".amplifier").mkdir(parents=True)
    write(project / ".amplifier" / "hooks.yaml", "hooks: {}\n")
    assert invoke("trust", str(project), env=home).exit_code == 0
    [listed] = json.loads(invoke("trust", "--list", "--json", env=home).stdout)["projects"]
    assert listed["path"] == str(project.resolve())
    assert list(listed["files"]) == [".amplifier/hooks.yaml"]
    assert listed["include"] == []
    assert listed["trusted_at"]
    assert invoke("trust", "--json", env=home).exit_code == 2


# -- NO_COLOR --------------------------------------------------------------------------------


def test_no_color_writes_no_escape_at_all_on_a_terminal(tmp_path: Path) -> None:
    code, coloured = on_a_terminal("validate", str(DEMO), cwd=tmp_path, env={})
    assert code == 0, coloured
    assert "\x1b[" in coloured  # on a terminal the output is styled ...
    code, plain = on_a_terminal("validate", str(DEMO), cwd=tmp_path, env={"NO_COLOR": "1"})
    assert code == 0, plain
    assert "\x1b" not in plain  # ... and with NO_COLOR it is not, dim included
    assert "ok (7 hook(s)" in plain


def test_no_color_holds_for_logs_show(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    record = {
        "ts": "2026-01-31T12:00:01.000000+00:00",
        "level": "warning",
        "event": "tool:pre",
        "data": {"tool_name": "bash"},
        "schema": {"name": "amplifier.hooks-logging.event", "version": 1},
    }
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, coloured = on_a_terminal("logs", "show", str(log), cwd=tmp_path, env={})
    assert code == 0, coloured
    assert "\x1b[" in coloured
    code, plain = on_a_terminal("logs", "show", str(log), cwd=tmp_path, env={"NO_COLOR": "x"})
    assert code == 0, plain
    assert "\x1b" not in plain
    assert "tool:pre" in plain


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=st.text(min_size=0, max_size=5).filter(lambda v: "\x00" not in v and "=" not in v))
def test_no_color_is_any_non_empty_value(value: str) -> None:
    from amplifier_hooks_cli import output

    given_env = {"NO_COLOR": value, "FORCE_COLOR": "1", "TERM": "xterm-256color"}
    previous = {key: os.environ.get(key) for key in given_env}
    os.environ.update(given_env)
    try:
        console = output.make_console(stderr=False)
        with console.capture() as captured:
            console.print("[dim]x[/] [bold red]y[/]")
        styled = "\x1b" in captured.get()
    finally:
        for key, was in previous.items():
            if was is None:
                del os.environ[key]
            else:
                os.environ[key] = was
    assert styled is (value == "")
