"""A Rich table's title, wrapped at whatever width its table has, comes back whole: generated
titles (words and a path of any length, as amplifier's ``session list`` prints the working
directory's slug) rendered by Rich itself, at generated widths, with generated rows."""

from __future__ import annotations

import io
from pathlib import Path

from amplifier_hooks_testsupport.load import load_file
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table

unwrap_titles = load_file(Path(__file__).with_name("tables.py"), "app_tables").unwrap_titles

WORDS = st.lists(st.text("abcdefgh", min_size=1, max_size=12), min_size=1, max_size=6)
PATH = st.lists(st.text("abcdefghij0123456789.-", min_size=1, max_size=20), min_size=1, max_size=12)
CELLS = st.lists(st.text("abcdef -", min_size=1, max_size=50), min_size=1, max_size=4)


def _render(title: str, rows: list[str], width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    table = Table(title=title, show_header=True)
    table.add_column("Name", max_width=40)
    table.add_column("Session ID")
    for row in rows:
        table.add_row(row, "0c4b2a1e-1111-2222-3333-444455556666")
    console.print("before the table")
    console.print(table)
    console.print("after it")
    return out.getvalue()


@settings(max_examples=200, deadline=None)
@given(words=WORDS, parts=PATH, rows=CELLS, width=st.integers(60, 200))
def test_a_wrapped_title_comes_back_whole(
    words: list[str], parts: list[str], rows: list[str], width: int
) -> None:
    slug = "-" + "-".join(parts)
    title = f"{' '.join(words)} ({slug})"
    shown = unwrap_titles(_render(title, rows, width))
    lines = shown.splitlines()
    border = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    assert lines[border - 1].strip().replace(" ", "") == title.replace(" ", "")
    assert f"({slug})" in lines[border - 1]  # the path whole, so a normaliser finds it
    assert lines[border - 2] == "before the table"
    table = lines[border:]
    assert table == _render(title, rows, width).splitlines()[-len(table) :]


def test_text_without_a_table_is_unchanged() -> None:
    text = "one\n┃ not a border ┃\n\ntwo  \n"
    assert unwrap_titles(text) == text
