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
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from amplifier_core.models import HookResult

from . import receipts as _receipts
from .document import HookEntry, HookGroup, HooksDocument
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
from .patterns import NameMatcher, compile_claude_matcher
from .runners.matcher import MatcherRunner
from .specs import (
    AgentHookSpec,
    CommandHookSpec,
    HookSpec,
    HttpHookSpec,
    LlmHookSpec,
    MatcherHookSpec,
    McpToolHookSpec,
    PromptHookSpec,
    UnreadableHookSpec,
)
from .types import Decision, HookContext, Runner, failure_decision

if TYPE_CHECKING:
    from .config import DeclarativeConfig
    from .runners.llm_cache import LlmCache

__all__ = [
    "HANDLER_PREFIX",
    "BackgroundHooks",
    "Dispatcher",
    "PlannedStep",
    "RunnerFactory",
    "default_runner_factory",
    "plan_steps",
]

logger = logging.getLogger("amplifier_module_hooks_declarative")

HANDLER_PREFIX: Final = "hooks-declarative"
"""Handlers are registered as ``hooks-declarative:<event>`` (``hooks-declarative:*:error``)."""

RunnerFactory = Callable[[HookSpec, str], Runner]
"""Builds the runner of one hook: ``factory(spec, label) -> Runner``."""

_TIMEOUT_MARGIN_S: Final = 5.0
_SETTLE_CANCEL_S: Final = 1.0
TRACEPARENT_CAPABILITY: Final = "observability.traceparent"
"""The capability an observer (hooks-otel) offers: ``() -> str | None``, the W3C
``traceparent`` of the span the session is in; command hooks get it as ``TRACEPARENT``."""


def default_runner_factory(
    project_dir: str,
    coordinator: Any = None,
    *,
    pass_env: Sequence[str] | None = None,
    settings: DeclarativeConfig | None = None,
) -> RunnerFactory:
    """The runners of the hook types; command, llm, prompt and agent runners are imported on
    first use, so a file with only matchers needs none of them. LLM, prompt and agent hooks ask
    the providers mounted on ``coordinator`` (agent hooks also read with its tools); command
    hooks get the variables ``pass_env`` names (``None``: all). ``settings`` gives prompt and
    agent hooks the module's ``prompt_*`` and ``agent_max_turns`` keys, and command hooks what
    their protocol tells them about its tool (``cursor_version``)."""
    from .guard import Guards

    llm_caches: dict[int, LlmCache] = {}
    protocol_options = {"cursor_version": settings.cursor_version} if settings else {}
    guards = Guards.of(coordinator)
    get = getattr(coordinator, "get", None)
    providers = (lambda: get("providers")) if callable(get) else None
    tools = (lambda: get("tools")) if callable(get) else None

    def build(spec: HookSpec, label: str) -> Runner:
        if isinstance(spec, MatcherHookSpec):
            return MatcherRunner(spec, label=label, project_dir=project_dir)
        if isinstance(spec, CommandHookSpec):
            from .protocols import configured_protocol
            from .runners.command import CommandRunner

            protocol = configured_protocol(spec.protocol, protocol_options)
            return CommandRunner(
                spec,
                label=label,
                project_dir=project_dir,
                pass_env=pass_env,
                protocol=protocol,
                write_paths=settings.sandbox_write_paths if settings else (),
            )
        if isinstance(spec, UnreadableHookSpec):
            from .runners.unreadable import UnreadableRunner

            return UnreadableRunner(spec, label=label, strict=settings.strict if settings else True)
        if isinstance(spec, McpToolHookSpec):
            from .runners.mcp_tool import McpToolRunner

            return McpToolRunner(spec, label=label, project_dir=project_dir, tools=tools)
        if isinstance(spec, HttpHookSpec):
            from .runners.http_hook import HttpRunner

            return HttpRunner(spec, label=label, project_dir=project_dir)
        if isinstance(spec, LlmHookSpec):
            from .runners.llm import LlmRunner
            from .runners.llm_cache import LlmCache

            cache = None
            if spec.cache:  # one cache per size; each answer keeps its hook's cache_ttl_s
                cache = llm_caches.get(spec.cache_size)
                if cache is None:
                    cache = llm_caches[spec.cache_size] = LlmCache(
                        spec.cache_size, spec.cache_ttl_s
                    )
            return LlmRunner(spec, label=label, cache=cache, providers=providers, guards=guards)
        if isinstance(spec, PromptHookSpec | AgentHookSpec):
            from .runners.prompt_hook import PromptDefaults, PromptRunner

            defaults = PromptDefaults.from_config(settings) if settings else PromptDefaults()
            if isinstance(spec, PromptHookSpec):
                return PromptRunner(
                    spec, label=label, providers=providers, defaults=defaults, guards=guards
                )
            from .runners.agent_hook import AgentRunner

            return AgentRunner(
                spec,
                label=label,
                providers=providers,
                tools=tools,
                defaults=defaults,
                guards=guards,
            )
        raise TypeError(f"{HANDLER_PREFIX}: no runner for hook type {type(spec).__name__}")

    return build


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True, slots=True)
class _Hook:
    runner: Runner
    spec: HookSpec
    label: str
    background: bool
    decide: Callable[[HookContext], Decision] | None = None
    """A synchronous shortcut (a matcher's ``decide``): no coroutine on the hot path."""
    observed: bool = False
    """In observe mode (:mod:`.observe`): its runner records, never decides."""

    @property
    def budget_s(self) -> float:
        """How long this hook may take in the foreground (its own timeout)."""
        if self.background or isinstance(self.spec, MatcherHookSpec):
            return 0.0
        return self.spec.timeout_ms / 1000


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One step of one event key: its hooks, how they run, and the name the event was declared
    under (``alias``, passed to hooks as :attr:`HookContext.alias`)."""

    key: str
    alias: str
    hooks: tuple[_Hook, ...]
    parallel: bool
    tool_filter: NameMatcher | None
    label: str
    joint: bool = False
    """Runs at once with the adjacent joint steps that match (:class:`~.config.HookGroup`)."""
    ends_on_answer: bool = False
    """hook-shell's rule (:attr:`~.document.HookGroup.ends_on_answer`)."""

    @property
    def budget_s(self) -> float:
        budgets = [hook.budget_s for hook in self.hooks] or [0.0]
        return max(budgets) if self.parallel else sum(budgets)

    @property
    def fail_closed(self) -> bool:
        return any(
            h.spec.on_failure == "block" and not h.background and not h.observed for h in self.hooks
        )


