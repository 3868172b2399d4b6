"""Running git: a subprocess with a timeout, stopped (with its children) when late.

Every call runs ``git --no-optional-locks -c core.fsmonitor=false -c color.ui=never ...``:
status never rewrites ``.git/index`` (so looking does not change what the change detection
watches), a repository's own config cannot start an fsmonitor program, and nothing is
coloured. Nor any other program the repository's configuration names (filters, diff drivers,
hooks, a pager...): the environment carries the overrides of
:func:`amplifier_hooks_util.git_config.git_environment` (one ``git config --list`` before the
call), except for ``rev-parse`` and ``for-each-ref``, which read refs and paths only.
``GIT_DIR``-style variables of the host process are dropped so that the working directory
alone decides the repository, and ``LC_ALL=C`` keeps git's messages stable.
The process starts in a session of its own (:mod:`amplifier_hooks_util.process`), so a timeout
or a cancelled request stops the whole group (a wrapper script and whatever it started), not
just the first process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from amplifier_hooks_util.git_config import git_environment_async
from amplifier_hooks_util.process import run_process

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
# read refs and paths only: no index refresh, filter, driver, hook or pager
_REFS_ONLY: Final = frozenset({"rev-parse", "for-each-ref"})
#: Seconds git gets to exit after ``SIGTERM`` before it is killed.
_GRACE: Final = 0.2


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
        env = _environment()
        if not args or args[0] not in _REFS_ONLY:
            env, _ = await git_environment_async(env, cwd, git=self.executable)
        try:
            result = await run_process(
                [self.executable, *_BASE_ARGS, *args],
                cwd=cwd,
                env=env,
                timeout=self.timeout,
                grace=_GRACE,
            )
        except FileNotFoundError:
            return GitResult(command, "missing", reason=f"executable {self.executable!r} not found")
        except OSError as err:
            return GitResult(
                command,
                "missing",
                reason=f"executable {self.executable!r} cannot run: {err.strerror or err}",
            )
        if result.timed_out:
            return GitResult(command, "timeout", reason=f"no answer within {self.timeout:g} s")
        if result.returncode != 0:
            message = _first_line(result.stderr) or f"exit status {result.returncode}"
            return GitResult(command, "failed", reason=message)
        return GitResult(command, "ok", stdout=result.stdout.decode("utf-8", errors="replace"))
