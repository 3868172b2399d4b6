"""Claude Code's hooks files: the ``hooks`` of ``.claude/settings.json`` and
``.claude/settings.local.json``, and a plugin's hooks files (:mod:`.plugins`), in Claude Code's
settings shape (:func:`~...parsing.read_claude_hooks`); every command hook speaks
``protocol: claude-code`` (:mod:`.protocol`)."""

from __future__ import annotations

from ...document import HooksDocument
from ...parsing import read_claude_hooks

__all__ = ["parse_claude_plugin_hooks", "parse_claude_settings"]


def parse_claude_settings(text: str, source: str) -> HooksDocument:
    """The ``hooks`` of a Claude Code settings file (JSON); every other key is ignored."""
    return read_claude_hooks(text, source, "Claude Code settings")


def parse_claude_plugin_hooks(text: str, source: str) -> HooksDocument:
    """A Claude Code plugin's hooks file, read as a settings file is: a key or value of a
    hook this version does not know makes that hook alone unreadable (it fails closed under
    ``strict``, with file, line and key path), and the plugin's other hooks run."""
    return read_claude_hooks(text, source, "Claude Code plugin hooks")
