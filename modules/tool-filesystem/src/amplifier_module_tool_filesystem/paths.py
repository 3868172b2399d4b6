"""Where a ``file_path`` points, and whether the config lets a tool read or write there.

A relative path is taken inside the working directory; an absolute one (or ``~/...``) is used
as it is. Every rule is checked on the resolved path, symlinks followed, so a link cannot lead
a write out of the places it is allowed.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Literal

from amplifier_core import ToolResult

from .config import FilesConfig
from .inputs import failure

__all__ = ["Access", "Workspace"]

Access = Literal["read", "write"]


def _within(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


class Workspace:
    """Resolves ``file_path`` inputs against the working directory and applies the rules."""

    def __init__(self, root: Path, config: FilesConfig) -> None:
        self.root = root.resolve()
        self.config = config
        self.readable = self._roots(config.allowed_read_paths)
        self.writable = self._roots(config.allowed_write_paths)
        self.denied = self._roots(config.denied_write_paths) or []

    def _roots(self, paths: list[str] | None) -> list[Path] | None:
        if paths is None:
            return None
        return [(self.root / Path(p).expanduser()).resolve() for p in paths]

    def resolve(self, tool: str, file_path: str, access: Access) -> Path | ToolResult:
        """The resolved path, or a failed result naming the path and the rule it breaks."""
        path = Path(file_path)
        with contextlib.suppress(RuntimeError):  # no home directory to expand "~" into
            path = path.expanduser()
        if not path.is_absolute():
            path = self.root / path
        try:
            resolved = path.resolve()
        except (OSError, RuntimeError) as err:  # a symlink loop
            return failure("InvalidPath", f"{tool}: cannot resolve {file_path!r}: {err}")
        refused = self._refusal(resolved, access)
        if refused is not None:
            return failure(
                "PathNotAllowed", f"{tool}: {file_path!r} resolves to {resolved}, {refused}"
            )
        return resolved

    def _refusal(self, path: Path, access: Access) -> str | None:
        if not self.config.allow_outside_workspace and not _within(path, [self.root]):
            return f"outside the workspace {self.root} (allow_outside_workspace is false)"
        allowed = self.readable if access == "read" else self.writable
        if allowed is not None and not _within(path, allowed):
            key = "allowed_read_paths" if access == "read" else "allowed_write_paths"
            shown = ", ".join(str(p) for p in allowed) or "nothing"
            return f"outside {key} ({shown})"
        if access == "write" and _within(path, self.denied):
            return "inside denied_write_paths"
        return None

    def where(self) -> str:
        """The sentence of the tools' descriptions that says how paths are taken."""
        rule = "" if self.config.allow_outside_workspace else "; paths outside it are refused"
        return f"Relative paths are taken inside the workspace ({self.root}){rule}."
