"""Plain-text tables for the emit benchmark: figures and ratios, fixed-width, ASCII only."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["format_ratio", "format_us", "render_table"]


def format_us(value: float | None) -> str:
    """Microseconds with about three significant digits; ``-`` when not measured."""
    if value is None:
        return "-"
    if value < 100:
        return f"{value:.2f}"
    if value < 1000:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def format_ratio(value: float | None) -> str:
    """A ratio as ``1.23x``; ``-`` when either side was not measured."""
    if value is None:
        return "-"
    return f"{value:.2f}x" if value < 100 else f"{value:,.0f}x"


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns separated by `` | ``; the first column left-aligned, the others right-aligned."""
    widths = [len(h) for h in headers]
    for row in rows:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], len(cell))

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
            for i, cell in enumerate(cells)
        ]
        return " | ".join(parts).rstrip()

    rule = "-+-".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])
