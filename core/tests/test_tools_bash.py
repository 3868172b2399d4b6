"""The ``bash`` tool with real subprocesses, and the built-in tool set it belongs to."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import tracemalloc
import types
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.chat import Tool
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import ToolResult
from amplifier_core.tools import (
    BUILTIN_TOOL_NAMES,
    BashConfig,
    BashTool,
    TodoTool,
    ToolConfigError,
    ToolsConfig,
    builtin_tools,
)

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inspects processes through /proc"
)


def _output(result: ToolResult) -> dict[str, Any]:
    assert isinstance(result.output, dict), result
    return result.output


def _real(path: Path) -> Path:
    return path.resolve()


def _bash(workspace: Path, **config: object) -> BashTool:
    return BashTool(workspace, BashConfig.model_validate(config))


def _proc_state(pid: int) -> tuple[str, int] | None:
    """``(state letter, parent pid)`` of ``pid``, or ``None`` when it no longer exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[0], int(fields[1])


def _assert_ended(pid: int) -> None:
    """The process is gone, or is a zombie waiting for init (dead, and not ours to reap)."""
    state = _proc_state(pid)
    assert state is None or (state[0] == "Z" and state[1] != os.getpid()), (pid, state)


def _our_zombies() -> list[int]:
    zombies = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            state = _proc_state(int(entry.name))
            if state is not None and state == ("Z", os.getpid()):
                zombies.append(int(entry.name))
    return zombies


# ------------------------------------------------------------------------------ results


async def test_success_returns_stdout_stderr_and_returncode(tmp_path: Path) -> None:
    result = await _bash(tmp_path).execute({"command": "echo hello; echo note >&2"})
    assert result.success
    assert result.error is None
    assert result.output == {"stdout": "hello\n", "stderr": "note\n", "returncode": 0}


async def test_non_zero_exit_is_a_failure_with_the_output_kept(tmp_path: Path) -> None:
    result = await _bash(tmp_path).execute({"command": "echo out; echo bad >&2; exit 3"})
    assert not result.success
    assert result.error == {"type": "NonZeroExit", "message": "exit code 3"}
    assert result.output == {"stdout": "out\n", "stderr": "bad\n", "returncode": 3}


async def test_death_by_signal_names_the_signal(tmp_path: Path) -> None:
    result = await _bash(tmp_path).execute({"command": "kill -KILL $$"})
    assert not result.success
    assert _output(result)["returncode"] == -9
    assert result.error == {"type": "NonZeroExit", "message": "exit code -9 (killed by SIGKILL)"}


async def test_runs_in_the_workspace_with_stdin_closed(tmp_path: Path) -> None:
    tool = _bash(tmp_path, timeout=5)
    result = await tool.execute({"command": "pwd; cat; echo made > here.txt"})
    assert result.success, result.error
    assert _output(result)["stdout"] == f"{_real(tmp_path)}\n"
    assert (tmp_path / "here.txt").read_text() == "made\n"


