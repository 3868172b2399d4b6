"""``amplifier-hooks``: the command line of the hook kernel.

::

    amplifier-hooks run --bundle B --prompt TEXT [--prompt TEXT ...] [--script FILE]
                        [--workspace DIR] [--approve | --deny | --ask] [--resume CHECKPOINT]
                                          a session: turns, tool calls, what the hooks did
    amplifier-hooks demo                  the reference hooks in an offline session
    amplifier-hooks modules               installed modules, their distributions, import errors
    amplifier-hooks validate BUNDLE       check a bundle file
    amplifier-hooks emit EVENT --bundle B --data JSON
                                          fire one event through a bundle's hooks
    amplifier-hooks events                the event catalogue

Every error is reported as one line per problem, naming the file, line and key path where
they are known, with a non-zero exit code (1 for a failure, 2 for a bad command line, 130
when interrupted); ``-v`` adds debug logs and lets tracebacks through.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import json
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NoReturn, ParamSpec, TypeVar

import click
from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.table import Table

from .bundle import Bundle, load_bundle
from .errors import BundleError
from .tracing import Trace, trace_emit

__all__ = ["main"]

P = ParamSpec("P")
R = TypeVar("R")

_PIPED_WIDTH: Final = 160
_SESSION_KEYS: Final = (
    "injection_size_limit",
    "injection_budget_per_turn",
    "audit_log",
    "max_iterations",
    "context_max_tokens",
    "hook_timeout",
    "checkpoint_dir",
    "checkpoint_every_turn",
    "memory_files",
    "metadata",
    "tools",
)
_HTTP_PROVIDERS: Final = ("anthropic", "openai")


def _make_console(*, stderr: bool) -> Console:
    """A console that keeps ids, paths and error lines whole when the output is piped."""
    made = Console(stderr=stderr, highlight=False)
    if not made.is_terminal:
        made.soft_wrap = True  # a line stays one line in a file or a pipe
        if "COLUMNS" not in os.environ:
            made.width = _PIPED_WIDTH
    elif stderr:
        made.soft_wrap = True  # an error stays one line, whole paths included, when copied
    return made


console = _make_console(stderr=False)
errors = _make_console(stderr=True)
_verbose = False


# -- errors ----------------------------------------------------------------------------------


class _NoTracebacks(logging.Filter):
    """Log records keep their one-line message; the traceback is for ``-v`` only."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {error})"
            record.args = None
        record.exc_info = None
        record.exc_text = None
        return True


def _fail(*lines: str, code: int = 1) -> NoReturn:
    """Print each line as ``error: ...`` on standard error and exit with ``code``."""
    for line in lines:
        errors.print(f"[red]error:[/] {escape(line)}")
    sys.exit(code)


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, ValueError | OSError | LookupError) or _is_kernel_error(err):
        return text
    return f"{type(err).__name__}: {text} (run with -v to see where)"


def _is_kernel_error(err: BaseException) -> bool:
    from .chat import ProviderError
    from .errors import AmplifierError

    return isinstance(err, AmplifierError | ProviderError)


