"""Watch the workspace's memory files and say what changed (``memory:update``).

Memory files are the instructions an agent keeps in the workspace: ``AGENTS.md``,
``AMPLIFIER.md``, ``CLAUDE.md`` and ``.amplifier/memory/*.md`` (configurable). The watcher
keeps a snapshot (modification time, size and text) and, when asked, compares the files with
it: a change is reported once, with a unified diff capped at ``max_diff_chars``.

A file whose modification time and size are unchanged is taken as unchanged, unless it was
modified within ``RACY_WINDOW_NS`` of the moment it was read: a coarse file-system clock can
give a same-size edit made right after the read the same time, so such a file is read again
and compared by text. A file that exists but cannot be read right now keeps its last known
state: it is not reported as deleted. :meth:`MemoryWatcher.check` never raises.
"""

from __future__ import annotations

import difflib
import glob
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Final, Literal

__all__ = ["DEFAULT_MEMORY_FILES", "RACY_WINDOW_NS", "MemoryChange", "MemoryWatcher"]

logger = logging.getLogger(__name__)

DEFAULT_MEMORY_FILES: Final = ("AGENTS.md", "AMPLIFIER.md", "CLAUDE.md", ".amplifier/memory/*.md")
RACY_WINDOW_NS: Final = 2_000_000_000  # the coarsest common file-system clock (FAT: 2 s)

Change = Literal["created", "modified", "deleted"]


@dataclass(frozen=True, slots=True)
class MemoryChange:
    """One memory file that changed since the last look."""

    path: Path
    change: Change
    diff: str
    added_lines: int
    removed_lines: int


@dataclass(frozen=True, slots=True)
class _Seen:
    mtime_ns: int
    size: int
    text: str
    read_ns: int  # wall-clock time of the read

    def unchanged(self, mtime_ns: int, size: int) -> bool:
        """True when a file with this stat certainly still has :attr:`text`."""
        return (
            mtime_ns == self.mtime_ns
            and size == self.size
            and mtime_ns + RACY_WINDOW_NS < self.read_ns
        )


def _read(path: Path) -> _Seen | None:
    try:
        stat = path.stat()
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return _Seen(stat.st_mtime_ns, stat.st_size, text, time.time_ns())


def _checked_patterns(patterns: tuple[str, ...], where: str) -> tuple[str, ...]:
    for index, pattern in enumerate(patterns):
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"{where}[{index}]: expected a glob pattern, got {pattern!r}")
        if PurePath(pattern).is_absolute():
            raise ValueError(
                f"{where}[{index}]: {pattern!r} is absolute; patterns are relative to the workspace"
            )
    return patterns


def _split_pattern(workspace: Path, pattern: str) -> tuple[Path, str | None]:
    """The literal leading path of ``pattern`` and the glob after it (None: no glob at all)."""
    parts = PurePath(pattern).parts
    fixed = 0
    while fixed < len(parts) and not glob.has_magic(parts[fixed]):
        fixed += 1
    if fixed == len(parts):
        return workspace.joinpath(*parts), None
    return workspace.joinpath(*parts[:fixed]), str(PurePath(*parts[fixed:]))


class MemoryWatcher:
    """Compares the workspace's memory files with the snapshot taken at the last check."""

    def __init__(
        self,
        workspace: Path,
        patterns: tuple[str, ...] = DEFAULT_MEMORY_FILES,
        *,
        max_diff_chars: int = 4000,
        where: str = "memory_files",
    ) -> None:
        self.workspace = workspace
        self.patterns = _checked_patterns(tuple(patterns), where)
        # Looked up cheaply on every check: literal names by one stat, a glob only when the
        # directory its literal leading part names exists.
        self._literal: list[Path] = []
        self._globbed: list[tuple[Path, str]] = []
        for pattern in self.patterns:
            root, rest = _split_pattern(workspace, pattern)
            if rest is None:
                self._literal.append(root)
            else:
                self._globbed.append((root, rest))
        self.max_diff_chars = max_diff_chars
        self._seen: dict[Path, _Seen] = {}
        self.snapshot()

    def files(self) -> list[Path]:
        """The memory files that exist now, in a stable order."""
        candidates = [path for path in self._literal if os.path.isfile(path)]
        for root, rest in self._globbed:
            if os.path.isdir(root):
                candidates.extend(root.glob(rest))
        found: set[Path] = set()
        for path in candidates:
            try:
                if path.is_file():
                    found.add(path.resolve())
            except (OSError, RuntimeError) as err:  # unreadable, or a symlink loop
                logger.debug("memory file %s skipped: %s", path, err)
        return sorted(found)

    def snapshot(self) -> dict[Path, str]:
        """Take a new snapshot without reporting anything; returns path -> text."""
        self._seen = {path: seen for path in self.files() if (seen := _read(path)) is not None}
        return {path: seen.text for path, seen in self._seen.items()}

    def check(self) -> list[MemoryChange]:
        """Changes since the last check (or snapshot), and take the new state as the snapshot."""
        try:
            files = self.files()
        except OSError as err:
            logger.warning("memory files in %s cannot be listed: %s", self.workspace, err)
            return []
        current: dict[Path, _Seen] = {}
        changes: list[MemoryChange] = []
        for path in files:
            before = self._seen.get(path)
            if before is not None:
                try:
                    stat = path.stat()
                except OSError:  # gone since it was listed: the next look says so
                    current[path] = before
                    continue
                if before.unchanged(stat.st_mtime_ns, stat.st_size):
                    current[path] = before
                    continue
            now = _read(path)
            if now is None:  # there but unreadable: keep what was known, report nothing
                if before is not None:
                    current[path] = before
                continue
            current[path] = now
            if before is None:
                changes.append(self._change(path, "created", "", now.text))
            elif now.text != before.text:
                changes.append(self._change(path, "modified", before.text, now.text))
        for path, before in self._seen.items():
            if path not in current:
                changes.append(self._change(path, "deleted", before.text, ""))
        self._seen = current
        return changes

    def _change(self, path: Path, change: Change, old: str, new: str) -> MemoryChange:
        lines = list(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{path.name}",
                tofile=f"b/{path.name}",
            )
        )
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        diff = "".join(lines)
        if len(diff) > self.max_diff_chars:
            diff = diff[: self.max_diff_chars] + f"\n[... {len(diff) - self.max_diff_chars} chars]"
        return MemoryChange(path, change, diff, added, removed)
