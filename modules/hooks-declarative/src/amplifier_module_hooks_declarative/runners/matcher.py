"""Matcher hooks: inline rules on the tool name and the tool's arguments, decided in-process.

How a ``match`` block is read (globs, path arguments, ``regex: true``, Claude Code's tool
names) is in :mod:`..patterns`; :class:`MatcherRunner` compiles a hook's patterns once and
answers with its ``action`` when they match.
"""

from __future__ import annotations

from ..patterns import compile_arg_pattern, compile_tool_pattern, lookup_arg
from ..specs import MatcherHookSpec
from ..types import Decision, HookContext, failure_decision

__all__ = ["MatcherRunner"]


class MatcherRunner:
    """A configured matcher hook (the :class:`~..types.Runner` protocol).

    Patterns are compiled once, here; :meth:`decide` is synchronous and cheap.
    """

    __slots__ = ("_args", "_pass", "_tool", "action", "label", "message", "project_dir", "spec")

    def __init__(self, spec: MatcherHookSpec, *, label: str, project_dir: str = "") -> None:
        self.spec = spec
        self.label = label
        self.project_dir = project_dir
        match = spec.match
        self._tool = (
            compile_tool_pattern(match.tool, regex=match.regex) if match.tool is not None else None
        )
        self._args = tuple(
            (key, compile_arg_pattern(key, pattern, regex=match.regex))
            for key, pattern in match.args.items()
        )
        self.action = spec.action
        self.message = spec.message
        self._pass = Decision(source=label)

    def __repr__(self) -> str:
        return f"MatcherRunner({self.label!r}, action={self.action!r})"

    def matches(self, context: HookContext) -> bool:
        """True when the rule applies to this event."""
        tool = context.tool
        if self._tool is not None and (tool is None or not self._tool(tool)):
            return False
        if not self._args:
            return True
        values = context.args if tool is not None else context.data
        for key, test in self._args:
            found, value = lookup_arg(values, key)
            if not found or not test(value, self.project_dir or context.project_dir):
                return False
        return True

    def decide(self, context: HookContext) -> Decision:
        """The decision for ``context``: the configured action, or continue."""
        try:
            if not self.matches(context):
                return self._pass
        except Exception as err:  # a rule must never break the session
            return failure_decision(
                self.spec.on_failure, self.label, f"matching raised {type(err).__name__}: {err}"
            )
        action = self.action
        if action == "block":
            return Decision(
                action="block",
                message=self.message or f"blocked by matcher hook {self.label}",
                source=self.label,
            )
        if action == "ask":
            what = f"{context.tool}" if context.tool else context.alias
            return Decision(
                action="ask",
                message=self.message or f"Allow {what}? (matcher hook {self.label})",
                source=self.label,
            )
        return Decision(action="allow", message=self.message, source=self.label)

    async def run(self, context: HookContext) -> Decision:
        """The :class:`~..types.Runner` entry point."""
        return self.decide(context)
