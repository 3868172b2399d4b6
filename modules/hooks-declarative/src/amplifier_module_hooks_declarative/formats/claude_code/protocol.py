"""The ``claude-code`` protocol of command hooks: Claude Code's stdin objects, exit codes and
JSON answers, read by :mod:`..shared.claude_protocol` (every field, event by event, is in its
docstring and in ``docs/hook-formats.md``), which Factory Droid's protocol shares."""

from __future__ import annotations

from typing import Final

from ...protocols import CommandProtocol
from ..shared.claude_protocol import (
    claude_blocked,
    claude_decision,
    claude_environment,
    claude_input,
)

__all__ = ["PROTOCOL"]

PROTOCOL: Final = CommandProtocol(
    name="claude-code",
    stdin=claude_input,
    blocked=lambda ctx, stderr, label: claude_blocked(ctx, stderr, label=label),
    decision=lambda ctx, stdout, label, project_dir, truncated: claude_decision(
        ctx, stdout, label=label, project_dir=project_dir, truncated=truncated
    ),
    environment=claude_environment,
)
"""The ``claude-code`` protocol of command hooks."""
