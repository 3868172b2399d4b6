"""Shell control operators and canonical commands: :mod:`amplifier_hooks_util.shell`, shared
with hooks-declarative (Claude Code's ``if`` rules split a compound command the same way)."""

from __future__ import annotations

from amplifier_hooks_util.shell import (
    EVALUATING_BUILTINS,
    OPERATORS,
    SEPARATORS,
    ShellScan,
    _bash_input,
    canonical,
    comment_at,
    comment_end,
    scan_command,
    words,
)

__all__ = [
    "EVALUATING_BUILTINS",
    "OPERATORS",
    "SEPARATORS",
    "ShellScan",
    "_bash_input",
    "canonical",
    "comment_at",
    "comment_end",
    "scan_command",
    "words",
]
