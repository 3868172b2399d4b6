"""Real processes: SIGKILL mid-run, several sessions appending to one file, exit without
cleanup, fork. Every line on disk must be whole JSON."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

SESSION_SCRIPT = textwrap.dedent(
    """
    import asyncio, mmap, os, struct, sys
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_logging import mount

    class Coordinator:
        def __init__(self, session_id):
            self.hooks = HookRegistry()
            self.session_id = session_id

    async def main(path, session_id, count, config):
        coordinator = Coordinator(session_id)
        cleanup = await mount(coordinator, {"path": path, **config})
        pad = "x" * int(os.environ.get("PAD", "200"))
        counter = None
        if os.environ.get("COUNTER_FILE"):  # how many emits returned, readable after a kill
            with open(os.environ["COUNTER_FILE"], "r+b") as f:
                counter = mmap.mmap(f.fileno(), 8)
        n = 0
        while count < 0 or n < count:
            if counter is not None:  # counted before the emit: a kill can never find more
                struct.pack_into("q", counter, 0, n + 1)  # records on disk than emits begun
            await coordinator.hooks.emit(
                "tool:pre", {"n": n, "pad": pad, "tool_input": {"list": [n, n + 1]}}
            )
            n += 1
            if n == 1000:
                print("running", flush=True)
        if os.environ.get("SKIP_CLEANUP") != "1":
            await cleanup()

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), eval(sys.argv[4])))
    """
)


def start(
    tmp_path: Path, path: Path | str, session: str, count: int, config: str = "{}", **env: str
) -> subprocess.Popen[str]:
    script = tmp_path / "session.py"
    if not script.exists():
        script.write_text(SESSION_SCRIPT)
    return subprocess.Popen(
        [sys.executable, str(script), str(path), session, str(count), config],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def whole_lines(path: Path, *, allow_unfinished_tail: bool) -> list[dict[str, Any]]:
    """Parse every newline-terminated line; at most an unfinished tail may follow them."""
    raw = path.read_bytes()
    body, _, tail = raw.rpartition(b"\n")
    if tail:
        assert allow_unfinished_tail, f"{path} ends in an unterminated line: {tail[:80]!r}"
    if not body:
        return []
    return [json.loads(line) for line in body.decode("utf-8").split("\n")]


@pytest.mark.slow
def test_sigkill_mid_run_leaves_only_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    counter = tmp_path / "emitted"
    counter.write_bytes(bytes(8))
    process = start(tmp_path, path, "killed", -1, "{'queue_size': 1000}", COUNTER_FILE=str(counter))
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "running"
    deadline = time.monotonic() + 300  # a bound for a broken writer, not a timing assumption
    while not path.exists() or path.stat().st_size < 2_000_000:
        assert time.monotonic() < deadline, "the logger wrote less than 2 MB in 300 s"
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    assert process.returncode == -signal.SIGKILL

    records = whole_lines(path, allow_unfinished_tail=True)
    numbers = [r["data"]["n"] for r in records]
    assert len(numbers) > 2000
    # Written in order, nothing missing in between: only the newest records can be lost.
    assert numbers == list(range(len(numbers)))
    assert all(r["session_id"] == "killed" for r in records)
    # Loss is bounded: at most the queue (queue_size) plus the batch being written, plus the
    # one emit that was begun (and counted) when the kill came.
    begun = struct.unpack("q", counter.read_bytes())[0]
    assert 0 <= begun - len(numbers) <= 1000 + 2048 + 1

    # The next session appending to the same file cuts an unfinished tail first, so the file
    # holds whole lines only.
    resumed = start(tmp_path, path, "resumed", 10)
    resumed.communicate(timeout=30)
    assert resumed.returncode == 0
    after = whole_lines(path, allow_unfinished_tail=False)
    assert [r["data"]["n"] for r in after[: len(records)]] == numbers
    assert [r["data"]["n"] for r in after[len(records) :]] == list(range(10))


@pytest.mark.slow
def test_several_processes_share_one_file_without_torn_lines(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    count = 2500
    sessions = [f"writer-{i}" for i in range(3)]
    processes = [start(tmp_path, path, s, count, PAD="1200") for s in sessions]
    victim = start(tmp_path, path, "victim", -1, PAD="1200")
    assert victim.stdout is not None
    assert victim.stdout.readline().strip() == "running"
    time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)
    for process in processes:
        process.communicate(timeout=60)
        assert process.returncode == 0
    # The writers may all have finished before the kill tore the victim's last line; the next
    # writer cuts an unfinished tail, so one more runs after everything else.
    last = start(tmp_path, path, "last", 10, PAD="1200")
    last.communicate(timeout=60)
    assert last.returncode == 0

    records = whole_lines(path, allow_unfinished_tail=False)
    by_session: dict[str, list[int]] = {}
    for record in records:
        by_session.setdefault(record["session_id"], []).append(record["data"]["n"])
    for session in [*sessions, "last"]:
        expected = list(range(10 if session == "last" else count))
        assert by_session[session] == expected, session
    killed = by_session.get("victim", [])
    assert killed == list(range(len(killed)))


@pytest.mark.slow
def test_several_processes_rotate_one_file_together(tmp_path: Path) -> None:
    path = tmp_path / "rotating.jsonl"
    count = 1500
    config = "{'max_bytes': 200_000, 'backups': 100}"
    sessions = [f"writer-{i}" for i in range(3)]
    processes = [start(tmp_path, path, s, count, config, PAD="400") for s in sessions]
    for process in processes:
        process.communicate(timeout=60)
        assert process.returncode == 0

    rotated = sorted(tmp_path.glob("rotating.jsonl.*"), key=lambda p: int(p.suffix[1:]))
    assert len(rotated) >= 5
    files = [*reversed(rotated), path]  # oldest first
    by_session: dict[str, list[int]] = {}
    for file in files:
        assert file.stat().st_size <= 200_000
        for record in whole_lines(file, allow_unfinished_tail=False):
            by_session.setdefault(record["session_id"], []).append(record["data"]["n"])
    for session in sessions:
        assert by_session[session] == list(range(count)), session


@pytest.mark.slow
def test_exit_without_cleanup_still_writes_everything(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    process = start(tmp_path, path, "atexit", 20_000, SKIP_CLEANUP="1")
    process.communicate(timeout=60)
    assert process.returncode == 0
    records = whole_lines(path, allow_unfinished_tail=False)
    assert [r["data"]["n"] for r in records] == list(range(20_000))


FORK_SCRIPT = textwrap.dedent(
    """
    import asyncio, os, sys
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_logging import mount

    class Coordinator:
        hooks = HookRegistry()
        session_id = "forked"

    async def main(path):
        coordinator = Coordinator()
        cleanup = await mount(coordinator, {"path": path})
        emit = coordinator.hooks.emit
        for n in range(2000):
            await emit("tool:pre", {"who": "parent-before", "n": n})
        pid = os.fork()
        if pid == 0:
            for n in range(500):
                await emit("tool:pre", {"who": "child", "n": n})
            await cleanup()
            os._exit(0)
        for n in range(500):
            await emit("tool:pre", {"who": "parent-after", "n": n})
        _, status = os.waitpid(pid, 0)
        await cleanup()
        sys.exit(os.waitstatus_to_exitcode(status))

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_logs_its_own_events_only(tmp_path: Path) -> None:
    script = tmp_path / "fork.py"
    script.write_text(FORK_SCRIPT)
    path = tmp_path / "events.jsonl"
    result = subprocess.run(
        [sys.executable, str(script), str(path)], timeout=60, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    counts: dict[str, list[int]] = {}
    for record in whole_lines(path, allow_unfinished_tail=False):
        counts.setdefault(record["data"]["who"], []).append(record["data"]["n"])
    assert counts == {
        "parent-before": list(range(2000)),
        "parent-after": list(range(500)),
        "child": list(range(500)),
    }


BACKLOG_SCRIPT = textwrap.dedent(
    """
    import asyncio, atexit, sys, threading, time
    from amplifier_core.hooks import HookRegistry
    from amplifier_module_hooks_logging import mount
    from amplifier_module_hooks_logging.hook import active_hooks

    class Coordinator:
        hooks = HookRegistry()
        session_id = "backlog"

    gate = threading.Event()
    atexit.register(gate.set)  # runs before the logger's own exit hook (registered earlier)

    async def main(path, count, batch_seconds, block_timeout):
        coordinator = Coordinator()
        config = {"path": path, "queue_size": count + 10, "block_timeout": block_timeout}
        await mount(coordinator, config)
        writer = active_hooks(coordinator)[0]._writer
        settle = writer._settle

        def held(pending):  # the writer thread waits here until the interpreter exits
            gate.wait()
            time.sleep(batch_seconds)  # then each batch takes at least this long
            settle(pending)

        writer._settle = held
        token = "ghp_" + "a" * 36
        for n in range(count):
            text = f"curl -H 'Authorization: Bearer {token}' /v{n}" if n % 3 else f"ls {n}"
            await coordinator.hooks.emit("tool:pre", {"n": n, "tool_input": {"command": text}})
        # The thread holds at most one batch; everything else waits in the queue at exit.
        print("pending", writer.pending, flush=True)

    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])))
    """
)


def exit_with_backlog(
    tmp_path: Path, count: int, batch_seconds: float, block_timeout: float
) -> None:
    """Run BACKLOG_SCRIPT; check a clean exit and every record on disk, redacted, in order."""
    script = tmp_path / "backlog.py"
    script.write_text(BACKLOG_SCRIPT)
    path = tmp_path / "events.jsonl"
    argv = [sys.executable, str(script), str(path), str(count)]
    argv += [str(batch_seconds), str(block_timeout)]
    result = subprocess.run(argv, timeout=600, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Fatal Python error" not in result.stderr
    pending = int(result.stdout.split()[-1])
    assert pending >= count - 2048, result.stdout
    records = whole_lines(path, allow_unfinished_tail=False)
    assert [r["data"]["n"] for r in records] == list(range(count))
    commands = [r["data"]["tool_input"]["command"] for r in records]
    assert not any("ghp_" in command for command in commands)
    assert sum("Bearer" in command for command in commands) == count - len(range(0, count, 3))


@pytest.mark.slow
@pytest.mark.parametrize("run", range(3))
def test_exit_with_a_backlog_writes_everything_then_exits_cleanly(tmp_path: Path, run: int) -> None:
    """The process ends with thousands of records queued and the writer thread held until the
    interpreter exits: the exit hook writes them all (each decided by the redaction engine on
    the writer thread) and joins the thread before the interpreter finalizes."""
    exit_with_backlog(tmp_path, 12_000, 0.0, 10.0)


@pytest.mark.slow
def test_exit_waits_for_a_backlog_longer_than_block_timeout(tmp_path: Path) -> None:
    """Writing the backlog takes several times ``block_timeout`` (each of its 6 batches waits
    1 s, a third of it): the exit hook waits while the writer makes progress, rather than
    give up after a fixed time and let the thread run on into finalization."""
    exit_with_backlog(tmp_path, 6 * 2048, 1.0, 3.0)
