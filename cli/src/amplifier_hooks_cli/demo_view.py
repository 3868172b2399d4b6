"""Showing a session as it runs: what the model said, each tool call, denials and hook actions.

:class:`SessionView` and :class:`ConsoleDisplay` serve ``amplifier-hooks run`` and the demo alike;
:class:`ApprovalAudit` follows hooks-approval's audit log during the demo. The few text helpers
the end-of-run summary shares with them (:func:`shorten`, :func:`block_lines`,
:func:`injected_text`, :func:`audit_subject`) live here too.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.markup import escape

from amplifier_core import events as ev
from amplifier_core.display import RecordingDisplay
from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult, MessageLevel

from .output import shown
from .session import AgentSession
from .tracing import Trace, Tracer

__all__ = [
    "REMINDER",
    "VIEW_NAME",
    "ApprovalAudit",
    "ConsoleDisplay",
    "SessionView",
    "audit_subject",
    "block_lines",
    "injected_text",
    "shorten",
]

VIEW_NAME: Final = "amplifier-hooks.view"
"""The name the view's own observers are registered under (left out of every trace shown)."""
_LAST: Final = 1_000_000
_SHOWN: Final = 160
_LEVEL_STYLE: Final = {"info": "cyan", "warning": "yellow", "error": "red"}
REMINDER: Final = re.compile(
    r'<system-reminder source="(?P<source>[^"]+)">\n?(?P<body>.*?)\n?</system-reminder>', re.DOTALL
)
"""A ``<system-reminder>`` block a hook injected: its ``source`` and its ``body``."""


def shorten(value: Any, limit: int = _SHOWN) -> str:
    """``value`` on one line (JSON unless a string), redacted as the consoles show text
    (:func:`~.output.shown`), then cut to ``limit`` characters with ``...``: a secret is
    redacted whole before any cut, never cut into a fragment no rule recognises."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(shown(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def block_lines(text: str) -> list[str]:
    """The lines of an injected block, without the ``<system-reminder>`` wrapper."""
    found = REMINDER.search(text)
    body = found.group("body") if found is not None else text
    return [line for line in body.splitlines() if line.strip()]


def injected_text(result: HookResult) -> str:
    """The context ``result`` injects: its blocks joined by a blank line (empty when none)."""
    if result.context_injections:
        return "\n\n".join(i.content for i in result.context_injections)
    return result.context_injection or ""


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


_WOULD_HAVE: Final = {
    "deny": "would have denied",
    "ask_user": "would have asked the user",
    "modify": "would have changed the data",
    "inject_context": "would have added context",
    "failed": "failed (observe mode: not applied)",
}
"""What a ``hook:observed`` decision reads as in a trace."""


class SessionView:
    """Prints a session as it runs: the assistant's words, tool calls and results, denials,
    approvals, skipped modules and, with ``trace``, every non-trivial hook action.

    Observers are registered on the session's registry at the last priority (they only read);
    ``trace`` additionally records each emit with a :class:`~.tracing.Tracer` (the kernel's
    handler-run observers, so telemetry sees the very same runs) and prints each handler's
    action and time, and what a hook in observe mode would have decided. With ``blocks``, a
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
        self._optional: set[str] = set()
        self._allowed: Callable[[str], bool] = lambda module_id: True
        self.checkpoints: list[str] = []
        self.tool_calls: list[tuple[str, dict[str, Any], bool]] = []
        self._last_blocks: dict[str, list[str]] = {}
        self._tool_input: dict[str, Any] = {}
        self._undo: list[Callable[[], None]] = []

    # -- wiring --------------------------------------------------------------------------

    def attach(self, session: AgentSession) -> None:
        """Start showing ``session`` (before it starts, so module failures are seen)."""
        self._allowed = session.loader.is_allowed
        self._optional = {
            entry["module"]
            for kind in ("providers", "tools", "hooks")
            for entry in session.plan[kind]
            if entry.get("optional")
        }
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
        tracer = Tracer(hooks, plain)

        async def traced(event: str, data: dict[str, Any] | None = None) -> HookResult:
            if event == ev.HOOK_OBSERVED and data:
                self._on_observed(data)
            trace = await tracer.emit(event, data)
            self.traces.append(trace)
            self.events[trace.event] += 1
            self._show_steps(trace)
            assert trace.result is not None
            return trace.result

        setattr(hooks, "emit", traced)  # noqa: B010 - this instance only, undone in detach()
        self._undo.append(tracer.close)
        self._undo.append(lambda: setattr(hooks, "emit", plain))

    def _on_observed(self, data: dict[str, Any]) -> None:
        """A hook in observe mode would have decided something: say what, and that it was
        not applied."""
        reason = data.get("reason")
        decision = str(data.get("decision", "?"))
        would = _WOULD_HAVE.get(decision, f"would have answered {decision}")
        self.console.print(
            f"    [dim]hook[/] [bold]{escape(str(data.get('hook', '?')))}[/] [dim](observe mode)"
            f"[/] [yellow]{escape(would)}[/] [dim]on "
            f"{escape(str(data.get('event', '?')))}, not applied[/]"
            + (f": {escape(shorten(reason, 120))}" if reason else ""),
            highlight=False,
        )

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
                    shown = self._block(step.name, injected_text(result), result.ephemeral)
                    if shown is None:
                        continue  # the very block it injected last time
                    detail, lines = shown
                else:
                    detail = detail or shorten(injected_text(result), 100)
            colour = "red" if step.action in ("deny", "failed") else "magenta"
            self.console.print(
                f"    [dim]hook[/] [bold]{escape(step.name)}[/] [{colour}]{step.action}[/] "
                f"[dim]on {trace.event} ({step.seconds * 1000:.2f} ms)[/]"
                + (f": {escape(shorten(detail, 120))}" if detail else ""),
                highlight=False,
            )
            for line in lines:
                self.console.print(f"      [dim]│[/] {escape(line)}", highlight=False)

    def _block(self, name: str, text: str, ephemeral: bool) -> tuple[str, list[str]] | None:
        """What to print for a block ``name`` injected: a headline and lines, or None."""
        lines = block_lines(text)
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
            f"  [bold]tool[/] {escape(name)} {escape(shorten(tool_input, 70))} -> {status}"
            f" [dim]{escape(shorten(shown, 70))}[/]",
            highlight=False,
        )

    def _on_tool_error(self, event: str, data: dict[str, Any]) -> None:
        name = str(data.get("tool_name", "?"))
        self.tool_calls.append((name, data.get("tool_input") or {}, False))
        self.console.print(
            f"  [bold]tool[/] {escape(name)} [red]raised[/] {escape(shorten(data.get('error')))}",
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
            f"{escape(shorten(str(data.get('reason')), 240))}",
            highlight=False,
        )

    def _on_load_failed(self, event: str, data: dict[str, Any]) -> None:
        module_id = str(data.get("module_id"))
        if module_id not in self._optional and self._allowed(module_id):
            return  # a module the bundle needs: the session stops and its error says why
        self.skipped.append(dict(data))
        self.console.print(
            f"[yellow]skipped module {escape(module_id)}[/]: {escape(str(data.get('error')))}",
            highlight=False,
        )

    def _on_checkpoint(self, event: str, data: dict[str, Any]) -> None:
        self.checkpoints.append(str(data.get("path")))


