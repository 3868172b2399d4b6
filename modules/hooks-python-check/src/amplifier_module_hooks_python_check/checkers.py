"""Run ``ruff check``, ``ruff format --check`` and ``mypy`` on one file, as :class:`CheckRun`.

Each run has its own deadline. The arguments the module adds are the ones it needs to read
the output and to leave the file alone: ruff never fixes (``--no-fix``), never writes a cache
into the project (``--no-cache``) and honours the project's excludes (``--force-exclude``);
mypy prints one plain line per error with its column, code and absolute path. The project's
own configuration (``pyproject.toml``, ``ruff.toml``, ``mypy.ini``) decides the rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from .config import Check
from .issues import CheckRun, Issue
from .parsers import ParseError, parse_mypy, parse_ruff_json
from .runner import CommandMissing, CommandTimeout, Completed, run_command

__all__ = [
    "MYPY_ARGS",
    "RUFF_CHECK_ARGS",
    "RUFF_FORMAT_ARGS",
    "first_change",
    "mypy_run",
    "run_format",
    "run_mypy",
    "run_ruff",
]

RUFF_CHECK_ARGS: Final = (
    "check",
    "--output-format",
    "json",
    "--no-fix",
    "--no-cache",
    "--force-exclude",
)
RUFF_FORMAT_ARGS: Final = ("format", "--check", "--diff", "--no-cache", "--force-exclude")
MYPY_ARGS: Final = (
    "--show-column-numbers",
    "--show-error-codes",
    "--show-absolute-path",
    "--no-error-summary",
    "--no-pretty",
    "--no-color-output",
    "--hide-error-context",
)
_NO_MODULE: Final = re.compile(r"No module named ")
"""``python -m <checker>`` on an interpreter that does not have it (exit 1, nothing on stdout)."""
_LABELS: Final[dict[Check, str]] = {
    "ruff": "ruff check",
    "format": "ruff format",
    "mypy": "mypy",
    "stubs": "stubs",
}
_HUNK: Final = re.compile(r"^@@ -(?P<start>\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")
_PARSE_FAILURE: Final = re.compile(r"invalid-syntax|SyntaxError|[Ff]ailed to parse|parse error")


def _first_line(*texts: str) -> str:
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                return line.strip()[:300]
    return "no output"


async def _run(
    check: Check, tool: str, argv: Sequence[str], cwd: Path, seconds: float
) -> Completed | CheckRun:
    """The finished process, or the :class:`CheckRun` that says why there is none."""
    try:
        done = await run_command(argv, cwd=cwd, seconds=seconds)
    except CommandMissing as err:
        return CheckRun(check=check, missing=(tool, str(err)))
    except CommandTimeout:
        return CheckRun(check=check, problem=f"{_LABELS[check]} timed out after {seconds:g}s")
    if done.returncode != 0 and not done.stdout.strip() and _NO_MODULE.search(done.stderr):
        return CheckRun(check=check, missing=(tool, _first_line(done.stderr)))
    return done


async def run_ruff(
    command: Sequence[str], path: Path, *, cwd: Path, seconds: float, extra: Sequence[str]
) -> CheckRun:
    """``ruff check``: exit 0 (clean) or 1 (findings), with a JSON list on stdout either way."""
    done = await _run("ruff", "ruff", [*command, *RUFF_CHECK_ARGS, *extra, str(path)], cwd, seconds)
    if isinstance(done, CheckRun):
        return done
    if done.returncode not in (0, 1) or (done.returncode == 1 and not done.stdout.strip()):
        return CheckRun(
            check="ruff",
            problem=f"ruff failed (exit {done.returncode}): "
            f"{_first_line(done.stderr, done.stdout)}",
        )
    try:
        issues = parse_ruff_json(done.stdout, str(path), str(cwd))
    except ParseError as err:
        return CheckRun(check="ruff", problem=str(err))
    return CheckRun(check="ruff", issues=issues)


def _cap_diff(diff: str, max_lines: int) -> str:
    lines = diff.rstrip("\n").splitlines()
    if len(lines) <= max_lines:
        return "\n".join(lines)
    kept = "\n".join(lines[:max_lines])
    return f"{kept}\n... ({len(lines) - max_lines} more diff lines)"


def first_change(diff: str) -> int | None:
    """The 1-based line of the original file where a unified ``diff`` first changes it."""
    line: int | None = None
    for text in diff.splitlines():
        hunk = _HUNK.match(text)
        if hunk is not None:
            line = int(hunk["start"])
        elif line is not None:
            if text.startswith(("-", "+")):
                return max(line, 1)
            line += 1
    return None


async def run_format(
    command: Sequence[str],
    path: Path,
    *,
    cwd: Path,
    seconds: float,
    extra: Sequence[str],
    display: str,
    diff_lines: int | None,
) -> CheckRun:
    """``ruff format --check --diff``: exit 1 = would change; the diff is kept when asked for.

    The issue points at the first line the formatter would change. A file that does not
    parse is not a format finding: the linter reports its syntax error.
    """
    argv = [*command, *RUFF_FORMAT_ARGS, *extra, str(path)]
    done = await _run("format", "ruff", argv, cwd, seconds)
    if isinstance(done, CheckRun):
        return done
    if done.returncode == 0:
        return CheckRun(check="format")
    if done.returncode != 1:
        if _PARSE_FAILURE.search(done.stderr):
            return CheckRun(check="format")
        return CheckRun(
            check="format",
            problem=f"ruff format failed (exit {done.returncode}): "
            f"{_first_line(done.stderr, done.stdout)}",
        )
    line = first_change(done.stdout)
    where = f" (first change at line {line})" if line is not None else ""
    issue = Issue(
        line=line or 1,
        column=1,
        checker="format",
        code=None,
        message=f"ruff format would reformat this file{where}; run `ruff format {display}`",
    )
    shown = _cap_diff(done.stdout, diff_lines) if diff_lines is not None and done.stdout else None
    return CheckRun(check="format", issues=[issue], diff=shown)


async def run_mypy(
    command: Sequence[str], path: Path, *, cwd: Path, seconds: float, extra: Sequence[str]
) -> CheckRun:
    """``mypy``: exit 0 (clean), 1 (errors) or 2 (a blocking error such as bad syntax).

    A non-zero exit with no error for the file is a failure (a bad config, a crash).
    """
    done = await _run("mypy", "mypy", [*command, *MYPY_ARGS, *extra, str(path)], cwd, seconds)
    if isinstance(done, CheckRun):
        return done
    return mypy_run(done, path, cwd=cwd)


def mypy_run(done: Completed, path: Path, *, cwd: Path) -> CheckRun:
    """The :class:`CheckRun` for a finished mypy (or dmypy) run on ``path``."""
    issues = parse_mypy(done.stdout, str(path), str(cwd))
    if done.returncode != 0 and not issues:
        return CheckRun(
            check="mypy",
            problem=f"mypy failed (exit {done.returncode}): "
            f"{_first_line(done.stderr, done.stdout)}",
        )
    return CheckRun(check="mypy", issues=issues)
