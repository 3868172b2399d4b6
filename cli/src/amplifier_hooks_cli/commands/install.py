"""``amplifier-hooks install``: install every module source a bundle names, with pip.

The bundle's includes are followed; each module ``source:`` that is a git URL
(``git+https://host/repo@ref#subdirectory=path``) or a local directory is installed into the
current environment (the Python running this command, or ``--python``), one pip run per
source, with a progress display. Options after ``--`` go to each pip run as they are.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import click
from amplifier_hooks_bundle import load_bundle
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

from .. import output
from ..sources import PROJECT_FILES, NamedSource, bundle_sources

__all__ = ["install", "pip_command"]

_PIP_TAIL = 15
"""How many of pip's last output lines a failure shows."""


def pip_command(
    named: NamedSource, *, python: str, target: Path | None, pip_args: tuple[str, ...]
) -> list[str]:
    """The pip command line that installs ``named``'s source."""
    command = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    if target is not None:
        command += ["--target", str(target)]
    return [*command, named.source.pip_requirement(), *pip_args]


@click.command(
    short_help="Install every module source a bundle names.",
    context_settings={"ignore_unknown_options": True},
)
@click.argument("bundle_path", metavar="BUNDLE", type=click.Path(path_type=Path))
@click.argument("pip_args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--python",
    default=sys.executable,
    show_default="this command's Python",
    help="The Python whose environment to install into.",
)
@click.option(
    "--target",
    type=click.Path(path_type=Path, file_okay=False),
    help="Install into this directory (pip --target) instead of the environment.",
)
@click.option("--dry-run", is_flag=True, help="Print the pip commands; run nothing.")
@output.friendly
def install(
    bundle_path: Path,
    pip_args: tuple[str, ...],
    python: str,
    target: Path | None,
    dry_run: bool,
) -> None:
    """Install with pip every module source BUNDLE names (its includes followed).

    A source is a git URL (git+https://host/repo@ref#subdirectory=path) or a local
    directory holding a pyproject.toml or setup.py; a bare module directory is loaded from
    where it is and modules without a source are not touched. Arguments after -- are given to
    pip, as in: amplifier-hooks install bundle.yaml -- --no-build-isolation
    """
    bundle = load_bundle(bundle_path)
    sources = bundle_sources(bundle)
    console = output.stdout()
    if not sources:
        console.print(f"{escape(str(bundle_path))}: no module names a source; nothing to install")
        return
    absent = [
        s for s in sources if s.source.kind == "path" and not (s.source.path or Path()).is_dir()
    ]
    if absent:
        output.fail(
            *(
                f"module {s.module!r}: source directory {s.source.path} does not exist"
                for s in absent
            )
        )
    in_place = [s for s in sources if not s.pip_installable]
    for named in in_place:
        output.stderr().print(
            f"[dim]{escape(named.module)}: {escape(str(named.source.path))} has no "
            f"{' or '.join(PROJECT_FILES)}; it is loaded from where it is[/]",
            highlight=False,
        )
    sources = [s for s in sources if s.pip_installable]
    if not sources:
        console.print(f"{escape(str(bundle_path))}: no source to install with pip")
        return
    commands = [pip_command(s, python=python, target=target, pip_args=pip_args) for s in sources]
    if dry_run:
        for command in commands:
            console.print(shlex.join(command), highlight=False, soft_wrap=True)
        return
    failed = _run_all(sources, commands)
    if failed is not None:
        named, done = failed
        said = (done.stdout + done.stderr).strip().splitlines()[-_PIP_TAIL:]
        output.fail(
            f"pip could not install {named.source.text} (module {named.module!r}), "
            f"exit status {done.returncode}:",
            *("  " + line for line in said),
        )
    where = f"into {target}" if target is not None else f"with {python}"
    console.print(f"[green]installed {len(sources)} source(s)[/] {escape(where)}")


def _run_all(
    sources: list[NamedSource], commands: list[list[str]]
) -> tuple[NamedSource, subprocess.CompletedProcess[str]] | None:
    """Run each pip command in turn under a progress display (on standard error, each
    installed source then listed above it); the first failure, if any."""
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
    )
    with Progress(*columns, console=output.stderr(), transient=True) as progress:
        task = progress.add_task("installing", total=len(sources))
        for named, command in zip(sources, commands, strict=True):
            progress.update(task, description=f"installing {named.module}")
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                return named, done
            progress.advance(task)
            progress.console.print(
                f"  [green]ok[/] {escape(named.module)} [dim]{escape(named.source.text)}[/]",
                highlight=False,
                soft_wrap=True,
            )
    return None
