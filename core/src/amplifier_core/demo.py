"""``amplifier-hooks demo``: the installed reference hooks at work in a real, offline session.

The demo copies nothing from a user's setup. It makes a temporary workspace (a settings file
holding a made-up API key, a build directory, an ``AGENTS.md``), loads the packaged demo bundle
(``demo_data/demo-bundle.yaml``, the same file as ``examples/demo-bundle.yaml``) and runs an
:class:`~amplifier_core.session.AmplifierSession` whose scripted provider replays
``demo_data/demo-script.yaml``: the model plans, reads the settings, tries ``rm -rf build`` with
bash, writes a note, and answers a follow-up question. Every event fires for real.

While it runs, the demo prints each turn and what every hook did (each emit is traced handler
by handler with :func:`~amplifier_core.tracing.trace_emit`); at the end it sums up the denials,
redactions, context injections, approvals, user messages and the log lines written. A module of
the bundle that is not installed is reported once and skipped. No terminal input is read:
approvals are answered by a fixed policy (allow), so the demo runs unattended in a few seconds.

The pieces the command line also uses live here: :class:`SessionView` (prints a session's
turns as they happen), :class:`ConsoleDisplay` (the display system that prints hook messages),
and :func:`script_prompts` / :func:`bundle_script` (the prompts a script file carries).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import events as ev
from .bundle import Bundle, load_bundle
from .display import RecordingDisplay
from .hooks import HookRegistry
from .models import HookResult, MessageLevel
from .session import AmplifierSession
from .terminal_approval import TerminalApprovalSystem
from .tracing import Trace, trace_emit

__all__ = [
    "DEMO_BUNDLE",
    "DEMO_SCRIPT",
    "ConsoleDisplay",
    "SessionView",
    "bundle_script",
    "run_demo",
    "script_prompts",
]

DEMO_DATA: Final = Path(__file__).with_name("demo_data")
DEMO_BUNDLE: Final = DEMO_DATA / "demo-bundle.yaml"
"""The demo's bundle (also shipped as ``examples/demo-bundle.yaml``)."""
DEMO_SCRIPT: Final = DEMO_DATA / "demo-script.yaml"
"""The demo's scripted model and prompts (also shipped as ``examples/demo-script.yaml``)."""

VIEW_NAME: Final = "amplifier-hooks.view"
_LAST: Final = 1_000_000
_SHOWN: Final = 160
_LEVEL_STYLE: Final = {"info": "cyan", "warning": "yellow", "error": "red"}
_SECRETS: Final = (
    "ghp_Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o",
    "dev@example.com",
    "sk-proj-Q2xR7tLm9VbN4cZ8kP1sW6yH3dF5gJ0a",
)
_WORKSPACE_FILES: Final = {
    "settings.env": f"APP_ENV=staging\nOPENAI_API_KEY={_SECRETS[2]}\nLOG_LEVEL=info\n",
    "AGENTS.md": "Keep changes small. Never delete files without asking.\n",
    "build/app.bin": "compiled output\n",
}


def _short(value: Any, limit: int = _SHOWN) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- scripts -------------------------------------------------------------------------------


def script_prompts(path: Path) -> list[str]:
    """The user prompts a script file carries under ``prompts:`` (empty when it has none).

    :raises ValueError: the file cannot be read or ``prompts`` is not a list of strings; the
        message names the file.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"{path}: cannot read the script: {err.strerror or err}") from err
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ValueError(f"{where}: invalid YAML: {getattr(err, 'problem', err)}") from err
    if not isinstance(data, dict) or "prompts" not in data:
        return []
    prompts = data["prompts"]
    if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
        raise ValueError(f"{path}: prompts: expected a list of strings")
    return list(prompts)


def bundle_script(bundle: Bundle) -> Path | None:
    """The script file of the bundle's first provider, when it is a scripted one."""
    if not bundle.providers:
        return None
    entry = bundle.providers[0]
    kind = entry.config.get("type", entry.module.removeprefix("provider-"))
    script = entry.config.get("script")
    if kind != "scripted" or not isinstance(script, str):
        return None
    path = Path(script).expanduser()
    if not path.is_absolute() and bundle.base_dir is not None:
        path = bundle.base_dir / path
    return path


# -- showing a session ---------------------------------------------------------------------


