"""The README's Quick start as a newcomer runs it, and what each step now shows.

- ``run ... --workspace DIR`` with a DIR that does not exist: the workspace is a new git
  repository, so the scripted ``git status`` succeeds and "The tree is clean" is true;
- ``run ... --deny``: the model is told the command line's policy denied the push, not a user;
- ``logs show DIR/.amplifier/logs``: that run's events; ``logs`` is in the README;
- the README's ``emit`` line: no warning, the keys a session derives are filled;
- ``demo``: no template module anywhere in what it prints;
- ``hooks list --project MISSING``: one clear error, exit 2, no traceback;
- ``nox``: every session says what it installs before a long install.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SCRIPT = Path(sys.executable).parent / "amplifier-hooks"


def _quick_start() -> list[list[str]]:
    """The Quick start's amplifier-hooks commands, continuation lines joined."""
    section = README[README.index("## Quick start") :]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    commands = block.group(1).replace("\\\n", " ").splitlines()
    return [shlex.split(c, comments=True) for c in commands if c.startswith("amplifier-hooks ")]


def _command(verb: str) -> list[str]:
    return next(c for c in _quick_start() if c[1] == verb)


def _hooks(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AMPLIFIER_"))}
    # The slow-handler watch warns by the clock, so on a loaded machine it would speak in
    # output these tests read whole; its own tests (core/tests/test_slow_handlers.py) cover it.
    env.update(AMPLIFIER_HOME=str(tmp_path / "state"), CI="1", AMPLIFIER_SLOW_HANDLER_S="0")
    return subprocess.run(
        [str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _relocated(command: list[str], workspace: Path) -> list[str]:
    """``command`` with its ``/tmp/play`` workspace moved to ``workspace``."""
    return [a.replace("/tmp/play", str(workspace)) for a in command[1:]]


def _records(log_dir: Path) -> list[dict[str, object]]:
    (log,) = log_dir.glob("*.jsonl")
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


def test_the_run_workspace_makes_the_scripted_turn_true_and_logs_shows_it(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "play"
    run = _command("run")
    assert "/tmp/play" in run
    done = _hooks(_relocated(run, workspace), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"created workspace {workspace} (a new git repository, branch main)" in done.stdout
    posts = [
        r["data"]
        for r in _records(workspace / ".amplifier" / "logs")
        if r.get("event") == "tool:post"
        and isinstance(r.get("data"), dict)
        and r["data"].get("tool_input", {}).get("command") == "git status"
    ]
    (git_status,) = posts
    output = json.dumps(git_status["tool_result"])
    assert "nothing to commit" in output, output
    assert "exit code 128" not in output

    logs = _command("logs")
    shown = _hooks(_relocated(logs, workspace), tmp_path)
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "tool:pre" in shown.stdout
    assert "tool:post" in shown.stdout
    assert "prompt:submit" not in shown.stdout  # --event 'tool:*' as the README says


def test_deny_tells_the_model_the_command_line_policy_denied(tmp_path: Path) -> None:
    workspace = tmp_path / "play"
    done = _hooks([*_relocated(_command("run"), workspace), "--deny"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    requests = [
        json.dumps(r)
        for r in _records(workspace / ".amplifier" / "logs")
        if r.get("event") == "provider:request"
    ]
    told = requests[-1]  # the model's last request holds the denied push's tool result
    assert "git push origin main" in told
    assert "Denied by the command line's --deny policy, without asking anyone" in told
    assert "User denied" not in " ".join(requests)
    assert "TerminalApprovalSystem" not in " ".join(requests) + done.stdout


def test_the_readme_emit_example_prints_no_warning(tmp_path: Path) -> None:
    done = _hooks(_command("emit")[1:], tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr  # the example's hook denies
    assert done.stderr == ""
    assert "note:" not in done.stdout
    assert "filled as a session sends them: tool_call_id, tool, input" in done.stdout
    assert "Destructive rm commands need a human at the keyboard" in done.stdout


def test_the_demo_shows_no_template_module(tmp_path: Path) -> None:
    done = _hooks(["demo"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "template" not in (done.stdout + done.stderr).lower()
    assert "hooks-template" not in (ROOT / "examples" / "demo-bundle.yaml").read_text("utf-8")


def test_logs_is_in_the_readme() -> None:
    assert _command("logs")[:2] == ["amplifier-hooks", "logs"]
    assert "`amplifier-hooks logs show`" in README


def test_hooks_list_on_a_missing_project_is_one_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "not-yet"
    done = _hooks(["hooks", "list", "--project", str(missing)], tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    assert f"Invalid value for '--project': Directory '{missing}' does not exist." in done.stderr


def _installs_and_logs(function: ast.FunctionDef) -> list[str]:
    """The session's installs and log lines, in order; a call of ``_install_editable`` (which
    logs each of its own steps) counts as an install."""
    calls = []
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("install", "log")
            and ast.unparse(node.func.value) == "session"
        ):
            calls.append((node.lineno, node.func.attr))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_install_editable"
        ):
            calls.append((node.lineno, "install"))
    return [attr for _, attr in sorted(calls)]


@pytest.mark.parametrize(
    "name",
    ["_install_workspace", "_install_editable", "package_tests", "compat", "upstream", "demo"],
)
def test_nox_sessions_say_what_they_install(name: str) -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text("utf-8"))
    (function,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    calls = _installs_and_logs(function)
    long_installs = [i for i, c in enumerate(calls) if c == "install"]
    if name == "upstream":  # a venv of its own, installed with session.run: logged before it
        assert "log" in calls
        return
    if name == "compat":  # the small pytest install first, then each kernel's: each logged
        long_installs = long_installs[1:]
    assert long_installs, calls
    for index in long_installs:
        assert "log" in calls[:index], f"{name}: an install at call {index} is not announced"
