"""Coverage: for each guard a bundle declares, what became of it on each event and tool call
of a session, read from the receipts in the session's audit log.

A guard is a declarative hook (by its label) or a handler of a Python hook module. For each
event the log shows (a tool event by its ``tool_call_id``, another event by each run of the
kernel handler that dispatches it), a guard of that event whose matcher accepts the tool is
*due*; its receipt on that call says how it ended: ``ran``, ``failed``, ``timed out``,
``skipped`` (with why: blocked first, refused by trust, matcher missed by spelling) or, with
no receipt at all, ``missing`` (not loaded, or the session kept no receipts). A guard whose
matcher accepted none of the session's tools ``never matched``, and when a tool's name is
the matcher's but for its spelling (``BASH`` for ``bash``) the report names it. Exit codes
of ``amplifier-hooks coverage`` are in ``cli/README.md``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Final

__all__ = [
    "STATES",
    "Call",
    "Coverage",
    "Guard",
    "GuardCoverage",
    "compute_coverage",
    "read_receipts",
]

STATES: Final = ("ran", "failed", "timed out", "skipped", "missing")
_STATE_OF: Final = {
    "ok": "ran",
    "error": "failed",
    "invalid_result": "failed",
    "not_started": "failed",
    "timeout": "timed out",
    "skipped": "skipped",
    "refused": "skipped",
    "unmatched": "skipped",
}
_TOOL_EVENTS: Final = frozenset({"tool:pre", "tool:post", "tool:error"})


@dataclass(frozen=True, slots=True)
class Guard:
    """One guard of the bundle: ``name`` (a hook label or a handler name), its ``event``
    (canonical, or a pattern), its tool rules and where it comes from."""

    name: str
    event: str
    kind: str  # "declarative" or "handler"
    where: str
    matcher: str | None = None
    tool: str | None = None
    required: bool = False
    accepts: Callable[[str], bool] | None = None
    """Whether it is due for a tool name (``None``: every call of its event)."""

    def rules(self) -> tuple[str, ...]:
        found: list[str] = []
        for rule in (self.matcher, self.tool):
            if rule:
                found.extend(p.strip() for p in rule.split("|") if p.strip() not in ("", "*"))
        return tuple(found)


@dataclass(frozen=True, slots=True)
class Call:
    """One occurrence of an event in the log: a tool call, or one dispatch of another event."""

    session: str
    event: str
    key: str
    tool: str | None


@dataclass(slots=True)
class GuardCoverage:
    """What became of one guard."""

    guard: Guard
    due: int = 0
    states: Counter[str] = field(default_factory=Counter)
    whys: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    not_matched: int = 0
    observed: int = 0
    """Due runs in observe mode: they ran, and decided nothing."""
    event_seen: bool = False
    near_miss: str | None = None
    not_loaded: str | None = None

    @property
    def never_matched(self) -> bool:
        return self.event_seen and self.due == 0 and self.not_matched > 0

    @property
    def complete(self) -> bool:
        """It ran on every call it was due on, and matched something when its event came."""
        return not self.never_matched and self.states["ran"] == self.due

    def as_json(self) -> dict[str, Any]:
        return {
            "guard": self.guard.name,
            "kind": self.guard.kind,
            "event": self.guard.event,
            "matcher": self.guard.matcher,
            "tool": self.guard.tool,
            "required": self.guard.required,
            "where": self.guard.where,
            "due": self.due,
            **{state.replace(" ", "_"): self.states[state] for state in STATES},
            "not_matched": self.not_matched,
            "observed": self.observed,
            "event_seen": self.event_seen,
            "never_matched": self.never_matched,
            "near_miss": self.near_miss,
            "not_loaded": self.not_loaded,
            "complete": self.complete,
            "why": sorted(set(self.whys)),
            "calls": self.calls,
        }


@dataclass(slots=True)
class Coverage:
    """The coverage of every guard, and what the log held."""

    guards: list[GuardCoverage]
    receipts: int
    calls: int
    sessions: int

    @property
    def complete(self) -> bool:
        return all(g.complete for g in self.guards)

    def as_json(self) -> dict[str, Any]:
        return {
            "receipts": self.receipts,
            "calls": self.calls,
            "sessions": self.sessions,
            "complete": self.complete,
            "guards": [g.as_json() for g in self.guards],
        }


def read_receipts(path: Path) -> list[dict[str, Any]]:
    """The ``hook_run`` records of an audit log, in order.

    :raises ValueError: the file holds no receipt (not an audit log, or one kept without
        receipts), naming the file.
    """
    found: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as err:
                raise ValueError(f"{path}:{number}: not a JSON audit record: {err}") from err
            if isinstance(record, dict) and record.get("type") == "hook_run":
                found.append(record)
    if not found:
        raise ValueError(
            f"{path}: no receipts (hook_run records): not a session's audit log, or the session "
            "kept none (session.audit_log sets the log; session.receipts: false turns them off)"
        )
    return found


def _calls(receipts: Sequence[dict[str, Any]]) -> tuple[list[Call], dict[int, Call]]:
    """Every event occurrence of the log, and for each receipt (by index) its occurrence.

    A tool event is one occurrence per ``tool_call_id``. For other events, the receipts of
    declarative hooks come before the receipt of the handler that dispatched them
    (``kind: dispatcher``), which closes that occurrence."""
    calls: dict[tuple[str, str, str], Call] = {}
    owner: dict[int, Call] = {}
    pending: dict[tuple[str, str], list[int]] = {}
    counts: Counter[tuple[str, str]] = Counter()
    for index, receipt in enumerate(receipts):
        session = str(receipt.get("session_id"))
        event = str(receipt.get("event"))
        call_id = receipt.get("tool_call_id")
        tool = receipt.get("tool")
        if event == "session:mount":
            continue
        if call_id is not None and event in _TOOL_EVENTS:
            key = (session, event, str(call_id))
            call = calls.get(key)
            if call is None:
                call = calls[key] = Call(session, event, str(call_id), tool)
            owner[index] = call
            continue
        if receipt.get("kind") == "declarative":
            pending.setdefault((session, event), []).append(index)
            continue
        if receipt.get("kind") == "dispatcher":
            counts[(session, event)] += 1
            key = (session, event, f"#{counts[(session, event)]}")
            call = calls[key] = Call(session, event, key[2], tool)
            owner[index] = call
            for waiting in pending.pop((session, event), []):
                owner[waiting] = call
    for (session, event), left in pending.items():  # no dispatcher receipt: one each
        for position in left:
            counts[(session, event)] += 1
            key = (session, event, f"#{counts[(session, event)]}")
            call = calls.setdefault(key, Call(session, event, key[2], None))
            owner[position] = call
    return list(calls.values()), owner


def _event_matches(guard_event: str, event: str) -> bool:
    return guard_event == event or fnmatchcase(event, guard_event)


def compute_coverage(
    guards: Sequence[Guard],
    receipts: Sequence[dict[str, Any]],
    *,
    near_miss: Callable[[Iterable[str], str], str | None],
) -> Coverage:
    """The coverage of ``guards`` in ``receipts`` (module docstring); ``near_miss(rules,
    tool)`` names a rule that misses ``tool`` only by its spelling."""
    calls, owner = _calls(receipts)
    by_call: dict[Call, dict[str, dict[str, Any]]] = {}
    for index, receipt in enumerate(receipts):
        call = owner.get(index)
        if call is not None:
            by_call.setdefault(call, {})[str(receipt.get("hook"))] = receipt
    not_loaded = {
        str(r.get("hook")): str(r.get("why")) for r in receipts if r.get("outcome") == "not_loaded"
    }
    report = [_cover(guard, calls, by_call, not_loaded, near_miss) for guard in guards]
    sessions = {str(r.get("session_id")) for r in receipts}
    return Coverage(report, len(receipts), len(calls), len(sessions))


def _cover(
    guard: Guard,
    calls: Sequence[Call],
    by_call: Mapping[Call, Mapping[str, dict[str, Any]]],
    not_loaded: Mapping[str, str],
    near_miss: Callable[[Iterable[str], str], str | None],
) -> GuardCoverage:
    """One guard's coverage over every call of the log."""
    covered = GuardCoverage(guard)
    for source, reason in not_loaded.items():
        if guard.name.startswith(source + ":"):
            covered.not_loaded = reason
    tools_seen: set[str] = set()
    for call in calls:
        if not _event_matches(guard.event, call.event):
            continue
        covered.event_seen = True
        if call.tool is not None:
            tools_seen.add(call.tool)
        if guard.accepts is not None and call.tool is not None and not guard.accepts(call.tool):
            covered.not_matched += 1
            continue
        found = by_call.get(call, {}).get(guard.name)
        if found is not None and found.get("outcome") == "unmatched":
            covered.not_matched += 1
            continue
        _count_call(covered, call, found)
    if covered.due == 0 and tools_seen:
        covered.near_miss = _near_miss_note(guard, tools_seen, near_miss)
    return covered


