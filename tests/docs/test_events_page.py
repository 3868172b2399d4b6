"""docs/events.md: rendered from the kernel's event catalogue by the command line, and equal to
what ``amplifier-hooks events --markdown`` prints now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from amplifier_hooks_cli.events_markdown import render_event, render_markdown

from amplifier_core import event_aliases
from amplifier_core.catalogue import CATALOGUE

DOCS = Path(__file__).resolve().parents[2] / "docs" / "events.md"
REGENERATE = "amplifier-hooks events --markdown > docs/events.md"


def _docs_text() -> str:
    assert DOCS.is_file(), f"{DOCS} is missing; generate it with `{REGENERATE}`"
    return DOCS.read_text(encoding="utf-8")


def _alias_table_names(text: str) -> list[str]:
    """First-column names of the table under '## Aliases' in docs/events.md."""
    section = text.split("\n## Aliases\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [row.split("`")[1] for row in rows]


def test_docs_equal_render_markdown() -> None:
    rendered = render_markdown()
    assert _docs_text() == rendered, (
        f"docs/events.md is out of date with amplifier_core.catalogue; regenerate it with "
        f"`{REGENERATE}` (from the repository root)"
    )


def test_render_markdown_is_deterministic_ascii() -> None:
    first = render_markdown()
    assert first == render_markdown()
    assert first.isascii(), "keep docs/events.md ASCII so redirecting stdout works anywhere"
    assert first.endswith("\n")
    assert not first.endswith("\n\n")


def test_docs_have_a_section_and_field_table_per_event() -> None:
    text = _docs_text()
    for spec in CATALOGUE.values():
        heading = f"\n### `{spec.name}`\n"
        assert heading in text, f"docs/events.md has no section for {spec.name}"
        section = render_event(spec)
        assert section in text
        for f in spec.fields:
            assert f"| `{f.name}` |" in section, (spec.name, f.name)


def test_docs_alias_table_lists_every_alias() -> None:
    assert _alias_table_names(_docs_text()) == list(event_aliases.ALIASES)


def test_docs_explain_subscription_patterns() -> None:
    text = _docs_text()
    for snippet in ('register("*"', 'register("tool:*"', 'register("Error"', "`*:error`"):
        assert snippet in text, snippet


def test_the_command_prints_the_page() -> None:
    command = Path(sys.executable).with_name("amplifier-hooks")
    assert command.is_file(), f"{command}: the amplifier-hooks command is not installed"
    done = subprocess.run(
        [str(command), "events", "--markdown"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == render_markdown()
