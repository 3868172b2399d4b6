"""``amplifier-hooks hooks list``: every hook a session would run (the handlers of the bundle's
Python hook modules, and every declarative hook), and what is left out and why. Hooks of a
module entry with ``observe: true``, or of a source its ``observe_sources`` names, are marked
observed: they decide nothing, their would-have decisions are emitted as ``hook:observed``.

The hooks-declarative module reads hooks from the user's and the project's files, Claude Code
settings, Gemini CLI settings and extensions, Cursor, Codex, Factory Droid, GitHub Copilot and
Windsurf hooks files, Cline hook executables, hook-shell directories, Claude Code plugins and the
bundle's config. This command
asks the module itself (its ``survey_sources``) what each of them holds, so the list
and a session agree, and shows it as a table (``--json`` for machines).
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import json
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import click
from amplifier_hooks_bundle import ModuleEntry, load_bundle
from rich.markup import escape
from rich.table import Table

from .. import output
from ..managed import check_policy
from ..module_hooks import ModuleHandlers, module_handlers

__all__ = ["declarative_module", "hooks"]

MODULE_ID: Final = "hooks-declarative"
_PACKAGE: Final = "amplifier_module_hooks_declarative"


@click.group(short_help="The hooks a session would run.")
def hooks() -> None:
    """The hooks a bundle runs: its Python hook modules' handlers, and the hooks-declarative
    module's hooks, where each comes from, and what is skipped."""


def _package_of(entry: ModuleEntry | None) -> str:
    source = entry.source if entry is not None else None
    if source and ":" in source and "/" not in source:
        return source.split(":", 1)[0].split(".", 1)[0]
    return _PACKAGE


def declarative_module(entry: ModuleEntry | None) -> ModuleType:
    """The hooks-declarative package ``entry`` mounts: the installed one, or the package its
    ``source`` (``package:mount``) names, imported by that name. Only the names of its
    ``__all__`` are used.

    :raises click.ClickException: it cannot be imported.
    """
    package = _package_of(entry)
    try:
        if package == _PACKAGE:
            import amplifier_module_hooks_declarative as declarative
        else:  # the bundle names the package: known only when the bundle is read
            declarative = importlib.import_module(package)
    except ImportError as err:
        raise click.ClickException(
            f"{MODULE_ID} is not installed ({package}: {err}); install it to list its hooks"
        ) from err
    return declarative


def _survey(entry: ModuleEntry | None, project: Path | None) -> Any:
    declarative = declarative_module(entry)
    settings = declarative.parse_config(entry.config if entry is not None else {})
    raw = project or Path(settings.project_dir or Path.cwd())
    project_dir = raw.expanduser().resolve()
    user_dir = declarative.resolve_user_dir(settings)
    survey = declarative.survey_sources(settings, project_dir=project_dir, user_dir=user_dir)
    return _with_disabled_extensions(declarative, settings, project_dir, survey)


def _with_disabled_extensions(
    declarative: ModuleType, settings: Any, project_dir: Path, survey: Any
) -> Any:
    """``survey`` with each installed Gemini CLI extension whose hooks are switched off (by
    ``extension-enablement.json`` or ``hooksConfig.enabled``) listed as skipped."""
    if not getattr(settings, "gemini", False):
        return survey
    if "discover_extensions" not in getattr(declarative, "__all__", ()):  # none in this release
        return survey
    scopes = {"user": settings.include_user, "workspace": settings.include_project}
    skipped = [
        declarative.SkippedItem(what=extension.label, reason=extension.disabled)
        for extension in declarative.discover_extensions(project_dir)
        if extension.disabled is not None
        and scopes[extension.scope]
        and extension.hooks_file.is_file()
    ]
    if not skipped:
        return survey
    return dataclasses.replace(survey, skipped=(*survey.skipped, *skipped))


def _entries(bundle_path: Path | None) -> list[tuple[str, ModuleEntry | None]]:
    """Every hook module entry of the bundle, in order (without one: the default sources of
    hooks-declarative)."""
    if bundle_path is None:
        return [("default sources", None)]
    bundle = load_bundle(bundle_path)
    found: list[tuple[str, ModuleEntry | None]] = [
        (f"{bundle_path}: hooks[{index}]", entry) for index, entry in enumerate(bundle.hooks)
    ]
    if not found:
        raise click.ClickException(f"{bundle_path}: the bundle mounts no hook module")
    return found


def _event(name: str, event: str) -> str:
    return name if name == event else f"{name} ({event})"


