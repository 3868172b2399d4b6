"""Command hooks with the amplifier protocol: real bash and Python scripts for every exit code
and output path, each ``on_failure`` mode, and the process handling (timeout of a script that
forks, output cap, stdin never read, environment, working directory, shell metacharacters)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shlex
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from amplifier_hooks_util.process import run_process
from pydantic import BaseModel

from amplifier_module_hooks_declarative.runners.command import (
    KILL_GRACE_S,
    CommandRunner,
    amplifier_decision,
    excerpt,
)
from amplifier_module_hooks_declarative.specs import CommandHookSpec
from amplifier_module_hooks_declarative.types import Decision, HookContext

from .support import Check, contains, hook_context

SCRIPTS = Path(__file__).parent / "scripts"
LABEL = "hooks.yaml PreToolUse[0]"
FAILED = f"hook {LABEL} failed: "
STAMP = "2024-01-15T10:30:00+00:00"


def script(name: str, *args: str) -> str:
    """The command line a user writes for one of the test scripts."""
    path = SCRIPTS / name
    runner = "python3" if path.suffix == ".py" else "bash"
    return shlex.join([runner, str(path), *args])


def context(
    project_dir: Path,
    *,
    tool: str | None = "bash",
    args: dict[str, Any] | None = None,
    event: str = "tool:pre",
    alias: str = "PreToolUse",
    session_id: str = "sess-1",
    data: dict[str, Any] | None = None,
) -> HookContext:
    args = {"command": "git status"} if args is None and tool == "bash" else (args or {})
    fields: dict[str, Any] = {"session_id": session_id, "timestamp": STAMP}
    if tool is not None:
        fields |= {"tool": tool, "input": args}
    return hook_context(
        project_dir,
        event,
        alias,
        session_id=session_id,
        timestamp=STAMP,
        fields=fields,
        tool=tool,
        args=args,
        call_id="call_1",
        data=data,
    )


def runner(command: str, project_dir: Path, **spec: Any) -> CommandRunner:
    hook = CommandHookSpec.model_validate({"type": "command", "command": command, **spec})
    return CommandRunner(hook, label=LABEL, project_dir=str(project_dir))


async def run(
    command: str, project_dir: Path, ctx: HookContext | None = None, **spec: Any
) -> Decision:
    return await runner(command, project_dir, **spec).run(ctx or context(project_dir))


def state(pid: int) -> str | None:
    """The /proc state letter of ``pid``, ``None`` when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()[0]


def our_zombies(*, since_start: bool = False) -> list[int]:
    """Children of this test process that exited and were never reaped, those present when
    the test began left out (all of them with ``since_start``)."""
    zombies = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            zombies.append(int(entry.name))
    return zombies if since_start else [pid for pid in zombies if pid not in _ZOMBIES_BEFORE]


_ZOMBIES_BEFORE: set[int] = set()


@pytest.fixture(autouse=True)
def _zombies_before_the_test() -> None:
    """A session that ran command hooks is a child subreaper: exited daemons of earlier tests
    (a tmux server) may be this process's zombies. A test counts only the ones it left."""
    _ZOMBIES_BEFORE.clear()
    _ZOMBIES_BEFORE.update(our_zombies(since_start=True))


def real(path: Path) -> str:
    """What ``os.getcwd()`` reports inside ``path``."""
    return os.path.realpath(path)


def pids_in(text: str) -> dict[str, int]:
    return {key: int(value) for key, value in re.findall(r"(child|self)=(\d+)", text)}


# ----------------------------------------------------------------------------- answers


async def test_allow_json_from_a_bash_script(tmp_path: Path) -> None:
    decision = await run(script("allow.sh"), tmp_path)
    assert decision == Decision(action="allow", message="looks fine", source=LABEL)


async def test_a_python_guard_blocks_with_json_and_allows_the_rest(tmp_path: Path) -> None:
    guard = script("guard.py")
    blocked = await run(guard, tmp_path, context(tmp_path, args={"command": "rm -rf build"}))
    assert blocked.action == "block"
    assert blocked.message == "refusing to run: rm -rf build"
    assert blocked.source == LABEL
    allowed = await run(guard, tmp_path, context(tmp_path, args={"command": "ls"}))
    assert allowed == Decision(action="allow", source=LABEL)


async def test_exit_code_2_blocks_with_stderr_as_the_reason(tmp_path: Path) -> None:
    decision = await run(script("block_exit2.sh"), tmp_path)
    assert decision.action == "block"
    assert decision.message == "Deploys are frozen until Monday\nask #release for an exception"
    assert decision.source == LABEL


