"""Command hooks: run an external command with the event as JSON on stdin.

:class:`CommandRunner` runs ``/bin/sh -c <command>`` (the command comes from the hooks file,
which is trusted configuration; event data never reaches a command line, only stdin and the
environment) and turns what the command did into a :class:`~.types.Decision`.

Protocols (``protocol`` in the hook entry):

``amplifier`` (the default)
    stdin::

        {"event": "PreToolUse", "tool": "bash", "args": {"command": "git status"},
         "session_id": "...", "timestamp": "...", "data": {<full event data>},
         "event_name": "tool:pre"}

    stdout: empty (go on), or one JSON object ``{"action": "allow" | "block" | "modify" |
    "ask" | "continue", "modified_args": {...} | null, "message": str | null}``, optionally
    with ``context`` (or ``additionalContext``): text added to the agent's context. ``deny``
    is read as ``block``. Exit code 2 blocks with stderr as the reason.

``claude-code``
    Claude Code's stdin fields, exit codes and ``hookSpecificOutput``, so that existing Claude
    Code hook scripts run unchanged; see :mod:`.claude_code`.

Failures, for both protocols, go through :func:`~.types.failure_decision` with the hook's
``on_failure`` policy and a message that says what went wrong: a non-zero exit code other
than 2 (with the first lines of stderr), ``/bin/sh``'s exit 127 (command not found) and 126
(not executable), a spawn failure, a timeout, and stdout that is not a valid answer (with an
excerpt, and a note when ``max_output_bytes`` cut it).

The process: a process group of its own, the project directory as working directory,
the inherited environment plus the hook's ``env`` plus ``AMPLIFIER_SESSION_ID``,
``AMPLIFIER_PROJECT_DIR`` and ``AMPLIFIER_HOOK_EVENT`` (the event's PascalCase alias, else
its canonical name); ``claude-code`` hooks also get ``CLAUDE_PROJECT_DIR``. stdin is written
in full and closed; a command that never reads it is fine. stdout and stderr are read as they
come, each kept up to ``max_output_bytes`` (the rest is read and discarded). The run ends when
the command has exited and both streams are closed. Past ``timeout_ms`` the whole process
group is stopped: the other members first (so that a still-running shell reaps them), then
the group, ``SIGTERM`` and after a short grace ``SIGKILL``; the command itself is reaped, so
nothing it started in its group keeps running and no zombie of ours is left. A cancelled run
kills the group at once.

The group is made with ``setpgid`` (``process_group=0``), not ``setsid``: a new session costs
0.2-0.3 ms more per run where the scheduler gives every session its own group (Linux
autogroup), for nothing a hook needs; the group is what the timeout kills.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from datetime import date, datetime
from pathlib import Path, PurePath
from typing import Any, Final

from .claude_code import claude_blocked, claude_decision, claude_input
from .specs import CommandHookSpec
from .types import Action, Decision, HookContext, failure_decision

__all__ = [
    "KILL_GRACE_S",
    "SHELL",
    "CommandRunner",
    "ProcessResult",
    "amplifier_decision",
    "amplifier_input",
    "encode",
    "excerpt",
    "run_process",
]

logger = logging.getLogger(__name__)

SHELL: Final = "/bin/sh"
#: Seconds between ``SIGTERM`` and ``SIGKILL`` when a hook runs past its timeout.
KILL_GRACE_S: Final = 0.5
_CHUNK: Final = 64 * 1024
_DRAIN_S: Final = 1.0
_POLL_S: Final = 0.01
_REAP_S: Final = 0.1
_KILL_WAIT_S: Final = 1.0
_PROC: Final = Path("/proc")
_EXCERPT_LINES: Final = 5
_EXCERPT_CHARS: Final = 300

_ACTIONS: Final[dict[str, Action]] = {
    "allow": "allow",
    "continue": "continue",
    "block": "block",
    "deny": "block",
    "modify": "modify",
    "ask": "ask",
}


# ----------------------------------------------------------------------------- the process


@dataclasses.dataclass(frozen=True, slots=True)
class ProcessResult:
    """What one run of a command produced.

    ``returncode`` is negative when a signal ended the command. ``*_dropped`` count the bytes
    read past ``max_output_bytes`` and discarded. ``timed_out``: the command ran past its
    timeout and its group was killed; ``held_open``: it had exited by then, but a process it
    started kept stdout or stderr open.
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    timed_out: bool = False
    held_open: bool = False