def _cells(hook: Any) -> tuple[str, ...]:
    """A surveyed hook's source, event, matcher, type and command, as a table row shows them."""
    event = _event(hook.name, hook.event)
    shown = (hook.source, event, hook.matcher or "*", hook.type, hook.detail)
    # redacted whole, before the table cuts a cell into lines a token could be split across
    return tuple(escape(output.shown(value)) for value in shown)


def _observer(entry: ModuleEntry | None) -> Callable[[str], bool]:
    """Whether a hook of ``entry``'s module, by its source label, is in observe mode: the
    whole entry (``observe: true``) or its source (``observe_sources`` patterns)."""
    if entry is None:
        return lambda _source: False
    if entry.observe:
        return lambda _source: True
    raw = entry.config.get("observe_sources") or []
    patterns = [p for p in raw if isinstance(p, str)] if isinstance(raw, list) else []
    return lambda source: any(fnmatchcase(source, p) for p in patterns)


def _print(where: str, survey: Any, observed: Callable[[str], bool]) -> None:
    console = output.stdout()
    console.print(
        f"[bold]{escape(where)}[/]: project {escape(str(survey.project_dir))}, "
        f"user directory {escape(str(survey.user_dir))}"
    )
    marked = [observed(hook.source) for hook in survey.hooks]
    if any(marked):
        console.print(
            "[yellow]observe mode[/]: the hooks marked observed decide nothing; what they "
            "would have decided is emitted as hook:observed"
        )
    if survey.hooks:
        table = Table(show_lines=False, expand=False)
        for column in ("source", "event", "matcher", "type", "command"):
            table.add_column(column, overflow="fold")
        if any(marked):
            table.add_column("mode")
        for hook, mark in zip(survey.hooks, marked, strict=True):
            mode = ("[yellow]observed[/]" if mark else "",) if any(marked) else ()
            table.add_row(*_cells(hook), *mode)
        console.print(table)
    else:
        console.print("no hooks found")
    if survey.skipped:
        table = Table(title="skipped", title_justify="left", expand=False)
        table.add_column("source or hook", overflow="fold")
        table.add_column("why", overflow="fold")
        for item in survey.skipped:
            why = ("[red]stops the session:[/] " if item.fatal else "") + escape(item.reason)
            table.add_row(escape(output.shown(item.what)), output.shown(why))
        console.print(table)


@hooks.command("list", short_help="List every hook found, and every one skipped.")
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(exists=True, path_type=Path),
    help="A bundle file: list every hook of it: each Python hook module's handlers and its "
    "hooks-declarative modules' hooks (default: hooks-declarative's default sources).",
)
@click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The project (session working) directory; default: the config's project_dir, else "
    "the current directory.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@output.friendly
def list_hooks(bundle_path: Path | None, project: Path | None, as_json: bool) -> None:
    """List every hook a session of the bundle would run, each with its mode (observed or
    enforced). The machine's managed policy comes first, its hooks marked managed (they run
    before all others and nothing in a bundle reaches them); a policy file a session would
    refuse is an error. A Python hook module is mounted on a scratch coordinator and its
    handlers are listed (event, priority, timeout, failure policy); the recorders
    (hooks-logging, hooks-otel) are named, not mounted. For hooks-declarative: each hook's
    source (file or plugin), event (as written and canonical), matcher, type and command;
    then every source or hook left out and why (untrusted project, disabled plugin or Gemini
    CLI extension, broken file, unsupported hook, the managed policy's settings)."""
    entries = _entries(bundle_path)
    managed = check_policy()
    if managed.problem is not None:
        raise click.ClickException(f"a session would stop before its first turn: {managed.problem}")
    python = [
        (where, entry)
        for where, entry in entries
        if entry is not None and entry.module != MODULE_ID
    ]
    handlers: dict[str, ModuleHandlers] = {}
    redaction: list[Callable[[str], str]] = []
    if python:
        base_dir = bundle_path.resolve().parent if bundle_path is not None else None
        scratch = (project or Path.cwd()).expanduser().resolve()
        mounted = module_handlers(python, base_dir=base_dir, project=scratch, redaction=redaction)
        for shown in asyncio.run(mounted):
            handlers[shown.where] = shown
    # with hooks-redaction in the bundle, what is listed is shown through its redaction, as a
    # session's terminal is (a hook's command or env may hold a token)
    output.show_through(redaction[0] if redaction else None)
    try:
        _show(listed_entries(entries, handlers, project), managed, as_json)
    finally:
        output.show_through(None)


