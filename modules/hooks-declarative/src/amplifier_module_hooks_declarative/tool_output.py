"""A tool's output rewritten by a ``PostToolUse`` hook, before the model sees it.

Claude Code's ``PostToolUse`` answer may carry ``hookSpecificOutput.updatedToolOutput`` (any
tool, since Claude Code 2.1.121) or ``hookSpecificOutput.updatedMCPToolOutput`` (MCP tools
only, the older field): the value replaces the tool's output, and the model reads the new
one. Here the value becomes the ``output`` of the tool result (``{success, output, error}``:
a string is read as it is, anything else as JSON); ``success`` and ``error`` stay the
tool's. The hook's decision carries it as ``replaced_data`` (``tool_result`` and hook-shell's
``result``), the combined ``HookResult`` is a ``modify`` with the new result in its data, and
the orchestrator (loop-session) puts that result in the conversation instead of the tool's.
The ``tool:post`` event keeps the tool's own result, so a session log records both: the
event the original, the conversation the rewrite.

``updatedMCPToolOutput`` on a tool that is not an MCP tool (``mcp__<server>__<tool>``) is
ignored with a warning naming the hook, as Claude Code ignores it; either key on another
event than ``PostToolUse`` is ignored with a warning. When two hooks of one event both
rewrite the output, the later in declaration order wins and a warning names it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, Final

from .types import Decision, HookContext

__all__ = [
    "MCP_PREFIX",
    "OUTPUT_KEYS",
    "merge_replacements",
    "merge_tool_selection",
    "replaced_result",
    "with_updated_tool_output",
]

logger = logging.getLogger(__name__)

#: Claude Code's fields, newest first: (key, only for MCP tools).
OUTPUT_KEYS: Final = (("updatedToolOutput", False), ("updatedMCPToolOutput", True))
MCP_PREFIX: Final = "mcp__"
_RESULT_KEYS: Final = ("tool_result", "result")  # ours and hook-shell's


def replaced_result(original: object, output: Any) -> dict[str, Any]:
    """The tool result ``original`` with ``output`` as its output (``success`` and ``error``
    kept; a result that is not a dict counts as a success)."""
    if isinstance(original, Mapping):
        return {**original, "output": output}
    return {"success": True, "output": output, "error": None}


def _given(specific: Mapping[str, Any], key: str) -> bool:
    return key in specific and specific[key] is not None


def with_updated_tool_output(
    ctx: HookContext, name: str, answer: Mapping[str, Any], decision: Decision, label: str
) -> Decision:
    """``decision`` carrying the tool output a Claude Code ``PostToolUse`` answer gives, when
    it gives one that applies (see the module docstring); else ``decision`` unchanged."""
    specific = answer.get("hookSpecificOutput")
    if not isinstance(specific, Mapping):
        return decision
    present = [(key, mcp_only) for key, mcp_only in OUTPUT_KEYS if _given(specific, key)]
    if not present:
        return decision
    if name != "PostToolUse":
        logger.warning(
            "hook %s: hookSpecificOutput.%s is read on PostToolUse only, not on %s; ignored",
            label,
            present[0][0],
            name,
        )
        return decision
    tool = ctx.tool or ""
    for key, mcp_only in present:
        if mcp_only and not tool.startswith(MCP_PREFIX):
            logger.warning(
                "hook %s: hookSpecificOutput.%s replaces the output of MCP tools only, and %r "
                "is not one (use updatedToolOutput); ignored",
                label,
                key,
                tool,
            )
            continue
        if decision.action == "block" or decision.stop:
            return decision  # the hook stopped the turn: nothing more to give the model
        result = replaced_result(ctx.data.get("tool_result"), specific[key])
        logger.info("hook %s: %s replaces the output of tool %r", label, key, tool)
        return dataclasses.replace(decision, replaced_data=dict.fromkeys(_RESULT_KEYS, result))
    return decision


def merge_replacements(current: dict[str, Any] | None, decision: Decision) -> dict[str, Any]:
    """``current`` with ``decision.replaced_data`` over it: the later hook wins, and a key
    replaced twice is named in a warning."""
    new = decision.replaced_data or {}
    if current is None:
        return dict(new)
    selection = {"tools", "tool_choice"}
    if selection & set(current) and selection & set(new):  # Gemini's union of tool lists
        both = merge_tool_selection(current, new)
        new = {**new, **{k: v for k, v in both.items() if k in selection}}
        current = {k: v for k, v in current.items() if k not in selection}
    twice = sorted(set(current) & set(new))
    if twice:
        logger.warning(
            "hook %s replaces %s, which an earlier hook of the event replaced too; the later "
            "one (in declaration order) counts",
            decision.source,
            ", ".join(twice),
        )
    return {**current, **new}


def merge_tool_selection(current: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """Two hooks' tool selections combined as Gemini combines them: ``NONE`` wins, the lists
    of allowed tools are joined (a union)."""
    merged = {**current, **new}
    if "none" in (current.get("tool_choice"), new.get("tool_choice")):
        merged["tools"], merged["tool_choice"] = [], "none"
        return merged
    before, after = current.get("tools"), new.get("tools")
    if isinstance(before, list) and isinstance(after, list):
        merged["tools"] = [*before, *(t for t in after if t not in before)]
    if "required" in (current.get("tool_choice"), new.get("tool_choice")):
        merged["tool_choice"] = "required"
    return merged