class _Capped:
    """The first ``cap`` bytes of a stream; later bytes are only counted."""

    __slots__ = ("cap", "data", "dropped")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) <= room:
            self.data += chunk
            return
        if room > 0:
            self.data += chunk[:room]
            self.dropped += len(chunk) - room
        else:
            self.dropped += len(chunk)


async def _pump(stream: asyncio.StreamReader | None, sink: _Capped) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        sink.add(chunk)


async def _finish_feed(stdin: asyncio.StreamWriter) -> None:
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        await stdin.drain()
    stdin.close()


def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> asyncio.Task[None] | None:
    """Write ``data`` and close stdin; a task only when the pipe could not take it at once.

    A command that exits without reading stdin breaks the pipe: that is not an error.
    """
    if stdin is None:
        return None
    try:
        stdin.write(data)
    except (BrokenPipeError, ConnectionResetError):
        stdin.close()
        return None
    if stdin.transport.get_write_buffer_size():
        return asyncio.create_task(_finish_feed(stdin))
    stdin.close()
    return None


def _state(pid: int) -> tuple[str, int] | None:
    """``(state letter, process group)`` of ``pid`` from ``/proc``; ``None`` when it is gone."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = stat[stat.rfind(")") + 2 :].split()
    return (fields[0], int(fields[2])) if len(fields) > 2 else None


def _members(pgid: int) -> set[int] | None:
    """Running (not zombie) processes of group ``pgid``; ``None`` where ``/proc`` is missing."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        pids = [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return None
    return {
        pid
        for pid in pids
        if (state := _state(pid)) is not None and state[1] == pgid and state[0] != "Z"
    }


def _running(pid: int, pgid: int) -> bool:
    state = _state(pid)
    return state is not None and state[1] == pgid and state[0] != "Z"


def _in_group(pid: int, pgid: int) -> bool:
    state = _state(pid)
    return state is not None and state[1] == pgid


def _group_running(pgid: int) -> bool:
    members = _members(pgid)
    if members is not None:
        return bool(members)
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


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
        await asyncio.sleep(_POLL_S)
    return True


async def _stop_others(proc: asyncio.subprocess.Process, sig: signal.Signals, wait: float) -> bool:
    """Signal the group's members other than the leader and, while the leader still runs,
    give it a moment to reap them (a killed child of a dead parent stays a zombie where init
    does not reap). Return whether none of them still runs."""
    leader = proc.pid
    others = (_members(leader) or set()) - {leader}
    if not others or proc.returncode is not None:
        return True
    for pid in others:
        _signal(pid, sig, group=False)

    def others_stopped() -> bool:
        return not any(_running(pid, leader) for pid in others)

    def others_reaped() -> bool:
        return proc.returncode is not None or not any(_in_group(pid, leader) for pid in others)

    if not await _until(others_stopped, wait):
        return False
    await _until(others_reaped, _REAP_S)
    return True


async def _stop_group(proc: asyncio.subprocess.Process, grace: float) -> None:
    """Stop every process of ``proc``'s group: ``SIGTERM``, then ``SIGKILL`` after ``grace``.

    Each round stops the members other than the leader first (:func:`_stop_others`), then
    signals the whole group. When some member outlives ``SIGTERM``, the leader is spared until
    the ``SIGKILL`` round, so that it is still there to reap that member.
    """
    leader = proc.pid

    def stopped() -> bool:
        return proc.returncode is not None and not _group_running(leader)

    if await _stop_others(proc, signal.SIGTERM, grace):
        _signal(leader, signal.SIGTERM, group=True)
        if await _until(stopped, grace):
            return
    await _stop_others(proc, signal.SIGKILL, _KILL_WAIT_S)
    _signal(leader, signal.SIGKILL, group=True)
    await _until(stopped, _KILL_WAIT_S)


