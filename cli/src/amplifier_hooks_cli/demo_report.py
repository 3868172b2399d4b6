"""The end of the demo: what the session left behind, read back and summed up.

:func:`print_report` prints two tables: every handler's calls, actions and time (from the
traces of a :class:`~amplifier_hooks_cli.demo_view.SessionView`), and one line per mounted module
saying what it did, read from what the session left behind: the messages shown to the human,
the requests the model got, hooks-logging's log file and hooks-approval's audit log.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .demo_view import (
    REMINDER,
    VIEW_NAME,
    ApprovalAudit,
    ConsoleDisplay,
    SessionView,
    audit_subject,
    block_lines,
    injected_text,
    shorten,
)
from .session import AgentSession
from .terminal_approval import TerminalApprovalSystem
from .tracing import HandlerStep

__all__ = ["print_report"]

_SECRETS: Final = ("ghp_Zx81yQ2mTq9LrV0aBcD3eF4gH5iJ6kL7mN8o", "dev@example.com")


# -- what each module did ------------------------------------------------------------------


@dataclass(slots=True)
class _Evidence:
    """What the session left behind, read back to say what each module did."""

    session: AgentSession
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
                    for match in REMINDER.finditer(text)
                    if match.group("source") == source
                ),
                None,
            )
            if block is not None:
                found.append(block_lines(block))
        return found

    def reached(self, text: str) -> int:
        """How many model requests had ``text`` in one of their messages."""
        return sum(any(text in _content(m) for m in messages) for messages in self.requests)

    def config(self, module: str) -> Mapping[str, Any]:
        """The bundle's config of ``module`` (empty when it has none)."""
        entry = next((h for h in self.session.bundle.hooks if h.module == module), None)
        return entry.config if entry is not None else {}


def _content(message: Mapping[str, Any]) -> str:
    """The text of a request message (its content as JSON when it is not a string)."""
    content = message.get("content", "")
    return content if isinstance(content, str) else json.dumps(content, default=str)


def _as_dict(message: Any) -> dict[str, Any]:
    """A request message as a dict (a message model is dumped)."""
    if isinstance(message, Mapping):
        return dict(message)
    dump = getattr(message, "model_dump", None)
    return dict(dump()) if callable(dump) else {"content": str(message)}


def _quoted(lines: Iterable[str], limit: int = 3) -> str:
    """The first ``limit`` of ``lines``, each shortened and quoted, joined by commas."""
    shown = [f"'{shorten(line, 90)}'" for line in lines][:limit]
    return ", ".join(shown)


def _times(counted: Counter[str]) -> str:
    """``a, b (2x), c``: each thing counted, with its count when above one."""
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
        text += f"; the model saw {shorten(_content(first_user), 110)!r}"
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
        (event, injected_text(s.result))
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
        block_lines(injected_text(s.result))[:2]
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
        f"{audit_subject(r)} ({r.get('rule')})"
        for r in e.audit
        if r.get("kind") == "rule" and r.get("decision") == "allow"
    )
    denied = [
        f"{audit_subject(r)} ({r.get('rule')})"
        for r in e.audit
        if r.get("kind") == "rule" and r.get("decision") == "deny"
    ]
    asked: list[str] = []
    for record in e.audit:
        if record.get("kind") != "request":
            continue
        answer = _answer_to(str(record.get("prompt")), e.approvals.history)
        how = (
            f"{answer.answer} (no one to ask; policy: {e.approvals.policy})"
            if answer is not None and answer.source == "policy"
            else answer.answer
            if answer is not None
            else "not asked (another hook decided first)"
        )
        asked.append(f"{audit_subject(record)} -> {how}")
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


# -- the summary ---------------------------------------------------------------------------


def _summary(console: Console, evidence: _Evidence) -> None:
    """Print the handler table, then one line per mounted module, then the modules skipped."""
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
    session: AgentSession,
    view: SessionView,
    display: ConsoleDisplay,
    approvals: TerminalApprovalSystem,
    audit: ApprovalAudit,
    mounted: list[str],
) -> _Evidence:
    """Gather what the session left behind, each handler step filed under its module."""
    audit.read()  # decisions written after the last tool:pre
    requests = [
        [_as_dict(m) for m in getattr(r, "messages", [])]
        for r in getattr(session.provider, "requests", [])
    ]
    evidence = _Evidence(session, view, display, approvals, audit.records, requests, mounted)
    for trace in view.traces:
        for step in trace.steps:
            module = _module_of(step.name, mounted)
            if module is not None:
                evidence.steps.setdefault(module, []).append((trace.event, step))
    return evidence


def print_report(
    console: Console,
    *,
    session: AgentSession,
    view: SessionView,
    display: ConsoleDisplay,
    approvals: TerminalApprovalSystem,
    audit: ApprovalAudit,
    mounted: list[str],
) -> None:
    """Print the summary of a finished demo session: the handler table, then the module table.

    ``mounted`` are the ids of the modules the session mounted, in order; ``audit`` is read to
    its end first, for the decisions written after the last ``tool:pre``.
    """
    _summary(console, _evidence(session, view, display, approvals, audit, mounted))


def _answer_to(prompt: str, history: Any) -> Any:
    """The recorded answer to a hook's ``prompt``: shown as it is, or with the tool and its
    input that the kernel appends to a prompt not showing the whole input."""
    for record in history:
        shown = record.prompt
        if shown == prompt or shown.startswith(prompt.rstrip() + "\n\nTool: "):
            return record
    return None
