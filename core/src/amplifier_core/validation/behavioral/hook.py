"""How a mounted hook module behaves: its handlers answer with a HookResult and survive
odd data."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from ...models import HookResult

__all__ = ["HookBehaviorTests"]

_ACTIONS = {"continue", "deny", "modify", "inject_context", "ask_user"}


class HookBehaviorTests:
    pytestmark = pytest.mark.asyncio

    async def test_mount_succeeds(self, hook_cleanup: Any, coordinator: Any) -> None:
        assert hook_cleanup is None or callable(hook_cleanup)

    async def test_handler_returns_hook_result(self, hook_cleanup: Any, coordinator: Any) -> None:
        result = await coordinator.hooks.emit("test:event", {"data": "test"})
        assert result is None or isinstance(result, HookResult)

    async def test_hook_result_has_valid_action(self, hook_cleanup: Any, coordinator: Any) -> None:
        result = await coordinator.hooks.emit("test:event", {"data": "test"})
        if result is not None:
            assert result.action in _ACTIONS, f"Invalid action: {result.action}"

    async def test_registers_only_events_that_exist(
        self, hook_cleanup: Any, coordinator: Any
    ) -> None:
        """A handler for an event no catalogue lists and no module declares never runs (a
        typo such as ``tool:pree``); a module's own events are declared on
        ``observability.events`` (see :mod:`amplifier_core.declared_events`)."""
        from ...declared_events import declared_events, unknown_registrations

        listing = getattr(coordinator.hooks, "registrations", None)
        if not callable(listing):
            pytest.skip("the hook registry cannot list its registrations")
        unknown = unknown_registrations(listing(), await declared_events(coordinator))
        assert not unknown, "\n".join(u.message() for u in unknown)

    async def test_cleanup_is_callable_if_present(self, hook_cleanup: Any) -> None:
        if hook_cleanup is not None:
            assert callable(hook_cleanup), "Cleanup must be callable"

    async def test_cleanup_does_not_raise(self, hook_cleanup: Any) -> None:
        if hook_cleanup is None:
            return
        try:
            outcome = hook_cleanup()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as err:
            pytest.fail(f"Cleanup {hook_cleanup!r} raised {type(err).__name__}: {err}")

    async def test_handler_does_not_crash_on_malformed_data(
        self, hook_cleanup: Any, coordinator: Any
    ) -> None:
        try:
            result = await coordinator.hooks.emit("test:event", None)
        except (AttributeError, TypeError) as err:
            raise AssertionError(f"Hook handler crashed on data=None: {err!r}") from err
        except Exception:
            return
        assert result is None or isinstance(result, HookResult)

    async def test_handler_does_not_crash_on_empty_data(
        self, hook_cleanup: Any, coordinator: Any
    ) -> None:
        try:
            result = await coordinator.hooks.emit("test:event", {})
        except (AttributeError, TypeError) as err:
            raise AssertionError(f"Hook handler crashed on data={{}}: {err!r}") from err
        except Exception:
            return
        assert result is None or isinstance(result, HookResult)
