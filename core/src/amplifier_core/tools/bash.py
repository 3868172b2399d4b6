"""The ``bash`` tool: run one shell command in the workspace, bounded in time and output.

Each call runs ``/bin/bash -c <command>`` in the workspace directory, in a new session and
process group, with stdin from ``/dev/null`` and the session's environment plus the configured
extra variables. stdout and stderr are read as they come and each is capped at
``max_output_bytes``: the head and the tail are kept around a ``[... N bytes truncated ...]``
marker, so a command that prints gigabytes costs a fixed amount of memory.

The call ends when the shell has exited and both output streams are closed (a background job
that keeps them open counts as part of the command). Past the timeout the whole process group
is stopped: every other member first, so that the still-running shell reaps them, then the
group, with ``SIGTERM`` and, after ``kill_grace`` seconds, ``SIGKILL``. Nothing the command
started in its group survives, and no zombie of ours is left. Cancelling the call kills the
group at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..models import ToolResult
from ._common import failure, parse_input, schema_for

__all__ = ["BashConfig", "BashInput", "BashTool"]

_SHELL: Final = "/bin/bash"
_CHUNK: Final = 64 * 1024
_POLL: Final = 0.02
_PROC: Final = Path("/proc")
_DRAIN: Final = 1.0
_REAP: Final = 0.1


def _env_text(value: object) -> object:
    """YAML scalars as environment text: ``true`` -> ``"true"``, ``8080`` -> ``"8080"``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


class BashConfig(BaseModel):
    """Config of the ``bash`` tool (the ``bash`` section of the tools config)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout: float = Field(default=120.0, gt=0, description="Default timeout in seconds.")
    max_timeout: float = Field(
        default=600.0, gt=0, description="Largest timeout a call may ask for, in seconds."
    )
    max_output_bytes: int = Field(
        default=30_000, ge=0, description="Cap on each of stdout and stderr, in bytes."
    )
    kill_grace: float = Field(
        default=2.0, ge=0, description="Seconds between SIGTERM and SIGKILL on a timeout."
    )
    env: dict[str, str] = Field(
        default_factory=dict, description="Variables added to the inherited environment."
    )

    @field_validator("env", mode="before")
    @classmethod
    def _scalars_to_text(cls, value: object) -> object:
        if isinstance(value, Mapping):
            return {key: _env_text(item) for key, item in value.items()}
        return value

    @model_validator(mode="after")
    def _timeout_within_max(self) -> BashConfig:
        if self.timeout > self.max_timeout:
            raise ValueError(
                f"timeout ({self.timeout:g} s) is larger than max_timeout ({self.max_timeout:g} s)"
            )
        return self


class BashInput(BaseModel):
    """Input of the ``bash`` tool."""

    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="The shell command to run.")
    timeout: float | None = Field(
        default=None, gt=0, description="Timeout in seconds (default and maximum: see above)."
    )
    description: str | None = Field(
        default=None, description="A few words saying what the command does (shown to the user)."
    )

    @field_validator("command")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is blank")
        return value


class _CappedOutput:
    """Bytes of one stream, keeping at most ``cap``: the first half and the last half."""

    __slots__ = ("_head", "_head_cap", "_tail", "_tail_cap", "total")

    def __init__(self, cap: int) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self._tail_cap:
            self._tail += chunk[-self._tail_cap :]
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]

    @property
    def truncated(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        dropped = self.truncated
        if not dropped:
            return (self._head + self._tail).decode("utf-8", "replace")
        head = self._head.decode("utf-8", "replace")
        tail = self._tail.decode("utf-8", "replace")
        return f"{head}\n[... {dropped} bytes truncated ...]\n{tail}"


async def _pump(stream: asyncio.StreamReader | None, sink: _CappedOutput) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        sink.add(chunk)


def _state(pid: int) -> tuple[str, int] | None:
    """``(state letter, process group)`` of ``pid`` from ``/proc``, ``None`` if it is gone."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = stat[stat.rfind(")") + 2 :].split()
    return (fields[0], int(fields[2])) if len(fields) > 2 else None


def _group(pgid: int) -> dict[int, str] | None:
    """Pid -> state letter of every process in group ``pgid``; ``None`` without ``/proc``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        pids = [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return None
    members: dict[int, str] = {}
    for pid in pids:
        state = _state(pid)
        if state is not None and state[1] == pgid:
            members[pid] = state[0]
    return members


def _running(pids: set[int], pgid: int) -> set[int]:
    """Those of ``pids`` still running in group ``pgid`` (not gone, not zombies)."""
    running = set()
    for pid in pids:
        state = _state(pid)
        if state is not None and state[1] == pgid and state[0] != "Z":
            running.add(pid)
    return running


def _present(pids: set[int], pgid: int) -> set[int]:
    """Those of ``pids`` still in group ``pgid``, zombies included (not yet reaped)."""
    return {pid for pid in pids if (state := _state(pid)) is not None and state[1] == pgid}


def _live(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still runs (a zombie has already ended)."""
    members = _group(pgid)
    if members is None:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    return any(state != "Z" for state in members.values())