def _hook(entry: HookEntry, factory: RunnerFactory) -> _Hook:
    background = isinstance(entry.spec, CommandHookSpec) and entry.spec.async_
    runner = factory(entry.spec, entry.label)
    if entry.condition is not None:  # Claude Code's ``if``: started only when it matches
        from .runners.condition import ConditionalRunner

        runner = ConditionalRunner(runner, entry.condition)
    decide = runner.decide if isinstance(runner, MatcherRunner) else None
    spec = getattr(runner, "spec", None)  # a runner may fill keys from the module's config
    spec = spec if isinstance(spec, type(entry.spec)) else entry.spec
    return _receipts.receipted(_Hook(runner, spec, entry.label, background, decide))


def plan_steps(documents: Sequence[HooksDocument], factory: RunnerFactory) -> list[PlannedStep]:
    """Every step of every document, in declaration order, with its runners built."""
    steps: list[PlannedStep] = []
    for document in documents:
        for block in document.events:
            # a name of its own (PreToolUse, beforeShellExecution), else the event's alias
            alias = alias_of(block.event) if block.name == block.event else block.name
            for step in block.steps:
                if isinstance(step, HookGroup):
                    hooks = tuple(_hook(entry, factory) for entry in step.hooks)
                    tool_filter = (
                        compile_claude_matcher(step.matcher) if step.matcher is not None else None
                    )
                    parallel, joint = step.parallel, step.joint
                    answer_ends = step.ends_on_answer
                else:
                    hooks = (_hook(step, factory),)
                    tool_filter, parallel, joint, answer_ends = None, False, False, False
                if hooks:
                    steps.append(
                        PlannedStep(
                            block.event,
                            alias,
                            hooks,
                            parallel,
                            tool_filter,
                            step.label,
                            joint,
                            answer_ends,
                        )
                    )
    return steps


