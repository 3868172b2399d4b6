"""``amplifier-hooks validate``: check a bundle file before a session runs it.

Beyond the bundle's own schema it checks that every module the session would mount is
installed (or its ``source`` exists), checks each module's config against the model the module
declares as ``config_schema`` beside its ``mount`` (imported, not mounted), and mounts the
runtime modules (orchestrator, context, providers, tools) on a scratch coordinator so that each
checks what only mounting shows; ``--mount`` does the same for the hook modules. Each problem is
one line naming the file, the line and the key path.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import click
from amplifier_hooks_bundle import Bundle, load_bundle
from amplifier_hooks_util.config_errors import key_path
from rich.markup import escape

from amplifier_core.module_sources import parse_source

from .. import output
from ..composed_locator import ComposedLocator, locator_for
from ..locator import Locator
from ..managed import check_policy
from ..plan import PlanError, mount_plan

__all__ = [
    "composed_yaml",
    "failure_text",
    "internal_location",
    "located_failure",
    "missing_module_problems",
    "static_problems",
    "validate",
]

_HTTP_PROVIDERS: Final = ("provider-anthropic", "provider-openai")
CONFIG_PROBLEMS_ATTR: Final = "config_problems"
"""A config model's optional method: ``config_problems(working_dir=...)`` lists what mounting
would reject beyond the keys' types (each with ``loc``, a key path within the config, and
``message``)."""


@dataclass(frozen=True, slots=True)
class _Planned:
    """One module of the plan, and where the bundle names it (``None``: a default)."""

    section: str
    entry: Mapping[str, Any]
    where: tuple[str | int, ...] | None

    kind: str = ""

    @property
    def module(self) -> str:
        return str(self.entry["module"])

    @property
    def where_kind(self) -> str:
        """What the module is to the session: orchestrator, context, provider, tool, hook."""
        return self.kind or self.section[:-1]


@click.command(short_help="Check a bundle file, or the managed policy.")
@click.argument("bundle_path", type=click.Path(path_type=Path), required=False)
@click.option(
    "--managed",
    is_flag=True,
    help="Check the machine's managed policy file (its ownership and its hooks), or the "
    "file given in place of a bundle, as a session checks it.",
)
@click.option(
    "--mount",
    "try_mount",
    is_flag=True,
    help="Also mount each hook module (this runs its code) to check its config; "
    "nothing is emitted.",
)
@click.option(
    "--show",
    is_flag=True,
    help="Print the bundle as composed (its includes merged in), and where each module "
    "entry was written.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"bundle", "ok", "problems", "modules"} instead of text (cli/README.md).',
)
@output.friendly
def validate(
    bundle_path: Path | None, managed: bool, try_mount: bool, show: bool, as_json: bool
) -> None:
    """Check BUNDLE_PATH: YAML syntax, keys and types, installed modules and their config.

    The runtime modules (orchestrator, context, providers, tools) are mounted to check
    their config; a hook module's config is checked when it mounts: add --mount for that.
    Module sources given as git URLs that are not installed yet are listed with the command
    that installs them (amplifier-hooks install).

    The summary counts what a session (`amplifier-hooks run`) would mount: the bundle's
    modules, and the defaults for what it does not name (the tools tool-bash,
    tool-filesystem and tool-todo, the loop-session orchestrator, context-simple).
    """
    from amplifier_core.loader import discover_modules

    if show and as_json:
        raise click.UsageError("--show and --json: choose one")
    if managed:
        _validate_managed(bundle_path, as_json)
        return
    if bundle_path is None:
        raise click.UsageError("give a BUNDLE_PATH to check, or --managed")
    bundle = load_bundle(bundle_path)
    if show:
        click.echo(composed_yaml(bundle))
    where = locator_for(bundle_path, bundle)
    try:
        plan = mount_plan(bundle, workspace=Path.cwd())
    except PlanError as err:
        if as_json:
            _print_json(bundle_path, [f"{bundle_path}: {err}"], [])
        output.fail(f"{bundle_path}: {err}")
    installed = discover_modules()
    planned = _planned(bundle, plan)
    problems: list[str] = []
    skipped: list[_Planned] = []
    needs_install = False
    for section in ("hooks", "providers", "tools", "session"):
        for item in (p for p in planned if p.section == section):
            problem = _availability(item, installed, bundle.base_dir)
            if problem is not None and item.entry.get("optional"):
                output.stderr().print(
                    f"[yellow]warning:[/] {escape(_located(where, item, 'module'))}: "
                    f"{escape(problem)}; the module is optional: sessions run without it",
                    highlight=False,
                )
                skipped.append(item)
            elif problem is not None:
                problems.append(f"{_located(where, item, 'module')}: {problem}")
                needs_install = needs_install or _from_git(item)
    if needs_install:
        command = f"amplifier-hooks install {shlex.quote(str(bundle_path))}"
        problems.append(f"install the missing sources with: {command}")
    if not problems:
        planned = [p for p in planned if all(p is not s for s in skipped)]
        checked = _schema_problems(planned, where, bundle.base_dir)
        problems += checked.problems
        wrong = {id(item) for item in checked.failed}
        unchecked = checked.unchecked
        runtime = [p for p in planned if p.section != "hooks" and id(p) not in wrong]
        hooks = [p for p in planned if p.section == "hooks" and id(p) not in wrong]
        problems += asyncio.run(
            _mount_problems(plan, [*(hooks if try_mount else []), *runtime], where)
        )
        for item in unchecked if not try_mount else ():
            if item.section == "hooks":
                output.stderr().print(
                    f"[yellow]note:[/] {escape(_located(where, item, 'config'))}: module "
                    f"{item.module!r} declares no config_schema; add --mount to check its "
                    "config",
                    highlight=False,
                )
    for key in bundle.session.unexpected_bundle_keys():
        output.stderr().print(
            f"[yellow]warning:[/] {escape(where(('session', key), key=True))}: "
            f"{escape(bundle.session.unexpected_key_message(key))}",
            highlight=False,
        )
    policy = check_policy()
    if policy.problem is not None:  # the policy in force: a session of the bundle stops
        problems.append(policy.problem)
    mounted = [p for p in planned if all(p is not s for s in skipped)]
    if as_json:
        _print_json(bundle_path, problems, _json_modules(mounted, skipped, installed))
        return
    if problems:
        output.fail(*problems)
    counts = ", ".join(
        f"{sum(p.section == s for p in mounted)} {s[:-1]}(s)"
        for s in ("hooks", "providers", "tools")
    )
    defaults = sorted({p.where_kind for p in mounted if p.where is None})
    default_note = f"; default {', '.join(defaults)}" if defaults else ""
    console = output.stdout()
    console.print(
        f"[green]{escape(str(bundle_path))}: ok[/] ({counts}, as a session mounts them"
        f"{escape(default_note)})"
    )
    if policy.policy is not None:
        console.print(f"  [dim]{escape(policy.summary())}: its hooks run first[/]")
    for entry in bundle.hooks:
        spec = installed.get(entry.module)
        origin = (
            spec.origin
            if spec is not None
            else f"source {entry.source}"
            if entry.source
            else "optional, not installed"
        )
        console.print(f"  {escape(entry.module)} [dim]{escape(origin)}[/]", highlight=False)
    for item in (p for p in mounted if p.where is None and p.section == "tools"):
        console.print(f"  {escape(item.module)} [dim]default tool[/]", highlight=False)
    if bundle.hooks and not try_mount:
        output.stderr().print(
            "[yellow]not checked:[/] mounting the hook modules (it runs their code; some "
            "settings are checked only then): `amplifier-hooks validate --mount "
            f"{escape(str(bundle_path))}` mounts them too",
            highlight=False,
            soft_wrap=True,
        )


def _validate_managed(path: Path | None, as_json: bool) -> None:
    """``validate --managed [FILE]``: the policy in force, or FILE, checked as a session
    checks it (exit status 1 when it would stop a session, or FILE does not exist)."""
    checked = check_policy(path)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "managed": str(checked.path),
                    "in_force": checked.in_force,
                    "ok": checked.problem is None,
                    "exists": checked.policy is not None or checked.problem is not None,
                    "problems": [] if checked.problem is None else [checked.problem],
                },
                indent=2,
            )
        )
        if checked.problem is not None:
            raise SystemExit(1)
        return
    if checked.problem is not None:
        output.fail(checked.problem)
    output.stdout().print(escape(checked.summary()), highlight=False, soft_wrap=True)


def _json_modules(
    mounted: Sequence[_Planned], skipped: Sequence[_Planned], installed: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """``validate --json``'s ``modules``: what a session would mount, then what it skips."""
    rows: list[dict[str, Any]] = []
    for item, mounts in [*((p, True) for p in mounted), *((p, False) for p in skipped)]:
        spec = installed.get(item.module)
        rows.append(
            {
                "module": item.module,
                "kind": item.where_kind,
                "default": item.where is None,
                "mounted": mounts,
                "optional": bool(item.entry.get("optional")),
                "origin": spec.origin if spec is not None else None,
                "source": item.entry.get("source"),
            }
        )
    return rows