def listed_entries(
    entries: list[tuple[str, ModuleEntry | None]],
    handlers: dict[str, ModuleHandlers],
    project: Path | None,
) -> list[tuple[str, Any]]:
    """Each entry with what is listed of it: a Python module's handlers, or the survey of a
    hooks-declarative entry with its modes."""
    listed: list[tuple[str, Any]] = []
    for where, entry in entries:
        if where in handlers:
            listed.append((where, handlers[where]))
        else:
            observe = entry is not None and entry.observe
            listed.append((where, (_survey(entry, project), observe, _observer(entry))))
    return listed


def _show(listed: list[tuple[str, Any]], managed: Any, as_json: bool) -> None:
    if as_json:
        data = [
            item.as_json() if isinstance(item, ModuleHandlers) else _observed_json(where, *item)
            for where, item in listed
        ]
        if managed.policy is not None:
            data.insert(0, _managed_json(managed.policy))
        click.echo(output.shown(json.dumps(data, indent=2)))
        return
    if managed.policy is not None:
        _print_managed(managed.policy)
    for where, item in listed:
        if isinstance(item, ModuleHandlers):
            _print_module(item)
        else:
            survey, _observe, observed = item
            _print(where, survey, observed)


def _print_module(shown: ModuleHandlers) -> None:
    """A Python hook module's handlers, each with its mode."""
    console = output.stdout()
    mode = "[yellow]observed[/]" if shown.observe else "enforced"
    console.print(f"[bold]{escape(shown.where)}[/]: module {escape(shown.module_id)} ({mode})")
    if shown.observe:
        console.print(
            "[yellow]observe mode[/]: its handlers decide nothing; what they would have "
            "decided is emitted as hook:observed"
        )
    if shown.note is not None:
        console.print(f"[dim]{escape(shown.note)}[/]")
        return
    if not shown.handlers:
        console.print("no handlers registered")
        return
    table = Table(show_lines=False, expand=False)
    for column in ("handler", "event", "priority", "timeout", "on failure", "mode"):
        table.add_column(column, overflow="fold")
    for handler in shown.handlers:
        table.add_row(
            escape(handler.handler),
            escape(handler.event),
            str(handler.priority),
            "-" if handler.timeout is None else f"{handler.timeout:g} s",
            "deny (fail-closed)" if handler.fail_closed else "continue",
            mode,
        )
    console.print(table)


def _observed_json(
    where: str, survey: Any, observe: bool, observed: Callable[[str], bool]
) -> dict[str, Any]:
    """The survey as JSON; the module's ``observe`` flag and each hook's ``observed``."""
    data: dict[str, Any] = {"module": where, **survey.as_json(), "observe": observe}
    data["hooks"] = [
        {**shown, "observed": observed(hook.source), "managed": False}
        for shown, hook in zip(data.get("hooks") or [], survey.hooks, strict=True)
    ]
    return data


def _managed_hooks(policy: Any) -> list[Any]:
    import amplifier_module_hooks_declarative as declarative

    found: list[Any] = declarative.managed_hooks(policy)
    return found


def _print_managed(policy: Any) -> None:
    """The machine's managed policy: its hooks, which run before every other, and what it
    lets the other sources do."""
    console = output.stdout()
    console.print(
        f"[bold]managed policy {escape(str(policy.path))}[/]: its hooks run first; no "
        "bundle, user or project setting disables or observes them"
    )
    rules = {k: v for k, v in policy.settings.model_dump().items() if v not in (None, False)}
    if rules:
        console.print(
            "other sources: " + escape("; ".join(f"{k}: {v}" for k, v in rules.items())),
            highlight=False,
        )
    hooks = _managed_hooks(policy)
    if not hooks:
        console.print("no hooks")
        return
    table = Table(show_lines=False, expand=False)
    for column in ("source", "event", "matcher", "type", "command", "mode"):
        table.add_column(column, overflow="fold")
    for hook in hooks:
        table.add_row(*_cells(hook), "[bold magenta]managed[/]")
    console.print(table)


def _managed_json(policy: Any) -> dict[str, Any]:
    return {
        "module": f"managed policy {policy.path}",
        "managed": True,
        "path": str(policy.path),
        "settings": policy.settings.model_dump(),
        "hooks": [
            {**dataclasses.asdict(hook), "observed": False, "managed": True}
            for hook in _managed_hooks(policy)
        ],
    }