async def _abandon_spawn(spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
    """A run cancelled while its command starts: let the start finish, then kill the group."""
    with contextlib.suppress(BaseException):
        proc = await asyncio.wait_for(spawn, _DRAIN_S)
        exited = asyncio.create_task(proc.wait())
        await _kill_now(proc, {exited}, exited)


async def _kill_now(
    proc: asyncio.subprocess.Process, tasks: set[asyncio.Task[Any]], exited: asyncio.Task[int]
) -> None:
    """A cancelled run: ``SIGKILL`` the group (other members first) and reap the command."""
    for task in tasks:
        if task is not exited:
            task.cancel()
    with contextlib.suppress(BaseException):
        await _stop_others(proc, signal.SIGKILL, _REAP_S)
    _signal(proc.pid, signal.SIGKILL, group=True)
    _close_pipes(proc)
    with contextlib.suppress(BaseException):
        await asyncio.wait({exited}, timeout=_DRAIN_S)
    exited.cancel()


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close the pipes that a process outside the group still holds, so ``wait()`` returns."""
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def run_process(
    command: str,
    stdin: bytes,
    *,
    cwd: str,
    env: Mapping[str, str],
    seconds: float,
    max_output_bytes: int,
    kill_grace: float = KILL_GRACE_S,
) -> ProcessResult:
    """Run ``/bin/sh -c command`` with ``stdin``, for at most ``seconds`` (module docstring).

    :raises OSError: the shell could not be started (missing ``cwd``, no ``/bin/sh``).
    :raises ValueError: ``env`` holds a NUL byte.
    """
    # Shielded: a cancel while asyncio connects the pipes would otherwise kill only the shell
    # and then wait for every process that holds its pipes (a background job: for minutes).
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            SHELL,
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            process_group=0,
        )
    )
    try:
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        await _abandon_spawn(spawn)
        raise
    out, err = _Capped(max_output_bytes), _Capped(max_output_bytes)
    tasks: set[asyncio.Task[Any]] = {
        asyncio.create_task(_pump(proc.stdout, out)),
        asyncio.create_task(_pump(proc.stderr, err)),
    }
    exited = asyncio.create_task(proc.wait())
    tasks.add(exited)
    feeder = _feed(proc.stdin, stdin)
    if feeder is not None:
        tasks.add(feeder)
    timed_out = held_open = False
    try:
        _, pending = await asyncio.wait(tasks, timeout=seconds)
        if pending:
            timed_out, held_open = True, proc.returncode is not None
            await _stop_group(proc, kill_grace)
            _, still_open = await asyncio.wait(pending, timeout=_DRAIN_S)
            for task in still_open:
                task.cancel()
            if still_open:
                _close_pipes(proc)
                await asyncio.wait({exited}, timeout=_DRAIN_S)
    except BaseException:
        await _kill_now(proc, tasks, exited)
        raise
    returncode = proc.returncode
    return ProcessResult(
        returncode=-signal.SIGKILL if returncode is None else returncode,
        stdout=bytes(out.data),
        stderr=bytes(err.data),
        stdout_dropped=out.dropped,
        stderr_dropped=err.dropped,
        timed_out=timed_out,
        held_open=held_open,
    )


# ----------------------------------------------------------------------------- messages


def excerpt(text: str, *, lines: int = _EXCERPT_LINES) -> str:
    """The first ``lines`` non-empty lines of ``text``, each cut at a readable width."""
    kept = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    shown = [
        line if len(line) <= _EXCERPT_CHARS else line[:_EXCERPT_CHARS] + "..."
        for line in kept[:lines]
    ]
    more = len(kept) - len(shown)
    return " | ".join(shown) + (f" (+{more} more lines)" if more > 0 else "")


def _stderr_note(result: ProcessResult) -> str:
    text = excerpt(result.stderr.decode("utf-8", "replace"))
    return f"; stderr: {text}" if text else "; stderr was empty"


def _exit_text(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def _cap_note(result: ProcessResult, cap: int) -> str:
    if not result.stdout_dropped:
        return ""
    return (
        f" (stdout was cut at max_output_bytes={cap}; "
        f"{result.stdout_dropped} more bytes were discarded)"
    )


def _jsonable(value: object) -> object:
    """JSON for the event data's non-JSON values (models, paths, sets, bytes, dates)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, datetime | date):
        return value.isoformat()
    return repr(value)


def encode(payload: Mapping[str, Any]) -> bytes:
    """The stdin bytes of ``payload``."""
    return json.dumps(payload, default=_jsonable, ensure_ascii=False).encode("utf-8")


# ----------------------------------------------------------------------------- amplifier


def amplifier_input(ctx: HookContext) -> dict[str, Any]:
    """The ``amplifier`` protocol's stdin object for ``ctx``."""
    return {
        "event": ctx.alias,
        "tool": ctx.tool,
        "args": ctx.args,
        "session_id": ctx.session_id,
        "timestamp": ctx.timestamp,
        "data": ctx.data,
        "event_name": ctx.event,
    }


def _optional_text(answer: Mapping[str, Any], *keys: str) -> str | None:
    """The first of ``keys`` present in ``answer``, which must be a string or null."""
    for key in keys:
        value = answer.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValueError(f"`{key}` is {type(value).__name__} {value!r}, expected a string")
        return value
    return None


def amplifier_decision(stdout: str, *, label: str) -> Decision | str:
    """The decision in an ``amplifier`` hook's stdout (exit code 0), or what is wrong with it."""
    text = stdout.strip()
    if not text:
        return Decision(source=label)
    try:
        answer = json.loads(text)
    except ValueError as err:
        return f"stdout is not JSON ({err}): {excerpt(text, lines=2)}"
    if not isinstance(answer, dict):
        return (
            f"stdout is a JSON {type(answer).__name__}, expected an object such as "
            f'{{"action": "allow"}}: {excerpt(text, lines=2)}'
        )
    raw_action = answer.get("action", "continue")
    action = _ACTIONS.get(raw_action) if isinstance(raw_action, str) else None
    if action is None:
        return (
            f"stdout JSON has unknown action {raw_action!r}; "
            "expected allow, block, modify, ask or continue"
        )
    try:
        message = _optional_text(answer, "message")
        context = _optional_text(answer, "context", "additionalContext")
    except ValueError as err:
        return f"stdout JSON: {err}"
    modified = answer.get("modified_args")
    if action == "modify" and not isinstance(modified, dict):
        return (
            "stdout JSON has action modify but modified_args is "
            f"{type(modified).__name__} {modified!r}, expected an object"
        )
    if action == "block":
        return Decision(
            action="block",
            message=message or f"blocked by hook {label}",
            level="warning",
            context=context,
            source=label,
        )
    return Decision(
        action=action,
        message=message,
        modified_args=modified if action == "modify" else None,
        context=context,
        source=label,
    )


def _amplifier_blocked(stderr: str, label: str) -> Decision:
    reason = stderr.strip() or f"blocked by hook {label} (exit code 2, stderr was empty)"
    return Decision(action="block", message=reason, level="warning", source=label)


# ----------------------------------------------------------------------------- the runner


class CommandRunner:
    """A ``type: command`` hook: ``await runner.run(ctx)`` never raises for a hook failure.

    :param spec: the validated hook entry.
    :param label: names the hook in messages (file and index), e.g. ``hooks.yaml PreToolUse[0]``.
    :param project_dir: the working directory of the command (``AMPLIFIER_PROJECT_DIR``);
        empty means the context's ``project_dir``.
    """

    __slots__ = ("_claude", "_shown", "label", "project_dir", "spec")

    def __init__(self, spec: CommandHookSpec, *, label: str, project_dir: str) -> None:
        self.spec = spec
        self.label = label
        self.project_dir = project_dir
        self._claude = spec.protocol == "claude-code"
        shown = spec.command if len(spec.command) <= 80 else spec.command[:77] + "..."
        self._shown = f"command `{shown}`"

    def __repr__(self) -> str:
        return f"CommandRunner({self.label!r}, {self._shown}, protocol={self.spec.protocol!r})"

    def _environment(self, ctx: HookContext, project_dir: str) -> dict[str, str]:
        env = {**os.environ, **self.spec.env}
        env["AMPLIFIER_SESSION_ID"] = ctx.session_id
        env["AMPLIFIER_PROJECT_DIR"] = project_dir
        env["AMPLIFIER_HOOK_EVENT"] = ctx.alias or ctx.event
        if self._claude:
            env["CLAUDE_PROJECT_DIR"] = project_dir
        return env

    def _project_dir(self, ctx: HookContext) -> str:
        return self.project_dir or ctx.project_dir or os.getcwd()

    def _fail(self, problem: str) -> Decision:
        return failure_decision(self.spec.on_failure, self.label, f"{self._shown} {problem}")

    async def run(self, ctx: HookContext) -> Decision:
        """Run the command for ``ctx`` and return its decision (see the module docstring)."""
        spec = self.spec
        project_dir = self._project_dir(ctx)
        try:
            stdin = encode(claude_input(ctx, project_dir) if self._claude else amplifier_input(ctx))
        except Exception as err:  # a hook failure, never the session's: say what broke
            return self._fail(
                f"was not run: the {ctx.event} event could not be written as JSON: "
                f"{type(err).__name__}: {err}"
            )
        try:
            result = await run_process(
                spec.command,
                stdin,
                cwd=project_dir,
                env=self._environment(ctx, project_dir),
                seconds=spec.timeout_ms / 1000,
                max_output_bytes=spec.max_output_bytes,
            )
        except (OSError, ValueError) as err:  # ValueError: a NUL byte in the environment
            reason = getattr(err, "strerror", None) or str(err)
            return self._fail(f"could not be started ({SHELL} in {project_dir}): {reason}")
        return self.decide(ctx, result)

    def decide(self, ctx: HookContext, result: ProcessResult) -> Decision:
        """The decision for what the command did (exit code, stdout, stderr, timeout)."""
        if result.timed_out:
            problem = (
                f"timed out after {self.spec.timeout_ms} ms (timeout_ms); "
                "its process group was killed"
            )
            if result.held_open:
                problem += (
                    "; the command had exited but a process it started kept stdout/stderr "
                    "open (redirect a background job's output: `cmd > log 2>&1 &`)"
                )
            stderr = excerpt(result.stderr.decode("utf-8", "replace"))
            return self._fail(problem + (f"; stderr so far: {stderr}" if stderr else ""))
        code = result.returncode
        if code == 2:
            stderr = result.stderr.decode("utf-8", "replace")
            if self._claude:
                return claude_blocked(ctx, stderr, label=self.label)
            return _amplifier_blocked(stderr, self.label)
        if code == 127:
            return self._fail(f"was not found (exit code 127 from {SHELL}){_stderr_note(result)}")
        if code == 126:
            return self._fail(
                f"is not executable (exit code 126 from {SHELL}){_stderr_note(result)}"
            )
        if code != 0:
            return self._fail(f"{_exit_text(code)}{_stderr_note(result)}")
        if result.stderr:
            logger.debug(
                "hook %s wrote to stderr: %s",
                self.label,
                excerpt(result.stderr.decode("utf-8", "replace")),
            )
        stdout = result.stdout.decode("utf-8", "replace")
        if self._claude:
            decided = claude_decision(
                ctx,
                stdout,
                label=self.label,
                project_dir=self._project_dir(ctx),
                truncated=bool(result.stdout_dropped),
            )
        else:
            decided = amplifier_decision(stdout, label=self.label)
        if isinstance(decided, str):
            return self._fail(
                f"exited with code 0 but {decided}{_cap_note(result, self.spec.max_output_bytes)}"
            )
        return decided
