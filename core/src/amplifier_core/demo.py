"""``amplifier-hooks demo``: every installed reference hook at work in a real, offline session.

The demo copies nothing from a user's setup. It makes a temporary workspace that is a small git
repository (a ``README.md``, an ``AGENTS.md``, an ignored ``build/`` directory, one commit; when
git is missing the workspace is a plain directory and the demo goes on), loads the packaged demo
bundle (``demo_data/demo-bundle.yaml``, the same file as ``examples/demo-bundle.yaml``) and runs
an :class:`~amplifier_core.session.AmplifierSession` whose scripted provider replays
``demo_data/demo-script.yaml``. Every event fires for real, and each module shows its job:

- the prompt carries a made-up GitHub token and an address: hooks-redaction rewrites it before
  the model, or the log of hooks-logging, sees it;
- a command hook of hooks-declarative (a one-line ``printf``) adds a project rule to each prompt;
- hooks-status-context's block (directory, date, branch, status, commits) reaches every request;
- the model writes a todo list, and hooks-todo-reminder shows it back in the next requests;
- ``git status`` runs without a question (a read-only rule of hooks-approval);
- the model writes ``stats.py`` with an unused import and a TODO: hooks-python-check's findings
  are appended to the tool result, the model rewrites the file, and the checker says it is clean
  (ruff, ruff format and the stub scan: mypy is left out of the demo's config, because its first
  run in a new project alone takes about a second, and the summary says so);
- ``rm -rf build`` is blocked by a matcher hook of hooks-declarative;
- ``git push`` is asked for by hooks-approval and denied: the demo answers every approval with a
  fixed policy (deny), so it never waits for a terminal;
- hooks-template tells the human about each tool call.

While it runs, the demo prints each turn and what every hook did (each emit is traced handler
by handler with :func:`~amplifier_core.tracing.trace_emit`; a block a hook injects is printed
in full the first time and by its new lines when it changes). At the end a table sums up the
handlers, and one line per module says what that module did. A module of the bundle that is
not installed is reported once and skipped.

The pieces the command line also uses live here: :class:`SessionView` (prints a session's
turns as they happen), :class:`ConsoleDisplay` (the display system that prints hook messages),
and :func:`script_prompts` / :func:`bundle_script` (the prompts a script file carries).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
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
from .tracing import HandlerStep, Trace, trace_emit

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
_SECRETS: Final = ("ghp_Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o", "dev@example.com")
_WORKSPACE_FILES: Final = {
    "README.md": "# stats\n\nSmall statistics helpers.\n",
    "AGENTS.md": "Keep changes small. Never delete files without asking.\n",
    ".gitignore": "build/\n.amplifier/\n",
    "build/app.bin": "compiled output\n",
}
_GIT_TIMEOUT: Final = 10.0
_GIT_IDENTITY: Final = ("-c", "user.name=amplifier-hooks demo", "-c", "user.email=demo@localhost")
_GIT_ISOLATION: Final = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
_GIT_LOCATION_VARS: Final = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_CEILING_DIRECTORIES",
)
_REMINDER: Final = re.compile(
    r'<system-reminder source="(?P<source>[^"]+)">\n?(?P<body>.*?)\n?</system-reminder>', re.DOTALL
)


def _short(value: Any, limit: int = _SHOWN) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _block_lines(text: str) -> list[str]:
    """The lines of an injected block, without the ``<system-reminder>`` wrapper."""
    found = _REMINDER.search(text)
    body = found.group("body") if found is not None else text
    return [line for line in body.splitlines() if line.strip()]


def _injected_text(result: HookResult) -> str:
    if result.context_injections:
        return "\n\n".join(i.content for i in result.context_injections)
    return result.context_injection or ""


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
    by the very same rules and records each handler's action and time. With ``blocks``, a
    context block a hook injects is printed in full the first time, by its new lines when it
    changes, and not again while it stays the same (instead of a one-line excerpt each time).
    """

    def __init__(self, console: Console, *, trace: bool = False, blocks: bool = False) -> None:
        self.console = console
        self.trace = trace
        self.blocks = blocks
        self.traces: list[Trace] = []
        self.events: Counter[str] = Counter()
        self.denials: list[dict[str, Any]] = []
        self.skipped: list[dict[str, Any]] = []
        self.checkpoints: list[str] = []
        self.tool_calls: list[tuple[str, dict[str, Any], bool]] = []
        self._last_blocks: dict[str, list[str]] = {}
        self._tool_input: dict[str, Any] = {}
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
        # first of all, so that a denied call's input is known whoever denies it
        self._undo.append(
            hooks.register(ev.TOOL_PRE, self._on_tool_pre, priority=-_LAST, name=VIEW_NAME)
        )
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
            lines: list[str] = []
            detail = step.error or (result.reason if result is not None else None) or ""
            if step.action == "modify" and result is not None and result.data is not None:
                detail = detail or _changed(trace.event, result.data)
            if step.action == "inject_context" and result is not None:
                if self.blocks:
                    shown = self._block(step.name, _injected_text(result), result.ephemeral)
                    if shown is None:
                        continue  # the very block it injected last time
                    detail, lines = shown
                else:
                    detail = detail or _short(_injected_text(result), 100)
            colour = "red" if step.action in ("deny", "failed") else "magenta"
            self.console.print(
                f"    [dim]hook[/] [bold]{escape(step.name)}[/] [{colour}]{step.action}[/] "
                f"[dim]on {trace.event} ({step.seconds * 1000:.2f} ms)[/]"
                + (f": {escape(_short(detail, 120))}" if detail else ""),
                highlight=False,
            )
            for line in lines:
                self.console.print(f"      [dim]│[/] {escape(line)}", highlight=False)

    def _block(self, name: str, text: str, ephemeral: bool) -> tuple[str, list[str]] | None:
        """What to print for a block ``name`` injected: a headline and lines, or None."""
        lines = _block_lines(text)
        before = self._last_blocks.get(name)
        self._last_blocks[name] = lines
        if before == lines:
            return None
        reach = "this request only" if ephemeral else "kept in the conversation"
        if before is None:
            return f"{len(lines)} line(s), {reach}", lines
        seen, kept = set(before), set(lines)
        new = [line for line in lines if line not in seen]
        if new:
            return f"the block changed ({reach}); new lines", new
        gone = sum(line not in kept for line in before)
        return f"the block changed ({reach}): {gone} line(s) left out", []

    def _on_response(self, event: str, data: dict[str, Any]) -> None:
        text = (data.get("response") or {}).get("content") or ""
        if text:
            self.console.print(f"[bold green]assistant[/]: {escape(text)}", highlight=False)

    def _on_tool_pre(self, event: str, data: dict[str, Any]) -> None:
        self._tool_input = dict(data.get("tool_input") or {})

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
        denial = dict(data)
        if data.get("tool_name"):
            denial["tool_input"] = self._tool_input
        self.denials.append(denial)
        what = data.get("tool_name") or data.get("event")
        self.console.print(
            f"  [bold red]denied[/] {escape(str(what))} by {escape(str(data.get('hook')))}: "
            f"{escape(_short(str(data.get('reason')), 240))}",
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


# -- the workspace -------------------------------------------------------------------------

_GIT_STEPS: Final = (
    ("init", ("-c", "init.defaultBranch=main", "init", "-q")),
    ("add", ("add", "-A")),
    (
        "commit",
        (*_GIT_IDENTITY, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "Start stats"),
    ),
)


def _seed(workspace: Path) -> None:
    for name, text in _WORKSPACE_FILES.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _git(git: str, workspace: Path, verb: str, args: tuple[str, ...]) -> str | None:
    """Run one git command in ``workspace``: None when it worked, else what went wrong."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARS}
    env.update(_GIT_ISOLATION)  # the user's git config (hooks, signing) stays out of it
    try:
        done = subprocess.run(
            [git, *args],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"`git {verb}` failed: {err}"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip().splitlines()
    return f"`git {verb}` failed (exit {done.returncode})" + (f": {said[0]}" if said else "")


def _make_repository(workspace: Path) -> str:
    """Make ``workspace`` a git repository with one commit; say what it is now."""
    git = shutil.which("git")
    if git is None:
        return "not a git repository: git is not installed"
    for number, (verb, args) in enumerate(_GIT_STEPS):
        failed = _git(git, workspace, verb, args)
        if failed is not None:
            what = "not a git repository" if number == 0 else "a git repository without commits"
            return f"{what}: {failed}"
    return "a git repository: branch main, 1 commit"


def _audit_path(bundle: Bundle, session: AmplifierSession) -> Path | None:
    """Where hooks-approval of ``bundle`` writes its audit log in ``session`` (None: nowhere)."""
    entry = next((h for h in bundle.hooks if h.module == "hooks-approval"), None)
    if entry is None:
        return None
    template = entry.config.get("audit_log", ".amplifier/approvals/{session_id}.jsonl")
    if not isinstance(template, str):
        return None
    path = Path(os.path.expanduser(template.replace("{session_id}", session.session_id)))
    return path if path.is_absolute() else session.workspace / path


class _ApprovalAudit:
    """Follows hooks-approval's audit log and prints each call it let through without asking.

    A call that runs is shown by the tool line; that nobody was asked, and which rule said so,
    is only in the audit log, written before the call goes on.
    """

    def __init__(self, console: Console, path: Path | None) -> None:
        self.console = console
        self.path = path
        self.records: list[dict[str, Any]] = []
        self._offset = 0

    def attach(self, session: AmplifierSession) -> Callable[[], None]:
        """Print new records after each ``tool:pre``; returns the undo."""
        return session.coordinator.hooks.register(
            ev.TOOL_PRE, self._on_tool_pre, priority=_LAST, name=VIEW_NAME
        )

    def read(self) -> list[dict[str, Any]]:
        """The whole records written since the last read."""
        if self.path is None:
            return []
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError:
            return []
        whole = chunk[: chunk.rfind(b"\n") + 1]
        self._offset += len(whole)
        new: list[dict[str, Any]] = []
        for line in whole.decode("utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                new.append(record)
        self.records.extend(new)
        return new

    def _on_tool_pre(self, event: str, data: dict[str, Any]) -> None:
        for record in self.read():
            if record.get("kind") == "rule" and record.get("decision") == "allow":
                self.console.print(
                    f"    [dim]hook[/] [bold]hooks-approval[/] [green]allowed[/] "
                    f"{escape(_subject(record))} without asking: "
                    f"rule {escape(str(record.get('rule')))}",
                    highlight=False,
                )


def _subject(record: Mapping[str, Any]) -> str:
    """The call an audit record is about: ``bash `git status```, ``write_file stats.py``."""
    tool = str(record.get("tool_name") or "a tool")
    if isinstance(record.get("command"), str):
        return f"{tool} `{_short(record['command'], 80)}`"
    if isinstance(record.get("path"), str):
        return f"{tool} {record['path']}"
    return f"{tool} {_short(record.get('tool_input', {}), 80)}"


# -- what each module did ------------------------------------------------------------------


@dataclass(slots=True)
class _Evidence:
    """What the session left behind, read back to say what each module did."""

    session: AmplifierSession
    view: SessionView
    display: ConsoleDisplay
    approvals: TerminalApprovalSystem
    audit: list[dict[str, Any]]
    requests: list[list[dict[str, Any]]]
    mounted: list[str]
    steps: dict[str, list[tuple[str, HandlerStep]]] = field(default_factory=dict)

    def messages_from(self, source: str) -> list[str]:
        """What ``source`` told the human, in order."""
        return [m.message for m in self.display.messages if m.source == source]

    def acted(self, module: str, action: str) -> list[tuple[str, HandlerStep]]:
        """``(event, step)`` of each time a handler of ``module`` returned ``action``."""
        return [(event, s) for event, s in self.steps.get(module, []) if s.action == action]

    def blocks(self, source: str) -> list[list[str]]:
        """The lines of ``source``'s ``<system-reminder>`` block in each request that had one."""
        found: list[list[str]] = []
        for messages in self.requests:
            texts = (_content(message) for message in messages)
            block = next(
                (
                    match.group(0)
                    for text in texts
                    for match in _REMINDER.finditer(text)
                    if match.group("source") == source
                ),
                None,
            )
            if block is not None:
                found.append(_block_lines(block))
        return found

    def reached(self, text: str) -> int:
        """How many model requests had ``text`` in one of their messages."""
        return sum(any(text in _content(m) for m in messages) for messages in self.requests)

    def config(self, module: str) -> Mapping[str, Any]:
        """The bundle's config of ``module`` (empty when it has none)."""
        entry = next((h for h in self.session.bundle.hooks if h.module == module), None)
        return entry.config if entry is not None else {}


def _content(message: Mapping[str, Any]) -> str:
    content = message.get("content", "")
    return content if isinstance(content, str) else json.dumps(content, default=str)


def _quoted(lines: Iterable[str], limit: int = 3) -> str:
    shown = [f"'{_short(line, 90)}'" for line in lines][:limit]
    return ", ".join(shown)


def _times(counted: Counter[str]) -> str:
    return ", ".join(f"{what} ({n}x)" if n > 1 else what for what, n in counted.items())


def _event_of(line: str) -> str:
    """The ``event`` of one log line (``?`` for a line that is not a record)."""
    try:
        record = json.loads(line)
    except ValueError:
        return "?"
    return str(record.get("event", "?")) if isinstance(record, dict) else "?"


def _did_redaction(e: _Evidence) -> str:
    """What was redacted, on which events, and the prompt as the model got it."""
    redacted = e.messages_from("hooks-redaction")
    events = Counter(event for event, _ in e.acted("hooks-redaction", "modify"))
    if not redacted and not events:
        return "found nothing to redact"
    text = f"{'; '.join(redacted)} on {', '.join(events)}"
    first_user = next(
        (m for m in (e.requests[0] if e.requests else []) if m.get("role") == "user"), None
    )
    if first_user is not None:
        text += f"; the model saw {_short(_content(first_user), 110)!r}"
    return text


def _did_logging(e: _Evidence) -> str:
    """The log file(s) written, what they hold, and whether a secret got in."""
    workspace = e.session.workspace
    template = e.config("hooks-logging").get("path")
    logs = sorted(workspace.glob(".amplifier/logs/*.jsonl"))
    if isinstance(template, str) and "{" not in template and (workspace / template).is_file():
        logs = [workspace / template]
    if not logs:
        return "no log file found in the workspace (the demo looks in .amplifier/logs/)"
    parts: list[str] = []
    for log in logs:
        text = log.read_text(encoding="utf-8")
        lines = [raw for raw in text.splitlines() if raw.strip()]
        events = Counter(_event_of(raw) for raw in lines)
        leaked = [s for s in _SECRETS if s in text]
        top = ", ".join(f"{name} {count}" for name, count in events.most_common(3))
        secrets = "no secret in the log" if not leaked else f"{len(leaked)} SECRET(S) IN THE LOG"
        parts.append(
            f"wrote {len(lines)} lines to {log.relative_to(workspace)} ({len(events)} kinds of "
            f"event; most: {top}); {secrets}"
        )
    return "; ".join(parts)


def _did_declarative(e: _Evidence) -> str:
    """What the declared command hooks added and what the matcher hooks blocked."""
    parts: list[str] = []
    contexts = [
        (event, _injected_text(s.result))
        for event, s in e.acted("hooks-declarative", "inject_context")
        if s.result is not None
    ]
    if contexts:
        events = Counter(event for event, _ in contexts)
        parts.append(
            f"a command hook ran on {_times(events)} and added "
            f"{_quoted(dict.fromkeys(text for _, text in contexts), 1)}"
        )
    labels = {
        s.result.source
        for _, s in e.acted("hooks-declarative", "deny")
        if s.result is not None and s.result.source
    }
    for denial in e.view.denials:
        if denial.get("hook") in labels:
            command = (denial.get("tool_input") or {}).get("command")
            what = f"{denial.get('tool_name')} `{command}`" if command else denial.get("event")
            parts.append(f"blocked {what} ({denial.get('hook')}): {denial.get('reason')}")
    return "; ".join(parts) or "none of its hooks had anything to say"


def _did_status_context(e: _Evidence) -> str:
    """How many requests the block reached, and what it said then and later."""
    blocks = e.blocks("hooks-status-context")
    if not blocks:
        return f"its block reached none of the {len(e.requests)} model requests"
    first = [line for line in blocks[0] if line.startswith(("Current branch:", "Status:"))]
    first = first or [line for line in blocks[0] if line.startswith("Git")]
    text = f"its block reached {len(blocks)} of {len(e.requests)} model requests: {_quoted(first)}"
    seen = set(blocks[0])
    later = [line for block in blocks[1:] for line in block if line not in seen]
    later = list(dict.fromkeys(later))
    later = [line for line in later if not line.startswith(("Status (", "Today"))]
    if later:
        text += f"; after the tools ran it also said {_quoted(later)}"
    return text


def _did_todo_reminder(e: _Evidence) -> str:
    """How many requests carried the todo list, and its last count line."""
    blocks = e.blocks("hooks-todo-reminder")
    if not blocks:
        return "no todo list was written, so it had nothing to show"
    counts = [line for line in blocks[-1] if line.startswith("Your todo list")]
    return (
        f"showed the model its todo list in {len(blocks)} of {len(e.requests)} model requests; "
        f"the last: {_quoted(counts or blocks[-1][:1])}"
    )


def _did_python_check(e: _Evidence) -> str:
    """The findings fed back after each write, and whether they reached the model."""
    said = [
        _block_lines(_injected_text(s.result))[:2]
        for _, s in e.acted("hooks-python-check", "inject_context")
        if s.result is not None
    ]
    checks = e.config("hooks-python-check").get("checks")
    mypy_off = isinstance(checks, list) and not {"mypy", "types"} & set(checks)
    note = (
        "; mypy is off in this demo's config (its first run in a new project takes about a second)"
        if mypy_off
        else ""
    )
    if not said:
        return "no Python file was written" + note
    reached = sum(e.reached(lines[0]) > 0 for lines in said if lines)
    told = " then ".join(_quoted(lines, 2) for lines in said)
    return (
        f"fed back to the model with the tool result ({reached} of {len(said)} reached a "
        f"request): {told}{note}"
    )


def _did_approval(e: _Evidence) -> str:
    """The calls let through by a rule, denied by one, and asked about (with answers)."""
    allowed = Counter(
        f"{_subject(r)} ({r.get('rule')})"
        for r in e.audit
        if r.get("kind") == "rule" and r.get("decision") == "allow"
    )
    denied = [
        f"{_subject(r)} ({r.get('rule')})"
        for r in e.audit
        if r.get("kind") == "rule" and r.get("decision") == "deny"
    ]
    answers = {record.prompt: record for record in e.approvals.history}
    asked: list[str] = []
    for record in e.audit:
        if record.get("kind") != "request":
            continue
        answer = answers.get(str(record.get("prompt")))
        how = (
            f"{answer.answer} (no one to ask; policy: {e.approvals.policy})"
            if answer is not None and answer.source == "policy"
            else answer.answer
            if answer is not None
            else "not asked (another hook decided first)"
        )
        asked.append(f"{_subject(record)} -> {how}")
    parts = [f"allowed without asking: {_times(allowed)}"] if allowed else []
    parts += [f"denied by rule: {'; '.join(denied)}"] if denied else []
    parts += [f"asked for approval: {'; '.join(asked)}"] if asked else []
    return "; ".join(parts) or "no call needed its judgement"


def _did_template(e: _Evidence) -> str:
    """The notes it showed the human, and the calls it denied."""
    notes = Counter(e.messages_from("hooks-template"))
    denied = e.acted("hooks-template", "deny")
    parts = [f"told the human about {sum(notes.values())} tool calls: {_times(notes)}"]
    if denied:
        parts.append(f"denied {len(denied)} call(s)")
    return "; ".join(parts) if notes or denied else "had nothing to say"


_REPORTS: Final[dict[str, Callable[[_Evidence], str]]] = {
    "hooks-redaction": _did_redaction,
    "hooks-logging": _did_logging,
    "hooks-declarative": _did_declarative,
    "hooks-status-context": _did_status_context,
    "hooks-todo-reminder": _did_todo_reminder,
    "hooks-python-check": _did_python_check,
    "hooks-approval": _did_approval,
    "hooks-template": _did_template,
}


def _did_anything(e: _Evidence, module: str) -> str:
    """For a module the demo knows nothing about: its handlers' actions."""
    actions = Counter(s.action for _, s in e.steps.get(module, []))
    if not actions:
        return "none of its handlers ran"
    return f"{sum(actions.values())} handler calls: " + ", ".join(
        f"{action} {n}" for action, n in actions.most_common()
    )


def _module_of(name: str, modules: Iterable[str]) -> str | None:
    """The mounted module a handler name belongs to (``hooks-x``, ``hooks-x.y``, ``hooks-x:y``)."""
    for module in sorted(modules, key=len, reverse=True):
        if name == module or name.startswith((f"{module}.", f"{module}:")):
            return module
    return None


# -- the demo ------------------------------------------------------------------------------


def _summary(console: Console, evidence: _Evidence) -> None:
    view = evidence.view
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
    console.print(table if calls else "no hook handler ran")
    if not evidence.mounted:
        console.print("[yellow]no module of the bundle is mounted[/] (see above)")
        return
    console.print()
    modules = Table(show_edge=False, pad_edge=False)
    modules.add_column("module", no_wrap=True)
    modules.add_column("what it did", overflow="fold")
    for module in evidence.mounted:
        report = _REPORTS.get(module)
        text = report(evidence) if report is not None else _did_anything(evidence, module)
        modules.add_row(module, escape(text))
    console.print(modules)
    if view.skipped:
        console.print(
            f"[yellow]{len(view.skipped)} module(s) of the bundle not mounted[/] (shown above)",
            highlight=False,
        )


def _evidence(
    session: AmplifierSession,
    view: SessionView,
    display: ConsoleDisplay,
    approvals: TerminalApprovalSystem,
    audit: _ApprovalAudit,
    mounted: list[str],
) -> _Evidence:
    audit.read()  # decisions written after the last tool:pre
    requests = [list(r.messages) for r in getattr(session.provider, "requests", [])]
    evidence = _Evidence(session, view, display, approvals, audit.records, requests, mounted)
    for trace in view.traces:
        for step in trace.steps:
            module = _module_of(step.name, mounted)
            if module is not None:
                evidence.steps.setdefault(module, []).append((trace.event, step))
    return evidence


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
        repository = await asyncio.to_thread(_make_repository, workspace)
        display = ConsoleDisplay(console)
        approvals = TerminalApprovalSystem(policy="deny", interactive=False, console=console)
        session = AmplifierSession(
            bundle,
            workspace=workspace,
            approval_system=approvals,
            display_system=display,
            session_id=f"demo-{int(time.time())}",
        )
        session.coordinator.register_capability("session.working_dir", str(workspace))
        view = SessionView(console, trace=True, blocks=True)
        view.attach(session)
        audit = _ApprovalAudit(console, _audit_path(bundle, session))
        forget_audit = audit.attach(session)
        console.rule(f"[bold]amplifier-hooks demo[/]: session {session.session_id}", align="left")
        console.print(f"workspace {escape(str(workspace))} ({escape(repository)})", highlight=False)
        console.print(
            "approvals: nobody is asked; the demo answers every approval request with its "
            "fixed policy, deny",
            highlight=False,
        )
        failed = 0
        mounted: list[str] = []
        try:
            async with session:
                mounted = [m.id for m in session.loader.mounted]
                listed = ", ".join(
                    f"{m.id} ({m.spec.origin.removeprefix('distribution ')})"
                    for m in session.loader.mounted
                )
                console.print(f"mounted: {escape(listed) or 'no hook module'}", highlight=False)
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
            forget_audit()
            view.detach()
        _summary(console, _evidence(session, view, display, approvals, audit, mounted))
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
