"""``amplifier-hooks events``: the event catalogue."""

from __future__ import annotations

import click
from rich.table import Table

from .. import output

__all__ = ["events"]


@click.command(short_help="The event catalogue.")
@click.option("--markdown", is_flag=True, help="Print the catalogue as docs/events.md has it.")
@output.friendly
def events(markdown: bool) -> None:
    """The event catalogue: every event, when it fires and what its data carries."""
    from amplifier_core.catalogue import CATALOGUE

    from ..events_markdown import render_markdown

    if markdown:
        click.echo(render_markdown(), nl=False)
        return
    table = Table(title=f"{len(CATALOGUE)} events")
    for column in ("event", "alias", "when it fires", "data keys (* = always)"):
        table.add_column(column, overflow="fold")
    for name, spec in CATALOGUE.items():
        keys = ", ".join(f"{f.name}{'*' if f.required else ''}" for f in spec.fields)
        table.add_row(name, spec.alias or "", spec.when, keys)
    output.stdout().print(table)
