"""run_process with real processes: exit codes, stdin, output caps, timeouts that stop a whole
group (grandchildren included), cancellation at any moment, and spawn failures; each test on
both spawn paths (the loop's own pidfd watch where Linux has it, asyncio's subprocesses
elsewhere), and what keeps the pidfd path's command to itself."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from amplifier_hooks_util import child
from amplifier_hooks_util.process import (
    DEFAULT_GRACE,
    ProcessResult,
    describe_exit,
    run_process,
    signal_name,
)

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inspects processes through /proc"
)

# A shell that starts a child which starts a grandchild; each writes its pid, then all wait.
FAMILY = textwrap.dedent(
    """
    sh -c 'sleep 30 & echo "grandchild=$!" >> "$PIDS"; wait' &
    echo "child=$!" >> "$PIDS"
    echo "self=$$" >> "$PIDS"
    wait
    """
)


def state(pid: int) -> tuple[str, int] | None:
    """``(state letter, parent pid)`` from /proc, ``None`` once the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[0], int(fields[1])


def ended(pid: int) -> bool:
    """Gone, or a zombie that init (not we) will reap."""
    now = state(pid)
    return now is None or (now[0] == "Z" and now[1] != os.getpid())


def our_zombies(*, since_start: bool = False) -> list[int]:
    """This process's unreaped exited children, those present when the test began left out
    (all of them with ``since_start``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and state(int(entry.name)) == ("Z", os.getpid()):
            found.append(int(entry.name))
    return found if since_start else [pid for pid in found if pid not in _ZOMBIES_BEFORE]


_ZOMBIES_BEFORE: set[int] = set()


@pytest.fixture(
    autouse=True,
    params=[
        pytest.param(
            (True, True),
            id="pidfd-thread",
            marks=pytest.mark.skipif(not child.PIDFD, reason="no pidfd_open here"),
        ),
        pytest.param(
            (True, False),
            id="pidfd-inline",
            marks=pytest.mark.skipif(not child.PIDFD, reason="no pidfd_open here"),
        ),
        pytest.param((False, False), id="asyncio"),
    ],
)
def spawn_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Which spawn path run_process takes: the pidfd one, the command started in a spawning
    thread or on the loop's, or asyncio's (its fallback); whether it is a pidfd one."""
    pidfd, threaded = request.param
    monkeypatch.setattr(child, "PIDFD", pidfd)
    monkeypatch.setattr(child, "THREADED", threaded)
    return bool(pidfd)


def real(path: Path) -> str:
    """What ``pwd`` prints inside ``path``."""
    return str(path.resolve())


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def marked(mark: str) -> list[int]:
    """Live processes whose environment holds ``RUN_MARK=mark`` (a zombie's reads empty)."""
    needle = f"RUN_MARK={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


async def none_marked(mark: str) -> None:
    """Wait until no live process carries ``mark``; fail after 10 s with those left."""
    deadline = time.monotonic() + 10
    while left := marked(mark):
        assert time.monotonic() < deadline, {pid: state(pid) for pid in left}
        await asyncio.sleep(0.01)


def family_env(pids: Path, mark: str) -> dict[str, str]:
    """The environment of a run of ``FAMILY``: where it writes its pids, and a mark every
    process of the run inherits, so that a survivor is found whether or not it wrote its pid
    (on a loaded machine the timeout may fall before the grandchild is started)."""
    return {**os.environ, "PIDS": str(pids), "RUN_MARK": mark}


async def pids_written(path: Path, count: int) -> dict[str, int]:
    """The ``name=pid`` lines of ``path`` once ``count`` of them are there."""
    deadline = time.monotonic() + 10
    while True:
        lines = lines_of(path)
        if len(lines) >= count:
            return {k: int(v) for k, v in (line.split("=") for line in lines)}
        assert time.monotonic() < deadline, f"{path} has {lines}"
        await asyncio.sleep(0.01)


# ----------------------------------------------------------------------------- results


async def test_exit_code_output_and_environment(tmp_path: Path) -> None:
    where = f"{real(tmp_path)}\n"
    result = await run_process(
        'pwd; echo "$MARK" >&2; exit 3', cwd=tmp_path, env={**os.environ, "MARK": "seen"}
    )
    assert result == ProcessResult(
        returncode=3,
        stdout=where.encode(),
        stderr=b"seen\n",
        stdout_gap=len(where),
        stderr_gap=5,
    )
    assert not result.truncated
    assert result.text("stderr") == "seen\n"