async def test_exit_code_2_without_stderr_still_says_who_blocked(tmp_path: Path) -> None:
    decision = await run("cat > /dev/null; exit 2", tmp_path)
    assert decision.action == "block"
    assert decision.message == f"blocked by hook {LABEL} (exit code 2, stderr was empty)"


async def test_modify_returns_the_new_arguments(tmp_path: Path) -> None:
    ctx = context(tmp_path, args={"command": "rm notes.txt", "timeout": 5})
    decision = await run(script("rewrite.py"), tmp_path, ctx)
    assert decision.action == "modify"
    assert decision.modified_args == {"command": "mv -t .trash notes.txt", "timeout": 5}
    assert decision.message == "rm became a move to .trash"


async def test_ask_carries_the_question(tmp_path: Path) -> None:
    ctx = context(tmp_path, args={"command": "make deploy"})
    decision = await run(script("ask.py"), tmp_path, ctx)
    assert decision.action == "ask"
    assert decision.message == "Run 'make deploy' on production?"


@pytest.mark.parametrize("key", ["context", "additionalContext"])
async def test_context_is_injected_under_either_key(tmp_path: Path, key: str) -> None:
    decision = await run(script("context.py"), tmp_path, env={"KEY": key})
    assert decision.action == "allow"
    assert decision.context == "Remember: the test suite runs with -x"


async def test_empty_stdout_with_exit_0_continues(tmp_path: Path) -> None:
    decision = await run("cat > /dev/null", tmp_path)
    assert decision == Decision(source=LABEL)


def test_answer_parsing_edge_cases() -> None:
    assert amplifier_decision(' {"action": "deny", "message": "no"}\n', label="x") == Decision(
        action="block", message="no", level="warning", source="x"
    )
    assert amplifier_decision('{"message": "fyi"}', label="x") == Decision(
        message="fyi", source="x"
    )
    assert amplifier_decision('{"action": "block"}', label="x").message == "blocked by hook x"  # type: ignore[union-attr]
    allow_with_args = amplifier_decision(
        '{"action": "allow", "modified_args": {"a": 1}}', label="x"
    )
    assert allow_with_args == Decision(action="allow", source="x")
    assert "expected a string" in str(amplifier_decision('{"message": 3}', label="x"))
    assert "JSON list" in str(amplifier_decision("[1, 2]", label="x"))
    assert "modified_args is NoneType" in str(amplifier_decision('{"action": "modify"}', label="x"))


def test_excerpt_keeps_the_first_lines_readable() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 10)) + "\n" + "y" * 500
    assert excerpt(text) == "line 1 | line 2 | line 3 | line 4 | line 5 (+5 more lines)"
    assert excerpt("z" * 400) == "z" * 300 + "..."
    assert excerpt("  \n\n") == ""


# ----------------------------------------------------------------------------- failures

FAILURES: list[tuple[str, str, dict[str, Any], Check]] = [
    (
        "invalid-json",
        script("invalid_json.sh"),
        {},
        contains("exited with code 0 but stdout is not JSON (Expecting value", '"message":'),
    ),
    (
        "not-json",
        script("plain_text.sh"),
        {},
        contains("stdout is not JSON", "all good, carry on"),
    ),
    (
        "unknown-action",
        script("unknown_action.py"),
        {},
        contains("unknown action 'maybe'", "expected allow, block, modify, ask or continue"),
    ),
    (
        "exit-1",
        script("exit1.py"),
        {},
        contains("exited with code 1; stderr: checking bash | Traceback", "KeyError"),
    ),
    (
        "command-not-found",
        "no-such-hook-binary --check",
        {},
        contains(
            "command `no-such-hook-binary --check` was not found (exit code 127 from /bin/sh)",
            "no-such-hook-binary: not found",
        ),
    ),
    (
        "missing-script",
        str(SCRIPTS / "does-not-exist.sh"),
        {},
        contains("was not found (exit code 127", "does-not-exist.sh"),
    ),
    (
        "killed-by-signal",
        "cat > /dev/null; kill -TERM $$",
        {},
        contains("was killed by SIGTERM"),
    ),
    (
        "timeout",
        script("hang_and_fork.sh"),
        {"timeout_ms": 300},
        contains("timed out after 300 ms (timeout_ms); its process group was killed", "child="),
    ),
]


