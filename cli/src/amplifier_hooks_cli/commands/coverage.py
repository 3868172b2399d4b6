"""``amplifier-hooks coverage LOG --bundle B``: did every guard of the bundle run on every
event and tool call it matched? (:mod:`amplifier_hooks_cli.coverage`)"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import click
from rich.markup import escape
from rich.table import Table

from .. import output
from ..coverage import Coverage, compute_coverage, read_receipts
from ..guards import bundle_guards

__all__ = ["EXIT_GAPS", "coverage", "print_coverage"]

EXIT_GAPS: Final = 3
"""A guard did not run on a call it matched, or never matched anything."""


@click.command(short_help="Did every guard of a bundle run on every call it matched?")
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--bundle",
    "bundle_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The bundle whose guards are checked (the session's own, or one to rehearse).",
)
@click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The session's project directory (its hook files); default: the current directory.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@output.friendly
def coverage(log: Path, bundle_path: Path, project: Path | None, as_json: bool) -> None:
    """For each guard BUNDLE declares (declarative hooks by label, Python hook modules'
    handlers by name) and each event or tool call of LOG (a session's audit log, with its
    receipts) it matches: whether it ran, failed, timed out or was skipped (and why), or left no
    receipt; and each guard whose matcher matched nothing, naming a tool it misses only by its
    spelling (BASH against bash).

    Exit code 0: every guard ran on every call it matched; 3: a gap (a guard that did not run
    on a call it matched, or never matched); 1: LOG or BUNDLE cannot be read."""
    from amplifier_core.receipts import near_miss

    guards, unloaded = bundle_guards(bundle_path, project)
    try:
        receipts = read_receipts(log)
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    report = compute_coverage(guards, receipts, near_miss=near_miss)
    if as_json:
        data = {"log": str(log), "bundle": str(bundle_path), **report.as_json()}
        data["not_loaded"] = [{"what": what, "why": why} for what, why in unloaded]
        click.echo(json.dumps(data, indent=2))
    else:
        print_coverage(report, unloaded)
    if not report.complete:
        sys.exit(EXIT_GAPS)


def print_coverage(report: Coverage, unloaded: Sequence[tuple[str, str]] = ()) -> None:
    """The report as a table, then each gap in a sentence."""
    console = output.stdout()
    console.print(
        f"{report.receipts} receipt(s), {report.calls} event(s) and tool call(s), "
        f"{report.sessions} session(s)",
        highlight=False,
    )
    table = Table(expand=False)
    for column in (
        "guard",
        "event",
        "matcher",
        "due",
        "ran",
        "failed",
        "timed out",
        "skipped",
        "missing",
        "not matched",
    ):
        table.add_column(column, overflow="fold")
    for covered in report.guards:
        guard = covered.guard
        rule = " ".join(r for r in (guard.matcher, guard.tool) if r) or "*"
        table.add_row(
            escape(guard.name) + (" [bold](required)[/]" if guard.required else ""),
            escape(guard.event),
            escape(rule),
            str(covered.due),
            str(covered.states["ran"]),
            str(covered.states["failed"]),
            str(covered.states["timed out"]),
            str(covered.states["skipped"]),
            str(covered.states["missing"]),
            str(covered.not_matched),
        )
    console.print(table)
    for covered in report.guards:
        name = escape(covered.guard.name)
        if covered.never_matched:
            hint = f": {escape(covered.near_miss)}" if covered.near_miss else ""
            console.print(f"[red]never matched[/] {name}{hint}", highlight=False)
        elif not covered.event_seen:
            console.print(f"[dim]its event never came[/] {name}", highlight=False)
        if covered.observed:
            console.print(
                f"[yellow]observed[/] {name}: {covered.observed} of its runs in observe mode "
                "(it decided nothing)",
                highlight=False,
            )
        for why in sorted(set(covered.whys)):
            console.print(f"[yellow]did not run[/] {name}: {escape(why)}", highlight=False)
    for what, why in unloaded:
        console.print(f"[yellow]not loaded[/] {escape(what)}: {escape(why)}", highlight=False)
    if report.complete:
        console.print("[green]complete[/]: every guard ran on every call it matched")