def _print_json(bundle_path: Path, problems: Sequence[str], modules: list[dict[str, Any]]) -> None:
    """``validate --json``'s one object: ``bundle``, ``ok``, ``problems`` (each line as the
    text output words it, file:line first), ``modules``; exit 1 when there are problems."""
    shown = {"bundle": str(bundle_path), "ok": not problems, "problems": list(problems)}
    click.echo(json.dumps({**shown, "modules": modules}))
    if problems:
        raise SystemExit(1)


def static_problems(
    bundle: Bundle, bundle_path: Path, sections: Sequence[str] = ("providers", "tools", "hooks")
) -> list[str]:
    """What ``validate`` finds in the config of the installed modules of ``sections`` without
    mounting anything (what each module's ``config_schema`` rejects), each as validate words
    it. A module that is not installed is left to the session (its message gives the
    ``pip install`` command), and an optional entry to the session's warning."""
    where = Locator(bundle_path)
    try:
        plan = mount_plan(bundle, workspace=Path.cwd())
    except PlanError as err:
        return [f"{bundle_path}: {err}"]
    installed_ids = _installed()
    planned = [
        p
        for p in _planned(bundle, plan)
        if p.section in sections and p.where is not None and not p.entry.get("optional")
    ]
    available = [p for p in planned if _availability(p, installed_ids, bundle.base_dir) is None]
    return _schema_problems(available, where, bundle.base_dir).problems