class ConsoleDisplay(RecordingDisplay):
    """The display system of the command line: prints each hook message as it comes, keeps it."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console

    def show_message(self, message: str, level: MessageLevel, source: str = "hook") -> None:
        """Print ``message`` with its source, coloured by level, and record it."""
        super().show_message(message, level, source)
        style = _LEVEL_STYLE.get(level, "cyan")
        self.console.print(
            f"    [{style}]{escape(source)}[/] says: {escape(message)}", highlight=False
        )


class _FailureNotice(logging.Filter):
    """Drops the loader's one-line failure records while a view reports them instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.ERROR and record.exc_info is None)


class SessionView:
    """Prints a session as it runs: the assistant's words, tool calls and results, denials,
    approvals, skipped modules and, with ``trace``, every non-trivial hook action.

    Observers are registered on the session's registry at the last priority (they only read);
    ``trace`` additionally routes each emit through :func:`trace_emit`, which combines results
    by the very same rules and records each handler's action and time.
    """

    def __init__(self, console: Console, *, trace: bool = False) -> None:
        self.console = console
        self.trace = trace
        self.traces: list[Trace] = []
        self.events: Counter[str] = Counter()
        self.denials: list[dict[str, Any]] = []
        self.skipped: list[dict[str, Any]] = []
        self.checkpoints: list[str] = []
        self.tool_calls: list[tuple[str, dict[str, Any], bool]] = []
        self._undo: list[Callable[[], None]] = []

    # -- wiring --------------------------------------------------------------------------

    def attach(self, session: AmplifierSession) -> None:
        """Start showing ``session`` (before it starts, so module failures are seen)."""
        hooks = session.coordinator.hooks
        watched: dict[str, Callable[[str, dict[str, Any]], None]] = {
            ev.PROVIDER_RESPONSE: self._on_response,
            ev.TOOL_POST: self._on_tool_post,
            ev.TOOL_ERROR: self._on_tool_error,
            ev.POLICY_VIOLATION: self._on_violation,
            ev.MODULE_LOAD_FAILED: self._on_load_failed,
            ev.SESSION_CHECKPOINT: self._on_checkpoint,
        }
        for event, handler in watched.items():
            self._undo.append(hooks.register(event, handler, priority=_LAST, name=VIEW_NAME))
        loader_log = logging.getLogger("amplifier_core.loader")
        notice = _FailureNotice()
        loader_log.addFilter(notice)
        self._undo.append(lambda: loader_log.removeFilter(notice))
        if self.trace:
            self._trace(hooks)

    def detach(self) -> None:
        """Stop showing; undo everything :meth:`attach` did."""
        while self._undo:
            self._undo.pop()()

    def _trace(self, hooks: HookRegistry) -> None:
        plain = hooks.emit

        async def traced(event: str, data: dict[str, Any] | None = None) -> HookResult:
            trace = await trace_emit(hooks, event, dict(data or {}))
            self.traces.append(trace)
            self.events[trace.event] += 1
            self._show_steps(trace)
            assert trace.result is not None
            return trace.result

        setattr(hooks, "emit", traced)  # noqa: B010 - this instance only, undone in detach()
        self._undo.append(lambda: setattr(hooks, "emit", plain))

    # -- what is printed -----------------------------------------------------------------

    def turn(self, number: int, prompt: str) -> None:
        """Announce a turn and its prompt."""
        self.console.print()
        self.console.rule(f"turn {number}", align="left", style="dim")
        self.console.print(f"[bold]user[/]: {escape(prompt)}", highlight=False)

    def _show_steps(self, trace: Trace) -> None:
        for step in trace.steps:
            if step.name == VIEW_NAME:
                continue
            result = step.result
            if step.action in ("continue", "not run") and not step.error:
                continue  # what it told the human is shown by the display
            detail = step.error or (result.reason if result is not None else None) or ""
            if step.action == "modify" and result is not None and result.data is not None:
                detail = detail or _changed(trace.event, result.data)
            if step.action == "inject_context" and result is not None:
                detail = detail or _short(result.context_injection or "", 100)
            colour = "red" if step.action in ("deny", "failed") else "magenta"
            self.console.print(
                f"    [dim]hook[/] [bold]{escape(step.name)}[/] [{colour}]{step.action}[/] "
                f"[dim]on {trace.event} ({step.seconds * 1000:.2f} ms)[/]"
                + (f": {escape(_short(detail, 120))}" if detail else ""),
                highlight=False,
            )

    def _on_response(self, event: str, data: dict[str, Any]) -> None:
        text = (data.get("response") or {}).get("content") or ""
        if text:
            self.console.print(f"[bold green]assistant[/]: {escape(text)}", highlight=False)

    def _on_tool_post(self, event: str, data: dict[str, Any]) -> None:
        name = str(data.get("tool_name", "?"))
        tool_input = data.get("tool_input") or {}
        result = data.get("tool_result") or {}
        ok = bool(result.get("success", True)) if isinstance(result, dict) else True
        self.tool_calls.append((name, tool_input, ok))
        shown = result.get("output") if ok else result.get("error")
        status = "[green]ok[/]" if ok else "[red]failed[/]"
        self.console.print(
            f"  [bold]tool[/] {escape(name)} {escape(_short(tool_input, 70))} -> {status}"
            f" [dim]{escape(_short(shown, 70))}[/]",
            highlight=False,
        )

    def _on_tool_error(self, event: str, data: dict[str, Any]) -> None:
        name = str(data.get("tool_name", "?"))
        self.tool_calls.append((name, data.get("tool_input") or {}, False))
        self.console.print(
            f"  [bold]tool[/] {escape(name)} [red]raised[/] {escape(_short(data.get('error')))}",
            highlight=False,
        )

    def _on_violation(self, event: str, data: dict[str, Any]) -> None:
        self.denials.append(dict(data))
        what = data.get("tool_name") or data.get("event")
        self.console.print(
            f"  [bold red]denied[/] {escape(str(what))} by {escape(str(data.get('hook')))}: "
            f"{escape(str(data.get('reason')))}",
            highlight=False,
        )

    def _on_load_failed(self, event: str, data: dict[str, Any]) -> None:
        self.skipped.append(dict(data))
        self.console.print(
            f"[yellow]skipped module {escape(str(data.get('module_id')))}[/]: "
            f"{escape(str(data.get('error')))}",
            highlight=False,
        )

    def _on_checkpoint(self, event: str, data: dict[str, Any]) -> None:
        self.checkpoints.append(str(data.get("path")))