def _signal(pid: int, sig: signal.Signals, *, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


async def _until(condition: Callable[[], bool], seconds: float) -> bool:
    """Poll ``condition()`` until it holds or ``seconds`` pass; return whether it holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL)
    return True


async def _stop_others(proc: asyncio.subprocess.Process, sig: signal.Signals, wait: float) -> None:
    """Signal the group's members other than the shell and, while the shell still runs, let it
    reap them, so that none is orphaned as a zombie."""
    leader = proc.pid
    members = _group(leader) or {}
    others = {pid for pid, state in members.items() if pid != leader and state != "Z"}
    if not others or proc.returncode is not None:
        return
    for pid in others:
        _signal(pid, sig, group=False)
    if await _until(lambda: not _running(others, leader), wait):
        await _until(lambda: not _present(others, leader) or proc.returncode is not None, _REAP)


async def _stop_group(proc: asyncio.subprocess.Process, grace: float) -> None:
    """Stop every process of ``proc``'s group, ``SIGTERM`` first and ``SIGKILL`` after ``grace``.

    Each round signals the other members first (:func:`_stop_others`), then the whole group.
    A member whose parent never reaps it, or whose parent is gone, is reaped by init.
    """
    leader = proc.pid

    def stopped() -> bool:
        return proc.returncode is not None and not _live(leader)

    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, max(grace, 1.0))):
        await _stop_others(proc, sig, wait / 2)
        _signal(leader, sig, group=True)
        if await _until(stopped, wait):
            return


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close the pipes a process outside the group still holds, so that ``wait()`` returns."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


def _exit_description(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"exit code {returncode} (killed by {signal.Signals(-returncode).name})"
        except ValueError:
            return f"exit code {returncode}"
    return f"exit code {returncode}"


async def _abandon(spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
    """Kill the process group of a command whose start was cancelled, once it has started."""
    with contextlib.suppress(BaseException):
        proc = await asyncio.wait_for(spawn, 5.0)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 5.0)


class BashTool:
    """Runs a shell command in the workspace and returns ``{stdout, stderr, returncode}``."""

    name = "bash"

    def __init__(self, workspace: Path, config: BashConfig | None = None) -> None:
        self.workspace = Path(workspace)
        self.config = config or BashConfig()
        cfg = self.config
        self.description = (
            f"Run a shell command with {_SHELL} -c in the workspace directory "
            f"({self.workspace}). Each call starts a fresh shell; stdin is empty. "
            f"Timeout: {cfg.timeout:g} s by default, at most {cfg.max_timeout:g} s; on timeout "
            "the command and everything it started are killed. stdout and stderr are each "
            f"capped at {cfg.max_output_bytes} bytes (head and tail kept). Returns "
            "{stdout, stderr, returncode}; a non-zero exit code is a failure. A background "
            "job (`cmd &`) must redirect its output (`cmd > log 2>&1 &`), or the call waits "
            "for it."
        )
        self.input_schema: dict[str, Any] = schema_for(BashInput)

    def _environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.config.env)
        return env

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        """Run ``input["command"]``; failures (exit code, timeout, spawn) are failed results."""
        parsed = parse_input(self.name, BashInput, input)
        if isinstance(parsed, ToolResult):
            return parsed
        timeout = min(parsed.timeout or self.config.timeout, self.config.max_timeout)
        spawn = asyncio.ensure_future(
            asyncio.create_subprocess_exec(
                _SHELL,
                "-c",
                parsed.command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.workspace,
                env=self._environment(),
                start_new_session=True,
            )
        )
        try:
            # Shielded: a cancel that lands while the pipes connect must not leave the command
            # running unwatched; it is killed, group and all, once it has started.
            proc = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            await _abandon(spawn)
            raise
        except OSError as err:
            return failure(
                "SpawnError",
                f"bash: could not start {_SHELL} in {self.workspace}: {err.strerror or err}",
            )
        return await self._collect(proc, timeout)

    async def _collect(self, proc: asyncio.subprocess.Process, seconds: float) -> ToolResult:
        cap = self.config.max_output_bytes
        stdout, stderr = _CappedOutput(cap), _CappedOutput(cap)
        readers = {
            asyncio.create_task(_pump(proc.stdout, stdout)),
            asyncio.create_task(_pump(proc.stderr, stderr)),
        }
        exited = asyncio.create_task(proc.wait())
        timed_out = shell_exited = False
        try:
            _, pending = await asyncio.wait({*readers, exited}, timeout=seconds)
            if pending:
                timed_out, shell_exited = True, proc.returncode is not None
                await _stop_group(proc, self.config.kill_grace)
                # Take what is left in the pipes; a process that left the group may hold them.
                _, still_open = await asyncio.wait(readers, timeout=_DRAIN)
                for task in still_open:
                    task.cancel()
                if still_open:
                    _close_pipes(proc)
            await exited
        except BaseException:
            for task in readers:
                task.cancel()
            if proc.returncode is None:
                _signal(proc.pid, signal.SIGKILL, group=True)
            _close_pipes(proc)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(exited, _DRAIN)
            raise
        returncode = -1 if proc.returncode is None else proc.returncode
        output = {"stdout": stdout.text(), "stderr": stderr.text(), "returncode": returncode}
        if timed_out:
            message = f"bash: command timed out after {seconds:g} s"
            if shell_exited:
                message += (
                    "; the shell had exited but a background process kept stdout/stderr open"
                    " (redirect its output: `cmd > log 2>&1 &`)"
                )
            return failure("Timeout", message + "; output so far is kept", output)
        if returncode != 0:
            return failure("NonZeroExit", _exit_description(returncode), output)
        return ToolResult(success=True, output=output)
