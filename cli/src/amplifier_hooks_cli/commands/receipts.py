"""``amplifier-hooks receipts verify LOG``: check the hash chain of a session's audit log."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

import click
from rich.markup import escape

from .. import output

__all__ = ["EXIT_BROKEN", "EXIT_UNSEALED", "receipts"]

EXIT_BROKEN: Final = 3
"""The chain breaks: a record was removed, reordered or edited (or the line is not one)."""
EXIT_UNSEALED: Final = 4
"""The chain is whole but ends without its ``chain_end`` record: the session still runs,
ended abruptly, or its last records were removed."""


@click.group(short_help="Check the receipts of a session's audit log.")
def receipts() -> None:
    """The receipts every hook run leaves in a session's audit log (session.audit_log)."""


@receipts.command("verify", short_help="Check a log's hash chain; say where it breaks.")
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@output.friendly
def verify(log: Path, as_json: bool) -> None:
    """Check that LOG's records form unbroken chains: every record matches its hash and names
    the hash of the one before it, each chain counts from 0 and ends with its chain_end record.

    Exit code 0: intact and sealed; 3: the chain breaks (a record removed, reordered or edited;
    each break is named by line); 4: intact but a chain ends without its chain_end record (a
    session still running or ended abruptly, or its last records removed); 1: LOG cannot be
    read. What the chain proves, and what it does not: docs/security.md."""
    from amplifier_core.audit_chain import verify_lines

    try:
        with log.open(encoding="utf-8", errors="surrogateescape") as lines:
            report = verify_lines(lines)
    except OSError as err:
        raise click.ClickException(f"{log}: cannot read: {err.strerror or err}") from err
    if as_json:
        click.echo(json.dumps({"log": str(log), **report.as_dict()}, indent=2))
    else:
        console = output.stdout()
        chains = len(report.chains)
        console.print(
            f"{escape(str(log))}: {report.records} record(s) in {chains} chain(s)", highlight=False
        )
        for found in report.breaks:
            console.print(f"[red]broken[/] {escape(str(found))}", highlight=False)
        for chain in report.unsealed:
            console.print(
                f"[yellow]not sealed[/]: chain {escape(chain)} ends without its chain_end "
                "record (the session still runs or ended abruptly, or its last records were "
                "removed)",
                highlight=False,
            )
        if report.intact and not report.unsealed:
            console.print("[green]intact[/]: every chain is whole and sealed", highlight=False)
    if not report.intact:
        sys.exit(EXIT_BROKEN)
    if report.unsealed:
        sys.exit(EXIT_UNSEALED)
