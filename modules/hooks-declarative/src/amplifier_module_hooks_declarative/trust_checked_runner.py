"""A trusted project's command hooks re-check their trust before every run.

The project's trust is decided at mount from the whole hook surface
(:mod:`.trust.surface`); :class:`~.trust.watch.
TrustGuard` keeps watching it. Each command hook the project brings runs through
:class:`GuardedRunner`: before the run, the guard is asked whether anything the record covers
changed (a ``git pull`` between two tool calls, a hook script edited); if so, the hook does not
run and refuses, a ``block`` naming the hook, the changed files and the ``trust`` command (the
guarded action is denied, never let through). After a foreground run, what the hook wrote that
holds no code (its log, its cache) is recorded as its own data.
"""

from __future__ import annotations

import logging
from typing import Any

from amplifier_module_hooks_declarative.trust.watch import TrustGuard

from .receipt_notes import note_failure
from .types import Decision, HookContext, Runner

__all__ = ["GuardedRunner"]

logger = logging.getLogger("amplifier_module_hooks_declarative")


class GuardedRunner:
    """``runner`` behind the project's trust ``guard`` (module docstring)."""

    def __init__(self, runner: Runner, guard: TrustGuard) -> None:
        self.runner = runner
        self.guard = guard
        self.label = runner.label
        self.spec: Any = getattr(runner, "spec", None)

    async def run(self, context: HookContext) -> Decision:
        try:
            why = self.guard.check()
        except Exception as err:  # a check that cannot run refuses; it never lets the hook go
            why = f"project {self.guard.project}: its trust cannot be checked: {err}"
        if why is not None:
            note_failure("refused", why)
            return Decision(
                action="block",
                message=f"hook {self.label} did not run: {why}",
                level="error",
                source=self.label,
            )
        try:
            return await self.runner.run(context)
        finally:
            try:
                self.guard.after_run()
            except Exception:  # the next check decides; the hook's own decision stands
                logger.warning(
                    "trust: after %s ran, its writes were not recorded", self.label, exc_info=True
                )

    async def aclose(self) -> None:
        close = getattr(self.runner, "aclose", None)
        if callable(close):
            await close()
