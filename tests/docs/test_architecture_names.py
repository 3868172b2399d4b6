"""docs/architecture.md's table of where a format, a runner, trust and dispatch live in
hooks-declarative names folders and files that exist: a rename that leaves the page behind
fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
PAGE: Final = ROOT / "docs" / "architecture.md"
PACKAGE: Final = (
    ROOT / "modules" / "hooks-declarative" / "src" / "amplifier_module_hooks_declarative"
)
ROWS: Final = ("a format", "a runner", "trust", "dispatch")


def _table() -> dict[str, str]:
    """The table after "Inside hooks-declarative": each row's first cell, and its second."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("Inside hooks-declarative")
    rows: dict[str, str] = {}
    for line in text[start:].splitlines()[3:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 2 and not set(cells[0]) <= {"-"}:
            rows[cells[0]] = cells[1]
    return rows


def test_the_table_says_where_each_piece_lives() -> None:
    rows = _table()
    for piece in ROWS:
        assert any(what.startswith(piece) for what in rows), f"no row for {piece!r}"


def test_every_folder_and_file_it_names_exists() -> None:
    """A name with a folder is a path in the package (``<name>``: each format's folder); a
    bare file name is a file somewhere in it."""
    formats = [p.name for p in (PACKAGE / "formats").iterdir() if (p / "__init__.py").is_file()]
    named: list[str] = []
    for where in _table().values():
        for name in re.findall(r"`([\w/<>]+(?:\.py|/))`", where):
            named.append(name)
            if "/" not in name:
                assert any(PACKAGE.rglob(name)), f"{name}: no such file in {PACKAGE}"
                continue
            paths = (
                [name.replace("<name>", folder) for folder in formats] if "<" in name else [name]
            )
            for path in paths:
                assert (PACKAGE / path).exists(), f"{path}: not in {PACKAGE}"
    assert len(named) >= 15, named
