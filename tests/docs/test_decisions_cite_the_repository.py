"""docs/decisions.md cites only documents the repository holds: each Markdown file it names
(``docs/security.md``, ``architecture.md``, ``README.md``) is a file of this checkout, so a
reader can open every reference it gives."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
PAGE: Final = ROOT / "docs" / "decisions.md"
CITED: Final = re.compile(r"(?<![\w./-])([\w./-]+\.md)\b")


def _cited(text: str) -> set[str]:
    return set(CITED.findall(text))


def test_every_document_the_decisions_cite_is_in_the_repository() -> None:
    cited = _cited(PAGE.read_text(encoding="utf-8"))
    assert cited, "docs/decisions.md names the documents it draws on"
    missing = sorted(
        name for name in cited if not any((base / name).is_file() for base in (ROOT, PAGE.parent))
    )
    assert not missing, f"docs/decisions.md cites documents the repository lacks: {missing}"


def test_the_check_reads_each_spelling_of_a_citation() -> None:
    text = "see docs/security.md, (architecture.md) and `PLAN.md`; not notes.mdx"
    assert _cited(text) == {"docs/security.md", "architecture.md", "PLAN.md"}
