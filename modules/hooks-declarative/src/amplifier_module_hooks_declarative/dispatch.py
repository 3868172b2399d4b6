"""Dispatch: one kernel handler per event runs that event's declarative hooks.

Order and combination, per event:

* Steps run in declaration order (user file, project files, bundle; within a file, top to
  bottom). A step is one hook, or a group of hooks.
* Sequentially (the default): a ``block`` (or a Claude Code ``stop``) ends the event's hooks
  at once; a ``modify`` feeds the merged arguments to the next hook; an ``ask`` or ``allow``
  does not stop the others (a later ``block`` still wins).
* A group with ``parallel: true`` runs its hooks concurrently on the same arguments and
  combines their decisions in declaration order (see :mod:`.mapping`); a block in it ends the
  event's later steps.
* Claude Code's matcher groups (settings files and plugins) and Gemini CLI's hook definitions
  without ``sequential: true`` are *joint*: every matching hook of consecutive joint groups
  runs at once, as those tools run them, each to its end even when another denies; the
  decisions are combined in declaration order (a block wins over ask over allow, the first
  block's reason is the one given, every injection is kept in order), so N such hooks cost
  about the slowest of them.
* A group with ``matcher`` runs only for tools the matcher accepts; on events without a
  tool it is matched against the event's field of :data:`~.mapping.MATCH_FIELDS`
  (``notification_type``, ``trigger``, ``reason``, ``agent_type``), and runs when the event
  has none.
* A step declared as ``Stop`` runs only in a top-level session, one declared as
  ``SubagentStop`` only in a child session (:func:`~.mapping.applies_to`).
* A command hook with ``async: true`` is started and not waited for: it never delays or
  changes the event; its outcome is logged. At cleanup, running ones get ``async_grace_s``
  seconds to finish and are then cancelled.

A hook that raises or returns something other than a :class:`~.types.Decision` is handled by
its ``on_failure`` policy, like any other hook failure: dispatch itself never raises.

``Error`` hooks subscribe to ``*:error`` on a kernel with wildcard subscriptions and to every
known ``*:error`` event (``provider:error``, ``tool:error``) on one without.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from amplifier_hooks_util.kernel import Kernel

from amplifier_core.models import HookResult

from . import receipts as _receipts
from .background import BackgroundHooks
from .fork_context import FORK_EVENT, without_injections
from .interrupt import interrupt_turn
from .mapping import (
    ERROR_PATTERN,
    KNOWN_EVENTS,
    STOP_EVENT,
    Outcome,
    alias_of,
    applies_to,
    apply_modification,
    event_injections,
    is_tool_event,
    match_target,
    to_hook_result,
)
from .observe import observed_steps
from .plan import PlannedHook, PlannedStep, plan_steps, run_hook
from .runner_plugins import RunnerEnvironment, RunnerFactory, runner_factory
from .types import Decision, HookContext

if TYPE_CHECKING:
    from .config import DeclarativeConfig

__all__ = [
    "HANDLER_PREFIX",
    "TRACEPARENT_CAPABILITY",
    "BackgroundHooks",
    "Dispatcher",
    "PlannedStep",
    "Route",
    "RunnerFactory",
    "default_runner_factory",
    "plan_steps",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

HANDLER_PREFIX: Final = "hooks-declarative"
"""Handlers are registered as ``hooks-declarative:<event>`` (``hooks-declarative:*:error``)."""

_TIMEOUT_MARGIN_S: Final = 5.0
TRACEPARENT_CAPABILITY: Final = "observability.traceparent"
"""The capability an observer (hooks-otel) offers: ``() -> str | None``, the W3C
``traceparent`` of the span the session is in; command hooks get it as ``TRACEPARENT``."""

Route = Callable[[str], Awaitable["Dispatcher | None"]]
"""Which dispatcher handles an event: ``await route(event)`` (the hooks as the files are now,
:class:`~.reload.Reloader`); ``None``: the one registered."""


def default_runner_factory(
    project_dir: str,
    coordinator: Any = None,
    *,
    pass_env: Sequence[str] | None = None,
    settings: DeclarativeConfig | None = None,
) -> RunnerFactory:
    """The runners of the hook types of the registry (:mod:`.runner_plugins`), each imported
    on first use, so a file with only matchers needs no other. LLM, prompt and agent hooks ask
    the providers mounted on ``coordinator`` (agent hooks also read with its tools); command
    hooks get the variables ``pass_env`` names (``None``: all). ``settings`` gives prompt and
    agent hooks the module's ``prompt_*`` and ``agent_max_turns`` keys, and command hooks what
    their protocol tells them about its tool (``cursor_version``)."""
    from .model_hook_guards import Guards

    guards = Guards.of(coordinator)
    return runner_factory(
        RunnerEnvironment(project_dir, coordinator, pass_env, settings, guards=guards)
    )


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# --------------------------------------------------------------------------- one event's run


@dataclass(slots=True)
class _Batch:
    """Hooks that run together: one step (sequential or parallel) or consecutive joint steps."""

    steps: list[tuple[PlannedStep, HookContext]]
    joint: bool
    answers: int = 0
    """How many answers the outcome held before the batch (hook-shell's rule)."""


@dataclass(slots=True)
class _Run:
    """The state of one event's run: the context as changed so far and the outcome folded."""

    event: str
    data: dict[str, Any]
    base: HookContext
    context: HookContext
    outcome: Outcome = field(default_factory=Outcome)
    answered: bool = False
    """hook-shell: an injection or a change ends its later groups."""

    def due(self, step: PlannedStep) -> bool:
        """Whether ``step`` runs for this event as it is now."""
        if self.answered and step.ends_on_answer:
            return False
        if step.tool_filter is not None:
            target = match_target(self.event, self.context.tool, self.data)
            if target is not None and not step.tool_filter(target):
                _receipts.unmatched(step, self.context, target)
                return False
        return applies_to(step.alias, self.data)

    def as_step(self, step: PlannedStep) -> HookContext:
        """The context under the name ``step`` was declared with."""
        if self.context.alias != step.alias:
            self.context = dataclasses.replace(self.context, alias=step.alias)
        return self.context

    def fold(self, batch: _Batch, changed: bool) -> None:
        """Take what ``batch`` decided: a change feeds the next steps; hook-shell's group that
        answered ends its later groups."""
        if batch.joint:
            if changed:
                self.context = _modified(self.base, self.outcome, self.context.alias)
            return
        step = batch.steps[0][0]
        if step.ends_on_answer and (changed or self.outcome.answers > batch.answers):
            self.answered = True
        if changed:
            self.context = _modified(self.base, self.outcome, step.alias)


def _batches(steps: Sequence[PlannedStep], run: _Run) -> Iterator[_Batch]:
    """The batches of ``steps`` that are due, in order; each is decided on the run as the
    earlier batches left it (the caller folds every batch before asking for the next)."""
    joint: list[tuple[PlannedStep, HookContext]] = []
    for step in steps:
        if not run.due(step):
            continue
        context = run.as_step(step)
        if step.joint:
            joint.append((step, context))
            continue
        if joint:
            yield _Batch(joint, True)
            joint = []
            context = run.context
        yield _Batch([(step, context)], False, run.outcome.answers)
    if joint:
        yield _Batch(joint, True)


def _modified(base: HookContext, outcome: Outcome, alias: str) -> HookContext:
    data = apply_modification(base.data, outcome.modified or {})
    if is_tool_event(base.data):
        return dataclasses.replace(base, data=data, args=data["tool_input"], alias=alias)
    return dataclasses.replace(base, data=data, alias=alias)


def _fold_all(outcome: Outcome, decisions: Sequence[Decision]) -> bool:
    """Add ``decisions`` to ``outcome`` in declaration order; whether one changed the data."""
    changed = False
    for decision in decisions:
        changed = outcome.add(decision) or changed
    return changed


# --------------------------------------------------------------------------- the dispatcher


class Dispatcher:
    """Runs the planned steps of each event; one instance per mount.

    :param steps: from :func:`plan_steps`.
    :param project_dir: passed to every hook in its context.
    :param coordinator: gives the session id when the event data has none, and takes context
        injections that cannot travel in a ``modify`` result.
    :param kernel: the kernel the module is mounted on (default: the coordinator's).
    """

    def __init__(
        self,
        steps: Sequence[PlannedStep],
        *,
        project_dir: str,
        coordinator: Any = None,
        observe_sources: Sequence[str] = (),
        kernel: Kernel | None = None,
    ) -> None:
        self.steps = observed_steps(steps, observe_sources, run_hook, coordinator)
        self.project_dir = project_dir
        self.coordinator = coordinator
        self.kernel = kernel if kernel is not None else Kernel.of(coordinator)
        self.background = BackgroundHooks(self._rewake)
        self._by_event: dict[str, tuple[PlannedStep, ...]] = {}
        self._took: dict[str, float] = {}  # hook label -> seconds its last foreground run took

    # -- registration

    @property
    def keys(self) -> list[str]:
        """The declared event keys (canonical names and ``*:error``), in first-use order."""
        return list(dict.fromkeys(step.key for step in self.steps))

    def subscriptions(self, *, wildcard: bool) -> list[str]:
        """What to register: one name per event, ``*:error`` as a pattern or expanded."""
        keys = self.keys
        if ERROR_PATTERN not in keys:
            return keys
        concrete = [k for k in keys if k != ERROR_PATTERN and not k.endswith(":error")]
        if wildcard:
            return [*concrete, ERROR_PATTERN]
        errors = sorted(
            {k for k in keys if k.endswith(":error") and k != ERROR_PATTERN}
            | {e for e in KNOWN_EVENTS if e.endswith(":error")}
        )
        return [*concrete, *errors]

    def steps_for(self, event: str) -> tuple[PlannedStep, ...]:
        """The steps that run for one concrete event, in declaration order."""
        found = self._by_event.get(event)
        if found is None:
            error = event.endswith(":error")
            found = tuple(
                s for s in self.steps if s.key == event or (error and s.key == ERROR_PATTERN)
            )
            self._by_event[event] = found
        return found

    def register(self, *, priority: int = 0, route: Route | None = None) -> list[Callable[[], Any]]:
        """Subscribe on the kernel's registry; return the unregister functions. ``route``: which
        dispatcher handles each event (:data:`Route`; default: this one).

        On our kernel (:attr:`~amplifier_hooks_util.kernel.Kernel.rich`), ``*:error`` is one
        pattern subscription, each handler's timeout is the sum of its hooks' own timeouts plus
        a margin, and a handler holding a hook with ``on_failure: block`` fails closed.
        """
        kernel = self.kernel
        unregisters: list[Callable[[], Any]] = []
        for key in self.subscriptions(wildcard=kernel.wildcards):
            steps = self._steps_of_key(key)
            unregisters.append(
                kernel.register(
                    key,
                    self._handler(route),
                    priority=priority,
                    name=f"{HANDLER_PREFIX}:{key}",
                    timeout=sum(step.budget_s for step in steps) + _TIMEOUT_MARGIN_S,
                    fail_closed=any(step.fail_closed for step in steps),
                )
            )
        return unregisters

    def _steps_of_key(self, key: str) -> tuple[PlannedStep, ...]:
        if key == ERROR_PATTERN:
            return tuple(s for s in self.steps if s.key.endswith(":error"))
        return self.steps_for(key)

    def _handler(self, route: Route | None) -> Callable[[str, dict[str, Any]], Any]:
        async def handle(event: str, data: dict[str, Any]) -> HookResult | None:
            current = await route(event) if route is not None else None
            return await (current or self).dispatch(event, data)

        return handle

    # -- running

    def context(self, event: str, data: dict[str, Any]) -> HookContext:
        """The hook context of one event (its ``alias`` is set per step)."""
        tool = data.get("tool_name") or data.get("tool")
        raw_args = data.get("tool_input", data.get("input"))
        session_id = data.get("session_id") or getattr(self.coordinator, "session_id", None)
        return HookContext(
            event=event,
            alias=alias_of(event),
            data=data,
            session_id=str(session_id or ""),
            project_dir=self.project_dir,
            tool=tool if isinstance(tool, str) else None,
            args=raw_args if isinstance(raw_args, dict) else {},
            timestamp=str(data.get("timestamp") or _now_iso()),
            environment=self._trace_environment(),
        )

    def _trace_environment(self) -> dict[str, str]:
        """``TRACEPARENT`` of the span the session is in, when an observer offers it (the
        ``observability.traceparent`` capability: a callable returning the header or ``None``)."""
        traceparent = self.kernel.capability(TRACEPARENT_CAPABILITY)
        header = traceparent() if callable(traceparent) else None
        return {"TRACEPARENT": header} if isinstance(header, str) and header else {}

    async def dispatch(self, event: str, data: dict[str, Any]) -> HookResult | None:
        """Run ``event``'s hooks on ``data`` and return their combined result: the due steps
        in order (:func:`_batches`), each batch's decisions folded into one outcome."""
        steps = self.steps_for(event)
        if not steps:
            return self._nothing()
        base = self.context(event, data)
        run = _Run(event, data, base, base)
        for batch in _batches(steps, run):
            run.fold(batch, await self._run_batch(batch, run))
            if run.outcome.blocked:
                _receipts.skipped_after(steps, base, run.outcome)
                break
        return await self._result(run)

    async def _run_batch(self, batch: _Batch, run: _Run) -> bool:
        """Run one batch; whether its decisions changed the data."""
        if batch.joint:
            return await self._joint(batch.steps, run.outcome)
        step, context = batch.steps[0]
        if step.parallel:
            return await self._parallel(step, context, run.outcome)
        return await self._sequential(step, context, run.outcome, run.base)

    async def _result(self, run: _Run) -> HookResult | None:
        """The kernel's result of the folded outcome, with what travels beside it."""
        event, outcome = run.event, run.outcome
        result = to_hook_result(outcome, event, run.data)
        if any(d.interrupt for d in outcome.blocks):
            await interrupt_turn(self.kernel, outcome.blocks, event)
        if event == FORK_EVENT and outcome.contexts and result is not None:
            await self._inject_aside(outcome, event)  # the kernel does not act on its results
            result = without_injections(result)
        if result is None:
            return self._nothing()
        aside = result.action == "modify" or (result.action == "deny" and event == STOP_EVENT)
        if aside and outcome.contexts and not self.kernel.keeps_modify_injections:
            # Our kernel keeps injections carried by a modify result; others drop them. A
            # blocked stop there is context for the next request (loop-basic ignores the deny).
            await self._inject_aside(outcome, event)
        return result

    def _nothing(self) -> HookResult | None:
        """Our kernel takes ``None`` as continue (cheapest); others get a ``HookResult``."""
        return None if self.kernel.none_is_continue else HookResult()

    def _spawn(self, hook: PlannedHook, context: HookContext) -> None:
        """Start an ``async: true`` hook; it is not waited for."""
        self.background.spawn(hook, run_hook(hook, context), context.event)

    async def _sequential(
        self, step: PlannedStep, context: HookContext, outcome: Outcome, base: HookContext
    ) -> bool:
        changed = False
        for hook in step.hooks:
            if hook.background:
                self._spawn(hook, context)
                continue
            decision = hook.decide(context) if hook.decide else await run_hook(hook, context)
            if outcome.add(decision):
                changed = True
                context = _modified(base, outcome, step.alias)
            if outcome.blocked:
                break
            if step.ends_on_answer and (changed or decision.context is not None):
                break  # hook-shell returns the first injection (even an empty one) or change
        return changed

    async def _parallel(self, step: PlannedStep, context: HookContext, outcome: Outcome) -> bool:
        return await self._joint([(step, context)], outcome)

    async def _joint(
        self, batch: Sequence[tuple[PlannedStep, HookContext]], outcome: Outcome
    ) -> bool:
        """Every hook of the steps in ``batch`` at once, each on its step's context, each to
        its end; their decisions combined in declaration order."""
        foreground: list[tuple[PlannedHook, HookContext]] = []
        for step, context in batch:
            for hook in step.hooks:
                if hook.background:
                    self._spawn(hook, context)
                else:
                    foreground.append((hook, context))
        return _fold_all(outcome, await self._together(foreground))

    async def _together(self, jobs: Sequence[tuple[PlannedHook, HookContext]]) -> list[Decision]:
        """Run every job at once; their decisions in declaration order.

        They start longest first, by how long each one's decision took to come in last time,
        counted from the start of its batch (declaration order the first time, and among
        equals): starting a command costs its caller a moment, so the hook that decides how
        long they all take should not wait behind the others' starts."""
        took = self._took
        order = sorted(range(len(jobs)), key=lambda index: -took.get(jobs[index][0].label, 0.0))
        started = asyncio.get_running_loop().time()
        tasks: dict[int, asyncio.Future[Decision]] = {}
        for index in order:
            tasks[index] = asyncio.ensure_future(self._timed(*jobs[index], started))
        return list(await asyncio.gather(*(tasks[index] for index in range(len(jobs)))))

    async def _timed(self, hook: PlannedHook, context: HookContext, started: float) -> Decision:
        """:func:`~.plan.run_hook`, remembering when its decision came in (:meth:`_together`)."""
        try:
            return await run_hook(hook, context)
        finally:
            self._took[hook.label] = asyncio.get_running_loop().time() - started

    async def _inject_aside(self, outcome: Outcome, event: str) -> None:
        """On a kernel whose registry drops injections carried by a ``modify`` result
        (amplifier-core 2.0.2), hand them to the coordinator directly so neither the change nor
        the context is lost."""
        injections = event_injections(outcome, event)
        if not injections:
            return
        aside = HookResult(
            action="inject_context",
            context_injections=injections,
            context_injection="\n\n".join(i.content for i in injections),
        )
        try:
            taken = await self.kernel.inject_aside(aside, event, f"{HANDLER_PREFIX}:{event}")
        except Exception as err:
            logger.warning("%s: context on %s not injected: %s", HANDLER_PREFIX, event, err)
            return
        if not taken:
            logger.warning(
                "%s: context from %s on %s dropped: no coordinator to take it beside a modify",
                HANDLER_PREFIX,
                ", ".join(d.source for d in outcome.contexts),
                event,
            )

    async def _rewake(self, hook: PlannedHook, decision: Decision, event: str) -> None:
        """An ``asyncRewake`` hook's exit code 2, after the event went on: its text reaches the
        agent as context for its next request, as Claude Code's system reminder does."""
        text = (decision.message or "").strip() or f"background hook {hook.label} exited with 2"
        reminder = f"A background hook ({hook.label}) reported on {event or 'an event'}:\n{text}"
        outcome = Outcome()
        outcome.add(Decision(context=reminder, source=hook.label))
        await self._inject_aside(outcome, event or "hook:rewake")

    async def settle(self, grace_s: float) -> tuple[int, int]:
        """Let running ``async: true`` hooks finish (see :meth:`BackgroundHooks.settle`)."""
        return await self.background.settle(grace_s)

    async def aclose(self) -> None:
        """Release what runners hold (an llm runner's HTTP connections)."""
        for step in self.steps:
            for hook in step.hooks:
                close = getattr(hook.runner, "aclose", None)
                if not callable(close):
                    continue
                try:
                    await close()
                except Exception:
                    logger.warning(
                        "%s: closing %s failed", HANDLER_PREFIX, hook.label, exc_info=True
                    )