@pytest.mark.parametrize(
    ("command", "spec", "check"),
    [pytest.param(c, s, k, id=i) for i, c, s, k in FAILURES],
)
@pytest.mark.parametrize("on_failure", ["warn", "block", "ignore"])
async def test_every_failure_goes_through_on_failure(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    command: str,
    spec: dict[str, Any],
    check: Check,
    on_failure: str,
) -> None:
    caplog.set_level(logging.DEBUG, logger="amplifier_module_hooks_declarative")
    decision = await run(command, tmp_path, on_failure=on_failure, **spec)
    assert decision.source == LABEL
    if on_failure == "warn":
        assert decision.action == "continue"
        assert decision.level == "warning"
    elif on_failure == "block":
        assert decision.action == "block"
        assert decision.level == "error"
    else:
        assert decision == Decision(source=LABEL)
    # Never silent: even `ignore` leaves a log record that says what went wrong.
    logged = [r for r in caplog.records if FAILED in r.getMessage()]
    assert len(logged) == 1
    text = logged[0].getMessage()
    check(text)
    assert f"on_failure: {on_failure}" in text
    assert logged[0].levelno == (logging.DEBUG if on_failure == "ignore" else logging.WARNING)
    if on_failure != "ignore":
        assert decision.message is not None
        assert decision.message.startswith(FAILED)
        check(decision.message)


async def test_a_script_that_is_not_executable(tmp_path: Path) -> None:
    hook = tmp_path / "hook.sh"
    hook.write_text("#!/bin/sh\necho '{}'\n")
    decision = await run(str(hook), tmp_path)
    assert decision.message is not None
    assert "is not executable (exit code 126 from /bin/sh)" in decision.message
    assert "Permission denied" in decision.message


async def test_an_executable_script_run_by_its_path(tmp_path: Path) -> None:
    decision = await run(shlex.quote(str(SCRIPTS / "allow.sh")), tmp_path)
    assert decision.action == "allow"


async def test_a_missing_project_directory_is_a_spawn_failure(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    decision = await run(script("allow.sh"), missing, on_failure="block")
    assert decision.action == "block"
    assert decision.message is not None
    assert f"could not be started (/bin/sh in {missing}): No such file or directory" in (
        decision.message
    )


# ----------------------------------------------------------------------------- the process


@pytest.mark.parametrize("name", ["hang_and_fork.sh", "hang_and_fork.py"])
async def test_timeout_kills_the_script_and_the_child_it_forked(tmp_path: Path, name: str) -> None:
    started = time.monotonic()
    decision = await run(script(name), tmp_path, timeout_ms=300)
    elapsed = time.monotonic() - started
    assert decision.message is not None
    assert "timed out after 300 ms" in decision.message
    assert 0.3 <= elapsed < 60  # the script sleeps 300 s: it was stopped, not waited for
    pids = pids_in(decision.message)
    assert set(pids) == {"child", "self"}
    # The script is gone (we reaped it) and its child runs no more. A child whose parent
    # exited first is reaped by init; where init does not reap (some containers) it may
    # linger as init's zombie, never as ours.
    assert state(pids["self"]) is None
    assert state(pids["child"]) in (None, "Z")
    assert our_zombies() == []


async def test_timeout_kills_a_child_that_left_the_process_group(tmp_path: Path) -> None:
    decision = await run(script("hang_and_setsid.sh"), tmp_path, timeout_ms=300)
    assert decision.message is not None
    assert "timed out after 300 ms" in decision.message
    pids = pids_in(decision.message)
    assert set(pids) == {"child", "self"}
    for _ in range(500):  # init reaps it once it is killed
        if state(pids["child"]) in (None, "Z"):
            break
        await asyncio.sleep(0.01)
    assert state(pids["child"]) in (None, "Z")
    assert our_zombies() == []


async def test_a_script_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    started = time.monotonic()
    decision = await run(script("ignore_term.sh"), tmp_path, timeout_ms=200)
    elapsed = time.monotonic() - started
    assert decision.message is not None
    assert "timed out after 200 ms" in decision.message
    assert 0.2 + KILL_GRACE_S <= elapsed < 60  # it sleeps 300 s: killed, not waited for
    pids = pids_in(decision.message)
    assert state(pids["self"]) is None
    assert state(pids["child"]) in (None, "Z")
    assert our_zombies() == []


async def test_a_background_job_holding_stdout_open_is_killed_at_the_timeout(
    tmp_path: Path,
) -> None:
    decision = await run(script("held_open.sh"), tmp_path, timeout_ms=300)
    assert decision.message is not None
    assert "the command had exited but a process it started kept stdout/stderr open" in (
        decision.message
    )
    child = pids_in(decision.message)["child"]
    assert state(child) in (None, "Z")
    assert our_zombies() == []


async def test_cancelling_a_run_kills_the_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    hook = runner(script("hang_and_fork.sh"), tmp_path, env={"PID_FILE": str(pid_file)})
    task = asyncio.create_task(hook.run(context(tmp_path)))
    for _ in range(300):
        if pid_file.exists() and pid_file.read_text().endswith("\n"):
            break
        await asyncio.sleep(0.01)
    pids = pids_in(pid_file.read_text())
    assert state(pids["child"]) not in (None, "Z")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if state(pids["self"]) is None and state(pids["child"]) in (None, "Z"):
            break
        await asyncio.sleep(0.01)
    assert state(pids["self"]) is None
    assert state(pids["child"]) in (None, "Z")


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 5])
async def test_cancelling_while_the_command_starts_does_not_wait_for_its_children(
    tmp_path: Path, turns: int
) -> None:
    pid_file = tmp_path / "pids"
    hook = runner(script("hang_and_fork.sh"), tmp_path, env={"PID_FILE": str(pid_file)})
    started = time.monotonic()
    task = asyncio.create_task(hook.run(context(tmp_path)))
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 60  # the hook hangs: the cancel did not wait for it
    await asyncio.sleep(0.05)
    if pid_file.exists():
        for pid in pids_in(pid_file.read_text()).values():
            assert state(pid) in (None, "Z")
    assert our_zombies() == []


