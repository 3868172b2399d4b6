"""The ``tool:post`` handler: check the Python file a tool just wrote and feed back the issues.

Any other tool, a failed call, or a path that matches no ``file_patterns`` costs a few dict
look-ups and returns ``continue``. A checked file with issues returns ``inject_context``: the
issues are appended to the tool result the model reads next (ephemeral, so they are not kept
in the conversation once the model has seen them) and one line goes to the human. A file that
vanished or is not UTF-8 is reported, a checker that is missing is announced once per mount,
and whatever goes wrong, the handler returns a result instead of raising.
"""

from __future__ import annotations

import asyncio
import fnmatch
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from amplifier_core.models import HookResult

from .checkers import MYPY_ARGS, mypy_run, run_format, run_mypy, run_ruff
from .commands import Resolution, resolve_command
from .config import MODULE_ID, SOURCE, Check, PythonCheckConfig
from .daemon import DaemonUnavailable, MypyDaemons, daemon_available
from .issues import CheckRun
from .report import Feedback, build_feedback
from .runner import CommandTimeout
from .stubs import scan_stubs

__all__ = ["PythonCheckHook"]

logger = logging.getLogger(__name__)

_PATH_KEYS: Final = ("file_path", "path")


def _field(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _path_in(data: Mapping[str, Any]) -> str | None:
    """The written file: the result's resolved ``file_path``/``path``, else the input's."""
    result = data.get("tool_result") or data.get("result")
    tool_input = data.get("tool_input") or data.get("input")
    for source in (_field(result, "output"), tool_input):
        if isinstance(source, Mapping):
            for key in _PATH_KEYS:
                value = source.get(key)
                if isinstance(value, str) and value:
                    return value
    return None


def _failed(data: Mapping[str, Any]) -> bool:
    result = data.get("tool_result") or data.get("result")
    return _field(result, "success") is False


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _utf8_problem(data: bytes, err: UnicodeDecodeError) -> tuple[int, int, str]:
    """Line, column and a description of the first byte that is not UTF-8."""
    start = err.start
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    return line, column, f"byte 0x{data[start]:02x} at offset {start} is not valid UTF-8"


class PythonCheckHook:
    """The handler and its per-mount state: found commands, announced missing checkers."""

    def __init__(self, config: PythonCheckConfig, coordinator: Any = None) -> None:
        self.config = config
        self.coordinator = coordinator
        self._tools = frozenset(config.tools)
        self._resolved: dict[str, Resolution] = {}
        self._announced: set[str] = set()
        use_daemon = (
            config.mypy_daemon
            and config.runs("mypy")
            and config.commands.mypy is None
            and daemon_available()
        )
        self._daemons: MypyDaemons | None = MypyDaemons() if use_daemon else None

    def warm(self) -> None:
        """Start the mypy daemon of the session's working directory in the background, so
        that the first check finds it warm; returns at once and never raises."""
        if self._daemons is None:
            return
        try:
            root = self._root()
            if root.is_dir():
                args = (*MYPY_ARGS, *self.config.args.mypy)
                self._daemons.warm(root, args, self.config.timeout)
        except Exception as err:  # the first check starts it, the ordinary way
            logger.warning("%s: starting mypy's daemon at mount failed: %r", MODULE_ID, err)

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait for the start :meth:`warm` began; False when it is still under way after
        ``timeout`` seconds (True at once when there is none)."""
        return self._daemons is None or self._daemons.wait_warm(timeout)

    def close(self) -> None:
        """Stop the mypy daemons this handler started."""
        if self._daemons is not None:
            self._daemons.close()

    # -- what to check

    def _root(self) -> Path:
        """Where the checkers run and paths are shown from: config, session, process cwd."""
        base: Path | None = None
        get = getattr(self.coordinator, "get_capability", None)
        if callable(get):
            try:
                found = get("session.working_dir")
            except Exception:  # a coordinator without that capability
                found = None
            if isinstance(found, str | os.PathLike) and str(found):
                base = Path(found)
        if base is None:
            base = Path.cwd()
        if self.config.working_dir is not None:
            base = base / Path(self.config.working_dir).expanduser()
        return base.resolve()

    def _matches(self, path: Path, display: str) -> bool:
        for pattern in self.config.file_patterns:
            if "/" in pattern:
                if fnmatch.fnmatch(display, pattern) or fnmatch.fnmatch(path.as_posix(), pattern):
                    return True
            elif fnmatch.fnmatch(path.name, pattern):
                return True
        return False

    def _command(self, tool: str) -> Resolution:
        resolution = self._resolved.get(tool)
        if resolution is None:
            configured = getattr(self.config.commands, tool)
            resolution = self._resolved[tool] = resolve_command(tool, configured)
        return resolution

    # -- the handler

    async def handle(self, event: str, data: dict[str, Any]) -> HookResult:
        """Check the file a configured tool wrote; feedback as described in the module doc."""
        tool = data.get("tool_name") or data.get("tool")
        if tool not in self._tools or _failed(data):
            return HookResult()
        raw = _path_in(data)
        if raw is None:
            return HookResult()
        try:
            target = self._locate(raw)
            if target is None:
                return HookResult()
            feedback = await self.check_file(*target)
        except Exception as err:  # a failing check never breaks the session
            logger.warning("%s: could not check %s: %r", MODULE_ID, raw, err, exc_info=True)
            feedback = Feedback(
                injection=None,
                user_message=f"{SOURCE}: could not check {raw!r}: {type(err).__name__}: {err}",
            )
        return _result(feedback)

    def _locate(self, raw: str) -> tuple[Path, Path, str] | None:
        """``(file, directory to run in, path to show)``, or None when no pattern matches."""
        root = self._root()
        path = Path(raw).expanduser()
        path = (path if path.is_absolute() else root / path).resolve()
        display = _display(path, root)
        if not self._matches(path, display):
            return None
        return path, (root if root.is_dir() else path.parent), display

    async def check_file(self, path: Path, cwd: Path, display: str) -> Feedback:
        """Run the configured checks on ``path`` in ``cwd`` concurrently; build the feedback."""
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            return Feedback(None, f"{SOURCE}: cannot check {display}: the file no longer exists")
        except OSError as err:
            reason = err.strerror or str(err)
            return Feedback(None, f"{SOURCE}: cannot check {display}: {reason}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            line, column, what = _utf8_problem(data, err)
            return Feedback(
                injection=f"{SOURCE} could not check {display}:\n"
                f"{display}:{line}:{column}: [{SOURCE} encoding] {what}; Python source must be "
                "UTF-8, so no checks ran",
                user_message=f"{SOURCE}: {display} is not valid UTF-8 (line {line}); not checked",
            )
        outcomes = await asyncio.gather(
            *(self._run(check, path, text, cwd, display) for check in self.config.checks),
            return_exceptions=True,
        )
        runs = [
            _crashed(check, outcome) if isinstance(outcome, BaseException) else outcome
            for check, outcome in zip(self.config.checks, outcomes, strict=True)
        ]
        notes = self._announce(runs)
        return build_feedback(
            display,
            runs,
            max_issues=self.config.max_issues,
            notes=notes,
            report_clean=self.config.report_clean,
        )

    async def _run(self, check: Check, path: Path, text: str, cwd: Path, display: str) -> CheckRun:
        config = self.config
        if check == "stubs":
            issues = await asyncio.to_thread(
                scan_stubs, text, markers=config.stub_markers, bodies=path.suffix != ".pyi"
            )
            return CheckRun(check="stubs", issues=issues)
        tool = "mypy" if check == "mypy" else "ruff"
        resolution = self._command(tool)
        if resolution.command is None:
            return CheckRun(check=check, missing=(tool, resolution.looked))
        command, seconds = resolution.command, config.timeout
        if check == "ruff":
            return await run_ruff(command, path, cwd=cwd, seconds=seconds, extra=config.args.ruff)
        if check == "mypy":
            if self._daemons is not None:
                try:
                    done = await self._daemons.check(
                        path, cwd=cwd, args=(*MYPY_ARGS, *config.args.mypy), seconds=seconds
                    )
                except DaemonUnavailable as err:
                    logger.warning("%s: %s; running mypy without its daemon", MODULE_ID, err)
                    await self._daemons.aclose()
                    self._daemons = None
                except CommandTimeout:
                    return CheckRun(check="mypy", problem=f"mypy timed out after {seconds:g}s")
                else:
                    return mypy_run(done, path, cwd=cwd)
            return await run_mypy(command, path, cwd=cwd, seconds=seconds, extra=config.args.mypy)
        return await run_format(
            command,
            path,
            cwd=cwd,
            seconds=seconds,
            extra=config.args.format,
            display=display,
            diff_lines=config.max_diff_lines if config.format_diff else None,
        )

    def _announce(self, runs: list[CheckRun]) -> list[str]:
        """A sentence per checker found missing for the first time; later runs stay quiet."""
        notes: list[str] = []
        for run in runs:
            if run.missing is None:
                continue
            tool, detail = run.missing
            if tool in self._announced:
                continue
            self._announced.add(tool)
            logger.warning("%s: %s is not available: %s", MODULE_ID, tool, detail)
            notes.append(
                f"{tool} is not available ({detail}); its checks are skipped: install it, "
                f"set commands.{tool}, or leave it out of checks"
            )
        return notes


def _crashed(check: Check, error: BaseException) -> CheckRun:
    """A check that raised: reported as its problem, so the other checks' findings still count."""
    if not isinstance(error, Exception):  # cancelled or exiting: not ours to swallow
        raise error
    logger.warning("%s: the %s check raised %r", MODULE_ID, check, error, exc_info=error)
    return CheckRun(check=check, problem=f"{check} check failed: {type(error).__name__}: {error}")


def _result(feedback: Feedback) -> HookResult:
    if feedback.injection is not None:
        return HookResult(
            action="inject_context",
            context_injection=feedback.injection,
            ephemeral=True,
            append_to_last_tool_result=True,
            user_message=feedback.user_message,
            user_message_level=feedback.level,
            user_message_source=SOURCE,
        )
    if feedback.user_message is not None:
        return HookResult(
            user_message=feedback.user_message,
            user_message_level=feedback.level,
            user_message_source=SOURCE,
        )
    return HookResult()
