"""Claude Code's ``if`` on a hook: the hook is started only for tool calls its permission
rule matches (:mod:`..permission_rules`), and never on an event without a tool, as Claude
Code documents; otherwise it decides nothing."""

from __future__ import annotations

from typing import Any

from ..permission_rules import compile_permission_rule
from ..types import Decision, HookContext, Runner

__all__ = ["ConditionalRunner"]


class ConditionalRunner:
    """``runner``, started only when ``rule`` matches the event's tool call."""

    def __init__(self, runner: Runner, rule: str) -> None:
        self.runner = runner
        self.rule = rule
        self.label = runner.label
        self._test = compile_permission_rule(rule)

    @property
    def spec(self) -> Any:
        return getattr(self.runner, "spec", None)

    def matches(self, ctx: HookContext) -> bool:
        """Whether the hook is started for ``ctx``."""
        if ctx.tool is None:
            return False
        return self._test(ctx.tool, ctx.args, ctx.project_dir)

    async def run(self, ctx: HookContext) -> Decision:
        if not self.matches(ctx):
            return Decision(source=self.label)
        return await self.runner.run(ctx)

    async def aclose(self) -> None:
        close = getattr(self.runner, "aclose", None)
        if callable(close):
            await close()
