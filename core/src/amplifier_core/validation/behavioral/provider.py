"""How a mounted provider behaves: it describes itself and its models, and parses tool
calls into a list."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["ProviderBehaviorTests"]


class ProviderBehaviorTests:
    pytestmark = pytest.mark.asyncio

    async def test_mount_succeeds(self, provider_module: Any) -> None:
        assert provider_module is not None

    async def test_get_info_returns_valid_provider_info(self, provider_module: Any) -> None:
        info = provider_module.get_info()
        assert getattr(info, "id", None), "ProviderInfo must have an id"
        assert getattr(info, "display_name", None), "ProviderInfo must have a display_name"

    async def test_list_models_returns_list(self, provider_module: Any) -> None:
        models = await provider_module.list_models()
        assert isinstance(models, list), "list_models() must return a list"

    async def test_provider_has_name_attribute(self, provider_module: Any) -> None:
        assert isinstance(getattr(provider_module, "name", None), str)
        assert provider_module.name, "Provider name must not be empty"

    async def test_parse_tool_calls_returns_list(self, provider_module: Any) -> None:
        from ...message_models import ChatResponse, TextBlock

        response = ChatResponse(content=[TextBlock(text="no tools")])
        assert isinstance(provider_module.parse_tool_calls(response), list)
