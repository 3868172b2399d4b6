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

It also reads ``~/.amplifier/hooks.yaml``, the project's ``.amplifier/hooks.yaml`` and the
``hooks`` of the project's ``.claude/settings.json``. The command and llm runners live in
``.command`` and ``.llm`` and are imported only when a hook of that type is declared.
"""

from .config import (
    DeclarativeConfig,
    EventHooks,
    HookEntry,
    HookGroup,
    HooksConfigError,
    HooksDocument,
    parse_claude_settings,
    parse_config,
    parse_hooks_data,
    parse_hooks_text,
)
from .dispatch import Dispatcher, RunnerFactory, default_runner_factory, plan_steps
from .mapping import CLAUDE_EVENTS, PASCAL_EVENTS, Outcome, to_hook_result
from .matcher import CLAUDE_TOOL_NAMES, MatcherRunner
from .mount import mount
from .sources import find_sources, load_documents
from .specs import CommandHookSpec, HookSpec, LlmHookSpec, MatcherHookSpec, MatchSpec
from .types import Decision, HookContext, Runner, failure_decision

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_TOOL_NAMES",
    "PASCAL_EVENTS",
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
    "Runner",
    "RunnerFactory",
    "config_schema",
    "default_runner_factory",
    "failure_decision",
    "find_sources",
    "load_documents",
    "mount",
    "parse_claude_settings",
    "parse_config",
    "parse_hooks_data",
    "parse_hooks_text",
    "plan_steps",
    "to_hook_result",
]

config_schema = DeclarativeConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
