"""What ``amplifier-hooks replay`` reports: the differences, a table per hook, the problems.

:func:`build_report` compares each event's outcome (allow, deny or ask) through the bundle
with what the recorded session decided, or, with a second bundle, with that bundle's outcome
and the decision of every hook both bundles run. :func:`render` prints it with rich;
:func:`as_json` is the same report for machines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .replay_log import LogProblem, RecordedEvent, RecordedLog
from .replay_run import BundleRun, EventOutcome

__all__ = ["Difference", "HookStats", "ReplayReport", "as_json", "build_report", "render"]


@dataclass(frozen=True, slots=True)
class Difference:
    """One event decided differently."""

    line: int
    event: str
    tool_name: str | None
    what: str  # "outcome" or "hook <name>"
    expected: str  # the recorded session's (or the --compare bundle's)
    got: str  # the bundle's
    expected_by: str | None = None
    got_by: str | None = None


@dataclass(slots=True)
class HookStats:
    """Runs and decisions of one hook of one bundle."""

    bundle: str
    hook: str
    runs: int = 0
    denies: int = 0
    asks: int = 0
    modifies: int = 0
    injects: int = 0
    failures: int = 0
    observed: int = 0
    latencies: list[float] = field(default_factory=list)

    def percentile(self, fraction: float) -> float:
        """The nearest-rank percentile of the latencies, in milliseconds."""
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        rank = max(1, math.ceil(fraction * len(ordered)))
        return ordered[rank - 1]


@dataclass(slots=True)
class ReplayReport:
    log: RecordedLog
    runs: list[BundleRun]
    against: str  # "recorded" or the --compare bundle's label
    differences: list[Difference]
    stats: list[HookStats]
    problems: list[LogProblem]

    @property
    def mount_failures(self) -> list[str]:
        return [f"{run.label}: {failure}" for run in self.runs for failure in run.mount_failures]


def _difference(
    event: RecordedEvent,
    what: str,
    expected: str,
    got: str,
    expected_by: str | None = None,
    got_by: str | None = None,
) -> Difference:
    """``what`` decided ``got`` on ``event`` where ``expected`` was (each by whom, when known)."""
    return Difference(
        event.line, event.event, event.tool_name, what, expected, got, expected_by, got_by
    )


def _differences(
    events: Sequence[RecordedEvent], run: BundleRun, other: BundleRun | None
) -> list[Difference]:
    found: list[Difference] = []
    for index, event in enumerate(events):
        got = run.outcomes[index]
        if got is None:
            continue
        if other is None:
            if event.recorded is None or event.recorded == got.gate:
                continue
            found.append(
                _difference(event, "outcome", event.recorded, got.gate, event.recorded_by, got.by)
            )
            continue
        expected = other.outcomes[index]
        if expected is None:
            continue
        if expected.gate != got.gate:
            found.append(
                _difference(event, "outcome", expected.gate, got.gate, expected.by, got.by)
            )
        theirs = {h.hook: h.decision for h in expected.hooks}
        for hook in got.hooks:
            if hook.hook in theirs and theirs[hook.hook] != hook.decision:
                found.append(
                    _difference(event, f"hook {hook.hook}", theirs[hook.hook], hook.decision)
                )
    return found


def _stats(run: BundleRun) -> list[HookStats]:
    table: dict[str, HookStats] = {}
    for outcome in run.outcomes:
        if outcome is None:
            continue
        for hook in outcome.hooks:
            stats = table.setdefault(hook.hook, HookStats(run.label, hook.hook))
            stats.runs += 1
            stats.latencies.append(hook.ms)
            if hook.decision == "deny":
                stats.denies += 1
            elif hook.decision == "ask":
                stats.asks += 1
            elif hook.decision == "modify":
                stats.modifies += 1
            elif hook.decision == "inject":
                stats.injects += 1
            elif hook.decision == "failed":
                stats.failures += 1
        for seen in outcome.observed:
            name = str(seen.get("hook", "?"))
            table.setdefault(name, HookStats(run.label, name)).observed += 1
    return sorted(table.values(), key=lambda s: s.hook)


def _recorded_stats(log: RecordedLog) -> list[HookStats]:
    """The would-have decisions the recorded session logged (``hook:observed``), per hook."""
    table: dict[str, HookStats] = {}
    for event in log.events:
        for seen in event.observed:
            name = str(seen.get("hook", "?"))
            table.setdefault(name, HookStats("recorded", name)).observed += 1
    return sorted(table.values(), key=lambda s: s.hook)


def build_report(log: RecordedLog, run: BundleRun, other: BundleRun | None) -> ReplayReport:
    """Compare ``run`` with the recorded session, or with ``other`` when given."""
    runs = [run] if other is None else [run, other]
    problems = [*log.problems, *(p for r in runs for p in r.problems)]
    problems.sort(key=lambda p: p.line)
    stats = [*_recorded_stats(log), *(s for r in runs for s in _stats(r))]
    return ReplayReport(
        log,
        runs,
        "recorded" if other is None else other.label,
        _differences(log.events, run, other),
        stats,
        problems,
    )


# ------------------------------------------------------------------ JSON


def _outcome_json(outcome: EventOutcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {
        "outcome": outcome.gate,
        "by": outcome.by,
        "hooks": [
            {
                "hook": h.hook,
                "decision": h.decision,
                "ms": round(h.ms, 3),
                "reason": h.reason,
                "failure": h.failure,
            }
            for h in outcome.hooks
        ],
        "observed": [
            {k: seen.get(k) for k in ("hook", "module_id", "decision", "reason")}
            for seen in outcome.observed
        ],
    }


def as_json(report: ReplayReport) -> dict[str, Any]:
    """The whole report as JSON-ready data."""
    events = []
    for index, event in enumerate(report.log.events):
        events.append(
            {
                "line": event.line,
                "event": event.event,
                "tool_name": event.tool_name,
                "recorded": event.recorded,
                "recorded_by": event.recorded_by,
                "recorded_observed": [
                    {k: seen.get(k) for k in ("hook", "module_id", "decision", "reason")}
                    for seen in event.observed
                ],
                "bundles": {run.label: _outcome_json(run.outcomes[index]) for run in report.runs},
            }
        )
    return {
        "log": str(report.log.path),
        "format": report.log.format,
        "bundles": [
            {"label": r.label, "mounted": r.mounted, "left_out": r.left_out} for r in report.runs
        ],
        "against": report.against,
        "events": events,
        "differences": [
            {
                "line": d.line,
                "event": d.event,
                "tool_name": d.tool_name,
                "what": d.what,
                "expected": d.expected,
                "expected_by": d.expected_by,
                "got": d.got,
                "got_by": d.got_by,
            }
            for d in report.differences
        ],
        "hooks": [
            {
                "bundle": s.bundle,
                "hook": s.hook,
                "runs": s.runs,
                "denies": s.denies,
                "asks": s.asks,
                "modifies": s.modifies,
                "injects": s.injects,
                "failures": s.failures,
                "observed": s.observed,
                "p50_ms": round(s.percentile(0.5), 3),
                "p95_ms": round(s.percentile(0.95), 3),
                "max_ms": round(max(s.latencies, default=0.0), 3),
            }
            for s in report.stats
        ],
        "problems": [{"line": p.line, "message": p.message} for p in report.problems],
        "mount_failures": report.mount_failures,
    }


# ------------------------------------------------------------------ terminal

_COLOUR = {"deny": "red", "ask": "yellow", "modify": "magenta", "inject": "cyan", "failed": "red"}


def _shown(decision: str) -> str:
    colour = _COLOUR.get(decision)
    return f"[{colour}]{decision}[/]" if colour else decision


def _who(decision: str, by: str | None) -> str:
    return _shown(decision) + (f" ({escape(by)})" if by else "")


def _event_table(report: ReplayReport) -> Table:
    table = Table(title="decisions per event (events where a hook did more than allow)")
    table.add_column("line", justify="right")
    table.add_column("event")
    table.add_column("tool")
    table.add_column("recorded")
    for run in report.runs:
        table.add_column(escape(run.label), overflow="fold")
    for index, event in enumerate(report.log.events):
        cells: list[str] = []
        busy = event.recorded not in (None, "allow") or bool(event.observed)
        for run in report.runs:
            outcome = run.outcomes[index]
            if outcome is None:
                cells.append("[red]not replayed[/]")
                busy = True
                continue
            parts = [
                f"{escape(h.hook)} {_shown(h.decision)} {h.ms:.2f} ms"
                for h in outcome.hooks
                if h.decision != "allow"
            ]
            parts += [
                f"{escape(str(o.get('hook')))} [dim]observed[/] {_shown(str(o.get('decision')))}"
                for o in outcome.observed
            ]
            busy = busy or bool(parts)
            cells.append("\n".join(parts) or "allow")
        if busy:
            recorded = _who(event.recorded, event.recorded_by) if event.recorded else "?"
            table.add_row(
                str(event.line), event.event, escape(event.tool_name or ""), recorded, *cells
            )
    return table


def render(report: ReplayReport, console: Console) -> None:
    """Print the report: what was replayed, the decisions, the differences, the hook table."""
    log = report.log
    console.print(
        f"[bold]replay[/] {escape(str(log.path))} ({log.format}): {len(log.events)} events"
    )
    for run in report.runs:
        mounted = ", ".join(run.mounted) or "no hook module"
        line = f"  {escape(run.label)}: {escape(mounted)}"
        if run.left_out:
            line += f" [dim](left out, they only record: {escape(', '.join(run.left_out))})[/]"
        console.print(line)
    for failure in report.mount_failures:
        console.print(f"[red]did not mount:[/] {escape(failure)}")
    console.print(_event_table(report))
    if report.differences:
        table = Table(title=f"differences against {escape(report.against)}")
        for column in ("line", "event", "tool", "what", report.against, report.runs[0].label):
            table.add_column(escape(column), overflow="fold")
        for d in report.differences:
            table.add_row(
                str(d.line),
                d.event,
                escape(d.tool_name or ""),
                escape(d.what),
                _who(d.expected, d.expected_by),
                _who(d.got, d.got_by),
            )
        console.print(table)
    else:
        console.print(f"[green]no differences[/] against {escape(report.against)}")
    table = Table(title="hooks")
    for column in ("bundle", "hook", "runs", "denies", "asks", "modifies", "injects", "failures"):
        table.add_column(column, justify="right" if column not in ("bundle", "hook") else "left")
    for column in ("observed", "p50 ms", "p95 ms", "max ms"):
        table.add_column(column, justify="right")
    for s in report.stats:
        table.add_row(
            escape(s.bundle),
            escape(s.hook),
            str(s.runs),
            str(s.denies),
            str(s.asks),
            str(s.modifies),
            str(s.injects),
            str(s.failures),
            str(s.observed),
            f"{s.percentile(0.5):.2f}",
            f"{s.percentile(0.95):.2f}",
            f"{max(s.latencies, default=0.0):.2f}",
        )
    console.print(table)
    for problem in report.problems:
        where = f"{log.path}:{problem.line}:"
        console.print(f"[yellow]{escape(where)}[/] {escape(problem.message)}", highlight=False)
