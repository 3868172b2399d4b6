"""Turn the output of ``ruff check --output-format json`` and of ``mypy`` into issues.

Pure functions of the text, so they are tested on recorded output as well as on live runs.
Only findings in the checked file are kept (compared by resolved path).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Final

from .issues import Issue

__all__ = ["ParseError", "parse_mypy", "parse_ruff_json"]

_MYPY_LINE: Final = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?:(?P<column>\d+):)?\s*(?P<severity>error|warning|note):"
    r"\s*(?P<message>.*?)(?:\s+\[(?P<code>[\w-]+)\])?\s*$"
)
_SYNTAX_CODES: Final = frozenset({None, "", "invalid-syntax", "E999", "syntax-error"})


class ParseError(ValueError):
    """The checker's output is not in the shape it was asked for."""


def _same_file(reported: str, path: str, cwd: str) -> bool:
    if not os.path.isabs(reported):
        reported = os.path.join(cwd, reported)
    return os.path.realpath(reported) == os.path.realpath(path)


def _int(value: Any, default: int = 1) -> int:
    return value if isinstance(value, int) and value > 0 else default


def parse_ruff_json(stdout: str, path: str, cwd: str) -> list[Issue]:
    """Issues from ruff's JSON list of diagnostics; syntax errors get the code ``syntax``."""
    text = stdout.strip()
    if not text:
        return []
    try:
        diagnostics = json.loads(text)
    except json.JSONDecodeError as err:
        raise ParseError(f"ruff printed something that is not JSON: {text[:200]!r}") from err
    if not isinstance(diagnostics, list):
        raise ParseError(f"ruff printed JSON that is not a list: {text[:200]!r}")
    issues: list[Issue] = []
    for item in diagnostics:
        if not isinstance(item, dict):
            continue
        filename = item.get("filename")
        if isinstance(filename, str) and not _same_file(filename, path, cwd):
            continue
        location = item.get("location") or {}
        code = item.get("code")
        message = str(item.get("message") or "")
        if code in _SYNTAX_CODES:
            code = "syntax"
            message = message.removeprefix("SyntaxError: ")
        issues.append(
            Issue(
                line=_int(location.get("row")),
                column=_int(location.get("column")),
                checker="ruff",
                code=str(code),
                message=message,
            )
        )
    return issues


def parse_mypy(stdout: str, path: str, cwd: str) -> list[Issue]:
    """Errors (not notes) that mypy reported for ``path``, in its order."""
    issues: list[Issue] = []
    for raw in stdout.splitlines():
        match = _MYPY_LINE.match(raw)
        if match is None or match["severity"] == "note":
            continue
        if not _same_file(match["path"], path, cwd):
            continue
        issues.append(
            Issue(
                line=int(match["line"]),
                column=int(match["column"] or 1),
                checker="mypy",
                code=match["code"],
                message=match["message"],
            )
        )
    return issues
