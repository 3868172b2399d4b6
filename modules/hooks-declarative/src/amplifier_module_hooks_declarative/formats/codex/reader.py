"""Reading Codex's ``hooks.json`` (``.codex/hooks.json``, ``~/.codex/hooks.json``) into a
:class:`~...document.HooksDocument` whose command hooks speak ``protocol: codex``.

The file is in Claude Code's settings shape (``{"hooks": {"PreToolUse": [{"matcher": "Bash",
"hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}``) and is read as Claude
Code's is (:mod:`...claude_shaped`), with Codex's rules: a command hook without ``timeout``
gets Codex's 600 seconds; a matcher is Claude Code's rule (exact names, else a regular
expression searched) on Codex's tool names (``Bash``, ``apply_patch`` also seen as ``Write``
and ``Edit``, ``mcp__server__tool``); ``UserPromptSubmit`` and ``Stop`` ignore their matcher.
"""

from __future__ import annotations

from typing import Final

from ...claude_shaped import ClaudeShape, read_claude_shaped
from ...document import HooksDocument
from .protocol import CODEX_MATCH_NAMES

__all__ = ["CODEX_SHAPE", "parse_codex_hooks"]

CODEX_SHAPE: Final = ClaudeShape(
    protocol="codex",
    tool_names=CODEX_MATCH_NAMES,
    default_timeout_s=600,
    matcherless=("UserPromptSubmit", "Stop"),
)
"""How a Claude-shaped file becomes Codex's."""


def parse_codex_hooks(text: str, source: str) -> HooksDocument:
    """A Codex ``hooks.json``.

    :raises HooksConfigError: invalid JSON or hooks, with line and key path.
    """
    return read_claude_shaped(text, source, "Codex hooks.json", CODEX_SHAPE)
