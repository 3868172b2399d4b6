"""mypy's daemon starts at mount, in the background: the first check finds it warm, and no
daemon outlives the cleanup or the interpreter, even when they come before the start ends."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_python_check import daemon as daemon_module
from amplifier_module_hooks_python_check import mount
from amplifier_module_hooks_python_check.hook import PythonCheckHook

pytestmark = pytest.mark.skipif(
    not daemon_module.daemon_available(), reason="mypy's daemon client is not importable"
)


def processes_naming(text: str) -> list[int]:
    """Pids of the live processes whose command line contains ``text`` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:  # gone meanwhile
            continue
        if text in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_for(condition: object, what: str, bound: float = 120.0) -> None:
    """Wait until ``condition()`` holds; ``bound`` guards against a hang, it is no timing."""
    deadline = time.monotonic() + bound
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def daemons_root(cleanup: object) -> Path:
    """The directory of the status files of the daemons the mount behind ``cleanup`` runs."""
    hook = next(
        cell.cell_contents
        for cell in cleanup.__closure__ or ()  # type: ignore[attr-defined]
        if isinstance(cell.cell_contents, PythonCheckHook)
    )
    root = hook._daemons._root  # type: ignore[union-attr]
    assert root is not None
    return Path(root)


async def test_the_daemon_starts_at_mount_and_serves_the_first_check(
    project: Path, mypy_args: list[str]
) -> None:
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    before = set(daemon_module._STARTED)
    cleanup = await mount(coordinator, {"checks": ["mypy"], "args": {"mypy": mypy_args}})
    root = daemons_root(cleanup)
    try:
        # Started without any check asking for it.
        await asyncio.to_thread(
            wait_for, lambda: set(daemon_module._STARTED) - before, "no daemon started"
        )
        (status_file,) = set(daemon_module._STARTED) - before
        assert status_file.parent == root
        (project / "calc.py").write_text("def f(x: int) -> str:\n    return x\n")
        data = {
            "tool_name": "write_file",
            "tool_input": {"file_path": "calc.py"},
            "tool_result": {"success": True, "output": None},
        }
        result = await coordinator.hooks.emit("tool:post", data)
        assert result.context_injection is not None
        assert "calc.py:2:12: [mypy return-value]" in result.context_injection
        assert set(daemon_module._STARTED) - before == {status_file}  # the same daemon
        pid = json.loads(status_file.read_text())["pid"]
        assert processes_naming(str(root))
        # Later changes are checked by the same daemon process, which keeps the warm-up file
        # among its files (one that loses a file can fail on a later change and restart).
        for n in range(3):
            body = f"def f(x: int) -> str:\n    return x\n\n\ny{n}: int = 'a'\n"
            (project / "calc.py").write_text(body)
            later = await coordinator.hooks.emit("tool:post", data)
            assert later.context_injection is not None
            assert f"calc.py:5:{10 + len(str(n))}: [mypy assignment]" in later.context_injection
            assert json.loads(status_file.read_text())["pid"] == pid
    finally:
        cleanup()
    await asyncio.to_thread(wait_for, lambda: not processes_naming(str(root)), "a daemon is left")


async def test_cleanup_right_after_mount_leaves_no_daemon(
    project: Path, mypy_args: list[str]
) -> None:
    """The cleanup comes while the start is under way: it waits for it, then stops it."""
    coordinator = create_test_coordinator()
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"checks": ["mypy"], "args": {"mypy": mypy_args}})
    root = daemons_root(cleanup)
    cleanup()
    assert not root.exists()
    await asyncio.to_thread(wait_for, lambda: not processes_naming(str(root)), "a daemon is left")


async def test_no_daemon_without_mypy_or_with_mypy_daemon_off(project: Path) -> None:
    for config in ({"checks": ["ruff", "stubs"]}, {"mypy_daemon": False}):
        coordinator = create_test_coordinator()
        coordinator.register_capability("session.working_dir", str(project))
        before = set(daemon_module._STARTED)
        cleanup = await mount(coordinator, config)
        cleanup()
        assert set(daemon_module._STARTED) == before


EXIT_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from amplifier_core.testing import create_test_coordinator
    from amplifier_module_hooks_python_check import mount
    from amplifier_module_hooks_python_check.hook import PythonCheckHook

    async def main(project):
        coordinator = create_test_coordinator()
        coordinator.register_capability("session.working_dir", project)
        cleanup = await mount(coordinator, {"checks": ["mypy"]})
        hook = next(c.cell_contents for c in cleanup.__closure__
                    if isinstance(c.cell_contents, PythonCheckHook))
        print(hook._daemons._root, flush=True)  # then exit at once, never cleaned up

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.slow
def test_an_interpreter_that_exits_without_cleanup_leaves_no_daemon(
    project: Path, tmp_path: Path
) -> None:
    script = tmp_path / "exit.py"
    script.write_text(EXIT_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(project)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    root = done.stdout.strip()
    assert root
    wait_for(lambda: not processes_naming(root), "a daemon outlived its interpreter")
    assert not Path(root).exists()
