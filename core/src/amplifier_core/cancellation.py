"""Cooperative cancellation of a session: one token per coordinator.

Someone asks the session to stop (``request_graceful``: finish the running tools first, or
``request_immediate``: stop now); the orchestrator checks ``is_cancelled`` between steps,
records the tools it runs (``register_tool_start`` / ``register_tool_complete``) and, when it
stops, awaits ``trigger_callbacks()`` so the ``on_cancel`` callbacks can clean up. A request
reaches the child tokens registered with ``register_child`` (sub-sessions). Import on use::

    from amplifier_core.cancellation import CancellationToken
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["CancellationState", "CancellationToken"]

logger = logging.getLogger(__name__)


class CancellationState(Enum):
    """Where a token stands; ``CancellationToken.state`` reports the value string."""

    NONE = "none"
    """Running normally."""
    GRACEFUL = "graceful"
    """Stop once the running tools have finished."""
    IMMEDIATE = "immediate"
    """Stop now; running tools are abandoned."""


_RANK = {CancellationState.NONE: 0, CancellationState.GRACEFUL: 1, CancellationState.IMMEDIATE: 2}


class CancellationToken:
    """A session's cancellation state, the tools it is running, and what to do on cancel.

    The state only escalates (none -> graceful -> immediate) until :meth:`reset`. Child tokens
    follow every escalation of their parent (also a child registered after it); a child's own
    request does not reach the parent.
    """

    def __init__(self) -> None:
        self._state = CancellationState.NONE
        self._running: dict[str, str] = {}
        self._children: list[CancellationToken] = []
        self._callbacks: list[Callable[[], Any]] = []
        self._event: asyncio.Event | None = None

    def __repr__(self) -> str:
        return (
            f"CancellationToken(state={self._state.value!r}, "
            f"running_tools={sorted(self._running)!r}, children={len(self._children)})"
        )

    # --- state ------------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``"none"``, ``"graceful"`` or ``"immediate"``."""
        return self._state.value

    @property
    def is_cancelled(self) -> bool:
        """A stop was requested (graceful or immediate)."""
        return self._state is not CancellationState.NONE

    @property
    def is_graceful(self) -> bool:
        """A graceful stop was requested and not escalated to immediate."""
        return self._state is CancellationState.GRACEFUL

    @property
    def is_immediate(self) -> bool:
        """An immediate stop was requested."""
        return self._state is CancellationState.IMMEDIATE

    @property
    def event(self) -> asyncio.Event:
        """Set while a stop is requested, cleared by :meth:`reset`:
        ``await token.event.wait()`` wakes when someone asks the session to stop."""
        if self._event is None:  # made on first use, on the loop that waits for it
            import asyncio

            self._event = asyncio.Event()
            if self.is_cancelled:
                self._event.set()
        return self._event

    def request_cancellation(self) -> None:
        """Ask for a graceful stop (same as :meth:`request_graceful`, without the answer)."""
        self.request_graceful()

    def request_graceful(self) -> bool:
        """Ask to stop after the running tools; True when this changed the state."""
        return self._escalate(CancellationState.GRACEFUL)

    def request_immediate(self) -> bool:
        """Ask to stop now; True when this changed the state (also from graceful)."""
        return self._escalate(CancellationState.IMMEDIATE)

    def reset(self) -> None:
        """Back to running normally with no running tools; children and callbacks stay."""
        self._running.clear()
        if self._state is not CancellationState.NONE:
            self._state = CancellationState.NONE
            self._notify()

    def _escalate(self, target: CancellationState) -> bool:
        if _RANK[target] <= _RANK[self._state]:
            return False
        self._state = target
        self._notify()
        for child in list(self._children):
            child._escalate(target)
        return True

    def _notify(self) -> None:
        if self._event is None:
            return
        if self.is_cancelled:
            self._event.set()
        else:
            self._event.clear()

    # --- running tools ----------------------------------------------------------------------

    @property
    def running_tools(self) -> set[str]:
        """The tool call ids started and not yet completed."""
        return set(self._running)

    @property
    def running_tool_names(self) -> list[str]:
        """The names of the running tools (one entry per running call)."""
        return list(self._running.values())

    def register_tool_start(self, tool_call_id: str, tool_name: str) -> None:
        """Record that the tool call ``tool_call_id`` (tool ``tool_name``) is running."""
        self._running[tool_call_id] = tool_name

    def register_tool_complete(self, tool_call_id: str) -> None:
        """Record that ``tool_call_id`` finished; an unknown id is ignored."""
        self._running.pop(tool_call_id, None)

    # --- children ---------------------------------------------------------------------------

    def register_child(self, child: CancellationToken) -> None:
        """Make ``child`` follow this token's requests; it catches up with the current state."""
        if not isinstance(child, CancellationToken):
            raise TypeError(
                f"register_child expects a CancellationToken, got {type(child).__name__}"
            )
        if not any(known is child for known in self._children):
            self._children.append(child)
        if self.is_cancelled:
            child._escalate(self._state)

    def unregister_child(self, child: CancellationToken) -> None:
        """Stop propagating to ``child``; a token that is not a child is ignored."""
        self._children = [known for known in self._children if known is not child]

    # --- callbacks --------------------------------------------------------------------------

    def on_cancel(self, callback: Callable[[], Any]) -> None:
        """Run ``callback`` (async or plain, no arguments) on every :meth:`trigger_callbacks`."""
        self._callbacks.append(callback)

    async def trigger_callbacks(self) -> None:
        """Run the ``on_cancel`` callbacks in order; one that fails (also by raising
        ``CancelledError`` of its own) is logged and the rest run. ``KeyboardInterrupt`` and
        ``SystemExit`` are raised again once every callback has run."""
        import asyncio  # the callbacks run on a loop: asyncio is loaded already

        from .hooks import _own_cancellation  # the rule emit applies to its handlers

        fatal: BaseException | None = None
        for callback in list(self._callbacks):
            name = getattr(callback, "__qualname__", repr(callback))
            try:
                outcome = callback()
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("cancellation callback %s failed; running the others", name)
            except BaseException as err:
                if _own_cancellation(err):
                    logger.warning("cancellation callback %s was cancelled; the others run", name)
                    continue
                if isinstance(err, asyncio.CancelledError):
                    raise  # this task is being cancelled: not the callback's own doing
                fatal = fatal or err  # KeyboardInterrupt, SystemExit
        if fatal is not None:
            raise fatal