def _friendly(command: Callable[P, R]) -> Callable[P, R]:
    """Turn any failure of ``command`` into one clear line and a non-zero exit code."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            errors.print("[yellow]interrupted[/]")
            sys.exit(130)
        except BundleError as err:
            if _verbose:
                raise
            _fail(*(f"invalid bundle {p.render(err.file)}" for p in err.problems))
        except Exception as err:
            if _verbose:
                raise
            _fail(_one_line(err))

    return wrapper


# -- the group -------------------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="amplifier-hooks")
@click.option("-v", "--verbose", is_flag=True, help="Debug logs, and tracebacks on errors.")
def main(verbose: bool) -> None:
    """Hooks for AI-agent sessions: run, inspect, validate and fire them."""
    global console, errors, _verbose
    console = _make_console(stderr=False)
    errors = _make_console(stderr=True)
    _verbose = verbose
    handler = RichHandler(console=errors, show_time=False, show_path=False, markup=False)
    if not verbose:
        handler.addFilter(_NoTracebacks())
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbose else logging.WARNING)

    def restore() -> None:  # leave logging as it was (the command line may run in process)
        root.handlers[:], level = saved
        root.setLevel(level)

    click.get_current_context().call_on_close(restore)


# -- run -------------------------------------------------------------------------------------


@main.command(short_help="Run an agent session, one turn per --prompt.")
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    help="Bundle file (YAML, or Markdown with YAML front matter). Without it: no hook module.",
)
@click.option(
    "--prompt",
    "prompts",
    multiple=True,
    help="A user turn; repeat for several turns. Default: the script file's `prompts:`.",
)
@click.option(
    "--script",
    "script_path",
    type=click.Path(path_type=Path),
    help="Scripted provider script (YAML or JSON, docs/scripted-provider.md); it replaces "
    "the bundle's provider.",
)
@click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="Where tools run and files are read and written (created if missing).",
)
@click.option("--approve", is_flag=True, help="Grant every approval request, without asking.")
@click.option("--deny", is_flag=True, help="Deny every approval request, without asking.")
@click.option(
    "--ask",
    is_flag=True,
    help="Ask in the terminal (the default); without a terminal or with CI set: deny.",
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Continue the conversation saved in this checkpoint file.",
)
@click.option("--trace", is_flag=True, help="Show every hook action as it happens.")
@click.option("--session-id", help="The session id (default: a new UUID, or the checkpoint's).")
@_friendly
def run(
    bundle_path: Path | None,
    prompts: tuple[str, ...],
    script_path: Path | None,
    workspace: Path,
    approve: bool,
    deny: bool,
    ask: bool,
    resume_path: Path | None,
    trace: bool,
    session_id: str | None,
) -> None:
    """Run an agent session: each --prompt is one turn.

    The model is the bundle's provider (`providers:`), or the scripted provider replaying
    --script. Tool calls run in --workspace. Approval requests from hooks are asked in the
    terminal (--ask), or answered by --approve / --deny.
    """
    chosen = [name for name, on in (("--approve", approve), ("--deny", deny), ("--ask", ask)) if on]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)}: choose one approval policy")
    from .demo import bundle_script, script_prompts

    bundle = load_bundle(bundle_path) if bundle_path is not None else Bundle()
    script = script_path or bundle_script(bundle)
    turns = list(prompts) or (script_prompts(script) if script is not None else [])
    if not turns:
        raise click.UsageError(
            "no prompt: pass --prompt TEXT (repeat it for several turns), "
            "or put `prompts:` in the script file"
        )
    if script_path is None and not bundle.providers:
        where = f" under `providers:` in {bundle_path}" if bundle_path else " in a bundle"
        raise click.UsageError(
            f"no model to talk to: pass --script FILE (a scripted provider), or configure a "
            f"provider{where}"
        )
    if not workspace.exists():
        workspace.mkdir(parents=True)
        console.print(f"[dim]created workspace {escape(str(workspace))}[/]")
    plan = _RunPlan(
        bundle=bundle,
        prompts=turns,
        script_path=script_path,
        workspace=workspace,
        policy="approve" if approve else "deny" if deny else "ask",
        resume_path=resume_path,
        trace=trace,
        session_id=session_id,
    )
    sys.exit(asyncio.run(_run_session(plan)))


@dataclass(frozen=True, slots=True)
class _RunPlan:
    """What ``run`` was asked to do, checked before the session starts."""

    bundle: Bundle
    prompts: list[str]
    script_path: Path | None
    workspace: Path
    policy: str
    resume_path: Path | None
    trace: bool
    session_id: str | None


async def _run_session(plan: _RunPlan) -> int:
    from .demo_view import ConsoleDisplay, SessionView
    from .providers import ScriptedProvider
    from .session import AmplifierSession
    from .terminal_approval import TerminalApprovalSystem

    provider = ScriptedProvider(plan.script_path) if plan.script_path is not None else None
    approvals = TerminalApprovalSystem(
        policy="allow" if plan.policy == "approve" else "deny",
        interactive=None if plan.policy == "ask" else False,
        console=errors,
    )
    display = ConsoleDisplay(console)
    view = SessionView(console, trace=plan.trace)
    options: dict[str, Any] = {
        "workspace": plan.workspace,
        "provider": provider,
        "approval_system": approvals,
        "display_system": display,
    }
    if plan.session_id is not None:
        options["session_id"] = plan.session_id
    if plan.resume_path is not None:
        session = await AmplifierSession.resume(plan.resume_path, plan.bundle, **options)
        view.attach(session)
        console.print(
            f"[dim]resumed session {escape(session.session_id)} after turn {session.turns} "
            f"from {escape(str(plan.resume_path))}[/]"
        )
    else:
        session = AmplifierSession(plan.bundle, **options)
        session.coordinator.register_capability("session.working_dir", str(session.workspace))
        view.attach(session)
    code = 0
    try:
        if plan.resume_path is None:
            await session.start()
        for prompt in plan.prompts:
            view.turn(session.turns + 1, prompt)
            started = time.perf_counter()
            outcome = await session.run(prompt)
            tokens = outcome.usage["input_tokens"] + outcome.usage["output_tokens"]
            colour = {"completed": "green", "denied": "yellow"}.get(outcome.status, "red")
            detail = outcome.reason or (outcome.error or {}).get("message") or ""
            console.print(
                f"[{colour}]turn {session.turns} {outcome.status}[/] [dim]· "
                f"{outcome.iterations} model call(s) · {tokens} tokens · "
                f"{time.perf_counter() - started:.2f} s[/]"
                + (f": {escape(str(detail))}" if detail else ""),
                highlight=False,
            )
            if outcome.status in ("error", "incomplete"):
                code = 1
            if outcome.status == "cancelled":
                code = 130
                break
    except (asyncio.CancelledError, KeyboardInterrupt):
        await session.close("cancelled")
        raise
    except BaseException as err:
        await session.close("failed", err)
        raise
    else:
        await session.close()
    finally:
        view.detach()
    if view.checkpoints:
        last = view.checkpoints[-1]
        console.print(
            f"[dim]checkpoint saved; continue with --resume {escape(last)}[/]", soft_wrap=True
        )
    return code


# -- demo ------------------------------------------------------------------------------------


@main.command(short_help="The reference hooks at work, offline, in seconds.")
@click.option("--keep", is_flag=True, help="Keep the temporary workspace and print its path.")
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    help="Run the demo with another bundle (its provider must be scripted, with prompts).",
)
@_friendly
def demo(keep: bool, bundle_path: Path | None) -> None:
    """The installed reference hooks at work in an offline session (a few seconds)."""
    from .demo import run_demo

    sys.exit(asyncio.run(run_demo(console, keep=keep, bundle_path=bundle_path)))


# -- modules ---------------------------------------------------------------------------------


@main.command(short_help="Installed modules, and why one does not load.")
@click.option("--no-import", is_flag=True, help="Only read the metadata; import nothing.")
@_friendly
def modules(no_import: bool) -> None:
    """The modules installed in this environment, and why any of them cannot be loaded.

    Each module's entry point is imported (unless --no-import); the exit code is 1 when one
    of them fails.
    """
    from .loader import discover_modules

    specs = discover_modules()
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
            problem = _import_problem(module_id, spec.value, spec.group)
            status = "[green]ok[/]" if problem is None else "[red]no[/]"
            if problem is not None:
                problems.append(
                    f"module {module_id!r} (entry point '{spec.entry_point}' from "
                    f"{spec.origin}) does not load: {problem}"
                )
        table.add_row(module_id, spec.distribution or "?", spec.version or "?", spec.value, status)
    console.print(table)
    if problems:
        _fail(*problems)


def _import_problem(name: str, value: str, group: str) -> str | None:
    """Why the entry point ``name = value`` cannot be loaded as a mount function, or ``None``."""
    import importlib_metadata

    try:
        target = importlib_metadata.EntryPoint(name=name, value=value, group=group).load()
    except Exception as err:
        where = _error_location(err)
        text = " ".join(str(err).split())
        return f"{type(err).__name__}: {text}" + (f" at {where}" if where else "")
    if not callable(target):
        return f"{value} is a {type(target).__name__}, not a callable mount(coordinator, config)"
    return None


def _error_location(err: BaseException) -> str | None:
    """``file:line`` of the innermost frame that is not import machinery or this file."""
    if isinstance(err, SyntaxError) and err.filename and err.lineno:
        return f"{err.filename}:{err.lineno}"
    skipped = ("<frozen", os.path.dirname(importlib.__file__ or "") or "<frozen")
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        name = frame.filename
        if name == __file__ or name.startswith(skipped) or "importlib_metadata" in name:
            continue
        return f"{name}:{frame.lineno}"
    return None


# -- validate --------------------------------------------------------------------------------


@main.command(short_help="Check a bundle file.")
@click.argument("bundle_path", type=click.Path(path_type=Path))
@click.option(
    "--mount",
    "try_mount",
    is_flag=True,
    help="Also mount each hook module (this runs its code) to check its config; "
    "nothing is emitted.",
)
@_friendly
def validate(bundle_path: Path, try_mount: bool) -> None:
    """Check BUNDLE_PATH: YAML syntax, keys and types, installed modules, providers, tools.

    A module's own config is checked by the module when it mounts: add --mount for that.
    """
    from .loader import discover_modules

    bundle = load_bundle(bundle_path)
    where = _Locator(bundle_path)
    problems: list[str] = []
    installed = discover_modules()
    for index, entry in enumerate(bundle.hooks):
        if entry.source is None and entry.module not in installed:
            close = _closest(entry.module, installed)
            problems.append(
                f"{where(('hooks', index, 'module'))}: module {entry.module!r} is not installed"
                + (f" (did you mean {close!r}?)" if close else "")
                + "; `amplifier-hooks modules` lists what is"
            )
        elif entry.source is not None:
            problem = _source_problem(entry.source, bundle.base_dir)
            if problem:
                problems.append(f"{where(('hooks', index, 'source'))}: {problem}")
    if try_mount and not problems:
        problems += asyncio.run(_mount_problems(bundle, where))
    problems += _provider_problems(bundle, where)
    problems += _tool_problems(bundle, where)
    for key in bundle.session:
        if key not in _SESSION_KEYS:
            close = _closest(key, _SESSION_KEYS)
            errors.print(
                f"[yellow]warning:[/] {escape(where(('session', key), key=True))}: "
                f"unknown session key {key!r}"
                + (f" (did you mean {close!r}?)" if close else "; the session ignores it"),
                highlight=False,
            )
    if problems:
        _fail(*problems)
    counts = ", ".join(
        f"{len(getattr(bundle, s))} {s[:-1]}(s)" for s in ("hooks", "providers", "tools")
    )
    console.print(f"[green]{escape(str(bundle_path))}: ok[/] ({counts})")
    for entry in bundle.hooks:
        spec = installed.get(entry.module)
        origin = spec.origin if spec is not None else f"source {entry.source}"
        console.print(f"  {escape(entry.module)} [dim]{escape(origin)}[/]", highlight=False)


async def _mount_problems(bundle: Bundle, where: _Locator) -> list[str]:
    """Mount every hook module on a scratch coordinator; what failed, located in the file."""
    from .coordinator import ModuleCoordinator
    from .loader import ModuleLoader

    coordinator = ModuleCoordinator(config={"session": dict(bundle.session)})
    coordinator.register_capability("session.working_dir", os.getcwd())
    loader = ModuleLoader(coordinator, strict=False)
    quiet = _LoaderQuiet()
    logging.getLogger("amplifier_core.loader").addFilter(quiet)
    try:
        await loader.mount_all(bundle.hooks, base_dir=bundle.base_dir)
    finally:
        await loader.cleanup()
        logging.getLogger("amplifier_core.loader").removeFilter(quiet)
    index = {entry.module: i for i, entry in enumerate(bundle.hooks)}
    return [
        f"{where(('hooks', index.get(f.module_id, 0), 'config'))}: module {f.module_id!r} "
        f"failed to {f.stage}: {f.cause}" + (f" at {f.location}" if f.location else "")
        for f in loader.failures
    ]


class _LoaderQuiet(logging.Filter):
    """Drops the loader's failure lines while the command reports them itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR


def _closest(name: str, candidates: Sequence[str] | dict[str, Any]) -> str | None:
    import difflib

    found = difflib.get_close_matches(name, list(candidates), n=1)
    return found[0] if found else None


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


def _provider_problems(bundle: Bundle, where: _Locator) -> list[str]:
    from .chat import ProviderError
    from .providers import make_provider

    problems: list[str] = []
    for index, entry in enumerate(bundle.providers):
        config = dict(entry.config)
        config.setdefault("type", entry.module.removeprefix("provider-"))
        if config["type"] in _HTTP_PROVIDERS and "api_key" not in config:
            config["api_key"] = "set-at-run-time"  # the key comes from the environment then
        try:
            make_provider(config, base_dir=bundle.base_dir, where=f"providers[{index}].config")
        except ProviderError as err:
            problems.append(f"{where(('providers', index))}: {' '.join(str(err).split())}")
    return problems


def _tool_problems(bundle: Bundle, where: _Locator) -> list[str]:
    from .tools import BUILTIN_TOOL_NAMES, ToolConfigError, ToolsConfig

    problems: list[str] = []
    for index, entry in enumerate(bundle.tools):
        name = entry.module.removeprefix("tool-").replace("-", "_")
        if name not in BUILTIN_TOOL_NAMES:
            problems.append(
                f"{where(('tools', index, 'module'))}: unknown tool {entry.module!r}; "
                f"available: {', '.join(BUILTIN_TOOL_NAMES)}"
            )
    if "tools" in bundle.session:
        try:
            ToolsConfig.parse(bundle.session["tools"])
        except ToolConfigError as err:
            problems.append(f"{where(('session', 'tools'))}: {err}")
    return problems