# --------------------------------------------------------------------------- background


class BackgroundHooks:
    """The ``async: true`` hooks still running; their outcomes are logged, never applied,
    except a block of an ``asyncRewake`` hook (Claude Code's key), which ``rewake`` hands to
    the agent as context: ``rewake(hook, decision, event)``."""

    def __init__(
        self, rewake: Callable[[_Hook, Decision, str], Coroutine[Any, Any, None]] | None = None
    ) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._rewake = rewake

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, hook: _Hook, work: Coroutine[Any, Any, Decision], event: str = "") -> None:
        task: asyncio.Task[Decision] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._finished(hook, done, event))

    def _finished(self, hook: _Hook, task: asyncio.Task[Decision], event: str = "") -> None:
        self._tasks.discard(task)
        if task.cancelled():
            logger.info("async hook %s was cancelled", hook.label)
            return
        error = task.exception()
        if error is not None:  # _run_one converts failures; this is a last resort
            logger.warning("async hook %s failed: %r", hook.label, error)
            return
        decision = task.result()
        note = f": {decision.message}" if decision.message else ""
        rewakes = isinstance(hook.spec, CommandHookSpec) and hook.spec.rewake
        if rewakes and decision.action == "block" and self._rewake is not None:
            logger.info("async hook %s asks the agent to react%s", hook.label, note)
            delivery = asyncio.ensure_future(self._rewake(hook, decision, event))
            self._tasks.add(delivery)
            delivery.add_done_callback(self._tasks.discard)
            return
        if decision.action in ("block", "ask", "modify") or decision.stop:
            logger.warning(
                "async hook %s decided %r after the event went on (async hooks cannot change it)%s",
                hook.label,
                decision.action,
                note,
            )
        else:
            logger.info("async hook %s finished: %s%s", hook.label, decision.action, note)

    async def settle(self, grace_s: float) -> tuple[int, int]:
        """Wait up to ``grace_s`` for running hooks, cancel the rest; (finished, cancelled)."""
        tasks = set(self._tasks)
        if not tasks:
            return 0, 0
        done, pending = (
            await asyncio.wait(tasks, timeout=grace_s)
            if grace_s > 0
            else (
                {t for t in tasks if t.done()},
                {t for t in tasks if not t.done()},
            )
        )
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=_SETTLE_CANCEL_S)
            logger.warning(
                "%s: cancelled %d async hook(s) still running after %gs",
                HANDLER_PREFIX,
                len(pending),
                grace_s,
            )
        return len(done), len(pending)


# --------------------------------------------------------------------------- dispatch


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


async def _run_one(hook: _Hook, context: HookContext) -> Decision:
    try:
        decision: object = await hook.runner.run(context)
    except asyncio.CancelledError:
        raise
    except Exception as err:
        return failure_decision(
            hook.spec.on_failure, hook.label, f"the runner raised {type(err).__name__}: {err}"
        )
    if not isinstance(decision, Decision):
        return failure_decision(
            hook.spec.on_failure,
            hook.label,
            f"the runner returned {type(decision).__name__}, not a Decision",
        )
    return decision if decision.source else dataclasses.replace(decision, source=hook.label)


