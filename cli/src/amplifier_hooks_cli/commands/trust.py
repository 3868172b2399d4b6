"""``amplifier-hooks trust``: let a project run the hooks it brings."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.markup import escape

from .. import output

__all__ = ["trust"]


@click.command(short_help="Trust a project's own hook files.")
@click.argument(
    "path",
    required=False,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
)
@click.option("--list", "listing", is_flag=True, help="List the trusted projects.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='With --list: print {"projects": [{"path", "trusted_at", "files", "include"}]}.',
)
@click.option("--check", is_flag=True, help="Say whether PATH is trusted; exit 1 when not.")
@click.option("--remove", is_flag=True, help="Stop trusting PATH.")
@click.option(
    "--include",
    "include",
    multiple=True,
    metavar="DIR",
    help="Also cover DIR (relative to PATH) and every file under it: what a bundle runs hooks "
    "from inside the project, such as a plugin kept in it (a file works too). Repeatable; "
    "kept by later calls; with --check, say whether the record covers it.",
)
@output.friendly
def trust(
    path: Path | None,
    listing: bool,
    as_json: bool,
    check: bool,
    remove: bool,
    include: tuple[str, ...],
) -> None:
    """Let the project at PATH (default: the current directory) run the hooks it brings.

    A repository's .claude/settings.json, .amplifier/hooks.yaml, .amplifier/hooks/*/hooks.json,
    .gemini/settings.json, .cursor/hooks.json, .codex/hooks.json, .factory/hooks.json,
    .github/hooks/*.json, .windsurf/hooks.json and .clinerules/hooks/* run commands with your
    rights; they run only in projects you trust. Trusting records the SHA-256 of their whole
    surface: those files, the files in the project's hook directories, every file under each
    directory they name and what that code names in turn, the build files of the tools they
    run, links with their targets. When one that holds code changes, the session stops before
    its first turn (or the hooks refuse between tool calls) until you review the change and
    trust it again; what a hook writes for itself (its log) does not count. Set
    AMPLIFIER_TRUST_PROJECT=1 (or to a path) to trust without a record, as in CI. See
    docs/security.md.

    A plugin kept inside the project is project content too: trust it with --include DIR
    (the session's warning names the directory).

    --list --json prints one object: ``projects`` sorted by path, each with ``trusted_at``,
    ``files`` (each trusted file, relative to the project, with its ``sha256``) and
    ``include`` (the directories added with --include).
    """
    if as_json and not listing:
        raise click.UsageError("--json goes with --list")
    try:  # hooks-declarative enforces trust, and keeps it (the `all` extra installs it)
        from amplifier_module_hooks_declarative import (
            TooManyFiles,
            forget_project,
            trust_project,
            trust_status,
            trusted_projects,
        )
    except ImportError as err:
        raise click.ClickException(
            "project trust is kept by hooks-declarative, which is not installed: "
            "install it with `pip install amplifier-module-hooks-declarative` "
            '(or "amplifier-hooks[all]")'
        ) from err

    console = output.stdout()
    if listing:
        projects = trusted_projects()
        if as_json:
            listed = [
                {
                    "path": where,
                    "trusted_at": record.get("trusted_at"),
                    "files": dict(sorted((record.get("files") or {}).items())),
                    "include": list(record.get("include") or []),
                }
                for where, record in sorted(projects.items())
            ]
            click.echo(json.dumps({"projects": listed}))
            return
        if not projects:
            console.print("no trusted projects")
        for where, record in sorted(projects.items()):
            files = record.get("files") or {}
            console.print(
                f"{escape(where)}  ({len(files)} file(s), trusted {record.get('trusted_at', '?')})"
            )
        return
    project = (path or Path.cwd()).resolve()
    if remove:
        if forget_project(project):
            console.print(f"{escape(str(project))} is no longer trusted")
        else:
            console.print(f"{escape(str(project))} was not trusted")
        return
    for name in include:
        given = Path(name).expanduser()
        if not (given if given.is_absolute() else project / given).exists():
            raise click.BadParameter(
                f"{name}: no such file or directory in {project}", param_hint="--include"
            )
    try:
        if check:
            status = trust_status(project, include=include)
            if status.trusted:
                console.print(f"{escape(str(project))} is trusted ({status.how})")
                return
            raise click.ClickException(status.why_not())
        prints = trust_project(project, include=include)
    except TooManyFiles as err:
        raise click.ClickException(str(err)) from err
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--include") from err
    if not prints:
        console.print(
            f"{escape(str(project))} is trusted; it has no hook files yet "
            "(files it adds later make it ask again)"
        )
        return
    console.print(f"{escape(str(project))} is trusted with {len(prints)} file(s):")
    for name, digest in prints.items():
        console.print(f"  {escape(name)}  sha256:{digest[:12]}")
