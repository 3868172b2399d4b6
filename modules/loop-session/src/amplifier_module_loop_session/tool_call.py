"""The tool calls of a model's answer, each in three steps (:class:`ToolCalls`).

- **gate**: the input must be a JSON object; ``tool:pre`` hooks may deny the call (the model
  sees the deny as the tool's error, ``policy:violation`` fires), modify its input, or ask the
  user (what runs is then what was approved);
- **execute**: the mounted tool runs, known to the cancellation token while it does; a
  failure (or no such tool) fires ``tool:error``;
- **post**: ``artifact:read`` / ``artifact:write`` for the file tools, ``memory:update`` for a
  memory file the tool changed, then ``tool:post``, whose hooks may rewrite the result the
  model sees.

Every call gets exactly one result message, in the order of the calls. The results of
``tool:pre`` injections, ``tool:post`` and ``tool:error`` are acted on after the last
result, so the tool results stay contiguous in the conversation.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amplifier_hooks_util.deep import tree_copy

from amplifier_core import HookResult

from . import names as ev
from .effects import HookEffects
from .results import (
    as_result_dict,
    hook_source,
    render_tool_result,
    tool_event_data,
    tool_message,
    whole_number,
)
from .view import LoopView

__all__ = ["Answered", "ToolCalls"]

logger = logging.getLogger(__name__)

_FILE_TOOLS = ("read_file", "write_file", "edit_file")

Pending = list[tuple[Any, str]]
"""Hook results to act on once every call has its result, with their events."""


@dataclass(frozen=True, slots=True)
class Answered:
    """A call that ends before its next step: the result message the model sees."""

    message: dict[str, Any]


def _split_injections(result: Any) -> tuple[Any, Any | None]:
    """``result`` without its injections, and a result that carries only them (or None)."""
    injections = list(getattr(result, "context_injections", None) or [])
    if not injections:
        return result, None
    gate = result.model_copy(update={"context_injections": [], "context_injection": None})
    later = HookResult(context_injections=injections)
    return gate, later


def _carried_input(name: str, pre: Any, gate: Any, handled: Any, tool_input: Any) -> Any:
    """The input the call runs with after ``tool:pre``: a modify's, or an approved one."""
    carried = pre.data
    if gate.action == "ask_user" and isinstance((handled.data or {}).get("tool_input"), dict):
        carried = handled.data  # what was approved (a PermissionRequest hook may rewrite it)
    if carried is not None and carried.get("tool_input") is not tool_input:
        modified = carried.get("tool_input")
        if isinstance(modified, dict):
            tool_input = modified
        else:
            logger.warning(
                "a tool:pre hook modified the input of %r into %s, not a dict; ignored",
                name,
                type(modified).__name__,
            )
    if gate.action == "ask_user":  # approved: what runs is what was approved
        tool_input = tree_copy(tool_input)
    return tool_input


