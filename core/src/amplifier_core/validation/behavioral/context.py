"""How a mounted context manager behaves: messages go in and come back, ``clear`` empties
it, and odd input does not crash it. Its compaction methods, when it has amplifier-core's
``_should_compact`` and ``_compact_internal``, answer a bool and run without a code error."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

__all__ = ["ContextBehaviorTests"]

_METHODS = ("add_message", "get_messages", "get_messages_for_request", "set_messages", "clear")
_CODE_ERRORS = (AttributeError, TypeError)
# ``_should_compact(token_count, budget)``: a conversation at half its budget.
_COMPACT_ARGUMENTS = (100_000, 200_000)


def _required_positional(method: Any) -> int:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = inspect.signature(method).parameters.values()
    return sum(1 for p in parameters if p.kind in kinds and p.default is inspect.Parameter.empty)


async def _call(method: Any, *args: Any) -> Any:
    outcome = method(*args)
    return await outcome if inspect.isawaitable(outcome) else outcome


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

    async def test_internal_should_compact_returns_bool(self, context_module: Any) -> None:
        method = getattr(context_module, "_should_compact", None)
        if method is None:
            return
        required = _required_positional(method)
        if required not in (0, len(_COMPACT_ARGUMENTS)):
            pytest.skip(f"_should_compact{inspect.signature(method)}: no known way to call it")
        result = await _call(method, *_COMPACT_ARGUMENTS[:required])
        assert isinstance(result, bool), (
            f"_should_compact() must return a bool, got {type(result).__name__}: {result!r}"
        )

    async def test_internal_compact_does_not_crash(self, context_module: Any) -> None:
        method = getattr(context_module, "_compact_internal", None)
        if method is None:
            return
        try:
            await _call(method)
        except _CODE_ERRORS as err:
            raise AssertionError(f"_compact_internal() crashed: {err!r}") from err
        except Exception:
            return

    async def test_add_invalid_message_does_not_crash(self, context_module: Any) -> None:
        try:
            await context_module.add_message({})
        except _CODE_ERRORS as err:
            raise AssertionError(f"add_message({{}}) crashed: {err!r}") from err
        except Exception:
            return
