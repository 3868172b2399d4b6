"""Running a checker process: missing commands, deadlines, cancellation, command lookup."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from amplifier_module_hooks_python_check import resolve_command
from amplifier_module_hooks_python_check.runner import (
    CommandMissing,
    CommandTimeout,
    run_command,
)

# A process that starts a grandchild, writes both pids, and sleeps: killing only the child
# would leave the grandchild holding the pipes open.
FAMILY = textwrap.dedent(
    """
    import subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with open(sys.argv[1], "w") as out:
        out.write(f"{__import__('os').getpid()} {child.pid}")
    time.sleep(60)
    """
)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:  # gone between the two looks
            return False
    return True


async def wait_dead(pids: list[int]) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not any(alive(pid) for pid in pids):
            return True
        await asyncio.sleep(0.02)
    return False


def read_pids(path: Path) -> list[int]:
    try:
        return [int(pid) for pid in path.read_text().split()]
    except FileNotFoundError:
        return []


async def pids_from(path: Path) -> list[int]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pids = read_pids(path)
        if len(pids) == 2:
            return pids
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} was never written")


async def test_output_and_exit_code(tmp_path: Path) -> None:
    script = "import os, sys; print(os.getcwd()); print('warn', file=sys.stderr); sys.exit(3)"
    done = await run_command([sys.executable, "-c", script], cwd=tmp_path, seconds=10)
    assert done.returncode == 3
    assert done.stdout.strip() == str(tmp_path)
    assert done.stderr.strip() == "warn"


async def test_a_missing_executable_is_told_apart(tmp_path: Path) -> None:
    with pytest.raises(CommandMissing, match=r"cannot start .*no-such-tool"):
        await run_command([str(tmp_path / "no-such-tool")], cwd=tmp_path, seconds=10)
    not_executable = tmp_path / "plain.txt"
    not_executable.write_text("x")
    with pytest.raises(CommandMissing, match="Permission denied"):
        await run_command([str(not_executable)], cwd=tmp_path, seconds=10)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
async def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    started = time.perf_counter()
    with pytest.raises(CommandTimeout, match=r"timed out after 0\.5s"):
        await run_command([sys.executable, "-c", FAMILY, str(pid_file)], cwd=tmp_path, seconds=0.5)
    assert time.perf_counter() - started < 30  # the processes sleep 60 s: they were killed
    assert await wait_dead(await pids_from(pid_file))


@pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")
async def test_cancelling_the_caller_kills_the_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    task = asyncio.create_task(
        run_command([sys.executable, "-c", FAMILY, str(pid_file)], cwd=tmp_path, seconds=60)
    )
    pids = await pids_from(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_dead(pids)


def test_commands_are_found_or_named_missing() -> None:
    ruff = resolve_command("ruff", None)
    assert ruff.command is not None  # installed with the test tools
    assert ruff.command[-1].endswith(("ruff", "ruff.exe")) or ruff.command[-2:] == ("-m", "ruff")

    configured = resolve_command("mypy", ("uvx", "mypy"))
    assert configured.command == ("uvx", "mypy")
    assert configured.looked == "commands.mypy = ['uvx', 'mypy']"

    missing = resolve_command("no-such-checker-xyz", None)
    assert missing.command is None
    assert missing.looked.startswith("not on PATH, not beside ")