class ToolCalls:
    """Runs the tool calls of one loop's turns; :attr:`running` names the ones running."""

    def __init__(self, loop: LoopView, effects: HookEffects) -> None:
        self.loop = loop
        self.effects = effects
        self.running: list[str] = []

    async def run_all(self, calls: list[Any], context: Any) -> None:
        """Run ``calls`` in order, each result into ``context``; stop early on a cancel (the
        next request's repair answers the calls that never ran)."""
        group = f"group_{uuid.uuid4().hex[:12]}"
        pending: Pending = []
        for call in calls:
            if self.loop.cancelled:
                break
            message = await self.run(call.id, call.name, call.arguments, group, pending)
            await context.add_message(message)
        for result, event in pending:  # after every result, so tool results stay contiguous
            await self.effects.process(result, event, gate=False)

    async def run(
        self, call_id: str, name: str, call_input: object, group: str, pending: Pending
    ) -> dict[str, Any]:
        """Run one call: gate, execute, post; its result message."""
        tool_input = await self.gate(call_id, name, call_input, group, pending)
        if isinstance(tool_input, Answered):
            return tool_input.message
        data = tool_event_data(name, tool_input, call_id, group)
        result = await self.execute(call_id, name, tool_input, data, pending)
        if isinstance(result, Answered):
            return result.message
        return await self.post(call_id, name, tool_input, data, result, pending)

    # -- gate ----------------------------------------------------------------------------

    async def gate(
        self, call_id: str, name: str, call_input: object, group: str, pending: Pending
    ) -> dict[str, Any] | Answered:
        """The input the call runs with, or its answer when it does not run (an input that
        is not an object, or a ``tool:pre`` deny)."""
        if not isinstance(call_input, dict):  # a provider that skipped validation
            data = tool_event_data(name, {}, call_id, group)
            kind = type(call_input).__name__
            message = f"tool input is not a JSON object (got {kind})"
            return Answered(await self._error(data, "TypeError", message, pending))
        tool_input: dict[str, Any] = call_input
        effects = self.effects
        pre = await effects.hooks.emit(
            ev.TOOL_PRE, tool_event_data(name, tool_input, call_id, group)
        )
        gate, injections = _split_injections(pre)
        if injections is not None:  # they enter the context after the tool results
            pending.append((injections, ev.TOOL_PRE))
        handled = await effects.process(gate, ev.TOOL_PRE)
        if handled.action == "deny":
            await effects.violation(ev.TOOL_PRE, handled, name)
            source = hook_source(handled)
            who = f" by hook {source!r}" if source else ""
            content = f"Error: tool call denied{who}: {handled.reason or 'denied'}"
            return Answered(tool_message(call_id, name, content, error=True))
        carried: dict[str, Any] = _carried_input(name, pre, gate, handled, tool_input)
        return carried

    # -- execute -------------------------------------------------------------------------

    async def execute(
        self,
        call_id: str,
        name: str,
        tool_input: dict[str, Any],
        data: dict[str, Any],
        pending: Pending,
    ) -> dict[str, Any] | Answered:
        """The tool's result as a result dict, or the error the model sees when it failed."""
        tool = self.loop.tools.get(name)
        cancellation = self.loop.kernel.cancellation
        self.running.append(name)
        if cancellation is not None:
            cancellation.register_tool_start(call_id, name)
        try:
            if tool is None:
                raise LookupError(f"no tool named {name!r} is mounted")
            raw = await tool.execute(tool_input)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            failed = await self._error(data, type(err).__name__, str(err), pending)
            await self.loop.check_memory(name)
            return Answered(failed)
        finally:
            self.running.remove(name)
            if cancellation is not None:
                cancellation.register_tool_complete(call_id)
        return as_result_dict(raw)

    # -- post ----------------------------------------------------------------------------

    async def post(
        self,
        call_id: str,
        name: str,
        tool_input: dict[str, Any],
        data: dict[str, Any],
        result: dict[str, Any],
        pending: Pending,
    ) -> dict[str, Any]:
        """Report what the tool did; the result message (as a ``tool:post`` hook left it)."""
        await self._artifact(name, tool_input, result)
        await self.loop.check_memory(name)
        post = await self.effects.hooks.emit(
            ev.TOOL_POST, {**data, "tool_result": result, "result": result}
        )
        if post.data is not None and isinstance(post.data.get("tool_result"), dict):
            rewritten = post.data["tool_result"]
            # the event keeps the tool's own, the model gets the rewrite; an equal copy (a
            # kernel that hands back the data JSON-normalised, keys sorted) changes nothing
            if rewritten != result:
                logger.info(
                    "hook %r rewrote the result of %r (call %s) at tool:post: %d -> %d chars",
                    getattr(post, "source", None) or "hooks",
                    name,
                    call_id,
                    len(render_tool_result(result)),
                    len(render_tool_result(rewritten)),
                )
                result = rewritten
        pending.append((post, ev.TOOL_POST))
        return tool_message(
            call_id, name, render_tool_result(result), error=not result.get("success", True)
        )

    async def _error(
        self, data: dict[str, Any], kind: str, message: str, pending: Pending
    ) -> dict[str, Any]:
        """Fire ``tool:error`` (its result is acted on later) and return the model's message."""
        error = {"type": kind, "message": message}
        failed = await self.effects.hooks.emit(ev.TOOL_ERROR, {**data, "error": error})
        pending.append((failed, ev.TOOL_ERROR))
        name, call_id = data["tool_name"], data["tool_call_id"]
        return tool_message(call_id, name, f"Error: {kind}: {message}", error=True)

    async def _artifact(
        self, name: str, tool_input: dict[str, Any], result: dict[str, Any]
    ) -> None:
        if not result.get("success", True) or name not in _FILE_TOOLS:
            return
        output = result.get("output") if isinstance(result.get("output"), dict) else {}
        assert isinstance(output, dict)
        raw_path = output.get("path") or output.get("file_path") or tool_input.get("file_path")
        if not isinstance(raw_path, str):
            return
        path = Path(raw_path)
        if not path.is_absolute():
            path = self.loop.working_dir / path
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        hooks = self.effects.hooks
        if name == "read_file":
            read = whole_number(output.get("bytes_read", size), size)
            await hooks.emit(
                ev.ARTIFACT_READ, {"path": str(path), "tool_name": name, "bytes": read}
            )
            return
        await hooks.emit(
            ev.ARTIFACT_WRITE,
            {
                "path": str(path),
                "tool_name": name,
                "bytes": whole_number(output.get("bytes_written", size), size),
                "created": bool(output.get("created", False)),
            },
        )