def _changed(event: str, data: dict[str, Any]) -> str:
    """What a ``modify`` made of the part of ``data`` the session reads back."""
    if event == ev.PROMPT_SUBMIT and isinstance(data.get("prompt"), str):
        return f"the prompt is now {_short(data['prompt'], 100)!r}"
    if event == ev.TOOL_PRE:
        return f"the tool input is now {_short(data.get('tool_input'), 80)}"
    if event == ev.TOOL_POST:
        return "rewrote the tool result before the model sees it"
    if event == ev.PROVIDER_REQUEST:
        return "rewrote the messages before the model sees them"
    return "data rewritten"


# -- the demo ------------------------------------------------------------------------------


def _seed(workspace: Path) -> None:
    for name, text in _WORKSPACE_FILES.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _summary(
    console: Console,
    session: AmplifierSession,
    view: SessionView,
    display: ConsoleDisplay,
    approvals: TerminalApprovalSystem,
) -> None:
    console.print()
    console.rule("what the hooks did", align="left")
    table = Table(show_edge=False, pad_edge=False)
    for column in ("handler", "calls", "actions", "ms (total)"):
        table.add_column(column, overflow="fold")
    calls: Counter[str] = Counter()
    actions: dict[str, Counter[str]] = {}
    spent: dict[str, float] = {}
    for trace in view.traces:
        for step in trace.steps:
            if step.name == VIEW_NAME:
                continue
            calls[step.name] += 1
            actions.setdefault(step.name, Counter())[step.action] += 1
            spent[step.name] = spent.get(step.name, 0.0) + step.seconds * 1000
    for name in sorted(calls):
        done = ", ".join(f"{a} {n}" for a, n in actions[name].most_common())
        table.add_row(name, str(calls[name]), done, f"{spent[name]:.2f}")
    console.print(table)

    def line(label: str, text: str) -> None:
        console.print(f"[bold]{label:<15}[/] {text}", highlight=False)

    denials = [f"{d.get('tool_name') or d.get('event')} by {d.get('hook')}" for d in view.denials]
    line("denials", escape("; ".join(denials)) or "none")
    redactions = [m.message for m in display.messages if m.source == "hooks-redaction"]
    line("redactions", escape("; ".join(redactions)) or "none")
    injections = session.coordinator.audit.of_type("injection")
    line(
        "injections",
        escape(
            "; ".join(
                f"{r.get('hook')} on {r.get('event')} ({r.get('size')} bytes)" for r in injections
            )
        )
        or "none",
    )
    asked = [f"{r.prompt!r} -> {r.answer}" for r in approvals.history]
    line("approvals", escape("; ".join(asked)) or "none requested")
    shown = [f"{m.source}: {m.message}" for m in display.messages]
    line("user messages", escape(f"{len(shown)}: " + "; ".join(shown)) if shown else "none")
    provider = session.provider
    requests = getattr(provider, "requests", [])
    if requests:
        first_user = next(
            (m for m in requests[0].messages if m.get("role") == "user"), {"content": ""}
        )
        line("model saw", escape(_short(first_user.get("content", ""), 200)))
    logs = sorted(session.workspace.glob(".amplifier/logs/*.jsonl"))
    if not logs:
        line("log", "no log written (hooks-logging not mounted)")
    for log in logs:
        text = log.read_text(encoding="utf-8")
        lines = text.splitlines()
        events = Counter(json.loads(raw).get("event", "?") for raw in lines if raw.strip())
        leaked = [s for s in _SECRETS if s in text]
        top = ", ".join(f"{name} {count}" for name, count in events.most_common(4))
        line(
            "log",
            f"{len(lines)} lines in {escape(str(log.relative_to(session.workspace)))} "
            f"({len(events)} kinds of event; most: {escape(top)})",
        )
        secrets = (
            "[green]no secret in the log[/]"
            if not leaked
            else f"[red]{len(leaked)} secret(s) in the log[/]"
        )
        line("", secrets)