class _Locator:
    """``file:line: key.path`` for a key path of a bundle file (the line when it is found)."""

    def __init__(self, path: Path) -> None:
        import yaml

        self.path = path
        self.root: yaml.Node | None = None
        try:
            text = path.read_text(encoding="utf-8-sig")
            if path.suffix.lower() in (".md", ".markdown"):
                lines = text.splitlines(keepends=True)
                end = next(
                    (i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")),
                    len(lines),
                )
                text = "".join(lines[:end])
            self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        except (OSError, yaml.YAMLError):
            self.root = None

    def __call__(self, loc: tuple[str | int, ...], *, key: bool = False) -> str:
        import yaml

        node = self.root
        found: yaml.Node | None = node
        for position, part in enumerate(loc):
            last = position == len(loc) - 1
            if isinstance(node, yaml.MappingNode):
                pair = next(
                    ((k, v) for k, v in node.value if getattr(k, "value", None) == str(part)),
                    None,
                )
                if pair is None:
                    break
                node = pair[1]
                found = pair[0] if (key and last) else pair[1]
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if part >= len(node.value):
                    break
                node = found = node.value[part]
            else:
                break
        path = ""
        for part in loc:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else part)
        line = f":{found.start_mark.line + 1}" if found is not None else ""
        return f"{self.path}{line}: {path}"