async def test_five_megabytes_of_stdout_are_capped(tmp_path: Path) -> None:
    decision = await run(script("flood.py"), tmp_path, max_output_bytes=65_536)
    assert decision.message is not None
    assert "stdout is not JSON (Unterminated string" in decision.message
    total = len('{"action": "allow", "message": "') + 5 * 1024 * 1024 + 2
    assert (
        f"(stdout was cut at max_output_bytes=65536; {total - 65_536} more bytes were discarded)"
        in decision.message
    )


async def test_five_megabytes_of_stderr_make_a_capped_block_reason(tmp_path: Path) -> None:
    decision = await run(script("flood.py", "stderr"), tmp_path, max_output_bytes=4096)
    assert decision.action == "block"
    assert decision.message is not None
    assert decision.message.startswith("blocked: xxx")
    assert len(decision.message) == 4096


async def test_run_process_keeps_the_head_of_each_stream_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    result = await run_process(
        "head -c 3000000 /dev/zero; head -c 100 /dev/zero >&2",
        stdin=b"",
        cwd=str(tmp_path),
        env=dict(os.environ),
        timeout=10,
        output_cap=1000,
        new_session=False,
    )
    assert result.returncode == 0
    assert (len(result.stdout), result.stdout_dropped) == (1000, 3_000_000 - 1000)
    assert (len(result.stderr), result.stderr_dropped) == (100, 0)
    assert not result.timed_out


@pytest.mark.parametrize("close_first", ["", "1"])
async def test_a_script_that_never_reads_a_large_stdin_does_not_deadlock(
    tmp_path: Path, close_first: str
) -> None:
    ctx = context(
        tmp_path, tool="write_file", args={"file_path": "big.txt", "content": "x" * 2**21}
    )
    decision = await run(
        script("ignore_stdin.sh"),
        tmp_path,
        ctx,
        env={"CLOSE_FIRST": close_first},
        timeout_ms=120_000,
    )
    # A deadlock would end in the timeout, a failure: the script's own answer means none.
    assert decision == Decision(action="allow", source=LABEL)


async def test_environment_and_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INHERITED_MARK", "from-the-host")
    monkeypatch.setenv("AMPLIFIER_SESSION_ID", "stale")
    record = tmp_path / "record.json"
    project = tmp_path / "project"
    project.mkdir()
    ctx = context(project, session_id="sess-env")
    decision = await run(
        script("record.py"),
        project,
        ctx,
        env={"RECORD_TO": str(record), "HOOK_MODE": "strict", "INHERITED_MARK": "overridden"},
    )
    assert decision.action == "allow"
    seen = json.loads(record.read_text())
    assert seen["cwd"] == real(project)
    env = seen["env"]
    assert env["AMPLIFIER_SESSION_ID"] == "sess-env"
    assert env["AMPLIFIER_PROJECT_DIR"] == str(project)
    assert env["AMPLIFIER_HOOK_EVENT"] == "PreToolUse"
    assert env["HOOK_MODE"] == "strict"
    assert env["INHERITED_MARK"] == "overridden"
    assert "CLAUDE_PROJECT_DIR" not in env
    assert env["PATH"] == os.environ["PATH"]


