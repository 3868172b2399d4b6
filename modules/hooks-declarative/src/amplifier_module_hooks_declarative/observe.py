"""Observe mode for declarative hooks: decided once, where a hook's runner is planned.

A hook whose source label matches a pattern of ``observe_sources`` is planned with an
:class:`ObservedRunner` in place of its runner (:func:`observed_steps`). Every way a hook runs
(one after another, ``parallel: true`` groups, the joint groups of Claude Code, Gemini CLI and
Cursor files, ``async: true`` hooks) calls its runner, so none of them can forget observe
mode: the runner runs the hook, emits what it would have decided as ``hook:observed`` and
answers a plain continue. An observed hook never makes its event's kernel handler fail closed.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any, Final

from .types import Decision, HookContext

if TYPE_CHECKING:
    from .steps import PlannedHook, PlannedStep

__all__ = ["OBSERVED_EVENT", "ObservedRunner", "observed_payload", "observed_steps"]

logger = logging.getLogger("amplifier_module_hooks_declarative")

OBSERVED_EVENT: Final = "hook:observed"
MODULE_ID: Final = "hooks-declarative"
_WOULD: Final = {"block": "deny", "ask": "ask_user", "modify": "modify"}


def would_decide(decision: Decision) -> str | None:
    """The kernel action ``decision`` would have had (``deny``, ``ask_user``, ``modify``,
    ``inject_context``), or ``None`` when it lets the event go on unchanged."""
    would = _WOULD.get(decision.action)
    if would is None and (decision.context or decision.stop):
        would = "inject_context" if decision.context else "deny"
    return would


def observed_payload(
    label: str, context: HookContext, decision: Decision, would: str
) -> dict[str, Any]:
    """The data of the ``hook:observed`` event for one would-have decision (the kernel's
    observe mode sends the same keys: ``docs/events.md``)."""
    payload: dict[str, Any] = {
        "hook": label,
        "module_id": MODULE_ID,
        "decision": would,
        "reason": decision.message,
        "event": context.event,
        "event_data": {
            k: v for k, v in context.data.items() if k not in ("session_id", "timestamp")
        },
    }
    if context.tool is not None:
        payload["tool_name"] = context.tool
    if decision.modified_args is not None:
        payload["data"] = {"tool_input": decision.modified_args}
    if decision.context:
        payload["context_injection"] = decision.context
    return payload


class ObservedRunner:
    """A hook in observe mode: runs the hook through ``run`` (which applies its
    ``on_failure``), emits what it would have decided as ``hook:observed`` through the
    coordinator's registry, and decides nothing."""

    def __init__(
        self,
        run: Callable[[HookContext], Awaitable[Decision]],
        *,
        label: str,
        coordinator: Any,
        inner: Any = None,
    ) -> None:
        self._run = run
        self.label = label
        self.coordinator = coordinator
        self.inner = inner
        """The hook's own runner (closed with this one)."""

    async def aclose(self) -> None:
        """Close what the hook's own runner holds."""
        close = getattr(self.inner, "aclose", None)
        if callable(close):
            await close()

    async def run(self, context: HookContext) -> Decision:
        decision = await self._run(context)
        would = would_decide(decision)
        if would is not None:
            await self._record(context, decision, would)
        return Decision(source=self.label)

    async def _record(self, context: HookContext, decision: Decision, would: str) -> None:
        logger.info(
            "%s: observe mode: %s would %s on %s", MODULE_ID, self.label, would, context.event
        )
        if context.event == OBSERVED_EVENT:  # never observe the observations
            return
        emit = getattr(getattr(self.coordinator, "hooks", None), "emit", None)
        if not callable(emit):
            return
        try:
            await emit(OBSERVED_EVENT, observed_payload(self.label, context, decision, would))
        except Exception as err:  # the observation must never break the event
            logger.warning("%s: hook:observed not emitted: %s", MODULE_ID, err)


def observing(observe_sources: Sequence[str]) -> Callable[[str], bool]:
    """Whether a hook's label is in observe mode: a pattern of ``observe_sources`` matches
    the label's source part (``<source>:<index>``)."""
    patterns = tuple(f"{pattern}:*" for pattern in observe_sources)
    return lambda label: any(fnmatchcase(label, pattern) for pattern in patterns)


def observed_steps(
    steps: Sequence[PlannedStep],
    observe_sources: Sequence[str],
    run: Callable[[PlannedHook, HookContext], Awaitable[Decision]],
    coordinator: Any,
) -> tuple[PlannedStep, ...]:
    """``steps`` with every hook of a source in observe mode behind an :class:`ObservedRunner`
    (``run(hook, context)`` runs the hook itself)."""
    if not observe_sources:
        return tuple(steps)
    observed = observing(observe_sources)
    planned: list[PlannedStep] = []
    for step in steps:
        hooks = tuple(
            dataclasses.replace(
                hook,
                runner=ObservedRunner(
                    functools.partial(run, hook),
                    label=hook.label,
                    coordinator=coordinator,
                    inner=hook.runner,
                ),
                decide=None,
                observed=True,
            )
            if observed(hook.label)
            else hook
            for hook in step.hooks
        )
        planned.append(dataclasses.replace(step, hooks=hooks))
    return tuple(planned)