# -- emit ------------------------------------------------------------------------------------


@main.command(short_help="Fire one event through a bundle's hooks.")
@click.argument("event")
@click.option("--bundle", "bundle_path", type=click.Path(path_type=Path), required=True)
@click.option("--data", "data_json", default="{}", help="Event data as a JSON object.")
@_friendly
def emit(event: str, bundle_path: Path, data_json: str) -> None:
    """Fire EVENT through the bundle's hooks and show what each handler did."""
    from . import events as ev
    from .catalogue import UnknownEventError, validate_event_data

    try:
        data = json.loads(data_json)
    except json.JSONDecodeError as err:
        _fail(f"--data: not valid JSON at line {err.lineno} column {err.colno}: {err.msg}", code=2)
    if not isinstance(data, dict):
        _fail(f"--data: expected a JSON object, got {type(data).__name__}", code=2)
    if ev.is_pattern(ev.canonical(event)):
        _fail(f"{event!r} is a subscription pattern; emit one event name, such as tool:pre", code=2)
    try:
        missing = [
            p.rpartition("missing required key ")[2]
            for p in validate_event_data(event, data, include_common=False)
        ]
        if missing:
            errors.print(
                f"[yellow]note:[/] --data lacks keys a session always sends with "
                f"{ev.canonical(event)}: {escape(', '.join(missing))}",
                highlight=False,
            )
    except UnknownEventError as err:
        errors.print(f"[yellow]note:[/] {escape(str(err))}; emitting it anyway", highlight=False)
    bundle = load_bundle(bundle_path)
    trace = asyncio.run(_emit_through_bundle(bundle, ev.canonical(event), data))
    _print_trace(trace)


