"""hooks-approval: human approval gates for tool calls.

On ``tool:pre`` each call is decided by rules from the config: ``allow`` (runs), ``deny``
(the model sees a denial naming the rule) or ``ask``, which returns
``HookResult(action="ask_user", ...)`` with a prompt that says exactly what will run or be
written, so that the kernel asks the human, remembers "Allow always" for the session and
denies on a timeout. By default ``bash``, ``write_file`` and ``edit_file`` need approval,
read-only commands such as ``ls``, ``pwd``, ``git status`` are allowed, and a command with a
shell control operator (``ls; rm -rf /``) is never auto-approved unless a rule says so.
Precedence: deny > ask > allow. Every request and decision goes to a JSONL audit log.

Use it from a bundle (``module: hooks-approval``) or directly::

    from amplifier_module_hooks_approval import mount

    cleanup = await mount(coordinator, {"rules": [{"action": "allow", "command": "pytest*"}]})
"""

from .audit import AuditLog
from .config import (
    DEFAULT_AUDIT_LOG,
    DEFAULT_OPTIONS,
    DEFAULT_TOOLS,
    MODULE_ID,
    ApprovalConfig,
    RuleConfig,
    parse_config,
)
from .hook import ApprovalHook
from .mount import mount
from .prompt import PromptStyle, build_prompt, elide, escape
from .rules import BUILTIN_RULES, Decision, Rule, RuleSet
from .shell import OPERATORS, ShellScan, canonical, scan_command
from .subject import Subject, subject_of
from .tracker import Tracker, kernel_runs_approval_gate

__all__ = [
    "BUILTIN_RULES",
    "DEFAULT_AUDIT_LOG",
    "DEFAULT_OPTIONS",
    "DEFAULT_TOOLS",
    "MODULE_ID",
    "OPERATORS",
    "ApprovalConfig",
    "ApprovalHook",
    "AuditLog",
    "Decision",
    "PromptStyle",
    "Rule",
    "RuleConfig",
    "RuleSet",
    "ShellScan",
    "Subject",
    "Tracker",
    "build_prompt",
    "canonical",
    "config_schema",
    "elide",
    "escape",
    "kernel_runs_approval_gate",
    "mount",
    "parse_config",
    "scan_command",
    "subject_of",
]

config_schema = ApprovalConfig
"""The config model ``validate`` checks this module's bundle config against, unmounted."""
