"""Gemini CLI's tool names and ours, both ways: what its hooks are told a tool is called
(:mod:`.protocol`), what its matchers name (:mod:`.reader`) and what its model hooks' tool
selection allows (:mod:`.model`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["GEMINI_TOOLS", "TOOLS_FROM_GEMINI"]

#: Our tool name -> Gemini CLI's.
GEMINI_TOOLS: Final[Mapping[str, str]] = {
    "bash": "run_shell_command",
    "write_file": "write_file",
    "edit_file": "replace",
    "read_file": "read_file",
    "glob": "glob",
    "grep": "grep_search",
    "web_fetch": "web_fetch",
    "web_search": "google_web_search",
    "todo": "write_todos",
}

#: Gemini CLI's tool name -> ours (with Gemini's legacy ``search_file_content``).
TOOLS_FROM_GEMINI: Final[Mapping[str, str]] = {
    **{theirs: ours for ours, theirs in GEMINI_TOOLS.items()},
    "search_file_content": "grep",
}