def _installed() -> Mapping[str, Any]:
    from amplifier_core.loader import discover_modules

    return discover_modules()


_CONFIG_PATH: Final = re.compile(r"\bconfig: ((?:[\w-]+|\[\d+\])(?:\.[\w-]+|\[\d+\])*): ")


def located_failure(bundle: Bundle, bundle_path: Path, module_id: str, message: str) -> str:
    """``file:line: key path: message`` for a module of ``bundle`` that failed to load or mount:
    the line of the config key its message names (``config: rules[0].name: ...``), else of
    its entry; ``message`` unchanged when the bundle does not name the module."""
    where = Locator(bundle_path)
    for section in ("hooks", "providers", "tools"):
        for index, entry in enumerate(getattr(bundle, section)):
            if entry.module != module_id:
                continue
            loc: tuple[str | int, ...] = (section, index, "config" if entry.config else "module")
            found = _CONFIG_PATH.search(message)
            if found is not None and entry.config:
                loc = (section, index, "config", *_parts(found.group(1)))
            return f"{where(loc)}: {message}"
    return message


def failure_text(module_id: str, stage: str, cause: str, location: str | None) -> str:
    """``module 'x' failed to mount: cause (at file:line)``; the location is left out when it
    is inside this product's own packages (:func:`internal_location`): an error points at the
    user's file (the cause names it), never at our internals."""
    text = f"module {module_id!r} failed to {stage}: {cause}"
    if location and not internal_location(location):
        text += f" (at {location})"
    return text


_OWN_PACKAGES: Final = re.compile(r"^(?:amplifier_core|amplifier_hooks_\w+)$")


def internal_location(location: str) -> bool:
    """Whether ``location`` (``file:line``) is in this product's code: the kernel, a shared
    package (``amplifier_hooks_*``) or a module this product ships (an ``amplifier-module-*``
    requirement of ``amplifier-hooks``); a module of the user's own, or a third party's, is
    where its author looks, so its location stays."""
    from ..missing import known_distributions

    parts = Path(location.rpartition(":")[0] or location).parts
    ours = {"amplifier_module_" + m.replace("-", "_") for m in known_distributions()}
    ours.add("amplifier_module_hooks_template")
    return any(_OWN_PACKAGES.match(part) or part in ours for part in parts)


