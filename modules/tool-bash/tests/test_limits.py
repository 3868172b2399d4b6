"""Timeouts that stop everything a command started, cancellation, and the output cap."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import ToolResult
from amplifier_module_tool_bash import BashConfig, BashTool

from .conftest import Mount

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inspects processes through /proc"
)


def _output(result: ToolResult) -> dict[str, Any]:
    assert isinstance(result.output, dict), result
    return result.output


def _proc_state(pid: int) -> tuple[str, int] | None:
    """``(state letter, parent pid)`` of ``pid``, or ``None`` when it no longer exists."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[0], int(fields[1])


def _ended(pid: int) -> bool:
    """Gone, or a zombie waiting for init (dead, and not ours to reap)."""
    state = _proc_state(pid)
    return state is None or (state[0] == "Z" and state[1] != os.getpid())


def _zombies() -> set[int]:
    """Exited children of this process nobody has reaped yet."""
    zombies = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            state = _proc_state(int(entry.name))
            if state is not None and state == ("Z", os.getpid()):
                zombies.add(int(entry.name))
    return zombies


@pytest.fixture
def new_zombies() -> Callable[[], set[int]]:
    """The zombies the test left: this process may be a child subreaper (hooks-declarative
    makes a session one), holding exited orphans of other tests' processes."""
    before = _zombies()
    return lambda: _zombies() - before


def _written(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


async def _until_written(path: Path) -> str:
    deadline = time.monotonic() + 10
    while not (text := _written(path)):
        assert time.monotonic() < deadline, f"{path} was never written"
        await asyncio.sleep(0.02)
    return text


# ------------------------------------------------------------------------------ timeouts


@linux_only
async def test_timeout_kills_the_command_and_its_background_child(
    bash: Mount, new_zombies: Callable[[], set[int]]
) -> None:
    started = time.monotonic()
    result = await (await bash()).execute(
        {"command": "echo before; sleep 30 & echo $!; sleep 30", "timeout": 0.5}
    )
    elapsed = time.monotonic() - started
    assert not result.success
    assert result.error is not None
    assert result.error["type"] == "Timeout"
    assert "timed out after 0.5 s" in result.error["message"]
    assert elapsed < 20  # the command sleeps 30 s: it was stopped, not waited for
    lines = _output(result)["stdout"].split()
    assert lines[0] == "before"  # output collected before the timeout is kept
    assert _ended(int(lines[1]))
    assert new_zombies() == set()


@linux_only
async def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(
    bash: Mount, new_zombies: Callable[[], set[int]]
) -> None:
    tool = await bash(kill_grace=0.2)
    started = time.monotonic()
    result = await tool.execute(
        {"command": "trap '' TERM; sleep 30 & echo $!; sleep 30", "timeout": 0.5}
    )
    assert time.monotonic() - started < 20  # both sleeps take 30 s: killed, not waited for
    assert result.error is not None
    assert result.error["type"] == "Timeout"
    assert _ended(int(_output(result)["stdout"]))
    assert new_zombies() == set()


@linux_only
async def test_background_job_holding_the_output_open_counts_as_the_command(
    bash: Mount,
) -> None:
    result = await (await bash()).execute({"command": "sleep 30 & echo $!", "timeout": 0.5})
    assert result.error is not None
    assert result.error["type"] == "Timeout"
    assert "background process kept stdout/stderr open" in result.error["message"]
    assert _output(result)["returncode"] == 0  # the shell itself had finished
    assert _ended(int(_output(result)["stdout"]))


async def test_background_job_with_redirected_output_does_not_hold_the_call(
    bash: Mount,
) -> None:
    result = await (await bash()).execute(
        {"command": "sleep 30 > /dev/null 2>&1 & echo $!", "timeout": 5}
    )
    assert result.success
    os.kill(int(_output(result)["stdout"]), 9)


async def test_configured_default_timeout_and_maximum(bash: Mount) -> None:
    tool = await bash(timeout=0.3, max_timeout=0.5)
    default = await tool.execute({"command": "sleep 10"})
    assert default.error is not None
    assert "timed out after 0.3 s" in default.error["message"]
    clamped = await tool.execute({"command": "sleep 10", "timeout": 100})
    assert clamped.error is not None
    assert "timed out after 0.5 s" in clamped.error["message"]


# ------------------------------------------------------------------------------ cancellation


@linux_only
async def test_cancelling_the_call_kills_the_process_group(
    bash: Mount, tmp_path: Path, new_zombies: Callable[[], set[int]]
) -> None:
    tool = await bash()
    task = asyncio.create_task(
        tool.execute({"command": "sleep 30 & echo $! > bg.pid; sleep 30", "timeout": 30})
    )
    child = int(await _until_written(tmp_path / "bg.pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + 2
    while not _ended(child):
        assert time.monotonic() < deadline, f"background child {child} survived"
        await asyncio.sleep(0.02)
    assert new_zombies() == set()


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
    text = _written(pid_file)
    if not text:  # cancelled before the shell wrote its pid: it was killed before that
        return
    deadline = time.monotonic() + 5
    while not _ended(int(text)):
        assert time.monotonic() < deadline, f"the command (pid {text}) still runs"
        await asyncio.sleep(0.02)


# --------------------------------------------------------------------------- output cap


async def test_five_megabytes_of_output_are_capped_with_head_and_tail_kept(bash: Mount) -> None:
    command = "echo BEGIN; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo END"
    total = len("BEGIN\n") + 5_000_000 + len("\n") + len("END\n")
    tool = await bash()
    tracemalloc.start()
    try:
        result = await tool.execute({"command": command, "timeout": 20})
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


async def test_each_stream_is_capped_on_its_own(bash: Mount) -> None:
    tool = await bash(max_output_bytes=10)
    result = await tool.execute({"command": "printf 0123456789abcdefghij >&2; printf 0123456789"})
    assert _output(result)["stdout"] == "0123456789"  # exactly the cap: nothing cut
    assert _output(result)["stderr"] == "01234\n[... 10 bytes truncated ...]\nfghij"


def test_a_tool_built_directly_has_the_defaults(tmp_path: Path) -> None:
    tool = BashTool(tmp_path)
    assert tool.config == BashConfig()
    assert tool.working_dir == tmp_path
