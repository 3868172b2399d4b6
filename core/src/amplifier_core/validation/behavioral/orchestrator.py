"""How a mounted orchestrator behaves: ``execute(prompt, context, providers, tools, hooks)``
answers with a string, runs with the providers it is given and keeps the exchange in the
context."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

__all__ = ["OrchestratorBehaviorTests"]


async def _run(orchestrator: Any, prompt: str, mock_deps: Any) -> Any:
    context, providers, tools, hooks = mock_deps
    return await orchestrator.execute(
        prompt=prompt, context=context, providers=providers, tools=tools, hooks=hooks
    )


class OrchestratorBehaviorTests:
    pytestmark = pytest.mark.asyncio

    async def test_mount_succeeds(self, orchestrator_module: Any) -> None:
        assert orchestrator_module is not None

    async def test_orchestrator_has_execute_method(self, orchestrator_module: Any) -> None:
        execute = getattr(orchestrator_module, "execute", None)
        assert callable(execute), "Orchestrator must have execute()"
        assert inspect.iscoroutinefunction(execute), "execute() must be async"

    async def test_execute_returns_string(self, orchestrator_module: Any, mock_deps: Any) -> None:
        result = await _run(orchestrator_module, "Hello", mock_deps)
        assert isinstance(result, str), f"execute() must return a string, got {type(result)}"

    async def test_execute_with_empty_prompt(
        self, orchestrator_module: Any, mock_deps: Any
    ) -> None:
        try:
            result = await _run(orchestrator_module, "", mock_deps)
        except (AttributeError, TypeError, KeyError) as err:
            raise AssertionError(f"Orchestrator crashed on an empty prompt: {err!r}") from err
        except Exception:
            return
        assert isinstance(result, str)

    async def test_orchestrator_updates_context(
        self, orchestrator_module: Any, mock_deps: Any
    ) -> None:
        await _run(orchestrator_module, "Remember this", mock_deps)
        context = mock_deps[0]
        messages = await context.get_messages()
        assert any(m.get("role") == "user" for m in messages), "the prompt reaches the context"

    async def test_orchestrator_uses_provider(
        self, orchestrator_module: Any, mock_deps: Any
    ) -> None:
        await _run(orchestrator_module, "Test", mock_deps)
        provider = mock_deps[1].get("default")
        if provider is not None and hasattr(provider, "complete"):
            assert callable(provider.complete), "the provider's complete() must be callable"
