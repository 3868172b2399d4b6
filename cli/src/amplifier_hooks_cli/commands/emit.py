"""``amplifier-hooks emit``: fire one event through a bundle's hooks, handler by handler.

The exit code is the decision, so a script can act on it (:data:`EXIT_CODES`): 0 the event
goes on (allowed, modified or with context added), 3 a hook denied it, 4 a hook asked for an
approval, 5 a hook failed and the event went on without it (fail-open); 1 and 2 stay the
command line's own failure and usage error. ``--json`` prints one JSON object instead of the
table (:func:`emit_json`).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any, Final

import click
from amplifier_hooks_bundle import Bundle, load_bundle
from rich.markup import escape
from rich.table import Table

from .. import output
from ..managed import check_first, mount_policy
from ..tracing import Trace, trace_emit

__all__ = ["EXIT_CODES", "decision", "emit", "emit_json", "exit_code"]

EXIT_CODES: Final = {"allow": 0, "deny": 3, "ask": 4, "failed": 5}
"""The exit code of ``emit`` for each decision (1: the command failed, 2: a bad command line)."""


@click.command(short_help="Fire one event through a bundle's hooks.")
@click.argument("event")
@click.option("--bundle", "bundle_path", type=click.Path(path_type=Path), required=True)
@click.option("--data", "data_json", default="{}", help="Event data as a JSON object.")
@click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="The session directory the hooks see (where they write logs and state). Default: a "
    "temporary directory, removed afterwards.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (the decision, each handler's step, the result) instead of "
    "the table.",
)
@output.friendly
def emit(
    event: str, bundle_path: Path, data_json: str, workspace: Path | None, as_json: bool
) -> None:
    """Fire EVENT through the bundle's hooks and show what each handler did.

    The hooks run as in a session whose directory is --workspace, so what they write (logs,
    state) goes there; without it they get a temporary directory, removed afterwards, and
    nothing lands in the current directory by accident. Keys a session derives from the data
    (``tool`` from ``tool_name``, ``input`` from ``tool_input``, a ``tool_call_id``, ``turn``)
    are filled as a session fills them.

    Exit code: 0 the event goes on, 3 a hook denied it, 4 a hook asked for an approval, 5 a
    hook failed and the event went on without it; 1 the command failed, 2 a bad command line.
    """
    from amplifier_core import events as ev
    from amplifier_core.catalogue import UnknownEventError, validate_event_data

    errors = output.stderr()
    try:
        data = json.loads(data_json)
    except json.JSONDecodeError as err:
        output.fail(
            f"--data: not valid JSON at line {err.lineno} column {err.colno}: {err.msg}", code=2
        )
    if not isinstance(data, dict):
        output.fail(f"--data: expected a JSON object, got {type(data).__name__}", code=2)
    if ev.is_pattern(ev.canonical(event)):
        output.fail(
            f"{event!r} is a subscription pattern; emit one event name, such as tool:pre", code=2
        )
    try:
        required = [
            p.rpartition("missing required key ")[2].split(" ", 1)[0].strip("'")
            for p in validate_event_data(event, data, include_common=False)
        ]
        filled = _fill_as_a_session(data, required)
        if filled and not as_json:
            output.stdout().print(
                f"[dim]filled as a session sends them: {escape(', '.join(filled))}[/]",
                highlight=False,
            )
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
        filled = []
        errors.print(f"[yellow]note:[/] {escape(str(err))}; emitting it anyway", highlight=False)
    bundle = load_bundle(bundle_path)
    if workspace is not None:
        workspace.mkdir(parents=True, exist_ok=True)
        where = workspace.resolve()
        trace = asyncio.run(_emit_through_bundle(bundle, ev.canonical(event), data, where))
    else:
        with tempfile.TemporaryDirectory(prefix="amplifier-hooks-emit-") as scratch:
            where = Path(scratch).resolve()
            trace = asyncio.run(_emit_through_bundle(bundle, ev.canonical(event), data, where))
    if as_json:
        click.echo(json.dumps(emit_json(trace, filled), default=str))
    else:
        _print_trace(trace)
    raise SystemExit(exit_code(trace))


def decision(trace: Trace) -> str:
    """What became of the event: ``deny``, ``ask``, ``failed`` (a hook failed and the event
    went on) or ``allow``."""
    action = trace.result.action if trace.result is not None else "continue"
    if action == "deny":
        return "deny"
    if action == "ask_user":
        return "ask"
    if any(step.error is not None for step in trace.steps):
        return "failed"
    return "allow"


def exit_code(trace: Trace) -> int:
    """The exit code for ``trace``'s decision (:data:`EXIT_CODES`)."""
    return EXIT_CODES[decision(trace)]