def _count_call(covered: GuardCoverage, call: Call, found: dict[str, Any] | None) -> None:
    """Count one call the guard was due on, with what its receipt (if any) says."""
    covered.due += 1
    state = "missing" if found is None else _STATE_OF.get(str(found.get("outcome")))
    state = state or "failed"
    covered.states[state] += 1
    if found is not None and found.get("observed"):
        covered.observed += 1
    why: object = found.get("why") if found is not None else None
    if found is None:
        why = covered.not_loaded or "no receipt: the guard did not run on this call"
    if state != "ran" and why:
        covered.whys.append(str(why))
    covered.calls.append(
        {
            "session_id": call.session,
            "event": call.event,
            "call": call.key,
            "tool": call.tool,
            "state": state,
            "why": why if state != "ran" else None,
            "exit_code": found.get("exit_code") if found is not None else None,
        }
    )


def _near_miss_note(
    guard: Guard, tools_seen: set[str], near_miss: Callable[[Iterable[str], str], str | None]
) -> str | None:
    """Why a guard that matched no call may have meant one of ``tools_seen``."""
    for tool in sorted(tools_seen):
        rule = near_miss(guard.rules(), tool)
        if rule is not None:
            return (
                f"its matcher {rule!r} never matches the tool {tool!r}: "
                "they differ only in spelling"
            )
    return None
