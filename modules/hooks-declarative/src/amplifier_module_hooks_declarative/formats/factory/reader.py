"""Reading Factory Droid's ``hooks.json`` (``.factory/hooks.json``, ``~/.factory/hooks.json``)
into a :class:`~...document.HooksDocument` whose command hooks speak ``protocol: factory``.

The file is in Claude Code's settings shape and is read as Claude Code's is
(:mod:`...claude_shaped`): Claude Code's keys and problems, its 60-second default timeout and
its matcher rule (exact names, else a regular expression searched), on Droid's tool names
(``Execute``, ``Create``, ``Edit``, ``Read``; :data:`.protocol.FACTORY_MATCH_NAMES`). Droid
writes its events at the file's top level (``{"SessionStart": [...]}``) or under ``hooks``;
both are read.
"""

from __future__ import annotations

from typing import Final

from ...claude_shaped import ClaudeShape, read_claude_shaped
from ...document import HooksDocument
from .protocol import FACTORY_MATCH_NAMES

__all__ = ["FACTORY_SHAPE", "parse_factory_hooks"]

FACTORY_SHAPE: Final = ClaudeShape(
    protocol="factory", tool_names=FACTORY_MATCH_NAMES, default_timeout_s=60, bare_events=True
)
"""How a Claude-shaped file becomes Droid's."""


def parse_factory_hooks(text: str, source: str) -> HooksDocument:
    """A Droid ``hooks.json``.

    :raises HooksConfigError: invalid JSON or hooks, with line and key path.
    """
    return read_claude_shaped(text, source, "Factory Droid hooks.json", FACTORY_SHAPE)