async def test_the_runner_project_dir_wins_and_the_context_one_is_the_fallback(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hook = CommandHookSpec(
        type="command", command=script("record.py"), env={"RECORD_TO": str(record)}
    )
    await CommandRunner(hook, label=LABEL, project_dir="").run(context(elsewhere))
    assert json.loads(record.read_text())["cwd"] == real(elsewhere)
    await CommandRunner(hook, label=LABEL, project_dir=str(tmp_path)).run(context(elsewhere))
    assert json.loads(record.read_text())["cwd"] == real(tmp_path)


async def test_stdin_is_the_documented_event_object(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    ctx = context(tmp_path, args={"command": "git status"})
    await run(script("record.py"), tmp_path, ctx, env={"RECORD_TO": str(record)})
    sent = json.loads(json.loads(record.read_text())["stdin"])
    assert sent == {
        "event": "PreToolUse",
        "tool": "bash",
        "args": {"command": "git status"},
        "session_id": "sess-1",
        "timestamp": "2024-01-15T10:30:00+00:00",
        "data": ctx.data,
        "event_name": "tool:pre",
    }


async def test_events_without_a_tool_and_data_that_is_not_json(tmp_path: Path) -> None:
    class Usage(BaseModel):
        tokens: int

    record = tmp_path / "record.json"
    ctx = context(
        tmp_path,
        tool=None,
        event="session:checkpoint",
        alias="Checkpoint",
        data={
            "path": tmp_path / "ckpt.json",
            "usage": Usage(tokens=7),
            "tags": ("a",),
            "at": datetime(2024, 1, 15, tzinfo=UTC),
            "raw": b"bytes",
            "odd": object,
        },
    )
    decision = await run(script("record.py"), tmp_path, ctx, env={"RECORD_TO": str(record)})
    assert decision.action == "allow"
    sent = json.loads(json.loads(record.read_text())["stdin"])
    assert sent["event"] == "Checkpoint"
    assert sent["event_name"] == "session:checkpoint"
    assert (sent["tool"], sent["args"]) == (None, {})
    data = sent["data"]
    assert data["path"] == str(tmp_path / "ckpt.json")
    assert data["usage"] == {"tokens": 7}
    assert data["tags"] == ["a"]
    assert data["at"] == "2024-01-15T00:00:00+00:00"
    assert data["raw"] == "bytes"
    assert data["odd"] == "<class 'object'>"
    assert json.loads(record.read_text())["env"]["AMPLIFIER_HOOK_EVENT"] == "Checkpoint"


async def test_event_data_that_cannot_be_json_is_a_hook_failure(tmp_path: Path) -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    ctx = context(tmp_path, data={"loop": loop})
    # A command as short as a user writes it, run in the project: the message spells it whole
    # wherever the checkout lives (a command longer than 80 characters is shown shortened).
    shutil.copy(SCRIPTS / "allow.sh", tmp_path / "allow.sh")
    decision = await run("bash allow.sh", tmp_path, ctx, on_failure="block")
    assert decision.action == "block"
    assert decision.message == (
        f"{FAILED}command `bash allow.sh` was not run: the tool:pre event could not be "
        "written as JSON: ValueError: Circular reference detected"
    )


HOSTILE = [
    "$(rm -rf /)",
    "$(touch pwned-dollar)",
    "`touch pwned-backtick`",
    "'; touch pwned-quote; echo '",
    '"; touch pwned-double; echo "',
    "a && touch pwned-and || touch pwned-or; touch pwned-semicolon",
    "line1\nline2\ttab \\ backslash $HOME ${PATH} * ? [x] ~ # é 日本 \u0000 end",
]


async def test_shell_metacharacters_in_event_data_arrive_intact_and_never_run(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.json"
    args = {"command": HOSTILE[0], "description": HOSTILE}
    ctx = context(tmp_path, args=args, session_id="$(touch pwned-session)`touch pwned-tick`")
    decision = await run(script("record.py"), tmp_path, ctx, env={"RECORD_TO": str(record)})
    assert decision.action == "allow"
    seen = json.loads(record.read_text())
    sent = json.loads(seen["stdin"])
    assert sent["args"] == args
    assert sent["data"]["tool_input"] == args
    assert sent["session_id"] == ctx.session_id
    assert seen["env"]["AMPLIFIER_SESSION_ID"] == ctx.session_id
    assert sorted(os.listdir(tmp_path)) == ["record.json"]


def test_label_and_repr(tmp_path: Path) -> None:
    hook = runner("echo " + "x" * 100, tmp_path)
    assert hook.label == LABEL
    assert (
        repr(hook)
        == f"CommandRunner({LABEL!r}, command `echo {'x' * 72}...`, protocol='amplifier')"
    )
