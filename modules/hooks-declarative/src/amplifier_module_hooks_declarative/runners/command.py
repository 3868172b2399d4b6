"""Command hooks: run an external command with the event as JSON on stdin.

:class:`CommandRunner` runs ``/bin/sh -c <command>`` (the command comes from the hooks file,
which is trusted configuration; event data never reaches a command line, only stdin and the
environment) and turns what the command did into a :class:`~..types.Decision`.

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
    Code hook scripts run unchanged; see :mod:`..formats.shared.claude_protocol`.

``gemini``, ``cursor``, ``hook-shell``
    Those tools' hooks: see each format's ``protocol`` module.

Failures, for both protocols, go through :func:`~..types.failure_decision` with the hook's
``on_failure`` policy and a message that says what went wrong: a non-zero exit code other
than 2 (with the first lines of stderr), ``/bin/sh``'s exit 127 (command not found) and 126
(not executable), a spawn failure, a timeout, and stdout that is not a valid answer (with an
excerpt, and a note when ``max_output_bytes`` cut it). A protocol with ``quiet_failures``
(``hook-shell``, :mod:`..formats.hook_shell.protocol`) logs them instead, under the default
``warn``, and reads the stdout of any exit code but 2.

The process (:func:`amplifier_hooks_util.process.run_process`): a process group of its own,
the project directory as working directory, the inherited environment plus the hook's ``env``
plus ``AMPLIFIER_SESSION_ID``, ``AMPLIFIER_PROJECT_DIR`` and ``AMPLIFIER_HOOK_EVENT`` (the
event's PascalCase alias, else its canonical name); ``claude-code`` hooks also get
``CLAUDE_PROJECT_DIR``. stdin is written in full and closed; a command that never reads it is
fine. stdout and stderr are each kept up to ``max_output_bytes`` (the rest is read and
discarded). The run ends when the command has exited and both streams are closed. Past
``timeout_ms`` the whole process group is stopped, ``SIGTERM`` and after :data:`KILL_GRACE_S`
``SIGKILL``, so nothing the command started in its group keeps running and no zombie of ours is
left. A cancelled run (an ``async: true`` hook still running at cleanup) kills the group at
once.

The group is made with ``setpgid`` (``new_session=False``), not ``setsid``: a new session costs
0.2-0.3 ms more per run where the scheduler gives every session its own group (Linux
autogroup), for nothing a hook needs; the group is what the timeout kills. A process that
leaves the group still dies at the timeout (see :mod:`amplifier_hooks_util.process_tree`).

Containment: building a runner makes the session non-dumpable, so no hook reads the session's
``/proc/<pid>/environ``. A hook with ``sandbox: true`` (:mod:`..containment` says who gets it)
runs as ``bwrap ... /bin/sh -c <command>`` (:class:`amplifier_hooks_util.sandbox.Sandbox`),
with the minimal environment unless ``environment`` already reduces it (its names pass only
with values of their shape: :mod:`amplifier_hooks_util.minimal_env`);
the project directory (but for its guarded entries: ``.git``, the hook directories, the env
files, unless ``sandbox_write_paths`` names them), ``sandbox_write_paths`` and the
``CLAUDE_ENV_FILE`` the session gives a ``SessionStart`` hook (never one the hook's own ``env``
names) are writable; no unix socket can be made (the sandbox's system-call filter); what
the command's own programs need from the directories the sandbox hides (``/tmp``,
``/var/tmp``: an interpreter in a virtual environment there, the script it runs) is shown
read-only (:func:`amplifier_hooks_util.program_files.program_files`).
A sandbox that cannot start blocks, whatever ``on_failure`` says.

Git under a hook: the environment carries ``GIT_CONFIG_COUNT`` overrides
(:func:`amplifier_hooks_util.git_config.git_environment`), so a ``git status`` or ``git commit``
the hook runs in the project never starts a program the repository's configuration names
(``core.fsmonitor``, hooks, filters, diff and merge drivers, credential helpers...).

After a hook that was given ``CLAUDE_ENV_FILE`` ran, what it appended is attributed to it and
judged at once (:func:`..session_env.review_written`): a refused variable is named in a warning
with the hook.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from fnmatch import fnmatchcase
from pathlib import Path, PurePath
from typing import Any, Final

from amplifier_hooks_util.git_config import git_environment_async
from amplifier_hooks_util.minimal_env import fits
from amplifier_hooks_util.process import ProcessResult, run_process, signal_name
from amplifier_hooks_util.process_tree import contain_session
from amplifier_hooks_util.program_files import program_files
from amplifier_hooks_util.sandbox import BWRAP, Sandbox, SandboxUnavailable, sandbox_failure

from ..amplifier_protocol import amplifier_decision, amplifier_input
from ..answers import excerpt
from ..config import MINIMAL_ENVIRONMENT
from ..protocols import AMPLIFIER, CommandProtocol, command_protocol
from ..receipt_notes import note_failure, note_process
from ..session_env import file_size, review_written
from ..specs import CommandHookSpec
from ..types import Decision, HookContext, failure_decision

__all__ = [
    "KILL_GRACE_S",
    "PROTOCOL",
    "SHELL",
    "CommandRunner",
    "amplifier_decision",
    "amplifier_input",
    "encode",
    "excerpt",
    "expand_variables",
    "shell_program",
]

logger = logging.getLogger(__name__)

SHELL: Final = "/bin/sh"
#: Seconds between ``SIGTERM`` and ``SIGKILL`` when a hook runs past its timeout.
KILL_GRACE_S: Final = 0.5


# ----------------------------------------------------------------------------- messages


def _stderr_note(result: ProcessResult) -> str:
    text = excerpt(result.stderr.decode("utf-8", "replace"))
    return f"; stderr: {text}" if text else "; stderr was empty"


def _exit_text(returncode: int) -> str:
    killer = signal_name(returncode)
    return f"was killed by {killer}" if killer else f"exited with code {returncode}"


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


PROTOCOL: Final = AMPLIFIER
"""The ``amplifier`` protocol (the module docstring; :data:`~..protocols.AMPLIFIER`)."""


# ----------------------------------------------------------------------------- shells

_SHELLS: Final[dict[str, tuple[str, ...]]] = {
    "bash": ("bash",),
    "powershell": ("pwsh", "powershell"),
}
"""The programs that serve each ``shell`` of a command hook, in order of preference."""
_VARIABLE: Final = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def shell_program(shell: str, search_path: str | None) -> str | None:
    """The program that runs ``shell`` (``bash``, ``powershell``) on ``search_path``."""
    for name in _SHELLS.get(shell, (shell,)):
        found = shutil.which(name, path=search_path) or shutil.which(name)
        if found:
            return found
    return None


def expand_variables(word: str, env: Mapping[str, str]) -> str:
    """``word`` with ``$NAME`` / ``${NAME}`` replaced from ``env`` (an unset one is empty):
    what an exec-form hook's ``command`` and ``args`` get in place of a shell's expansion."""
    return _VARIABLE.sub(lambda m: env.get(m.group(1) or m.group(2), ""), word)


# ----------------------------------------------------------------------------- the runner


class CommandRunner:
    """A ``type: command`` hook: ``await runner.run(ctx)`` never raises for a hook failure.

    :param spec: the validated hook entry.
    :param label: names the hook in messages (file and index), e.g. ``hooks.yaml PreToolUse[0]``.
    :param project_dir: the working directory of the command (``AMPLIFIER_PROJECT_DIR``);
        empty means the context's ``project_dir``.
    :param pass_env: names or patterns of the variables of our environment the command gets;
        ``None`` passes all of it.
    :param protocol: the hook's protocol as the module config sets it up
        (:func:`~..protocols.configured_protocol`); default: ``spec.protocol`` as it comes.
    """

    __slots__ = ("_protocol", "_shown", "label", "pass_env", "project_dir", "spec", "write_paths")

    def __init__(
        self,
        spec: CommandHookSpec,
        *,
        label: str,
        project_dir: str,
        pass_env: Sequence[str] | None = None,
        protocol: CommandProtocol | None = None,
        write_paths: Sequence[str] = (),
    ) -> None:
        self.spec = spec
        self.label = label
        self.project_dir = project_dir
        self.pass_env = None if pass_env is None else tuple(pass_env)
        if spec.sandbox and self.pass_env is None:
            self.pass_env = MINIMAL_ENVIRONMENT
        self.write_paths = tuple(write_paths)
        # The session's /proc files (its environment) become unreadable to its hooks.
        contain_session()
        self._protocol = protocol or command_protocol(spec.protocol)
        shown = spec.command if len(spec.command) <= 80 else spec.command[:77] + "..."
        self._shown = f"command `{shown}`"

    def __repr__(self) -> str:
        return f"CommandRunner({self.label!r}, {self._shown}, protocol={self.spec.protocol!r})"

    def _environment(
        self, ctx: HookContext, project_dir: str, *, own: bool = True
    ) -> tuple[dict[str, str], Mapping[str, str]]:
        """The command's environment, and what of it the session sets (its env file); with
        ``own=False``, without what the hook's ``env`` sets."""
        base: Mapping[str, str] = os.environ
        if self.pass_env is not None:
            # the minimal names pass with a value of their shape only; the rest as named
            extra = [p for p in self.pass_env if p not in MINIMAL_ENVIRONMENT]
            base = {
                k: v
                for k, v in os.environ.items()
                if fits(k, v) or any(fnmatchcase(k, p) for p in extra)
            }
        env = {**self._protocol.inherit(base), **ctx.environment, **(self.spec.env if own else {})}
        env["AMPLIFIER_SESSION_ID"] = ctx.session_id
        env["AMPLIFIER_PROJECT_DIR"] = project_dir
        env["AMPLIFIER_HOOK_EVENT"] = ctx.alias or ctx.event
        session = self._protocol.environment(ctx, project_dir)
        env.update(session)
        return env, session

    async def _git_environment(
        self, ctx: HookContext, project_dir: str, env: dict[str, str]
    ) -> dict[str, str]:
        """``env`` with the overrides that keep git from running the configuration's programs.

        Finding them runs ``git config`` outside any sandbox; for a contained hook it runs with
        the environment the hook's own ``env`` has no part in (a ``PATH`` leading to the
        project's ``git``, ``LD_PRELOAD``, ``GIT_TRACE`` naming a file outside would otherwise
        act there, uncontained), and the overrides found are laid over the hook's ``env``.
        """
        if not self.spec.sandbox or not self.spec.env:
            listed, _ = await git_environment_async(env, project_dir)
            return listed
        plain, _ = self._environment(ctx, project_dir, own=False)
        listed, _ = await git_environment_async(plain, project_dir)
        overrides = {k: v for k, v in listed.items() if plain.get(k) != v}
        return {**env, **overrides}

    def _project_dir(self, ctx: HookContext) -> str:
        return self.project_dir or ctx.project_dir or os.getcwd()

    @property
    def _quiet(self) -> bool:
        """A failure is logged and let pass unseen (the protocol's ``quiet_failures``)."""
        return self._protocol.quiet_failures and self.spec.on_failure == "warn"

    def _fail(self, problem: str, kind: str = "error") -> Decision:
        note_failure(kind, problem)
        if self._quiet:
            logger.warning(
                "hook %s failed: %s %s; continuing unseen, as %s does",
                self.label,
                self._shown,
                problem,
                self._protocol.name,
            )
            return Decision(source=self.label)
        return failure_decision(self.spec.on_failure, self.label, f"{self._shown} {problem}")

    async def run(self, ctx: HookContext) -> Decision:
        """Run the command for ``ctx`` and return its decision (see the module docstring)."""
        spec = self.spec
        project_dir = self._project_dir(ctx)
        try:
            stdin = encode(self._protocol.stdin(ctx, project_dir))
        except Exception as err:  # a hook failure, never the session's: say what broke
            return self._fail(
                f"was not run: the {ctx.event} event could not be written as JSON: "
                f"{type(err).__name__}: {err}",
                "not_started",
            )
        env, session = self._environment(ctx, project_dir)
        # git the hook runs obeys none of the project's git configuration that runs programs
        env = await self._git_environment(ctx, project_dir, env)
        # The env file is the session's to give (SessionStart), never the hook's own `env`:
        # what it names is judged afterwards and, contained, bound writable.
        env_file = session.get("CLAUDE_ENV_FILE") or session.get("AMPLIFIER_ENV_FILE")
        written_from = file_size(Path(env_file)) if env_file else 0
        command: str | list[str] = spec.command
        shell = SHELL
        if spec.args is not None:  # exec form: no shell
            command = [expand_variables(word, env) for word in (spec.command, *spec.args)]
        elif spec.shell != "sh":
            found = shell_program(spec.shell, env.get("PATH"))
            if found is None:
                return self._fail(
                    f"could not be started: shell {spec.shell!r} is not installed "
                    f"(none of {', '.join(_SHELLS[spec.shell])} on PATH)",
                    "not_started",
                )
            shell = found
            if spec.shell == "powershell":
                command = [found, "-NoProfile", "-NonInteractive", "-Command", spec.command]
        try:
            if spec.sandbox:
                writable = (*self.write_paths, *((env_file,) if env_file else ()))
                words = command if isinstance(command, list) else [shell, "-c", command]
                line = shlex.join(command) if isinstance(command, list) else command
                needs = program_files(line, project_dir, env.get("PATH"))
                sandbox = Sandbox(project_dir, writable, read_paths=needs)
                # the environment is the command's, never bwrap's (which runs uncontained)
                with sandbox.contained(words, env) as contained:
                    result = await self._start(
                        contained.argv,
                        stdin,
                        project_dir,
                        contained.env,
                        shell,
                        contained.pass_fds,
                    )
                    # bwrap has ended, and with it every process of the sandbox
                    made = contained.set_aside()
                if made:
                    return self._made_guarded(made)
            else:
                result = await self._start(command, stdin, project_dir, env, shell, ())
        except SandboxUnavailable as err:
            return self._contained_failure(str(err))
        except (OSError, ValueError) as err:  # ValueError: a NUL byte in the environment
            reason = getattr(err, "strerror", None) or str(err)
            if spec.sandbox:
                return self._contained_failure(f"{BWRAP} could not be started: {reason}")
            return self._fail(
                f"could not be started ({SHELL} in {project_dir}): {reason}", "not_started"
            )
        if spec.sandbox and (why := sandbox_failure(result.returncode, result.stderr)):
            return self._contained_failure(why)
        if env_file:
            review_written(Path(env_file), written_from, self.label, project_dir=project_dir)
        return self.decide(ctx, result)

    async def _start(
        self,
        command: str | list[str],
        stdin: bytes,
        project_dir: str,
        env: Mapping[str, str],
        shell: str,
        pass_fds: Sequence[int],
    ) -> ProcessResult:
        return await run_process(
            command,
            stdin=stdin,
            cwd=project_dir,
            env=env,
            timeout=self.spec.timeout_ms / 1000,
            output_cap=self.spec.max_output_bytes,
            grace=KILL_GRACE_S,
            shell=shell,
            new_session=False,
            pass_fds=pass_fds,
        )

    def _contained_failure(self, why: str) -> Decision:
        """A hook that must run contained and cannot: blocked, whatever its ``on_failure``."""
        note_failure("not_started", f"the sandbox did not start: {why}")
        text = (
            f"hook {self.label} failed: {self._shown} must run in a sandbox (sandbox: true) "
            f"and the sandbox did not start: {why}; blocked"
        )
        logger.warning("%s", text)
        return Decision(action="block", message=text, level="error", source=self.label)

    def _made_guarded(self, made: list[tuple[str, str]]) -> Decision:
        """A contained command made guarded entries the project did not have: they were set
        aside (:meth:`~amplifier_hooks_util.sandbox.Contained.set_aside`); blocked, whatever its
        ``on_failure`` or answer."""
        named = ", ".join(
            f"{os.path.basename(path)} (set aside as {os.path.basename(aside)})"
            if aside
            else f"{os.path.basename(path)} (which could not be set aside: remove it)"
            for path, aside in made
        )
        text = (
            f"hook {self.label} failed: {self._shown} ran in a sandbox (sandbox: true) and made "
            f"{named} in the project {os.path.dirname(made[0][0])}, which a contained command "
            "may not create (a repository, hooks or settings a later uncontained program "
            "would run; sandbox_write_paths can allow one); blocked"
        )
        note_failure("error", text)
        logger.warning("%s", text)
        return Decision(action="block", message=text, level="error", source=self.label)

    def decide(self, ctx: HookContext, result: ProcessResult) -> Decision:
        """The decision for what the command did (exit code, stdout, stderr, timeout)."""
        note_process(result.returncode, result.timed_out)
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
        if code == 2 and self._protocol.exit_two_blocks:
            stderr = result.stderr.decode("utf-8", "replace")
            if self.spec.rewake and not stderr.strip():  # asyncRewake: stderr, else stdout
                stderr = result.stdout.decode("utf-8", "replace")
            return self._protocol.blocked(ctx, stderr, self.label)
        if code != 0 and self._quiet:  # logged, and its stdout read all the same
            logger.warning(
                "hook %s: %s %s%s; its stdout is read as %s does",
                self.label,
                self._shown,
                _exit_text(code),
                _stderr_note(result),
                self._protocol.name,
            )
        elif code == 127:
            return self._fail(f"was not found (exit code 127 from {SHELL}){_stderr_note(result)}")
        elif code == 126:
            return self._fail(
                f"is not executable (exit code 126 from {SHELL}){_stderr_note(result)}"
            )
        elif code != 0:
            return self._fail(f"{_exit_text(code)}{_stderr_note(result)}")
        elif result.stderr:
            logger.debug(
                "hook %s wrote to stderr: %s",
                self.label,
                excerpt(result.stderr.decode("utf-8", "replace")),
            )
        stdout = result.stdout.decode("utf-8", "replace")
        decided = self._protocol.decision(
            ctx, stdout, self.label, self._project_dir(ctx), bool(result.stdout_dropped)
        )
        if isinstance(decided, str):
            return self._fail(
                f"{_exit_text(code)} but {decided}{_cap_note(result, self.spec.max_output_bytes)}"
            )
        return decided
