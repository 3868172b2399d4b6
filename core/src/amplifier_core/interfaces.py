"""The protocols modules implement, named and shaped as in the Amplifier ecosystem.

A module satisfies one by shape (no inheritance needed): an :class:`Orchestrator` runs the
agent loop, a :class:`Provider` answers a ``ChatRequest`` with a ``ChatResponse``, a
:class:`Tool` turns an input dict into a ``ToolResult``, a :class:`ContextManager` keeps the
conversation, and a :class:`HookHandler` reacts to events. ``mount`` functions follow
:data:`MountFunction`. Host programs implement :class:`ApprovalProvider`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from .approval import ApprovalProvider, ApprovalRequest, ApprovalResponse
from .descriptions import ModelInfo, ProviderInfo
from .models import HookResult, ToolResult

if TYPE_CHECKING:  # the envelope models load on use, not with the kernel
    from .hooks import HookRegistry
    from .message_models import ChatRequest, ChatResponse, ToolCall

__all__ = [
    "ApprovalProvider",
    "ApprovalRequest",
    "ApprovalResponse",
    "Cleanup",
    "ContextManager",
    "HookHandler",
    "MountFunction",
    "OnSessionReady",
    "Orchestrator",
    "Provider",
    "Tool",
]


class Orchestrator(Protocol):
    """The agent loop, mounted at ``orchestrator``."""

    async def execute(
        self,
        prompt: str,
        context: ContextManager,
        providers: dict[str, Provider],
        tools: dict[str, Tool],
        hooks: HookRegistry,
        **kwargs: Any,
    ) -> str:
        """Run one prompt to its final answer.

        The session passes ``coordinator=<ModuleCoordinator>`` among ``kwargs`` so the loop can
        process hook results; an orchestrator may name it or leave it in ``kwargs``.
        """
        ...


class Provider(Protocol):
    """A model service, mounted under ``providers``.

    The orchestrator turns the stored message dicts into a ``ChatRequest``; the provider
    translates it into its own API and returns a ``ChatResponse``.
    """

    @property
    def name(self) -> str:
        """The provider's name (the key it is mounted under)."""
        ...

    def get_info(self) -> ProviderInfo:
        """What the provider is: id, display name, credentials, capabilities, defaults."""
        ...

    async def list_models(self) -> list[ModelInfo]:
        """The models it offers; empty when it cannot list them."""
        ...

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        """Answer ``request``; ``kwargs`` are provider-specific options that override it."""
        ...

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        """The tool calls in ``response`` that the orchestrator should run."""
        ...


class Tool(Protocol):
    """Something the model can call, mounted under ``tools``."""

    @property
    def name(self) -> str:
        """The name the model calls it by."""
        ...

    @property
    def description(self) -> str:
        """What it does, as the model reads it."""
        ...

    @property
    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of its input; a tool that declares none gets ``{}``."""
        return {}

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        """Run with ``input``; a failure the model should see is a result, not an exception."""
        ...


class ContextManager(Protocol):
    """The conversation store, mounted at ``context``; it decides what fits a request."""

    async def add_message(self, message: dict[str, Any]) -> None:
        """Append one message dict."""
        ...

    async def get_messages_for_request(
        self,
        token_budget: int | None = None,
        provider: Any | None = None,
    ) -> list[dict[str, Any]]:
        """The messages to send next, compacted to fit when needed.

        ``provider`` lets the context size its budget from the model's window;
        ``token_budget`` is an explicit limit.
        """
        ...

    async def get_messages(self) -> list[dict[str, Any]]:
        """Every stored message, uncompacted."""
        ...

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the stored messages (used to resume a session)."""
        ...

    async def clear(self) -> None:
        """Forget every message."""
        ...


@runtime_checkable
class HookHandler(Protocol):
    """``async def handler(event, data) -> HookResult`` (the kernel also accepts sync ones)."""

    async def __call__(self, event: str, data: dict[str, Any]) -> HookResult:
        """React to ``event`` with its ``data``; the result says what the kernel does next."""
        ...


#: What ``mount`` may return: nothing, or a sync or async function that undoes the mount.
Cleanup: TypeAlias = Callable[[], Awaitable[None] | None] | None

#: ``mount(coordinator, config)``, the target of an ``amplifier.modules`` entry point.
MountFunction: TypeAlias = Callable[[Any, dict[str, Any]], Awaitable[Cleanup] | Cleanup]

#: Optional module-level ``async def on_session_ready(coordinator)``, called once all are mounted.
OnSessionReady: TypeAlias = Callable[[Any], Awaitable[None] | None]

_ENVELOPE_NAMES = frozenset({"ChatRequest", "ChatResponse", "ToolCall"})


def __getattr__(name: str) -> Any:
    """The envelope models the protocols name, loaded on first use and then kept here (so
    ``typing.get_type_hints`` resolves the protocols' annotations once they are loaded)."""
    if name in _ENVELOPE_NAMES:
        from . import message_models

        globals().update({n: getattr(message_models, n) for n in _ENVELOPE_NAMES})
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
