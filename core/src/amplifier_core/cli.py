"""``amplifier-hooks``: the command line of the hook kernel.

amplifier-hooks modules               installed modules, their distributions, load failures
amplifier-hooks validate BUNDLE       check a bundle file
amplifier-hooks emit EVENT --bundle B --data JSON
                                      fire one event through a bundle's hooks, handler by handler
amplifier-hooks events                the event catalogue
amplifier-hooks demo                  hooks firing in an offline session
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.logging import RichHandler
from rich.table import Table

from .bundle import Bundle, load_bundle
from .errors import AmplifierError
from .tracing import Trace, trace_emit

__all__ = ["main"]

console = Console()
errors = Console(stderr=True)


@click.group()
@click.version_option(package_name="amplifier-hooks")
def main() -> None:
    """Hooks for AI-agent sessions: inspect, validate and fire them."""
    logging.basicConfig(
        level=logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=errors, show_time=False, show_path=False)],
    )


@main.command()
def modules() -> None:
    """List the hook modules installed in this environment (without importing them)."""
    from .loader import discover_modules

    specs = discover_modules()
    table = Table(title=f"{len(specs)} module(s) in the amplifier.modules entry-point group")
    for column in ("module", "entry point", "distribution", "version"):
        table.add_column(column)
    for module_id, spec in sorted(specs.items()):
        table.add_row(module_id, spec.value, spec.distribution or "?", spec.version or "?")
    console.print(table)


@main.command()
@click.argument("bundle_path", type=click.Path(path_type=Path))
def validate(bundle_path: Path) -> None:
    """Check BUNDLE_PATH: YAML syntax, keys and types, and that every module is installed."""
    from .loader import discover_modules

    bundle = _load_or_exit(bundle_path)
    installed = discover_modules()
    missing = [h.module for h in bundle.hooks if h.source is None and h.module not in installed]
    for module_id in missing:
        errors.print(f"[red]{bundle_path}: hooks: module {module_id!r} is not installed[/red]")
    if missing:
        sys.exit(1)
    console.print(f"[green]{bundle_path}: ok[/green] ({len(bundle.hooks)} hook module(s))")


@main.command()
@click.argument("event")
@click.option("--bundle", "bundle_path", type=click.Path(path_type=Path), required=True)
@click.option("--data", "data_json", default="{}", help="Event data as a JSON object.")
def emit(event: str, bundle_path: Path, data_json: str) -> None:
    """Fire EVENT through the bundle's hooks and show what each handler did."""
    try:
        data = json.loads(data_json)
    except json.JSONDecodeError as err:
        errors.print(f"[red]--data: not valid JSON: {err}[/red]")
        sys.exit(2)
    if not isinstance(data, dict):
        errors.print(f"[red]--data: expected a JSON object, got {type(data).__name__}[/red]")
        sys.exit(2)
    bundle = _load_or_exit(bundle_path)
    trace = asyncio.run(_emit_through_bundle(bundle, event, data))
    _print_trace(trace)


async def _emit_through_bundle(bundle: Bundle, event: str, data: dict[str, Any]) -> Trace:
    from .coordinator import ModuleCoordinator
    from .loader import ModuleLoader

    coordinator = ModuleCoordinator(config={"session": dict(bundle.session or {})})
    loader = ModuleLoader(coordinator)
    await loader.mount_all(bundle.hooks)  # a module that fails is logged once and skipped
    try:
        return await trace_emit(coordinator.hooks, event, data)
    finally:
        await loader.cleanup()


def _print_trace(trace: Trace) -> None:
    table = Table(title=f"emit {trace.event}: {len(trace.steps)} handler(s)")
    for column in ("#", "handler", "priority", "action", "ms", "detail"):
        table.add_column(column)
    for index, step in enumerate(trace.steps, 1):
        detail = step.error or ""
        if step.result is not None and not detail:
            detail = step.result.reason or step.result.user_message or ""
        table.add_row(
            str(index),
            step.name,
            str(step.priority),
            step.action,
            f"{step.seconds * 1000:.3f}",
            detail,
        )
    console.print(table)
    if trace.result is not None:
        shown = trace.result.model_dump(exclude_defaults=True)
        console.print_json(json.dumps(shown, default=str))


@main.command()
@click.option("--markdown", is_flag=True, help="Print the catalogue as docs/events.md has it.")
def events(markdown: bool) -> None:
    """The event catalogue: every event, when it fires and what its data carries."""
    from .catalogue import CATALOGUE, render_markdown

    if markdown:
        click.echo(render_markdown(), nl=False)
        return
    table = Table(title=f"{len(CATALOGUE)} events")
    for column in ("event", "alias", "when it fires", "data keys (* = always)"):
        table.add_column(column)
    for name, spec in CATALOGUE.items():
        keys = ", ".join(f"{f.name}{'*' if f.required else ''}" for f in spec.fields)
        table.add_row(name, spec.alias or "", spec.when, keys)
    console.print(table)


@main.command()
@click.option("--keep", is_flag=True, help="Keep the temporary workspace and print its path.")
def demo(keep: bool) -> None:
    """Hooks firing in an offline session, in a temporary workspace."""
    from .demo import run_demo

    sys.exit(asyncio.run(run_demo(console, keep=keep)))


def _load_or_exit(path: Path) -> Bundle:
    try:
        return load_bundle(path)
    except AmplifierError as err:
        errors.print(f"[red]{err}[/red]")
        sys.exit(1)