async def _emit_through_bundle(bundle: Bundle, event: str, data: dict[str, Any]) -> Trace:
    from .coordinator import ModuleCoordinator
    from .loader import ModuleLoader

    coordinator = ModuleCoordinator(config={"session": dict(bundle.session or {})})
    coordinator.register_capability("session.working_dir", os.getcwd())
    loader = ModuleLoader(coordinator)
    await loader.mount_all(bundle.hooks, base_dir=bundle.base_dir)  # failures: one log line
    try:
        return await trace_emit(coordinator.hooks, event, data)
    finally:
        await loader.cleanup()


def _print_trace(trace: Trace) -> None:
    table = Table(title=f"emit {trace.event}: {len(trace.steps)} handler(s)")
    for column in ("#", "handler", "priority", "action", "ms", "detail"):
        table.add_column(column, overflow="fold")
    for index, step in enumerate(trace.steps, 1):
        detail = step.error or ""
        if step.result is not None and not detail:
            detail = step.result.reason or step.result.user_message or ""
        colour = {"deny": "red", "failed": "red", "modify": "magenta", "ask_user": "yellow"}
        style = colour.get(step.action, "")
        table.add_row(
            str(index),
            escape(step.name),
            str(step.priority),
            f"[{style}]{step.action}[/]" if style else step.action,
            f"{step.seconds * 1000:.3f}",
            escape(detail),
        )
    console.print(table)
    if trace.result is not None:
        console.print("[bold]result[/]")
        shown = trace.result.model_dump(exclude_defaults=True) or {"action": "continue"}
        console.print_json(json.dumps(shown, default=str))


# -- events ----------------------------------------------------------------------------------


@main.command(short_help="The event catalogue.")
@click.option("--markdown", is_flag=True, help="Print the catalogue as docs/events.md has it.")
@_friendly
def events(markdown: bool) -> None:
    """The event catalogue: every event, when it fires and what its data carries."""
    from .catalogue import CATALOGUE, render_markdown

    if markdown:
        click.echo(render_markdown(), nl=False)
        return
    table = Table(title=f"{len(CATALOGUE)} events")
    for column in ("event", "alias", "when it fires", "data keys (* = always)"):
        table.add_column(column, overflow="fold")
    for name, spec in CATALOGUE.items():
        keys = ", ".join(f"{f.name}{'*' if f.required else ''}" for f in spec.fields)
        table.add_row(name, spec.alias or "", spec.when, keys)
    console.print(table)
