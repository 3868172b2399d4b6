"""How a mounted tool behaves: named and described, and ``execute`` answers with a
ToolResult, also for input it cannot use."""

from __future__ import annotations

from typing import Any

import pytest

from ...models import ToolResult

__all__ = ["ToolBehaviorTests"]


class ToolBehaviorTests:
    pytestmark = pytest.mark.asyncio

    async def test_mount_succeeds(self, tool_module: Any) -> None:
        assert tool_module is not None

    async def test_tool_has_name(self, tool_module: Any) -> None:
        assert isinstance(getattr(tool_module, "name", None), str), "Tool name must be a string"
        assert tool_module.name, "Tool name must not be empty"

    async def test_tool_has_description(self, tool_module: Any) -> None:
        description = getattr(tool_module, "description", None)
        assert isinstance(description, str), "Tool description must be a string"
        assert description, "Tool description must not be empty"

    async def test_tool_has_execute_method(self, tool_module: Any) -> None:
        assert callable(getattr(tool_module, "execute", None)), "Tool must have execute()"

    async def test_execute_returns_tool_result(self, tool_module: Any) -> None:
        result = await tool_module.execute({"_tool_call_id": "test-123"})
        assert isinstance(result, ToolResult), "execute() must return ToolResult"

    async def test_tool_result_has_required_fields(self, tool_module: Any) -> None:
        result = await tool_module.execute({"_tool_call_id": "test-456"})
        assert hasattr(result, "success"), "ToolResult must have success"
        assert hasattr(result, "output"), "ToolResult must have output"

    async def test_invalid_input_returns_error_result(self, tool_module: Any) -> None:
        try:
            result = await tool_module.execute({})
        except (AttributeError, TypeError, KeyError) as err:
            raise AssertionError(f"Tool crashed with a code error: {err!r}") from err
        except Exception:
            return
        assert isinstance(result, ToolResult), "Must return ToolResult even on error"
