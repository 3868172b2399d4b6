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
from collections.abc import Mapping
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
            return {
                k: str(v).lower() if isinstance(v, bool) else str(v)
                if isinstance(v, int | float)
                else v
                for k, v in value.items()
            }
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
            raise ValueError("command is blank")
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
        head = self._head.decode("utf-8", "replace")
        tail = self._tail.decode("utf-8", "replace")
        dropped = self.truncated
        if not dropped:
            return (self._head + self._tail).decode("utf-8", "replace")
        return f"{head}\n[... {dropped} bytes truncated ...]\n{tail}"


async def _pump(stream: asyncio.StreamReader | None, sink: _CappedOutput) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        sink.add(chunk)


def _group_members(pgid: int) -> set[int] | None:
    """Pids in process group ``pgid`` (zombies included), or ``None`` without ``/proc``."""
    if not sys.platform.startswith("linux"):
        return None
    members: set[int] = set()
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return None
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            members.add(int(entry.name))
    return members


def _signal(pid: int, sig: signal.Signals, *, group: bool) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if group:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


async def _until(condition: Any, seconds: float) -> bool:
    """Poll ``condition()`` until it is true or ``seconds`` pass; return its last value."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return bool(condition())
        await asyncio.sleep(_POLL)
    return True


async def _stop_group(proc: asyncio.subprocess.Process, grace: float) -> None:
    """Stop every process of ``proc``'s group: the others first, then the group itself."""
    leader = proc.pid
    waiter = asyncio.ensure_future(proc.wait())
    try:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            members = _group_members(leader)
            if members is not None and not waiter.done():
                others = members - {leader}
                for pid in others:
                    _signal(pid, sig, group=False)
                # Let the shell, still alive, reap them: no orphan is left to become a zombie.
                await _until(lambda: not ((_group_members(leader) or set()) - {leader}), grace / 2)
            _signal(leader, sig, group=True)
            if sig is signal.SIGKILL:
                await asyncio.wait({waiter}, timeout=max(grace, 1.0))
                return
            await asyncio.wait({waiter}, timeout=grace)
            if waiter.done() and (members := _group_members(leader)) is not None:
                if not members:
                    return
                await _until(lambda: not _group_members(leader), grace)
                if not _group_members(leader):
                    return
    finally:
        if not waiter.done():
            waiter.cancel()


def _exit_description(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"exit code {returncode} (killed by {signal.Signals(-returncode).name})"
        except ValueError:
            return f"exit code {returncode}"
    return f"exit code {returncode}"


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

    async def execute(self, input: dict[str, Any]) -> ToolResult:  # noqa: A002 - ecosystem name
        """Run ``input["command"]``; failures (exit code, timeout, spawn) are failed results."""
        parsed = parse_input(self.name, BashInput, input)
        if isinstance(parsed, ToolResult):
            return parsed
        timeout = min(parsed.timeout or self.config.timeout, self.config.max_timeout)
        try:
            proc = await asyncio.create_subprocess_exec(
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
        except OSError as err:
            return failure(
                "SpawnError",
                f"bash: could not start {_SHELL} in {self.workspace}: "
                f"{err.strerror or err}",
            )
        return await self._collect(proc, timeout)

    async def _collect(self, proc: asyncio.subprocess.Process, timeout: float) -> ToolResult:
        cap = self.config.max_output_bytes
        stdout, stderr = _CappedOutput(cap), _CappedOutput(cap)
        readers = {
            asyncio.create_task(_pump(proc.stdout, stdout)),
            asyncio.create_task(_pump(proc.stderr, stderr)),
        }
        exited = asyncio.create_task(proc.wait())
        timed_out = False
        try:
            _, pending = await asyncio.wait({*readers, exited}, timeout=timeout)
            if pending:
                timed_out = True
                shell_exited = exited.done()
                await _stop_group(proc, self.config.kill_grace)
                # Take what is still in the pipes; a process that left the group may hold them.
                _, still_open = await asyncio.wait(readers, timeout=max(self.config.kill_grace, 0.2))
                for task in still_open:
                    task.cancel()
            await exited
        except BaseException:
            if proc.returncode is None:
                _signal(proc.pid, signal.SIGKILL, group=True)
            for task in (*readers, exited):
                task.cancel()
            raise
        returncode = proc.returncode if proc.returncode is not None else -1
        output = {"stdout": stdout.text(), "stderr": stderr.text(), "returncode": returncode}
        if timed_out:
            message = f"bash: command timed out after {timeout:g} s"
            if shell_exited:
                message += (
                    " (the shell had exited, but a background process kept stdout/stderr open;"
                    " redirect its output: `cmd > log 2>&1 &`)"
                )
            else:
                message += "; it was killed with every process it started"
            return failure("Timeout", message, output)
        if returncode != 0:
            return failure("NonZeroExit", _exit_description(returncode), output)
        return ToolResult(success=True, output=output)
