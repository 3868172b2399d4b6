"""hooks-declarative: hooks declared in YAML (command, matcher, llm) and Claude Code hooks."""

from .types import Decision, HookContext, failure_decision

__all__ = ["Decision", "HookContext", "failure_decision"]