async def test_an_argv_list_is_executed_without_a_shell(tmp_path: Path) -> None:
    result = await run_process([sys.executable, "-c", "import sys; print(sys.argv[1])", "$HOME;x"])
    assert result.stdout == b"$HOME;x\n"


async def test_another_shell_runs_a_string_command() -> None:
    result = await run_process("echo ${BASH_VERSION:+bash}", shell="/bin/bash")
    assert result.stdout == b"bash\n"


async def test_stdin_is_written_and_closed() -> None:
    result = await run_process("wc -c", stdin=b"x" * 3_000_000)
    assert result.stdout.strip() == b"3000000"


async def test_without_stdin_the_command_reads_dev_null() -> None:
    assert (await run_process("cat", timeout=5)).stdout == b""


@pytest.mark.parametrize("command", ["exit 0", "exec 0<&-; sleep 0.01; exit 0"])
async def test_a_command_that_never_reads_a_large_stdin_does_not_deadlock(command: str) -> None:
    result = await run_process(command, stdin=b"y" * 5_000_000, timeout=10)
    assert (result.returncode, result.timed_out) == (0, False)


# ----------------------------------------------------------------------------- output caps


async def test_the_cap_keeps_the_head_of_each_stream_and_counts_the_rest() -> None:
    result = await run_process(
        "head -c 3000000 /dev/zero; head -c 100 /dev/zero >&2", output_cap=1000
    )
    assert (len(result.stdout), result.stdout_dropped) == (1000, 3_000_000 - 1000)
    assert (len(result.stderr), result.stderr_dropped) == (100, 0)
    assert result.truncated
    assert result.text().endswith("\n[... 2999000 bytes truncated ...]\n")
    assert result.text(marker=None) == "\0" * 1000


async def test_keep_tail_keeps_both_ends_around_a_marker() -> None:
    result = await run_process(
        "printf 0123456789; printf 0123456789abcdefghij >&2", output_cap=10, keep_tail=True
    )
    assert result.text("stdout") == "0123456789"  # exactly the cap: nothing cut
    assert result.text("stderr") == "01234\n[... 10 bytes truncated ...]\nfghij"
    assert (result.stderr, result.stderr_dropped) == (b"01234fghij", 10)


async def test_no_cap_keeps_everything() -> None:
    result = await run_process("head -c 2000000 /dev/zero")
    assert (len(result.stdout), result.stdout_dropped) == (2_000_000, 0)


# ----------------------------------------------------------------------------- timeouts


