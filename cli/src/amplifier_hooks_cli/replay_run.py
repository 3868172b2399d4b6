"""Re-emitting a recorded session's events through the hooks of a bundle.

Only the bundle's hook modules are mounted, on a bare coordinator whose working directory is a
scratch directory: no orchestrator, provider or tool, so no model is called and no tool runs.
The machine's managed policy is mounted first, as in a session (:mod:`.managed`).
Command hooks run for real there, sandboxed where their module's config says. Modules that
record and never decide (``hooks-logging``, ``hooks-otel``) are left out, and a deciding
module's own record is turned off (:data:`NO_RECORDS`: hooks-approval's ``audit_log``), so a
replay writes no log, in the workspace or the state directory, and exports nothing. Each event
goes through :meth:`HookRegistry.emit`; what each handler decided and how long it took comes
from the kernel's handler-run observer
(:mod:`amplifier_core.observers`). An ``ask_user`` result is recorded as an ask: no approval
system is asked and nobody sees a prompt. A module in observe mode (``observe: true``) decides
nothing; its would-have decisions (``hook:observed``) are kept per event. Every hook run
leaves a receipt, kept in memory (never in the bundle's ``audit_log``), so ``replay
--coverage`` says which guard ran on which call before the policy is enforced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from amplifier_hooks_bundle import Bundle

from amplifier_core import events as ev
from amplifier_core.observers import HandlerRun

from .managed import mount_policy
from .replay_log import LogProblem, RecordedEvent

__all__ = [
    "NOT_REPLAYED",
    "NO_RECORDS",
    "BundleRun",
    "EventOutcome",
    "HookDecision",
    "decision_of",
    "replay",
]

NOT_REPLAYED: Final = frozenset({"hooks-logging", "hooks-otel"})
"""Modules that record and never decide: not mounted for a replay."""
NO_RECORDS: Final[dict[str, dict[str, Any]]] = {"hooks-approval": {"audit_log": None}}
"""The settings that turn off what a deciding module records of its own, set for a replay."""

_DECISIONS: Final = {
    "continue": "allow",
    "deny": "deny",
    "ask_user": "ask",
    "modify": "modify",
    "inject_context": "inject",
}
_COLLECTOR: Final = "amplifier-hooks.replay"


def decision_of(action: str) -> str:
    """The decision a result's action stands for: allow, deny, ask, modify or inject."""
    return _DECISIONS.get(action, action)


@dataclass(frozen=True, slots=True)
class HookDecision:
    """What one handler did with one event."""

    hook: str
    decision: str
    ms: float
    reason: str | None = None
    failure: str | None = None


@dataclass(slots=True)
class EventOutcome:
    """What the bundle's hooks made of one recorded event."""

    gate: str  # allow, deny or ask: what the session would have done
    by: str | None  # the handler that denied or asked
    hooks: list[HookDecision] = field(default_factory=list)
    observed: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class BundleRun:
    """A replay of every event through one bundle."""

    label: str
    outcomes: list[EventOutcome | None]  # None: the event could not be replayed
    problems: list[LogProblem]
    mount_failures: list[str]
    left_out: list[str]
    mounted: list[str]
    receipts: list[dict[str, Any]] = field(default_factory=list)
    """The receipts of every hook run (``amplifier_core.receipts``), for coverage."""


def _gate(result: Any) -> tuple[str, str | None]:
    action = getattr(result, "action", "continue")
    source = getattr(result, "source", None)
    if action == "deny":
        return "deny", source
    if action == "ask_user":
        return "ask", source
    return "allow", None


async def replay(
    bundle: Bundle,
    events: list[RecordedEvent],
    workspace: Path,
    *,
    label: str,
    advance: Callable[[], None] | None = None,
) -> BundleRun:
    """Emit ``events`` in order through ``bundle``'s hooks, working in ``workspace``."""
    from amplifier_core.coordinator import ModuleCoordinator
    from amplifier_core.loader import ModuleLoader

    session = {**bundle.session.given(), "working_dir": str(workspace)}
    session.update(audit_log=None, receipts=True)  # receipts kept in memory, for coverage
    coordinator = ModuleCoordinator(config={"session": session})
    coordinator.register_capability("session.working_dir", str(workspace))
    hooks = coordinator.hooks
    left_out = [e.module for e in bundle.hooks if e.module in NOT_REPLAYED]
    entries = [
        e.model_copy(update={"config": {**e.config, **NO_RECORDS[e.module]}})
        if e.module in NO_RECORDS
        else e
        for e in bundle.hooks
        if e.module not in NOT_REPLAYED
    ]
    managed = await mount_policy(coordinator, f"replay through {label}")  # first, as a session
    loader = ModuleLoader(coordinator)
    mounted = await loader.mount_all(entries, base_dir=bundle.base_dir)
    await loader.session_ready()
    failures = [f.message for f in loader.failures]
    runs: list[HandlerRun] = []
    observed: list[dict[str, Any]] = []

    def collect(run: HandlerRun) -> None:
        runs.append(run)

    remove = hooks.add_observer(collect, ignore=(_COLLECTOR,))
    forget = hooks.register(
        ev.HOOK_OBSERVED, lambda _e, d: observed.append(dict(d)), name=_COLLECTOR
    )
    outcomes: list[EventOutcome | None] = []
    problems: list[LogProblem] = []
    try:
        for recorded in events:
            runs.clear()
            observed.clear()
            try:
                result = await hooks.emit(recorded.event, dict(recorded.data))
            except Exception as err:  # a broken event must not stop the replay
                problems.append(
                    LogProblem(
                        recorded.line,
                        f"{label}: {recorded.event} could not be "
                        f"replayed: {type(err).__name__}: {err}",
                    )
                )
                outcomes.append(None)
            else:
                outcomes.append(_outcome(result, runs, observed, recorded, label, problems))
            if advance is not None:
                advance()
    finally:
        forget()
        remove()
        receipts = coordinator.audit.of_type("hook_run")
        await loader.cleanup()
        if managed is not None:
            await managed()
    return BundleRun(
        label, outcomes, problems, failures, left_out, [m.id for m in mounted], receipts
    )


def _outcome(
    result: Any,
    runs: Iterable[HandlerRun],
    observed: list[dict[str, Any]],
    recorded: RecordedEvent,
    label: str,
    problems: list[LogProblem],
) -> EventOutcome:
    gate, by = _gate(result)
    decisions: list[HookDecision] = []
    for run in runs:
        if run.event == ev.HOOK_OBSERVED:
            continue
        if run.failure is not None:
            problems.append(
                LogProblem(
                    recorded.line,
                    f"{label}: hook {run.handler!r} failed on {run.event} "
                    f"({run.failure}): {run.error}",
                )
            )
        decisions.append(
            HookDecision(
                run.handler,
                "failed" if run.failure is not None else decision_of(run.action),
                run.duration * 1000.0,
                run.reason,
                run.failure,
            )
        )
    return EventOutcome(gate, by, decisions, list(observed))
