"""The handlers: plain async functions of (event, data) returning a HookResult."""

from __future__ import annotations

from typing import Any

from amplifier_core.models import HookResult

from .config import TemplateConfig

__all__ = ["TemplateHooks"]


class TemplateHooks:
    """Handlers bound to one validated config."""

    def __init__(self, config: TemplateConfig) -> None:
        self.config = config

    async def on_tool_pre(self, event: str, data: dict[str, Any]) -> HookResult:
        tool = data.get("tool_name") or data.get("tool") or ""
        if tool in self.config.deny_tools:
            return HookResult(action="deny", reason=f"tool {tool!r} is disabled in this project")
        return HookResult()

    async def on_tool_post(self, event: str, data: dict[str, Any]) -> HookResult:
        if not self.config.note_results:
            return HookResult()
        tool = data.get("tool_name") or data.get("tool") or "tool"
        result = data.get("tool_result") or {}
        ok = result.get("success", True) if isinstance(result, dict) else True
        return HookResult(
            user_message=f"{tool} {'finished' if ok else 'failed'}",
            user_message_level="info" if ok else "warning",
            user_message_source="hooks-template",
        )