@linux_only
async def test_a_timeout_stops_the_group_with_the_grandchild(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    result = await run_process(FAMILY, env=family_env(pids, str(tmp_path)), timeout=0.5)
    assert result.timed_out
    assert not result.held_open
    await none_marked(str(tmp_path))
    assert our_zombies() == []


@linux_only
async def test_sigterm_ignored_is_followed_by_sigkill_after_the_grace(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    started = time.monotonic()
    result = await run_process(
        "trap '' TERM; " + FAMILY, env=family_env(pids, str(tmp_path)), timeout=0.3, grace=0.2
    )
    assert time.monotonic() - started >= 0.5  # the timeout, then the grace before SIGKILL
    assert result.timed_out
    await none_marked(str(tmp_path))
    assert our_zombies() == []


async def test_a_timeout_of_a_single_command_ends_it_by_signal() -> None:
    result = await run_process(["sleep", "30"], timeout=0.2)
    assert (result.timed_out, result.returncode) == (True, -signal.SIGTERM)
    ignoring = await run_process("trap '' TERM; while :; do :; done", timeout=0.2, grace=0.1)
    assert (ignoring.timed_out, ignoring.returncode) == (True, -signal.SIGKILL)


@linux_only
async def test_a_background_job_holding_stdout_open_is_stopped_too(tmp_path: Path) -> None:
    result = await run_process("sleep 30 & echo $!", timeout=0.3)
    assert (result.timed_out, result.held_open, result.returncode) == (True, True, 0)
    assert ended(int(result.stdout))
    assert our_zombies() == []


async def test_a_background_job_with_its_output_redirected_does_not_hold_the_run() -> None:
    result = await run_process("sleep 30 > /dev/null 2>&1 & echo $!", timeout=10)
    assert (result.timed_out, result.returncode) == (False, 0)
    os.kill(int(result.stdout), signal.SIGKILL)


def test_the_default_grace_is_short() -> None:
    assert 0 < DEFAULT_GRACE <= 1


# ----------------------------------------------------------------------------- cancellation


@linux_only
async def test_cancelling_the_run_kills_the_group_and_re_raises(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    task = asyncio.create_task(run_process(FAMILY, env={**os.environ, "PIDS": str(pids)}))
    family = await pids_written(pids, 3)
    assert not ended(family["grandchild"])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ended(family["self"])
    deadline = time.monotonic() + 5
    while not all(ended(pid) for pid in family.values()):
        assert time.monotonic() < deadline, {k: state(v) for k, v in family.items()}
        await asyncio.sleep(0.01)
    assert our_zombies() == []


@linux_only
@pytest.mark.parametrize("ticks", [0, 1, 2, 3, 5, 8])
@pytest.mark.parametrize("job", ["", "sleep 30 & "], ids=["alone", "with-a-job"])
async def test_a_cancel_while_the_command_starts_leaves_nothing_running(
    tmp_path: Path, ticks: int, job: str
) -> None:
    pid_file = tmp_path / "pid"
    command = f"{job}echo $$ > {pid_file}; exec sleep 30"
    task = asyncio.create_task(run_process(command, cwd=tmp_path))
    for _ in range(ticks):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    text = pid_file.read_text().strip() if pid_file.exists() else ""
    if text:
        deadline = time.monotonic() + 5
        while not ended(int(text)):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
    assert our_zombies() == []


# ----------------------------------------------------------------------------- failures


async def test_a_missing_executable_or_directory_raises_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        await run_process([str(tmp_path / "no-such-tool")])
    with pytest.raises(FileNotFoundError):
        await run_process("true", cwd=tmp_path / "gone")
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    with pytest.raises(PermissionError):
        await run_process([str(plain)])


async def test_an_empty_command_or_a_nul_byte_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        await run_process([])
    with pytest.raises(ValueError):
        await run_process("true", env={"A": "x\0y"})


def test_exit_descriptions() -> None:
    assert describe_exit(0) == "exit code 0"
    assert describe_exit(3) == "exit code 3"
    assert describe_exit(-9) == "exit code -9 (killed by SIGKILL)"
    assert signal_name(-15) == "SIGTERM"
    assert signal_name(-200) == "signal 200"
    assert signal_name(1) is None


async def test_a_signal_ending_the_command_is_a_negative_return_code() -> None:
    result = await run_process("kill -TERM $$")
    assert result.returncode == -signal.SIGTERM
    assert describe_exit(result.returncode) == "exit code -15 (killed by SIGTERM)"


# ----------------------------------------------------------------------------- leaving the group

# A process that leaves the group and the session, its output pointed elsewhere: only the
# token in its environment still ties it to the run.
ESCAPE = textwrap.dedent(
    """
    setsid sh -c 'echo "escaped=$$" >> "$PIDS"; exec sleep 30' > /dev/null 2>&1 < /dev/null &
    until grep -q escaped "$PIDS" 2> /dev/null; do sleep 0.01; done
    echo "self=$$" >> "$PIDS"
    sleep 30
    """
)
# A daemon's double fork: the first child starts a new session, forks and exits, so the
# grandchild belongs to init, not to the command, before the command times out.
DAEMON = textwrap.dedent(
    """
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.environ["PIDS"], "a") as out:
                out.write(f"daemon={os.getpid()}\\n")
            os.closerange(0, 3)
            time.sleep(30)
        os._exit(0)
    os.wait()
    with open(os.environ["PIDS"], "a") as out:
        out.write(f"self={os.getpid()}\\n")
    time.sleep(30)
    """
)


async def settled(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while not ended(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


@linux_only
async def test_a_setsid_descendant_dies_at_the_timeout(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    result = await run_process(ESCAPE, env=family_env(pids, str(tmp_path)), timeout=3)
    assert result.timed_out
    await none_marked(str(tmp_path))
    assert our_zombies() == []


@linux_only
async def test_a_double_forked_daemon_dies_at_a_cancel_and_at_the_timeout(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    env = family_env(pids, str(tmp_path))
    task = asyncio.create_task(run_process([sys.executable, "-c", DAEMON], env=env, timeout=30))
    family = await pids_written(pids, 2)
    assert not ended(family["daemon"])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await settled(family["daemon"]), state(family["daemon"])
    pids.unlink()
    result = await run_process([sys.executable, "-c", DAEMON], env=env, timeout=3)
    assert result.timed_out
    await none_marked(str(tmp_path))
    assert our_zombies() == []


# ----------------------------------------------------------------------------- the pidfd path


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def line_of(path: Path) -> str | None:
    """The first line of ``path`` once it is written in full."""
    text = path.read_text() if path.exists() else ""
    return text.strip() if text.endswith("\n") else None


async def wait_for_file(path: Path) -> str:
    deadline = time.monotonic() + 10
    while (line := line_of(path)) is None:
        assert time.monotonic() < deadline, f"{path} was not written"
        await asyncio.sleep(0.01)
    return line


# Writes its pid, then waits until the test creates "$GO".
WAIT_FOR_GO = 'echo $$ > "$PID"; until [ -e "$GO" ]; do sleep 0.01; done; echo done'


@linux_only
async def test_no_descriptor_is_left_open_by_any_kind_of_run(tmp_path: Path) -> None:
    before = open_fds()
    await run_process("cat; echo out; echo err >&2", stdin=b"x" * 200_000)
    await run_process("exit 0", stdin=b"y" * 5_000_000, timeout=10)
    await run_process("sleep 30 & echo $!", timeout=0.2)
    task = asyncio.create_task(run_process("sleep 30", stdin=b"z"))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(FileNotFoundError):
        await run_process("true", cwd=tmp_path / "gone", stdin=b"x")
    with pytest.raises(ValueError):
        await run_process(["echo", "a\0b"], stdin=b"x")
    assert open_fds() == before
    assert our_zombies() == []


@linux_only
async def test_the_pidfd_path_starts_no_watcher_thread(tmp_path: Path, spawn_path: bool) -> None:
    if not spawn_path:
        pytest.skip("asyncio's path waits in a thread per child")
    import threading

    env = {**os.environ, "PID": str(tmp_path / "pid"), "GO": str(tmp_path / "go")}
    before = set(threading.enumerate())
    task = asyncio.create_task(run_process(WAIT_FOR_GO, env=env, timeout=30))
    await wait_for_file(tmp_path / "pid")
    started = set(threading.enumerate()) - before
    assert all(thread.name.startswith("spawn") for thread in started), started  # no waitpid-N
    (tmp_path / "go").touch()
    result = await task
    assert (result.returncode, result.stdout) == (0, b"done\n")


def release_and_reap(go: Path, pid: int) -> int:
    """Let the command end and collect its status here, the loop held until then."""
    go.touch()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@linux_only
async def test_a_status_taken_by_another_waiter_ends_the_run(
    tmp_path: Path, spawn_path: bool
) -> None:
    if not spawn_path:
        pytest.skip("asyncio's watcher thread and this waiter would race for the status")
    env = {**os.environ, "PID": str(tmp_path / "pid"), "GO": str(tmp_path / "go")}
    task = asyncio.create_task(run_process(WAIT_FOR_GO, env=env, timeout=30))
    pid = int(await wait_for_file(tmp_path / "pid"))
    # Another waiter of the process collects the status while the loop cannot run.
    assert release_and_reap(tmp_path / "go", pid) == 0
    result = await asyncio.wait_for(task, 10)
    assert result.returncode == child.LOST_STATUS
    assert result.stdout == b"done\n"


@linux_only
def test_a_leader_is_never_reaped_as_the_leftover_of_a_finished_group() -> None:
    """A finished run's group number can be the pid of a new leader once the group is empty;
    reaping that group's leftovers must not take the new leader's status."""
    import subprocess

    from amplifier_hooks_util.process_tree import (
        finished_group,
        reap_finished_groups,
        started_group,
    )

    def leader() -> subprocess.Popen[bytes]:
        return subprocess.Popen(["true"], process_group=0)

    stolen = leader()
    finished_group(stolen.pid)  # as if a finished group of that number were still recorded
    os.waitid(os.P_PID, stolen.pid, os.WEXITED | os.WNOWAIT)  # it has exited, unreaped
    reap_finished_groups()
    with pytest.raises(ChildProcessError):  # without started_group, the status is gone
        os.waitpid(stolen.pid, 0)
    stolen.returncode = 0

    kept = leader()
    finished_group(kept.pid)
    started_group(kept.pid)
    os.waitid(os.P_PID, kept.pid, os.WEXITED | os.WNOWAIT)
    reap_finished_groups()
    assert os.waitpid(kept.pid, 0)[0] == kept.pid
    kept.returncode = 0