def _changed(event: str, data: dict[str, Any]) -> str:
    """What a ``modify`` made of the part of ``data`` the session reads back."""
    if event == ev.PROMPT_SUBMIT and isinstance(data.get("prompt"), str):
        return f"the prompt is now {shorten(data['prompt'], 100)!r}"
    if event == ev.TOOL_PRE:
        return f"the tool input is now {shorten(data.get('tool_input'), 80)}"
    if event == ev.TOOL_POST:
        return "rewrote the tool result before the model sees it"
    if event == ev.PROVIDER_REQUEST:
        return "rewrote the messages before the model sees them"
    return "data rewritten"


# -- hooks-approval's audit log ------------------------------------------------------------


class ApprovalAudit:
    """Follows hooks-approval's audit log and prints each call it let through without asking.

    A call that runs is shown by the tool line; that nobody was asked, and which rule said so,
    is only in the audit log, written before the call goes on.
    """

    def __init__(self, console: Console, path: Path | None) -> None:
        self.console = console
        self.path = path
        self.records: list[dict[str, Any]] = []
        self._offset = 0

    def attach(self, session: AgentSession) -> Callable[[], None]:
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
                    f"{escape(audit_subject(record))} without asking: "
                    f"rule {escape(str(record.get('rule')))}",
                    highlight=False,
                )


def audit_subject(record: Mapping[str, Any]) -> str:
    """The call an audit record is about: ``bash `git status```, ``write_file stats.py``."""
    tool = str(record.get("tool_name") or "a tool")
    if isinstance(record.get("command"), str):
        return f"{tool} `{shorten(record['command'], 80)}`"
    if isinstance(record.get("path"), str):
        return f"{tool} {record['path']}"
    return f"{tool} {shorten(record.get('tool_input', {}), 80)}"
