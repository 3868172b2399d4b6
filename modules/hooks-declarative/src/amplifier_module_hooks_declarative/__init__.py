"""hooks-declarative: hooks declared in YAML (command, matcher, llm) and Claude Code hooks.

Mount it from a bundle::

    hooks:
      - module: hooks-declarative
        config:
          hooks:
            PreToolUse:
              - type: matcher
                match: {tool: Bash, args: {command: "rm *"}}
                action: block
                message: Destructive rm commands require confirmation

It also reads ``~/.amplifier/hooks.yaml``, the project's ``.amplifier/hooks.yaml``, the
``hooks`` of the project's ``.claude/settings.json``, hook-shell's
``.amplifier/hooks/*/hooks.json``, Gemini CLI's ``.gemini/settings.json`` and Cursor's
``.cursor/hooks.json`` (the project's files only in a trusted project), and the Claude Code
plugins the config names. The command, llm,
prompt and agent runners are imported only when a hook of that type is declared.
"""

from typing import TYPE_CHECKING, Any

from .config import DeclarativeConfig, parse_config
from .discovery import find_sources, load_documents, resolve_user_dir
from .dispatch import Dispatcher, RunnerFactory, default_runner_factory, plan_steps
from .document import EventHooks, HookEntry, HookGroup, HooksConfigError, HooksDocument
from .formats.claude_code.plugins import Plugin, discover_plugins
from .formats.claude_code.reader import parse_claude_settings
from .managed import read_policy
from .managed_mount import handlers_ahead, mount_managed
from .mapping import CLAUDE_EVENTS, PASCAL_EVENTS, Outcome, to_hook_result
from .mount import mount
from .parsing import parse_hooks_data, parse_hooks_text
from .patterns import CLAUDE_TOOL_NAMES, compile_claude_matcher, compile_tool_pattern
from .runners.matcher import MatcherRunner
from .specs import (
    AgentHookSpec,
    CommandHookSpec,
    HookSpec,
    LlmHookSpec,
    MatcherHookSpec,
    MatchSpec,
    PromptHookSpec,
)
from .trust import TooManyFiles, forget_project, trust_project, trust_status, trusted_projects
from .types import Decision, HookContext, Runner, failure_decision

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_TOOL_NAMES",
    "PASCAL_EVENTS",
    "AgentHookSpec",
    "CommandHookSpec",
    "Decision",
    "DeclarativeConfig",
    "Dispatcher",
    "EventHooks",
    "HookContext",
    "HookEntry",
    "HookGroup",
    "HookSpec",
    "HooksConfigError",
    "HooksDocument",
    "LlmHookSpec",
    "MatchSpec",
    "MatcherHookSpec",
    "MatcherRunner",
    "Outcome",
    "Plugin",
    "PromptHookSpec",
    "Runner",
    "RunnerFactory",
    "SkippedItem",
    "Survey",
    "TooManyFiles",
    "compile_claude_matcher",
    "compile_tool_pattern",
    "config_schema",
    "default_runner_factory",
    "discover_extensions",
    "discover_plugins",
    "failure_decision",
    "find_sources",
    "forget_project",
    "handlers_ahead",
    "load_documents",
    "managed_hooks",
    "mount",
    "mount_managed",
    "parse_claude_settings",
    "parse_config",
    "parse_hooks_data",
    "parse_hooks_text",
    "plan_steps",
    "read_policy",
    "resolve_user_dir",
    "survey_sources",
    "to_hook_result",
    "trust_project",
    "trust_status",
    "trusted_projects",
]

if TYPE_CHECKING:
    from .check import CheckedConfig
    from .formats.gemini.extensions import discover_extensions
    from .survey import SkippedItem, Survey, managed_hooks, survey_sources

    config_schema = CheckedConfig
    """The config model ``validate`` checks this module's bundle config against, unmounted."""

_LATER: dict[str, tuple[str, str]] = {
    "CheckedConfig": (".check", "CheckedConfig"),
    "config_schema": (".check", "CheckedConfig"),
    "SkippedItem": (".survey", "SkippedItem"),
    "Survey": (".survey", "Survey"),
    "managed_hooks": (".survey", "managed_hooks"),
    "survey_sources": (".survey", "survey_sources"),
    "discover_extensions": (".formats.gemini.extensions", "discover_extensions"),
}
"""Names a mount does not use, imported with their first use: the config check (a model of
its own), the survey of hook sources and the Gemini CLI extensions installed (what
``amplifier-hooks hooks list`` shows)."""


def __getattr__(name: str) -> Any:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    where, attr = _LATER[name]
    value = getattr(importlib.import_module(where, __name__), attr)
    globals()[name] = value
    return value