async def test_environment_is_inherited_plus_configured_extras(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INHERITED_FOR_BASH", "from-parent")
    tool = _bash(tmp_path, env={"EXTRA_PORT": 8080, "EXTRA_FLAG": True, "EXTRA_NAME": "x y"})
    result = await tool.execute(
        {"command": 'echo "$INHERITED_FOR_BASH|$EXTRA_PORT|$EXTRA_FLAG|$EXTRA_NAME"'}
    )
    assert _output(result)["stdout"] == "from-parent|8080|true|x y\n"


async def test_description_is_accepted_and_ignored_by_the_run(tmp_path: Path) -> None:
    result = await _bash(tmp_path).execute({"command": "true", "description": "does nothing"})
    assert result.success


async def test_missing_workspace_is_a_spawn_failure(tmp_path: Path) -> None:
    result = await _bash(tmp_path / "gone").execute({"command": "true"})
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "SpawnError"
    assert str(tmp_path / "gone") in result.error["message"]


# ------------------------------------------------------------------------------ timeouts


@linux_only
async def test_timeout_kills_the_command_and_its_background_child(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await _bash(tmp_path).execute(
        {"command": "echo before; sleep 30 & echo $!; sleep 30", "timeout": 0.5}
    )
    elapsed = time.monotonic() - started
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "Timeout"
    assert "timed out after 0.5 s" in result.error["message"]
    assert elapsed < 3
    lines = _output(result)["stdout"].split()
    assert lines[0] == "before"  # output collected before the timeout is kept
    _assert_ended(int(lines[1]))
    assert _our_zombies() == []


@linux_only
async def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(tmp_path: Path) -> None:
    tool = _bash(tmp_path, kill_grace=0.2)
    started = time.monotonic()
    result = await tool.execute(
        {"command": "trap '' TERM; sleep 30 & echo $!; sleep 30", "timeout": 0.5}
    )
    assert time.monotonic() - started < 4
    assert result.error is not None
    assert result.error["type"] == "Timeout"
    assert _output(result)["returncode"] == -9
    _assert_ended(int(_output(result)["stdout"]))
    assert _our_zombies() == []


@linux_only
async def test_background_job_holding_the_output_open_counts_as_the_command(
    tmp_path: Path,
) -> None:
    result = await _bash(tmp_path).execute({"command": "sleep 30 & echo $!", "timeout": 0.5})
    assert result.error is not None
    assert result.error["type"] == "Timeout"
    assert "background process kept stdout/stderr open" in result.error["message"]
    assert _output(result)["returncode"] == 0  # the shell itself had finished
    _assert_ended(int(_output(result)["stdout"]))


async def test_background_job_with_redirected_output_does_not_hold_the_call(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    result = await _bash(tmp_path).execute(
        {"command": "sleep 1.5 > /dev/null 2>&1 & echo started", "timeout": 5}
    )
    assert result.success
    assert _output(result)["stdout"] == "started\n"
    assert time.monotonic() - started < 1.2


async def test_configured_default_timeout_and_maximum(tmp_path: Path) -> None:
    tool = _bash(tmp_path, timeout=0.3, max_timeout=0.5)
    default = await tool.execute({"command": "sleep 10"})
    assert default.error is not None
    assert "timed out after 0.3 s" in default.error["message"]
    clamped = await tool.execute({"command": "sleep 10", "timeout": 100})
    assert clamped.error is not None
    assert "timed out after 0.5 s" in clamped.error["message"]


@linux_only
async def test_cancelling_the_call_kills_the_process_group(tmp_path: Path) -> None:
    tool = _bash(tmp_path)
    task = asyncio.create_task(
        tool.execute({"command": "sleep 30 & echo $! > bg.pid; sleep 30", "timeout": 30})
    )
    pid_file = tmp_path / "bg.pid"
    deadline = time.monotonic() + 5
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while (state := _proc_state(child)) is not None and state[0] != "Z":
        assert time.monotonic() < deadline, f"background child {child} survived: {state}"
        await asyncio.sleep(0.02)
    assert _our_zombies() == []


# --------------------------------------------------------------------------- output cap


async def test_five_megabytes_of_output_are_capped_with_head_and_tail_kept(
    tmp_path: Path,
) -> None:
    command = "echo BEGIN; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END"
    total = len("BEGIN\n") + 5_000_000 + len("\n") + len("END\n")
    tracemalloc.start()
    try:
        result = await _bash(tmp_path).execute({"command": command, "timeout": 20})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.success, result.error
    stdout = _output(result)["stdout"]
    marker = f"\n[... {total - 30_000} bytes truncated ...]\n"
    assert marker in stdout
    head, tail = stdout.split(marker)
    assert head == "BEGIN\n" + "x" * (15_000 - 6)
    assert tail == "x" * (15_000 - 5) + "\nEND\n"
    assert peak < 2_000_000, f"peak Python memory {peak} bytes for 5 MB of output"


async def test_each_stream_is_capped_on_its_own(tmp_path: Path) -> None:
    tool = _bash(tmp_path, max_output_bytes=10)
    result = await tool.execute({"command": "printf 0123456789abcdefghij >&2; printf 0123456789"})
    assert _output(result)["stdout"] == "0123456789"  # exactly the cap: nothing cut
    assert _output(result)["stderr"] == "01234\n[... 10 bytes truncated ...]\nfghij"


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("tool_input", "field"),
    [
        ({}, "command: Field required"),
        ({"command": 5}, "command: Input should be a valid string"),
        ({"command": "   "}, "command: is blank"),
        ({"command": "true", "timeout": 0}, "timeout: Input should be greater than 0"),
        ({"command": "true", "timeout": "soon"}, "timeout: Input should be a valid number"),
        ({"command": "true", "cwd": "/"}, "cwd: Extra inputs are not permitted"),
    ],
)
async def test_bad_input_is_a_failed_result_naming_the_field(
    tmp_path: Path, tool_input: dict[str, object], field: str
) -> None:
    result = await _bash(tmp_path).execute(tool_input)
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "InvalidInput"
    assert result.error["message"].startswith("bash: invalid input: ")
    assert field in result.error["message"]


async def test_input_that_is_not_an_object_is_a_failed_result(tmp_path: Path) -> None:
    result = await _bash(tmp_path).execute(["echo"])  # type: ignore[arg-type]
    assert result.error == {
        "type": "InvalidInput",
        "message": "bash: input must be an object, got list",
    }


def test_schema_and_description_tell_the_model_the_limits(tmp_path: Path) -> None:
    tool = _bash(tmp_path, timeout=60, max_timeout=300, max_output_bytes=1234)
    assert tool.input_schema["required"] == ["command"]
    assert set(tool.input_schema["properties"]) == {"command", "timeout", "description"}
    assert tool.input_schema["additionalProperties"] is False
    assert "title" not in tool.input_schema
    for fact in ("60 s", "300 s", "1234 bytes", str(tmp_path)):
        assert fact in tool.description


# -------------------------------------------------------------------- config and tool set


def test_builtin_tools_are_the_five_tools_by_name(tmp_path: Path) -> None:
    coordinator = types.SimpleNamespace(hooks=HookRegistry())
    tools = builtin_tools(tmp_path, coordinator, {"bash": {"timeout": 30}})
    assert tuple(tools) == BUILTIN_TOOL_NAMES
    for name, tool in tools.items():
        assert isinstance(tool, Tool)
        assert tool.name == name
        assert tool.description
        assert tool.input_schema["type"] == "object"
    bash = tools["bash"]
    assert isinstance(bash, BashTool)
    assert bash.config.timeout == 30
    todo = tools["todo"]
    assert isinstance(todo, TodoTool)
    assert todo.coordinator is coordinator


@pytest.mark.parametrize(
    ("config", "key_path", "text"),
    [
        ({"bash": {"timeout": -1}}, "bash.timeout", "greater than 0"),
        ({"bash": {"timeout": 700}}, "bash", "larger than max_timeout"),
        ({"bash": {"env": {"A": [1]}}}, "bash.env.A", "valid string"),
        ({"files": {"max_read_bytes": 0}}, "files.max_read_bytes", "greater than 0"),
        ({"bsh": {}}, "bsh", "Extra inputs are not permitted"),
    ],
)
def test_bad_config_raises_naming_the_key_path(
    tmp_path: Path, config: dict[str, object], key_path: str, text: str
) -> None:
    with pytest.raises(ToolConfigError) as caught:
        builtin_tools(tmp_path, config=config)
    assert caught.value.key_path == key_path
    assert key_path in str(caught.value)
    assert text in str(caught.value)
    assert str(caught.value).startswith("tools config: ")


def test_config_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(ToolConfigError, match="expected a mapping, got list"):
        ToolsConfig.parse([])  # type: ignore[arg-type]


def test_workspace_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ToolConfigError) as caught:
        builtin_tools(tmp_path / "missing")
    assert caught.value.key_path == "workspace"
    assert "missing" in str(caught.value)


@pytest.mark.parametrize("ticks", [0, 1, 2, 5])
async def test_a_cancel_at_any_moment_of_the_start_leaves_no_command_running(
    tmp_path: Path, ticks: int
) -> None:
    tool = BashTool(tmp_path)
    pid_file = tmp_path / "pid"
    task = asyncio.create_task(tool.execute({"command": "echo $$ > pid; exec sleep 30"}))
    for _ in range(ticks):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    text = pid_file.read_text().strip() if pid_file.exists() else ""
    if not text:  # cancelled before the shell wrote its pid: it was killed before that
        return
    pid = int(text)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if _process_state(pid) in (None, "Z"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the command (pid {pid}) still runs after the cancel")


def _process_state(pid: int) -> str | None:
    """The state letter of ``pid`` in /proc (``Z`` for a zombie), or None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return None
