"""Protocols a hook module and a host program implement, named as in the Amplifier ecosystem."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeAlias, runtime_checkable

from .approval import ApprovalProvider, ApprovalRequest, ApprovalResponse
from .chat import Provider, Tool
from .models import HookResult

__all__ = [
    "ApprovalProvider",
    "ApprovalRequest",
    "ApprovalResponse",
    "Cleanup",
    "HookHandler",
    "MountFunction",
    "OnSessionReady",
    "Provider",
    "Tool",
]


@runtime_checkable
class HookHandler(Protocol):
    """``async def handler(event, data) -> HookResult`` (a sync callable is accepted too)."""

    def __call__(
        self, event: str, data: dict[str, Any]
    ) -> Awaitable[HookResult | None] | HookResult | None: ...


#: What ``mount`` may return: nothing, or a sync or async function that undoes the mount.
Cleanup: TypeAlias = Callable[[], Awaitable[None] | None] | None

#: ``mount(coordinator, config)``, the target of an ``amplifier.modules`` entry point.
MountFunction: TypeAlias = Callable[[Any, dict[str, Any]], Awaitable[Cleanup] | Cleanup]

#: Optional module-level ``async def on_session_ready(coordinator)``, called once all are mounted.
OnSessionReady: TypeAlias = Callable[[Any], Awaitable[None] | None]
