"""Run one checker process with a deadline, never blocking the event loop.

The process runs in a process group of its own (:mod:`amplifier_hooks_util.process`), so a
timeout or a cancelled hook stops it and anything it started; a command that does not exist is
told apart from one that fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from amplifier_hooks_util.process import run_process

__all__ = ["CommandMissing", "CommandTimeout", "Completed", "run_command"]

#: Seconds a checker gets to exit after ``SIGTERM`` before it is killed.
_GRACE: Final = 0.5


@dataclass(frozen=True, slots=True)
class Completed:
    """A process that exited: its exit code and decoded output."""

    returncode: int
    stdout: str
    stderr: str


class CommandMissing(Exception):
    """The command's executable does not exist or cannot be executed."""


class CommandTimeout(Exception):
    """The command ran past its deadline and was stopped."""


async def run_command(argv: Sequence[str], *, cwd: Path, seconds: float) -> Completed:
    """Run ``argv`` in ``cwd`` and return how it ended.

    Raises :class:`CommandMissing` when the executable cannot be started and
    :class:`CommandTimeout` when it is still running after ``seconds`` (its group is stopped
    first). If the caller is cancelled, the process group is killed too.
    """
    try:
        result = await run_process(argv, cwd=cwd, timeout=seconds, grace=_GRACE)
    except (FileNotFoundError, PermissionError, NotADirectoryError) as err:
        raise CommandMissing(f"cannot start {argv[0]!r}: {err.strerror or err}") from err
    if result.timed_out:
        raise CommandTimeout(f"{argv[0]} timed out after {seconds:g}s")
    return Completed(
        returncode=result.returncode,
        stdout=result.stdout.decode("utf-8", errors="replace"),
        stderr=result.stderr.decode("utf-8", errors="replace"),
    )
