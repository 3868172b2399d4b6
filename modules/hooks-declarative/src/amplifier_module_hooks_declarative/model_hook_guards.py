"""Model-backed hooks under the session's guards: their model requests and tool calls fire the
events every other request and tool call fires.

* Each request an ``llm``, ``prompt`` or ``agent`` hook sends its model first fires
  ``provider:request`` on the session's hooks (data: ``provider``, ``model``, ``messages`` as
  dicts, ``tools``, and ``hook``, the hook's label; no ``turn`` or ``iteration``: the request
  is not part of one of the agent's turns). A handler that modifies ``messages``
  (hooks-redaction) changes what is sent; a ``deny`` stops the request, which is then a
  failure of the hook (its ``on_failure``). Context injections returned there are not applied:
  the hook's request is not the agent's conversation.
* Each tool an ``agent`` hook's model calls fires ``tool:pre`` (processed by the coordinator,
  so deny rules and approvals apply: a denied call is answered with the reason as an error
  result) and, after it ran, ``tool:post`` (a handler's modified ``tool_result`` is what the
  model reads). The data is the orchestrator's: ``tool_name``, ``tool_input``,
  ``tool_call_id``, the legacy ``tool`` and ``input``, plus ``hook``.

A guard must not trigger itself: while a model-backed hook's own request or tool call goes
through the events, model-backed hooks reached again are skipped (:func:`inside_model_hook`),
command and matcher hooks and every module handler run as for the agent.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from amplifier_hooks_util.tool_events import tool_call_fields

if TYPE_CHECKING:
    from amplifier_core.message_models import ChatRequest

__all__ = ["Guards", "RequestRefusedError", "guarded_complete", "inside", "inside_model_hook"]

_INSIDE: Final[contextvars.ContextVar[str | None]] = contextvars.ContextVar(
    "amplifier_hooks_declarative_model_hook", default=None
)

Process = Callable[[Any, str, str], Awaitable[Any]]


class RequestRefusedError(RuntimeError):
    """A ``provider:request`` handler denied a hook's model request."""


@dataclass(frozen=True, slots=True)
class Guards:
    """Where a model-backed hook finds the session's hooks (``coordinator.hooks``) and the
    coordinator's ``process_hook_result`` (deny and approvals of ``tool:pre``)."""

    hooks: Callable[[], Any] | None = None
    process: Process | None = None

    @classmethod
    def of(cls, coordinator: Any) -> Guards:
        """The guards of ``coordinator`` (none when it has no hooks)."""
        if coordinator is None or getattr(coordinator, "hooks", None) is None:
            return cls()
        process = getattr(coordinator, "process_hook_result", None)
        return cls(lambda: getattr(coordinator, "hooks", None), process)

    def registry(self) -> Any:
        """The session's hook registry, or ``None``."""
        return self.hooks() if self.hooks is not None else None


def inside_model_hook() -> str | None:
    """The label of the model-backed hook whose own request or tool call is being guarded,
    when this code runs inside it; else ``None``."""
    return _INSIDE.get()


@contextmanager
def inside(label: str) -> Iterator[None]:
    """Mark the code in the block as a model-backed hook's own request or tool call."""
    token = _INSIDE.set(label)
    try:
        yield
    finally:
        _INSIDE.reset(token)


def _usable(messages: object) -> bool:
    return isinstance(messages, list) and all(
        isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in messages
    )


async def guarded_complete(
    provider: Any, request: ChatRequest, *, guards: Guards | None, label: str, provider_name: str
) -> Any:
    """``await provider.complete(request)`` after ``provider:request`` (see the module
    docstring).

    :raises RequestRefusedError: a handler denied the request.
    """
    hooks = guards.registry() if guards is not None else None
    if hooks is not None:
        from amplifier_core.message_models import Message

        messages = [m.model_dump(mode="json", exclude_none=True) for m in request.messages]
        data = {
            "provider": provider_name,
            "model": request.model,
            "messages": messages,
            "tools": [t.name for t in request.tools or ()],
            "hook": label,
        }
        with inside(label):
            result = await hooks.emit("provider:request", data)
        if getattr(result, "action", None) == "deny":
            reason = getattr(result, "reason", None) or "no reason given"
            raise RequestRefusedError(f"a provider:request handler refused the request: {reason}")
        changed = (getattr(result, "data", None) or {}).get("messages")
        if changed is not None and changed != messages:
            if not _usable(changed):
                raise RequestRefusedError(
                    "a provider:request handler changed the messages into something that is "
                    "not a list of messages; the request was not sent"
                )
            request = request.model_copy(
                update={"messages": [Message.model_validate(dict(m)) for m in changed]}
            )
    return await provider.complete(request)


def _tool_data(
    name: str, tool_input: dict[str, Any], call_id: str, label: str, **more: Any
) -> dict[str, Any]:
    """The event data of one of an agent hook's tool calls, under its names and their legacy
    copies, as the orchestrator emits them (``more`` before the hook's label)."""
    return {**tool_call_fields(name, tool_input, call_id), **more, "hook": label}


async def guarded_tool_pre(
    tool_input: dict[str, Any], name: str, call_id: str, *, guards: Guards | None, label: str
) -> tuple[dict[str, Any] | None, str | None]:
    """``tool:pre`` for one of an agent hook's tool calls: the input to run (a handler may
    have changed it) or ``None`` with the reason it was denied."""
    hooks = guards.registry() if guards is not None else None
    if hooks is None:
        return tool_input, None
    with inside(label):
        result = await hooks.emit("tool:pre", _tool_data(name, tool_input, call_id, label))
        process = guards.process if guards is not None else None
        if process is not None:
            result = await process(result, "tool:pre", label)
    if getattr(result, "action", None) == "deny":
        return None, getattr(result, "reason", None) or "denied by a tool:pre hook"
    changed = (getattr(result, "data", None) or {}).get("tool_input")
    return (changed if isinstance(changed, dict) else tool_input), None


async def guarded_tool_post(
    result: dict[str, Any],
    tool_input: dict[str, Any],
    name: str,
    call_id: str,
    *,
    guards: Guards | None,
    label: str,
) -> dict[str, Any]:
    """``tool:post`` for one of an agent hook's tool calls: the result the model reads (a
    handler such as hooks-redaction may have changed it)."""
    hooks = guards.registry() if guards is not None else None
    if hooks is None:
        return result
    data = _tool_data(name, tool_input, call_id, label, tool_result=result, result=result)
    with inside(label):
        post = await hooks.emit("tool:post", data)
    if getattr(post, "action", None) == "deny":
        reason = getattr(post, "reason", None) or "withheld by a tool:post hook"
        return {"success": False, "output": None, "error": {"message": reason}}
    changed = (getattr(post, "data", None) or {}).get("tool_result")
    return changed if isinstance(changed, dict) else result
