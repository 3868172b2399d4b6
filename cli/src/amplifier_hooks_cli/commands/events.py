"""``amplifier-hooks events``: the event catalogue."""

from __future__ import annotations

import json

import click
from rich.table import Table

from .. import output

__all__ = ["events"]


@click.command(short_help="The event catalogue.")
@click.option("--markdown", is_flag=True, help="Print the catalogue as docs/events.md has it.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"events": [{"name", "category", "aliases", "when", "fields", "effects", '
    '"modifiable"}]}.',
)
@output.friendly
def events(markdown: bool, as_json: bool) -> None:
    """The event catalogue: every event, when it fires and what its data carries.

    With --json: one object, ``events`` in catalogue order, each with its ``fields`` (``name``,
    ``type``, ``required``, ``description``), the ``effects`` of the actions the session
    honours (``action``, ``effect``) and the ``modifiable`` keys.
    """
    from amplifier_core.catalogue import CATALOGUE

    from ..events_markdown import render_markdown

    if as_json:
        listed = [
            {
                "name": name,
                "category": spec.category,
                "aliases": list(spec.aliases),
                "when": spec.when,
                "fields": [
                    {
                        "name": f.name,
                        "type": f.type,
                        "required": f.required,
                        "description": f.description,
                    }
                    for f in spec.fields
                ],
                "effects": [{"action": e.action, "effect": e.effect} for e in spec.effects],
                "modifiable": list(spec.modifiable),
            }
            for name, spec in CATALOGUE.items()
        ]
        click.echo(json.dumps({"events": listed}))
        return
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