async def run_demo(console: Console, *, keep: bool = False, bundle_path: Path | None = None) -> int:
    """Run the demo, print it, and return the process exit code (0 when every turn ran)."""
    started = time.perf_counter()
    bundle = load_bundle(bundle_path or DEMO_BUNDLE)
    script = bundle_script(bundle)
    prompts = script_prompts(script) if script is not None else []
    if not prompts:
        raise ValueError(f"{bundle.source_name}: the demo needs a scripted provider with prompts")
    workspace = Path(tempfile.mkdtemp(prefix="amplifier-hooks-demo-"))
    try:
        _seed(workspace)
        display = ConsoleDisplay(console)
        approvals = TerminalApprovalSystem(policy="allow", interactive=False, console=console)
        session = AmplifierSession(
            bundle,
            workspace=workspace,
            approval_system=approvals,
            display_system=display,
            session_id=f"demo-{int(time.time())}",
        )
        session.coordinator.register_capability("session.working_dir", str(workspace))
        view = SessionView(console, trace=True)
        view.attach(session)
        console.rule(f"[bold]amplifier-hooks demo[/]: session {session.session_id}", align="left")
        console.print(f"workspace {escape(str(workspace))}", highlight=False)
        failed = 0
        try:
            async with session:
                mounted = ", ".join(
                    f"{m.id} ({m.spec.origin.removeprefix('distribution ')})"
                    for m in session.loader.mounted
                )
                console.print(f"mounted: {escape(mounted) or 'no hook module'}", highlight=False)
                for number, prompt in enumerate(prompts, 1):
                    view.turn(number, prompt)
                    outcome = await session.run(prompt)
                    if outcome.status in ("error", "incomplete"):
                        failed += 1
                        console.print(
                            f"[red]turn {number} {outcome.status}[/]: "
                            f"{escape(str(outcome.error or outcome.reason))}"
                        )
        finally:
            view.detach()
        _summary(console, session, view, display, approvals)
        total = sum(view.events.values())
        console.print(
            f"\n[bold]{total}[/] events fired in {len(prompts)} turns; "
            f"demo finished in {time.perf_counter() - started:.2f} s",
            highlight=False,
        )
        if keep:
            console.print(f"workspace kept: {escape(str(workspace))}", highlight=False)
        return 1 if failed else 0
    finally:
        if not keep:
            shutil.rmtree(workspace, ignore_errors=True)