def missing_module_problems(
    bundle: Bundle, bundle_path: Path, sections: Sequence[str] = ("providers", "tools", "hooks")
) -> list[str]:
    """Each module of ``sections`` (and the orchestrator and context) a session would mount
    that is not installed or whose source is not there, located and worded as ``validate``
    words it (file:line, key path, "did you mean"), then the ``pip install`` command for those
    whose distribution is known; optional entries are left to the session's warning."""
    from amplifier_core.loader import ModuleFailure

    from ..missing import missing_modules

    where = locator_for(bundle_path, bundle)
    try:
        plan = mount_plan(bundle, workspace=Path.cwd())
    except PlanError as err:
        return [f"{bundle_path}: {err}"]
    installed = _installed()
    lines: list[str] = []
    failures: list[ModuleFailure] = []
    for item in _planned(bundle, plan):
        if item.section not in (*sections, "session") or item.entry.get("optional"):
            continue
        problem = _availability(item, installed, bundle.base_dir)
        if problem is None:
            continue
        lines.append(f"{_located(where, item, 'module')}: {problem}")
        failures.append(ModuleFailure(item.module, "resolve", problem, problem))
    command = missing_modules(failures, plan).pip_command if failures else None
    if command is not None:
        lines.append(f"install {'it' if len(failures) == 1 else 'them'} with: {command}")
    return lines


def _parts(path: str) -> list[str | int]:
    """``rules[0].name`` as ``["rules", 0, "name"]``."""
    parts: list[str | int] = []
    for name, number in re.findall(r"([\w-]+)|\[(\d+)\]", path):
        parts.append(int(number) if number else name)
    return parts


def composed_yaml(bundle: Bundle) -> str:
    """``bundle`` as YAML, as composed from its includes, then where each module was written
    (as comments: every file and line, first to last; the last one's values win)."""
    import yaml

    data = bundle.model_dump(exclude_defaults=True)
    data.pop("includes", None)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    files = [*bundle.included_files, bundle.source_name]
    notes = [f"# composed from: {', '.join(files)}"]
    notes += [f"# {key}: {', '.join(found)}" for key, found in bundle.origins.items()]
    return text + "\n".join(notes)


def _planned(bundle: Bundle, plan: Mapping[str, Any]) -> list[_Planned]:
    """Every module of ``plan``, with the key path of the bundle entry it comes from."""
    items: list[_Planned] = []
    for section in ("providers", "tools", "hooks"):
        named = bool(getattr(bundle, section))
        for index, entry in enumerate(plan[section]):
            items.append(_Planned(section, entry, (section, index) if named else None))
    for kind in ("orchestrator", "context"):
        given = kind in bundle.session.given()
        where = ("session", kind) if given else None
        items.append(_Planned("session", plan["session"][kind], where, kind))
    return items


def _located(where: Locator, item: _Planned, key: str) -> str:
    if item.where is None:
        what = item.where_kind
        return f"{where.path}: the default {what} {item.module!r}"
    if item.section == "session":  # session.orchestrator / session.context
        return where(item.where)
    return where((*item.where, key))


def _from_git(item: _Planned) -> bool:
    source = item.entry.get("source")
    return source is not None and parse_source(str(source)).kind == "git"


def _availability(
    item: _Planned, installed: Mapping[str, Any], base_dir: Path | None
) -> str | None:
    """Why ``item`` cannot be found (not installed, a missing source), or ``None``."""
    source = item.entry.get("source")
    if _from_git(item):
        if item.module in installed:
            return None
        return f"module {item.module!r} is not installed from its source {source}"
    if source is not None:
        return _source_problem(str(source), base_dir)
    if item.module in installed:
        return None
    close = _closest(item.module, installed)
    return (
        f"module {item.module!r} is not installed"
        + (f" (did you mean {close!r}?)" if close else "")
        + "; `amplifier-hooks modules` lists the installed ones"
    )


def _source_problem(source: str, base_dir: Path | None) -> str | None:
    text = source.strip()
    if text.startswith(("git+", "http://", "https://", "git@", "ssh://")):
        return None  # remote: the loader says what to install when the module is missing
    if ":" in text and not text.startswith(("/", ".", "~", "file:")):
        return None  # a package.module:attr reference, imported when mounted
    path = Path(text.removeprefix("file://")).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return None if path.is_dir() else f"source directory {path} does not exist"


@dataclass(slots=True)
class _SchemaCheck:
    """What checking each module's config against its ``config_schema`` found."""

    problems: list[str]
    failed: list[_Planned]
    unchecked: list[_Planned]


