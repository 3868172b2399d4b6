"""The ``bash`` tool: run one shell command in the working directory, bounded in time and output.

Each call runs ``/bin/bash -c <command>`` in the working directory, in a new session (no
controlling terminal) and process group, with stdin from ``/dev/null`` and the session's
environment plus the configured extra variables plus the variables the session offers under
the capability ``session.environment`` (a ``SessionStart`` hook's ``CLAUDE_ENV_FILE``).
stdout and stderr are read as they come and each is capped at ``max_output_bytes``: the head
and the tail are kept around a ``[... N bytes truncated ...]`` marker, so a command that
prints gigabytes costs a fixed amount of memory.

The call ends when the shell has exited and both output streams are closed (a background job
that keeps them open counts as part of the command). Past the timeout the whole process group
is stopped, ``SIGTERM`` and, after ``kill_grace`` seconds, ``SIGKILL``: nothing the command
started in its group survives, and no zombie is left. Cancelling the call kills the group at
once. (:mod:`amplifier_hooks_util.process` does the running.)
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_util.env_policy import review
from amplifier_hooks_util.process import ProcessResult, describe_exit, run_process

from amplifier_core import ToolResult

from .config import BashConfig
from .inputs import failure, input_schema, parse_input

__all__ = ["ENVIRONMENT_CAPABILITY", "SHELL", "TOOL_NAME", "BashTool"]

logger = logging.getLogger(__name__)

TOOL_NAME: Final = "bash"
SHELL: Final = "/bin/bash"
ENVIRONMENT_CAPABILITY: Final = "session.environment"
"""The coordinator capability asked before each command: a callable returning variables the
session sets for its commands (hooks-declarative's ``CLAUDE_ENV_FILE``); they override the
inherited environment and ``env``. One that is not a variable name, or whose value holds a NUL
byte, is skipped with a warning; so is one that could change what a command runs
(:func:`amplifier_hooks_util.env_policy.review`: a ``PATH`` entry that is relative or inside the
working directory, ``BASH_ENV``, ``LD_*``, ``GIT_*``, ...)."""
_VARIABLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class BashTool:
    """Runs a shell command in ``working_dir`` and returns ``{stdout, stderr, returncode}``."""

    def __init__(
        self,
        working_dir: Path,
        config: BashConfig | None = None,
        *,
        session_environment: Callable[[], object] | None = None,
    ) -> None:
        self.working_dir = Path(working_dir)
        self.config = config or BashConfig()
        self._session_environment = session_environment
        self._refused: set[tuple[str, str]] = set()
        cfg = self.config
        self._description = (
            f"Run a shell command with {SHELL} -c in the working directory "
            f"({self.working_dir}). Each call starts a fresh shell; stdin is empty. "
            f"Timeout: {cfg.timeout:g} s by default, at most {cfg.max_timeout:g} s; on timeout "
            "the command and everything it started are killed. stdout and stderr are each "
            f"capped at {cfg.max_output_bytes} bytes (head and tail kept). Returns "
            "{stdout, stderr, returncode}; a non-zero exit code is a failure. A background "
            "job (`cmd &`) must redirect its output (`cmd > log 2>&1 &`), or the call waits "
            "for it."
        )
        self._schema = input_schema()

    @property
    def name(self) -> str:
        """``bash``: the name the model calls the tool by."""
        return TOOL_NAME

    @property
    def description(self) -> str:
        """What the tool does and its limits, as the model reads them."""
        return self._description

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of a call's input (``command``, ``timeout``, ``description``)."""
        return self._schema

    def _environment(self) -> dict[str, str]:
        return {**os.environ, **self.config.env, **self._session_variables()}

    def _session_variables(self) -> dict[str, str]:
        """The variables the session offers under :data:`ENVIRONMENT_CAPABILITY`, read now;
        one that fails is logged and skipped (the command still runs)."""
        if self._session_environment is None:
            return {}
        try:
            offered = self._session_environment()
            found = offered() if callable(offered) else None
        except Exception as err:
            logger.warning("bash: the session's %s failed: %s", ENVIRONMENT_CAPABILITY, err)
            return {}
        if not isinstance(found, Mapping):
            return {}
        usable: dict[str, str] = {}
        for name, value in found.items():
            name, value = str(name), str(value)
            if _VARIABLE.fullmatch(name) is None or "\0" in value:
                logger.warning(
                    "bash: the session's %s offered %r, which cannot be an environment "
                    "variable; skipped",
                    ENVIRONMENT_CAPABILITY,
                    name[:80],
                )
                continue
            usable[name] = value
        judged = review(usable, project_dir=str(self.working_dir))
        for refusal in judged.refused:
            if (refusal.name, refusal.why) not in self._refused:
                self._refused.add((refusal.name, refusal.why))
                logger.warning(
                    "bash: %s from the session's %s is refused: %s",
                    refusal.name,
                    ENVIRONMENT_CAPABILITY,
                    refusal.why,
                )
        return judged.allowed

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        """Run ``input["command"]``; failures (exit code, timeout, spawn) are failed results."""
        parsed = parse_input(TOOL_NAME, input)
        if isinstance(parsed, ToolResult):
            return parsed
        seconds = min(parsed.timeout or self.config.timeout, self.config.max_timeout)
        try:
            result = await run_process(
                parsed.command,
                cwd=self.working_dir,
                env=self._environment(),
                timeout=seconds,
                output_cap=self.config.max_output_bytes,
                keep_tail=True,
                grace=self.config.kill_grace,
                shell=SHELL,
            )
        except (OSError, ValueError) as err:  # ValueError: a NUL byte in the command
            reason = getattr(err, "strerror", None) or str(err)
            return failure(
                "SpawnError", f"bash: could not start {SHELL} in {self.working_dir}: {reason}"
            )
        return _outcome(result, seconds)


def _outcome(result: ProcessResult, seconds: float) -> ToolResult:
    output = {
        "stdout": result.text("stdout"),
        "stderr": result.text("stderr"),
        "returncode": result.returncode,
    }
    if result.timed_out:
        message = f"bash: command timed out after {seconds:g} s"
        if result.held_open:
            message += (
                "; the shell had exited but a background process kept stdout/stderr open"
                " (redirect its output: `cmd > log 2>&1 &`)"
            )
        return failure("Timeout", message + "; output so far is kept", output)
    if result.returncode != 0:
        return failure("NonZeroExit", describe_exit(result.returncode), output)
    return ToolResult(success=True, output=output)
