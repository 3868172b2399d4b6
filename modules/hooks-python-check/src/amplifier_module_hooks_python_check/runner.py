"""Run one checker process with a deadline, never blocking the event loop.

The process gets its own process group (POSIX) so that a timeout or a cancelled hook kills it
and anything it started; a command that does not exist is told apart from one that fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CommandMissing", "CommandTimeout", "Completed", "run_command"]

_POSIX = sys.platform != "win32"


@dataclass(frozen=True, slots=True)
class Completed:
    """A process that exited: its exit code and decoded output."""

    returncode: int
    stdout: str
    stderr: str


class CommandMissing(Exception):
    """The command's executable does not exist or cannot be executed."""


class CommandTimeout(Exception):
    """The command ran past its deadline and was killed."""


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill ``process`` and, on POSIX, every process of its group."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if _POSIX:
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups to kill
            process.kill()


async def run_command(argv: Sequence[str], *, cwd: Path, seconds: float) -> Completed:
    """Run ``argv`` in ``cwd`` and return how it ended.

    Raises :class:`CommandMissing` when the executable cannot be started and
    :class:`CommandTimeout` when it is still running after ``seconds`` (it is killed
    first). If the caller is cancelled, the process is killed too.
    """
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=_POSIX,
        )
    except (FileNotFoundError, PermissionError, NotADirectoryError) as err:
        raise CommandMissing(f"cannot start {argv[0]!r}: {err.strerror or err}") from err
    try:
        out, errors = await asyncio.wait_for(process.communicate(), seconds)
    except TimeoutError:
        _kill(process)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 5.0)
        raise CommandTimeout(f"{argv[0]} timed out after {seconds:g}s") from None
    except BaseException:  # cancelled: the process must not outlive the hook
        _kill(process)
        raise
    return Completed(
        returncode=process.returncode if process.returncode is not None else -1,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=errors.decode("utf-8", errors="replace"),
    )
