"""The status listing: git's entries filtered and capped into a few lines for the model.

Three tiers, in this order of display:

1. hidden (vendored and build folders, ``git_status_hidden_paths``): never listed, counted in
   one summary line;
2. capped (lock files, logs, editor folders, ``git_status_capped_paths``): at most
   ``git_status_tier2_limit`` listed;
3. everything else: changed tracked files first (at most ``git_status_max_tracked``), then
   untracked ones (at most ``git_status_max_untracked``).

Every cut leaves a ``... and N more ...`` line, and the whole listing is cut again to
``git_status_max_lines`` lines, whose last one then says how many entries did not fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .config import StatusContextConfig
from .paths import PathMatcher
from .porcelain import StatusEntry

__all__ = ["Line", "StatusListing", "StatusPolicy", "cap_lines"]

#: Longest line kept; a longer path is cut in the middle.
MAX_LINE_CHARS = 240


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the listing and how many entries it stands for (an entry: 1)."""

    text: str
    entries: int = 1
    summary: bool = False


@dataclass(frozen=True, slots=True)
class StatusListing:
    """The listing's lines, and how many entries there were in all."""

    lines: tuple[Line, ...]
    total: int
    hidden: int

    @property
    def clean(self) -> bool:
        """True when git reported no entry at all."""
        return self.total == 0


def _clip(text: str) -> str:
    text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if len(text) <= MAX_LINE_CHARS:
        return text
    half = (MAX_LINE_CHARS - 3) // 2
    return f"{text[:half]}...{text[-half:]}"


def _more(count: int, what: str) -> Line:
    return Line(f"... and {count} more {what}", count, summary=True)


def _capped(entries: Sequence[StatusEntry], limit: int, what: str) -> list[Line]:
    lines = [Line(_clip(entry.short())) for entry in entries[:limit]]
    if len(entries) > limit:
        lines.append(_more(len(entries) - limit, what))
    return lines


def cap_lines(lines: Sequence[Line], limit: int) -> tuple[Line, ...]:
    """At most ``limit`` lines; the last kept entry line then counts every entry that was cut.

    A closing note that stands for no entry (the hidden-folders summary) is kept when there is
    room for it and one more line.
    """
    if len(lines) <= limit:
        return tuple(lines)
    note = lines[-1] if lines and lines[-1].entries == 0 else None
    body = lines[:-1] if note is not None else lines
    room = limit - 1 if note is not None and limit >= 2 else limit
    keep = max(room - 1, 0)
    dropped = sum(line.entries for line in body[keep:])
    kept = (*body[:keep], _more(dropped, "entries"))
    return (*kept, note) if note is not None and limit >= 2 else kept


class StatusPolicy:
    """The filtering and capping rules of one config, compiled once."""

    __slots__ = (
        "capped",
        "filtering",
        "hidden",
        "max_lines",
        "max_tracked",
        "max_untracked",
        "show_summary",
        "tier2_limit",
    )

    def __init__(self, config: StatusContextConfig) -> None:
        self.filtering = config.git_status_enable_path_filtering
        self.hidden = PathMatcher(config.hidden_patterns())
        self.capped = PathMatcher(config.capped_patterns())
        self.max_tracked = config.git_status_max_tracked
        self.max_untracked = config.git_status_max_untracked
        self.max_lines = config.git_status_max_lines
        self.tier2_limit = config.git_status_tier2_limit
        self.show_summary = config.git_status_show_filter_summary

    def listing(self, entries: Sequence[StatusEntry]) -> StatusListing:
        """Filter and cap ``entries`` (git's order is kept within each group)."""
        tracked: list[StatusEntry] = []
        untracked: list[StatusEntry] = []
        capped: list[StatusEntry] = []
        hidden: dict[str, int] = {}
        hidden_tracked = 0
        for entry in entries:
            if self.filtering:
                label = self.hidden.match(entry.path)
                if label is not None:
                    hidden[label] = hidden.get(label, 0) + 1
                    hidden_tracked += not entry.untracked
                    continue
                if self.capped.match(entry.path) is not None:
                    capped.append(entry)
                    continue
            (untracked if entry.untracked else tracked).append(entry)
        lines = _capped(tracked, self.max_tracked, "changed files")
        lines += _capped(untracked, self.max_untracked, "untracked files")
        lines += _capped(capped, self.tier2_limit, "lock, log and editor files")
        hidden_count = sum(hidden.values())
        if hidden_count and self.show_summary:
            names = ", ".join(sorted(hidden)[:6]) + (", ..." if len(hidden) > 6 else "")
            note = f"({hidden_count} {'entry' if hidden_count == 1 else 'entries'} in "
            note += f"vendored or build folders not shown: {names}"
            if hidden_tracked:
                note += f"; {hidden_tracked} of them tracked by git"
            lines.append(Line(note + ")", 0, summary=True))
        return StatusListing(cap_lines(lines, self.max_lines), len(entries), hidden_count)