class Dispatcher:
    """Runs the planned steps of each event; one instance per mount.

    :param steps: from :func:`plan_steps`.
    :param project_dir: passed to every hook in its context.
    :param coordinator: gives the session id when the event data has none, and takes context
        injections that cannot travel in a ``modify`` result.
    """

    def __init__(
        self,
        steps: Sequence[PlannedStep],
        *,
        project_dir: str,
        coordinator: Any = None,
        observe_sources: Sequence[str] = (),
    ) -> None:
        self.steps = observed_steps(steps, observe_sources, _run_one, coordinator)
        self.project_dir = project_dir
        self.coordinator = coordinator
        self.background = BackgroundHooks(self._rewake)
        self._by_event: dict[str, tuple[PlannedStep, ...]] = {}
        self._none_is_continue = True
        self._took: dict[str, float] = {}  # hook label -> seconds its last foreground run took
        self.reloader: Any = None  # hook files read again when they change: .reload

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

    def register(self, registry: Any, *, priority: int = 0) -> list[Callable[[], Any]]:
        """Subscribe on ``registry``; return the unregister functions.

        On a kernel whose registry has ``handlers_for`` (wildcards, per-handler timeouts and
        fail-closed handlers), ``*:error`` is one pattern subscription, each handler's timeout
        is the sum of its hooks' own timeouts plus a margin, and a handler holding a hook with
        ``on_failure: block`` fails closed.
        """
        rich = callable(getattr(registry, "handlers_for", None))
        self._none_is_continue = rich
        unregisters: list[Callable[[], Any]] = []
        for key in self.subscriptions(wildcard=rich):
            name = f"{HANDLER_PREFIX}:{key}"
            handler = self._handler()
            if rich:
                steps = self._steps_of_key(key)
                budget = sum(step.budget_s for step in steps) + _TIMEOUT_MARGIN_S
                closed = any(step.fail_closed for step in steps)
                unregister = registry.register(
                    key, handler, priority=priority, name=name, timeout=budget, fail_closed=closed
                )
            else:
                unregister = registry.register(key, handler, priority=priority, name=name)
            unregisters.append(unregister)
        return unregisters

    def _steps_of_key(self, key: str) -> tuple[PlannedStep, ...]:
        if key == ERROR_PATTERN:
            return tuple(s for s in self.steps if s.key.endswith(":error"))
        return self.steps_for(key)

    def _handler(self) -> Callable[[str, dict[str, Any]], Any]:
        async def handle(event: str, data: dict[str, Any]) -> HookResult | None:
            return await self.dispatch(event, data)

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
        get = getattr(self.coordinator, "get_capability", None)
        traceparent = get(TRACEPARENT_CAPABILITY) if callable(get) else None
        header = traceparent() if callable(traceparent) else None
        return {"TRACEPARENT": header} if isinstance(header, str) and header else {}

    async def dispatch(self, event: str, data: dict[str, Any]) -> HookResult | None:
        """Run ``event``'s hooks on ``data`` and return their combined result."""
        if self.reloader is not None:  # the hooks as the files are now
            current = await self.reloader.check(event)
            if current is not None and current is not self:
                return await current.dispatch(event, data)  # type: ignore[no-any-return]
        steps = self.steps_for(event)
        if not steps:
            return self._nothing()
        base = self.context(event, data)
        context = base
        outcome = Outcome()
        joint: list[tuple[PlannedStep, HookContext]] = []
        answered = False  # hook-shell: an injection or a change ends its later groups
        for step in steps:
            if answered and step.ends_on_answer:
                continue
            tool_filter = step.tool_filter
            if tool_filter is not None:
                target = match_target(event, context.tool, data)
                if target is not None and not tool_filter(target):
                    _receipts.unmatched(step, context, target)
                    continue
            if not applies_to(step.alias, data):
                continue
            if context.alias != step.alias:
                context = dataclasses.replace(context, alias=step.alias)
            if step.joint:
                joint.append((step, context))
                continue
            if joint:
                changed = await self._joint(joint, outcome)
                joint = []
                if outcome.blocked:
                    break
                if changed:
                    context = self._modified(base, outcome, step.alias)
            answers = outcome.answers
            if step.parallel:
                changed = await self._parallel(step, context, outcome)
            else:
                changed = await self._sequential(step, context, outcome, base)
            if outcome.blocked:
                break
            if step.ends_on_answer and (changed or outcome.answers > answers):
                answered = True
            if changed:
                context = self._modified(base, outcome, step.alias)
        if joint and not outcome.blocked:
            await self._joint(joint, outcome)
        if outcome.blocked:
            _receipts.skipped_after(steps, base, outcome)
        result = to_hook_result(outcome, event, data)
        if any(d.interrupt for d in outcome.blocks):
            await interrupt_turn(self.coordinator, outcome.blocks, event)
        if event == FORK_EVENT and outcome.contexts and result is not None:
            await self._inject_aside(outcome, event)  # the kernel does not act on its results
            result = without_injections(result)
        if result is None:
            return self._nothing()
        aside = result.action == "modify" or (result.action == "deny" and event == STOP_EVENT)
        if aside and outcome.contexts and not self._none_is_continue:
            # Our kernel keeps injections carried by a modify result; others drop them. A
            # blocked stop there is context for the next request (loop-basic ignores the deny).
            await self._inject_aside(outcome, event)
        return result

    def _nothing(self) -> HookResult | None:
        """Our kernel takes ``None`` as continue (cheapest); others get a ``HookResult``."""
        return None if self._none_is_continue else HookResult()

    async def _sequential(
        self, step: PlannedStep, context: HookContext, outcome: Outcome, base: HookContext
    ) -> bool:
        changed = False
        for hook in step.hooks:
            if hook.background:
                self.background.spawn(hook, _run_one(hook, context), context.event)
                continue
            decision = hook.decide(context) if hook.decide else await _run_one(hook, context)
            if outcome.add(decision):
                changed = True
                context = self._modified(base, outcome, step.alias)
            if outcome.blocked:
                break
            if step.ends_on_answer and (changed or decision.context is not None):
                break  # hook-shell returns the first injection (even an empty one) or change
        return changed

    async def _parallel(self, step: PlannedStep, context: HookContext, outcome: Outcome) -> bool:
        foreground = []
        for hook in step.hooks:
            if hook.background:
                self.background.spawn(hook, _run_one(hook, context), context.event)
            else:
                foreground.append(hook)
        decisions = await self._together([(hook, context) for hook in foreground])
        changed = False
        for decision in decisions:  # in declaration order
            changed = outcome.add(decision) or changed
        return changed

    async def _joint(
        self, batch: Sequence[tuple[PlannedStep, HookContext]], outcome: Outcome
    ) -> bool:
        """Every hook of the joint steps in ``batch`` at once, on the same arguments, each to
        its end; their decisions combined in declaration order."""
        foreground: list[tuple[_Hook, HookContext]] = []
        for step, context in batch:
            for hook in step.hooks:
                if hook.background:
                    self.background.spawn(hook, _run_one(hook, context), context.event)
                else:
                    foreground.append((hook, context))
        decisions = await self._together(foreground)
        changed = False
        for decision in decisions:  # in declaration order
            changed = outcome.add(decision) or changed
        return changed

    async def _together(self, jobs: Sequence[tuple[_Hook, HookContext]]) -> list[Decision]:
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

    async def _timed(self, hook: _Hook, context: HookContext, started: float) -> Decision:
        """:func:`_run_one`, remembering when its decision came in (:meth:`_together`)."""
        try:
            return await _run_one(hook, context)
        finally:
            self._took[hook.label] = asyncio.get_running_loop().time() - started

    @staticmethod
    def _modified(base: HookContext, outcome: Outcome, alias: str) -> HookContext:
        modified = outcome.modified or {}
        data = apply_modification(base.data, modified)
        if is_tool_event(base.data):
            return dataclasses.replace(base, data=data, args=data["tool_input"], alias=alias)
        return dataclasses.replace(base, data=data, alias=alias)

    async def _inject_aside(self, outcome: Outcome, event: str) -> None:
        """On a kernel whose registry drops injections carried by a ``modify`` result
        (amplifier-core 2.0.2), hand them to the coordinator directly so neither the change nor
        the context is lost."""
        process = getattr(self.coordinator, "process_hook_result", None)
        injections = event_injections(outcome, event)
        if not injections:
            return
        if not callable(process):
            logger.warning(
                "%s: context from %s on %s dropped: no coordinator to take it beside a modify",
                HANDLER_PREFIX,
                ", ".join(d.source for d in outcome.contexts),
                event,
            )
            return
        aside = HookResult(
            action="inject_context",
            context_injections=injections,
            context_injection="\n\n".join(i.content for i in injections),
        )
        try:
            await process(aside, event, f"{HANDLER_PREFIX}:{event}")
        except Exception as err:
            logger.warning("%s: context on %s not injected: %s", HANDLER_PREFIX, event, err)

    async def _rewake(self, hook: _Hook, decision: Decision, event: str) -> None:
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
