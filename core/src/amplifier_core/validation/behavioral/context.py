"""How a mounted context manager behaves: messages go in and come back, ``clear`` empties
it, and odd input does not crash it."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["ContextBehaviorTests"]

_METHODS = ("add_message", "get_messages", "get_messages_for_request", "set_messages", "clear")


class ContextBehaviorTests:
    pytestmark = pytest.mark.asyncio

    async def test_mount_succeeds(self, context_module: Any) -> None:
        assert context_module is not None

    async def test_context_has_required_methods(self, context_module: Any) -> None:
        missing = [m for m in _METHODS if not callable(getattr(context_module, m, None))]
        assert not missing, f"ContextManager is missing {missing}"

    async def test_message_round_trip(self, context_module: Any) -> None:
        await context_module.clear()
        await context_module.add_message({"role": "user", "content": "hello"})
        messages = await context_module.get_messages()
        assert any(m.get("content") == "hello" for m in messages)

    async def test_multiple_messages(self, context_module: Any) -> None:
        await context_module.clear()
        for n in range(3):
            await context_module.add_message({"role": "user", "content": f"m{n}"})
        contents = [m.get("content") for m in await context_module.get_messages()]
        assert [c for c in contents if c in ("m0", "m1", "m2")] == ["m0", "m1", "m2"]

    async def test_clear_removes_messages(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "gone"})
        await context_module.clear()
        messages = await context_module.get_messages()
        assert not any(m.get("content") == "gone" for m in messages)

    async def test_get_messages_for_request_returns_messages(self, context_module: Any) -> None:
        await context_module.clear()
        await context_module.add_message({"role": "user", "content": "ask"})
        messages = await context_module.get_messages_for_request()
        assert isinstance(messages, list)
        assert any(m.get("content") == "ask" for m in messages)

    async def test_get_messages_never_returns_none(self, context_module: Any) -> None:
        await context_module.clear()
        assert await context_module.get_messages() is not None
