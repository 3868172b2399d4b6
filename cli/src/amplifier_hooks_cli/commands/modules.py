"""``amplifier-hooks modules``: the installed modules, and why one does not load."""

from __future__ import annotations

import importlib
import json
import os
import traceback
from typing import Any

import click
from rich.table import Table

from .. import output

__all__ = ["error_location", "import_problem", "modules"]


@click.command(short_help="Installed modules, and why one does not load.")
@click.option("--no-import", is_flag=True, help="Only read the metadata; import nothing.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"modules": [{"id", "distribution", "version", "entry_point", "origin", '
    '"loads", "problem"}]}.',
)
@output.friendly
def modules(no_import: bool, as_json: bool) -> None:
    """The modules installed in this environment, and why any of them cannot be loaded.

    Each module's entry point is imported (unless --no-import); the exit code is 1 when one
    of them fails. With --json: one object, ``modules`` sorted by id, each with ``loads``
    (true, false, or null when not checked) and ``problem`` (why it does not load, or null).
    """
    from amplifier_core.loader import discover_modules

    console = output.stdout()
    specs = discover_modules()
    if as_json:
        rows: list[dict[str, Any]] = []
        for module_id, spec in sorted(specs.items()):
            problem = None if no_import else import_problem(module_id, spec.value, spec.group)
            rows.append(
                {
                    "id": module_id,
                    "distribution": spec.distribution,
                    "version": spec.version,
                    "entry_point": spec.value,
                    "origin": spec.origin,
                    "loads": None if no_import else problem is None,
                    "problem": problem,
                }
            )
        click.echo(json.dumps({"modules": rows}))
        if any(row["problem"] for row in rows):
            raise SystemExit(1)
        return
    if not specs:
        console.print("no module is installed in the amplifier.modules entry-point group")
        return
    table = Table(title=f"{len(specs)} module(s) in the amplifier.modules entry-point group")
    for column in ("module", "distribution", "version", "entry point", "loads"):
        table.add_column(column, overflow="fold")
    problems: list[str] = []
    for module_id, spec in sorted(specs.items()):
        status = "[dim]not checked[/]"
        if not no_import:
            problem = import_problem(module_id, spec.value, spec.group)
            status = "[green]ok[/]" if problem is None else "[red]no[/]"
            if problem is not None:
                problems.append(
                    f"module {module_id!r} (entry point '{spec.entry_point}' from "
                    f"{spec.origin}) does not load: {problem}"
                )
        table.add_row(module_id, spec.distribution or "?", spec.version or "?", spec.value, status)
    console.print(table)
    if problems:
        output.fail(*problems)


def import_problem(name: str, value: str, group: str) -> str | None:
    """Why the entry point ``name = value`` cannot be loaded as a mount function, or ``None``."""
    import importlib_metadata

    try:
        target = importlib_metadata.EntryPoint(name=name, value=value, group=group).load()
    except Exception as err:
        where = error_location(err)
        text = " ".join(str(err).split())
        return f"{type(err).__name__}: {text}" + (f" at {where}" if where else "")
    if not callable(target):
        return f"{value} is a {type(target).__name__}, not a callable mount(coordinator, config)"
    return None


def error_location(err: BaseException) -> str | None:
    """``file:line`` of the innermost frame that is not import machinery or the CLI's."""
    if isinstance(err, SyntaxError) and err.filename and err.lineno:
        return f"{err.filename}:{err.lineno}"
    skipped = ("<frozen", os.path.dirname(importlib.__file__ or "") or "<frozen")
    ours = os.path.dirname(os.path.dirname(__file__))
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        name = frame.filename
        if name.startswith((*skipped, ours)) or "importlib_metadata" in name:
            continue
        return f"{name}:{frame.lineno}"
    return None
