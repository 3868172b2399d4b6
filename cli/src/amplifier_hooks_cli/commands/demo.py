"""``amplifier-hooks demo``: the reference hooks at work in an offline session."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from .. import output

__all__ = ["demo"]


@click.command(short_help="The reference hooks at work, offline, in seconds.")
@click.option("--keep", is_flag=True, help="Keep the temporary workspace and print its path.")
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    help="Run the demo with another bundle (its provider must be scripted, with prompts).",
)
@output.friendly
def demo(keep: bool, bundle_path: Path | None) -> None:
    """The installed reference hooks at work in an offline session (a few seconds)."""
    from ..demo import run_demo

    sys.exit(asyncio.run(run_demo(output.stdout(), keep=keep, bundle_path=bundle_path)))