def emit_json(trace: Trace, filled: list[str]) -> dict[str, Any]:
    """``emit --json``'s object: ``event``, ``decision`` (allow, deny, ask or failed),
    ``exit_code``, ``filled`` (the keys filled as a session sends them), ``handlers`` (each
    run in order: ``name``, ``priority``, ``action``, ``ms``, ``reason``, ``error``) and
    ``result`` (the combined HookResult, its non-default fields)."""
    handlers = [
        {
            "name": step.name,
            "priority": step.priority,
            "action": step.action,
            "ms": round(step.seconds * 1000, 3),
            "reason": step.result.reason if step.result is not None else None,
            "error": step.error,
        }
        for step in trace.steps
    ]
    result = trace.result.model_dump(mode="json", exclude_defaults=True) if trace.result else {}
    return {
        "event": trace.event,
        "decision": decision(trace),
        "exit_code": exit_code(trace),
        "filled": filled,
        "handlers": handlers,
        "result": result or {"action": "continue"},
    }


_ALIASES: Final = (("tool", "tool_name"), ("input", "tool_input"), ("result", "tool_result"))
"""Keys a session sends under both names (Amplifier's modules read either)."""
_COUNTERS: Final = {"tool_call_id": "call_emit_1", "turn": 1, "iteration": 1}
"""What a session numbers itself: the first call of the first turn."""


def _fill_as_a_session(data: dict[str, Any], required: list[str]) -> list[str]:
    """Fill the ``required`` keys a session would derive from ``data`` (a key's other name,
    a call id, turn and iteration numbers); the names of those filled. Content the data does
    not give (a prompt, a tool's result) is left missing."""
    filled: list[str] = []
    for key in required:
        other = next((b if a == key else a for a, b in _ALIASES if key in (a, b)), None)
        if other is not None and other in data:
            data[key] = data[other]
        elif key in _COUNTERS:
            data[key] = _COUNTERS[key]
        else:
            continue
        filled.append(key)
    return filled


async def _emit_through_bundle(
    bundle: Bundle, event: str, data: dict[str, Any], workspace: Path
) -> Trace:
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.loader import ModuleLoader

    coordinator = ModuleCoordinator(
        config={"session": {**bundle.session.given(), "working_dir": str(workspace)}}
    )
    coordinator.register_capability("session.working_dir", str(workspace))
    managed = await mount_policy(coordinator, f"emit {event}")  # the machine's policy, first
    loader = ModuleLoader(coordinator)
    await loader.mount_all(bundle.hooks, base_dir=bundle.base_dir)  # failures: one log line
    try:
        check_first(coordinator, f"emit {event}")
        return await trace_emit(coordinator.hooks, event, data)
    finally:
        await loader.cleanup()
        if managed is not None:
            await managed()


def _print_trace(trace: Trace) -> None:
    console = output.stdout()
    table = Table(title=f"emit {trace.event}: {len(trace.steps)} handler(s)")
    for column in ("#", "handler", "priority", "action", "ms", "detail"):
        table.add_column(column, overflow="fold")
    colour = {"deny": "red", "failed": "red", "modify": "magenta", "ask_user": "yellow"}
    for index, step in enumerate(trace.steps, 1):
        detail = step.error or ""
        if step.result is not None and not detail:
            detail = step.result.reason or step.result.user_message or ""
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
