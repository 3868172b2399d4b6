"""Watch the workspace's memory files and say what changed (``memory:update``).

Memory files are the instructions an agent keeps in the workspace: ``AGENTS.md``,
``AMPLIFIER.md``, ``CLAUDE.md`` and ``.amplifier/memory/*.md`` (configurable). The watcher
keeps a snapshot (modification time, size and text) and, when asked, compares the files with
it: a change is reported once, with a unified diff capped at ``max_diff_chars``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

__all__ = ["DEFAULT_MEMORY_FILES", "MemoryChange", "MemoryWatcher"]

DEFAULT_MEMORY_FILES: Final = ("AGENTS.md", "AMPLIFIER.md", "CLAUDE.md", ".amplifier/memory/*.md")

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


def _read(path: Path) -> _Seen | None:
    try:
        stat = path.stat()
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return _Seen(stat.st_mtime_ns, stat.st_size, text)


class MemoryWatcher:
    """Compares the workspace's memory files with the snapshot taken at the last check."""

    def __init__(
        self,
        workspace: Path,
        patterns: tuple[str, ...] = DEFAULT_MEMORY_FILES,
        *,
        max_diff_chars: int = 4000,
    ) -> None:
        self.workspace = workspace
        self.patterns = patterns
        self.max_diff_chars = max_diff_chars
        self._seen: dict[Path, _Seen] = {}
        self.snapshot()

    def files(self) -> list[Path]:
        """The memory files that exist now, in a stable order."""
        found: set[Path] = set()
        for pattern in self.patterns:
            found.update(p.resolve() for p in self.workspace.glob(pattern) if p.is_file())
        return sorted(found)

    def snapshot(self) -> dict[Path, str]:
        """Take a new snapshot without reporting anything; returns path -> text."""
        self._seen = {path: seen for path in self.files() if (seen := _read(path)) is not None}
        return {path: seen.text for path, seen in self._seen.items()}

    def check(self) -> list[MemoryChange]:
        """Changes since the last check (or snapshot), and take the new state as the snapshot."""
        current: dict[Path, _Seen] = {}
        changes: list[MemoryChange] = []
        for path in self.files():
            before = self._seen.get(path)
            if before is not None:
                try:
                    stat = path.stat()
                except OSError:
                    continue
                if (stat.st_mtime_ns, stat.st_size) == (before.mtime_ns, before.size):
                    current[path] = before
                    continue
            now = _read(path)
            if now is None:
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