def _schema_problems(
    planned: Sequence[_Planned], where: Locator, base_dir: Path | None
) -> _SchemaCheck:
    """Each module's config checked against its ``config_schema``, located in the bundle file;
    the modules that failed, and those that declare no schema."""
    from amplifier_hooks_util.config_errors import validation_problems
    from pydantic import ValidationError

    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.errors import ModuleLoadError
    from amplifier_core.loader import ModuleLoader

    loader = ModuleLoader(ModuleCoordinator(), strict=False)
    found = _SchemaCheck([], [], [])
    problems = found.problems
    try:
        for item in planned:
            try:
                schema = loader.config_schema(
                    item.module, item.entry.get("source"), base_dir=base_dir
                )
            except ModuleLoadError as err:
                problems.append(f"{_located(where, item, 'module')}: {err}")
                continue
            if schema is None or not hasattr(schema, "model_validate"):
                found.unchecked.append(item)
                continue
            try:
                settings = schema.model_validate(dict(item.entry.get("config") or {}))
            except ValidationError as err:
                found.failed.append(item)
                base: tuple[str | int, ...] = (*item.where, "config") if item.where else ()
                for problem in validation_problems(
                    err, schema=schema, base=base, document=where.document
                ):
                    if item.where is None:
                        at = f"{_located(where, item, 'config')}"
                        problems.append(f"{at}: config: {problem.render()}")
                    elif isinstance(where, ComposedLocator):
                        problems.append(where.render(problem))
                    else:
                        problems.append(problem.render(str(where.path)))
                continue
            deeper = _deeper_problems(settings, item, where)
            if deeper:
                found.failed.append(item)
                problems += deeper
    finally:
        asyncio.run(loader.cleanup())
    return found


def _deeper_problems(settings: Any, item: _Planned, where: Locator) -> list[str]:
    """What the validated config's own ``config_problems(working_dir=...)`` finds (a config
    model may check more than key types: files it names, patterns, scripts), located."""
    check = getattr(settings, CONFIG_PROBLEMS_ATTR, None)
    if not callable(check):
        return []
    try:
        found = list(check(working_dir=os.getcwd()))
    except Exception as err:  # the module's check is broken: say so, never pass it silently
        return [
            f"{_located(where, item, 'config')}: module {item.module!r}: "
            f"{CONFIG_PROBLEMS_ATTR}() failed: {type(err).__name__}: {err}"
        ]
    lines: list[str] = []
    for problem in found:
        loc = tuple(getattr(problem, "loc", ()) or ())
        message = str(getattr(problem, "message", problem))
        if item.where is None:
            lines.append(f"{_located(where, item, 'config')}: config: {key_path(loc)}: {message}")
        else:
            at = where((*item.where, "config", *loc), key=bool(getattr(problem, "key", False)))
            lines.append(f"{at}: {message}")
    return lines


class _LoaderQuiet(logging.Filter):
    """Drops the loader's failure lines while the command reports them itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR


async def _mount_problems(
    plan: Mapping[str, Any], items: Sequence[_Planned], where: Locator
) -> list[str]:
    """Mount ``items`` on a scratch coordinator; what failed, located in the bundle file."""
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.loader import ModuleLoader

    coordinator = ModuleCoordinator(config={"session": dict(plan["session"])})
    coordinator.register_capability("session.working_dir", os.getcwd())
    loader = ModuleLoader(coordinator, strict=False)
    quiet = _LoaderQuiet()
    logging.getLogger("amplifier_core.loader").addFilter(quiet)
    problems: list[str] = []
    try:
        for item in items:
            config = dict(item.entry.get("config") or {})
            if item.module in _HTTP_PROVIDERS and "api_key" not in config:
                config["api_key"] = "set-at-run-time"  # the key comes from the environment then
            failures = len(loader.failures)
            await loader.mount(item.module, config, item.entry.get("source"))
            for f in loader.failures[failures:]:
                text = failure_text(f.module_id, f.stage, f.cause, f.location)
                found = _CONFIG_PATH.search(text)
                if found is not None and item.where is not None and item.section != "session":
                    at = where((*item.where, "config", *_parts(found.group(1))))
                else:
                    at = _located(where, item, "config")
                problems.append(f"{at}: {text}")
        for unknown in await loader.check_events():  # once every module is mounted
            owner = next((i for i in items if i.module == unknown.module_id), None)
            at = _located(where, owner, "module") if owner is not None else str(where.path)
            problems.append(f"{at}: {unknown.message()}")
    finally:
        await loader.cleanup()
        logging.getLogger("amplifier_core.loader").removeFilter(quiet)
    return problems


def _closest(name: str, candidates: Sequence[str] | Mapping[str, Any]) -> str | None:
    found = difflib.get_close_matches(name, list(candidates), n=1)
    return found[0] if found else None
