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
    """Whether a checker's ``reported`` path is ``path``: both are taken from the checker's
    ``cwd`` when relative (never from this process's), then compared resolved."""
    if not os.path.isabs(reported):
        reported = os.path.join(cwd, reported)
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
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
    """Errors (not notes) that mypy reported for ``path``, in its order.

    mypy names a file by the module it maps to; when its cache holds that module under
    another path (a file of the same name checked from another directory), it reports the
    checked file's errors under that path. So when no error names ``path`` itself, the errors
    of a file with the same module name (the same file name) are taken as ``path``'s: only
    one file is checked per run.
    """
    parsed = [m for m in map(_MYPY_LINE.match, stdout.splitlines()) if m is not None]
    errors = [m for m in parsed if m["severity"] != "note"]
    mine = [m for m in errors if _same_file(m["path"], path, cwd)]
    if not mine:
        name = os.path.basename(path)
        mine = [m for m in errors if os.path.basename(m["path"]) == name]
    return [
        Issue(
            line=int(m["line"]),
            column=int(m["column"] or 1),
            checker="mypy",
            code=m["code"],
            message=m["message"],
        )
        for m in mine
    ]
