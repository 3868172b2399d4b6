"""Running git: an asyncio subprocess with a timeout, killed (with its children) when late.

Every call runs ``git --no-optional-locks -c core.fsmonitor=false -c color.ui=never ...``:
status never rewrites ``.git/index`` (so looking does not change what the change detection
watches), a repository's own config cannot start an fsmonitor program, and nothing is
coloured. ``GIT_DIR``-style variables of the host process are dropped so that the working
directory alone decides the repository, and ``LC_ALL=C`` keeps git's messages stable.
On POSIX the process starts in its own session, so a timeout kills the whole group (a
wrapper script and whatever it started), not just the first process.
"""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["GitResult", "GitRunner"]

Outcome = Literal["ok", "failed", "timeout", "missing"]

_DROPPED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)
_FIXED_ENV = {
    "LC_ALL": "C",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
}
_BASE_ARGS = ("--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "color.ui=never")
_MESSAGE_CHARS = 200
_POSIX = os.name == "posix"


@dataclass(frozen=True, slots=True)
class GitResult:
    """What one git call produced: ``stdout`` when ``outcome`` is ``ok``, else a reason."""

    command: str
    outcome: Outcome
    stdout: str = ""
    reason: str = ""

    @property
    def ok(self) -> bool:
        """True when git exited with status 0."""
        return self.outcome == "ok"


def _first_line(raw: bytes) -> str:
    for line in raw.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if line:
            return line[:_MESSAGE_CHARS]
    return ""


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env.update(_FIXED_ENV)
    return env


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    try:
        if _POSIX:
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - exercised on Windows only
            process.kill()
    except (ProcessLookupError, PermissionError):
        pass


class GitRunner:
    """Runs git commands with one executable and one timeout per call.

    :param executable: a name looked up on ``PATH`` (``git``) or a path to an executable.
    :param timeout: seconds one call may take before it is killed.
    """

    __slots__ = ("executable", "timeout")

    def __init__(self, executable: str = "git", timeout: float = 2.0) -> None:
        self.executable = executable
        self.timeout = timeout

    async def run(self, cwd: Path, *args: str) -> GitResult:
        """Run ``git args...`` in ``cwd``; never raises for a git failure (only on cancel)."""
        command = f"git {args[0]}" if args else "git"
        try:
            process = await asyncio.create_subprocess_exec(
                self.executable,
                *_BASE_ARGS,
                *args,
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=_environment(),
                start_new_session=_POSIX,
            )
        except FileNotFoundError:
            return GitResult(command, "missing", reason=f"executable {self.executable!r} not found")
        except OSError as err:
            return GitResult(
                command,
                "missing",
                reason=f"executable {self.executable!r} cannot run: {err.strerror or err}",
            )
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(), self.timeout)
        except TimeoutError:
            _kill(process)
            await process.wait()
            return GitResult(command, "timeout", reason=f"no answer within {self.timeout:g} s")
        except BaseException:
            _kill(process)
            raise
        if process.returncode != 0:
            message = _first_line(stderr) or f"exit status {process.returncode}"
            return GitResult(command, "failed", reason=message)
        return GitResult(command, "ok", stdout=stdout.decode("utf-8", errors="replace"))
