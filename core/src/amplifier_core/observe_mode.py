"""Observe mode: a hook module that decides nothing, and says what it would have decided.

A bundle entry with ``observe: true`` is mounted by the loader through :func:`observed_mount`:
every handler the module registers while it mounts (and in its ``on_session_ready``) runs in
place, with its name, event, priority and timeout, but its result is not applied. A ``deny``,
``ask_user``, ``modify`` or ``inject_context`` result, and a failure, is emitted as a
``hook:observed`` event (``hook``, ``module_id``, ``decision``, ``reason``, ``event``,
``event_data``; see ``docs/events.md``) and the handler counts as having returned nothing, so
the session behaves as if the module were absent. A handler's failure in observe mode never
denies, even when it was registered ``fail_closed``.

This is the first step of rolling a guard out: observe it in real sessions, replay the logs
(``amplifier-hooks replay``), then enforce it (see ``docs/rollout.md``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

from . import events as _events
from .handlers import HandlerInfo, read_result
from .models import HookResult

if TYPE_CHECKING:
    from .hooks import HookRegistry


__all__ = ["OBSERVED_DECISIONS", "ObserveError", "observed_mount", "observed_payload"]

logger = logging.getLogger(__name__)

OBSERVED_DECISIONS: Final = frozenset({"deny", "ask_user", "modify", "inject_context"})
"""The result actions observe mode records instead of applying."""

_T = TypeVar("_T")


class ObserveError(Exception):
    """A module cannot be mounted in observe mode (its coordinator's registry cannot say
    which handlers it registered)."""


def observed_payload(
    module_id: str,
    hook: str,
    event: str,
    data: dict[str, Any],
    decision: str,
    result: HookResult | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """The data of the ``hook:observed`` event for one would-have decision."""
    payload: dict[str, Any] = {
        "hook": hook,
        "module_id": module_id,
        "decision": decision,
        "reason": reason if reason is not None else (result.reason if result else None),
        "event": event,
        "event_data": {k: v for k, v in data.items() if k not in ("session_id", "timestamp")},
    }
    tool_name = data.get("tool_name")
    if isinstance(tool_name, str):
        payload["tool_name"] = tool_name
    if result is not None:
        if result.action == "ask_user" and result.approval_prompt:
            payload["approval_prompt"] = result.approval_prompt
        if result.action == "modify" and result.data is not None:
            payload["data"] = result.data
        if result.action == "inject_context" and result.context_injection:
            payload["context_injection"] = result.context_injection
    return payload


def _observing(registry: HookRegistry, module_id: str, info: HandlerInfo) -> Callable[..., Any]:
    """An async handler that runs ``info``'s handler and records, not returns, its decision."""
    original = info.handler
    is_async = info.is_async
    threaded = not is_async and info.timeout is not None
    hook = info.name

    async def record(event: str, data: dict[str, Any], decision: str, **extra: Any) -> None:
        logger.info(
            "observe mode: %s (%s) would have answered %s on %s", hook, module_id, decision, event
        )
        if event == _events.HOOK_OBSERVED:  # never observe the observations
            return
        payload = observed_payload(module_id, hook, event, data, decision, **extra)
        await registry.emit(_events.HOOK_OBSERVED, payload)

    async def observed(event: str, data: dict[str, Any]) -> None:
        try:
            if is_async:
                result: object = await original(event, data)  # type: ignore[misc]
            elif threaded:
                result = await asyncio.to_thread(original, event, data)
            else:
                result = original(event, data)
                if inspect.isawaitable(result):
                    result = await result
        except asyncio.CancelledError:
            raise
        except Exception as err:
            await record(event, data, "failed", reason=f"{type(err).__name__}: {err}")
            return
        try:
            result = read_result(result)
        except Exception as err:  # what emit would deny: recorded as a failure
            await record(event, data, "failed", reason=str(err))
            return
        if result is not None and result.action in OBSERVED_DECISIONS:
            await record(event, data, result.action, result=result)

    observed.__name__ = getattr(original, "__name__", "observed")
    observed.__qualname__ = getattr(original, "__qualname__", observed.__name__)
    return observed


async def observed_mount(
    registry: HookRegistry, module_id: str, mount: Callable[[], Awaitable[_T]]
) -> _T:
    """Run ``mount()`` and put every handler it registered on ``registry`` in observe mode.

    :raises ObserveError: ``registry`` cannot list and replace its registrations.
    """
    listing = getattr(registry, "registrations", None)
    replace = getattr(registry, "replace_handler", None)
    if not callable(listing) or not callable(replace):
        raise ObserveError(
            f"{module_id}: observe: true needs a hook registry that can list and replace its "
            f"handlers (amplifier_core.hooks.HookRegistry); got {type(registry).__name__}"
        )
    before = {id(info) for info in listing()}
    outcome = await mount()
    for info in listing():
        if id(info) not in before:
            replace(info, _observing(registry, module_id, info), fail_closed=False)
    return outcome
