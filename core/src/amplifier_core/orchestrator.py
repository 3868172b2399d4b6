"""The agent loop of one turn, and how every hook result takes effect in it.

One turn: ``prompt:submit`` -> ``execution:start`` -> (``provider:request`` -> provider ->
``provider:response`` -> for each tool call ``tool:pre`` -> tool -> ``tool:post`` |
``tool:error``)* -> ``prompt:complete`` -> ``execution:end`` -> ``orchestrator:complete``.

What each hook result does here:

- ``deny`` at ``prompt:submit`` ends the turn with the reason shown to the user; at
  ``tool:pre`` the tool does not run and the model sees the reason as that call's error
  result. Every deny fires ``policy:violation``.
- ``modify`` at ``prompt:submit`` changes the prompt, at ``tool:pre`` the tool input, at
  ``tool:post`` the tool result, at ``provider:request`` the messages the provider receives.
- ``ask_user`` at ``prompt:submit`` and ``tool:pre`` goes to the approval system (through the
  coordinator), then allow or deny; where nothing can be gated (``provider:request``,
  ``tool:post``, ``tool:error``, ``session:start``, ``session:resume``) it is ignored and the
  user is never asked.
- ``inject_context``: persistent injections enter the context (with provenance) and so every
  later request; ephemeral ones reach only the next provider request, appended to the last
  tool result when the hook asked for that. Injections made at ``provider:request`` reach that
  very request. Injections made at ``tool:pre`` enter the context after the results of the
  response's tool calls, so that a tool call is never separated from its result.
- user messages reach the display (through the coordinator).

A hook result the runtime cannot act on (a ``modify`` whose data has the wrong shape, a result
whose processing fails) is ignored with a warning, so a hook never crashes a turn; a gate
(``deny`` / ``ask_user``) whose processing fails denies.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from . import events as ev
from .chat import ChatRequest, ChatResponse, ProviderError
from .coordinator import InjectionTooLargeError
from .models import HookResult, ToolResult

if TYPE_CHECKING:
    from .session import AmplifierSession

__all__ = ["ORCHESTRATOR_NAME", "TurnOutcome", "TurnRunner", "render_tool_result"]

logger = logging.getLogger(__name__)

ORCHESTRATOR_NAME = "amplifier-hooks-loop"
_MENTION = re.compile(r"(?<![\w/])@([\w./-]+)")
_MAX_MENTION_BYTES = 100_000
TurnStatus = Literal["completed", "denied", "cancelled", "error", "incomplete"]


@dataclass(slots=True)
class TurnOutcome:
    """How a turn ended and what the model said."""

    status: TurnStatus
    response: str = ""
    iterations: int = 0
    usage: dict[str, int] = field(default_factory=lambda: {"input_tokens": 0, "output_tokens": 0})
    reason: str | None = None
    error: dict[str, Any] | None = None


def render_tool_result(result: dict[str, Any]) -> str:
    """The text the model sees for a tool result dict ``{success, output, error}``."""
    output = result.get("output")
    text = output if isinstance(output, str) else json.dumps(output, default=str)
    if result.get("success", True):
        return "" if output is None else text
    error = result.get("error") or {}
    message = error.get("message", "tool failed") if isinstance(error, dict) else str(error)
    return f"Error: {message}" + ("" if output is None else f"\n{text}")


def _as_result_dict(result: Any) -> dict[str, Any]:
    if isinstance(result, ToolResult):
        return {"success": result.success, "output": result.output, "error": result.error}
    if isinstance(result, dict) and "success" in result:
        return {**result, "success": bool(result["success"])}
    return {"success": True, "output": result, "error": None}


def _whole_number(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _split_injections(result: HookResult) -> tuple[HookResult, HookResult | None]:
    """``result`` without its injections, and a result that carries only them (or None)."""
    if not result.context_injections:
        return result, None
    gate = result.model_copy(update={"context_injections": [], "context_injection": None})
    later = HookResult(context_injections=list(result.context_injections), source=result.source)
    return gate, later


def _tool_event_data(
    name: str, tool_input: dict[str, Any], call_id: str, group: str
) -> dict[str, Any]:
    """The data every tool event carries, legacy copies (``tool``, ``input``) included."""
    return {
        "tool_name": name,
        "tool": name,
        "tool_input": tool_input,
        "input": tool_input,
        "tool_call_id": call_id,
        "parallel_group_id": group,
    }


def _readable(response: Any, provider: str) -> ChatResponse:
    """``response`` as a :class:`ChatResponse`, or a TypeError saying why it is not one."""
    dump = getattr(response, "model_dump", None)
    raw = dump() if callable(dump) else response
    try:
        return ChatResponse.model_validate(raw)
    except ValidationError as err:
        raise TypeError(
            f"provider {provider!r} returned {type(response).__name__}, not a ChatResponse: "
            f"{err.error_count()} problem(s), first: {err.errors()[0]['msg']}"
        ) from err


def _usable_messages(messages: object) -> bool:
    return isinstance(messages, list) and all(
        isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages
    )


class TurnRunner:
    """Runs turns for one session; holds nothing between turns but the session itself."""

    def __init__(self, session: AmplifierSession) -> None:
        self.session = session
        self.coordinator = session.coordinator
        self.hooks = session.coordinator.hooks
        self.running_tools: list[str] = []
        self.outcome: TurnOutcome | None = None  # of the running (else the last) turn
        self.finishing = False  # the turn stopped and fires its closing events

    # -- hook plumbing -------------------------------------------------------------------

    async def process(self, result: HookResult, event: str, *, gate: bool = True) -> HookResult:
        """Route a combined result through the coordinator; never let it crash a turn.

        ``gate`` says whether ``event`` can block an operation; where it cannot, an
        ``ask_user`` is ignored instead of asking the user a question whose answer is unused.
        """
        if not gate and result.action == "ask_user":
            logger.warning(
                "hook %r asked the user on %r, where nothing can be gated; ignored",
                result.source,
                event,
            )
            result = result.model_copy(update={"action": "continue"})
        try:
            return await self.coordinator.process_hook_result(result, event, "hooks")
        except InjectionTooLargeError as err:
            logger.error("%s", err)
            await self._notify(str(err), "error", "session")
            return HookResult(action="continue", data=result.data)
        except Exception as err:
            message = (
                f"acting on the hook result of {event!r} (action {result.action!r}) failed: "
                f"{type(err).__name__}: {err}"
            )
            logger.error("%s", message, exc_info=True)
            await self._notify(message, "error", "session")
            if result.action in ("deny", "ask_user"):  # a gate that cannot be decided denies
                return HookResult(
                    action="deny", reason=message, data=result.data, source=result.source
                )
            return HookResult(action="continue", data=result.data)

    async def _violation(self, event: str, result: HookResult, tool_name: str | None) -> None:
        await self.hooks.emit(
            ev.POLICY_VIOLATION,
            {
                "event": event,
                "hook": result.source,
                "reason": result.reason or "denied",
                "tool_name": tool_name,
            },
        )

    async def _notify(self, message: str, level: str, source: str) -> None:
        await self.hooks.emit(
            ev.USER_NOTIFICATION, {"message": message, "level": level, "source": source}
        )

    # -- a turn --------------------------------------------------------------------------

    async def run(self, prompt: str, turn: int) -> TurnOutcome:
        """Run one turn; never raises for a hook, tool or provider failure.

        While :attr:`finishing` is true the turn is past the point where a cancel can stop
        it: it is firing its closing events, which a cancel must not cut short.
        """
        started = time.perf_counter()
        outcome = self.outcome = TurnOutcome(status="completed")
        self.finishing = False
        try:
            submitted = await self.hooks.emit(ev.PROMPT_SUBMIT, {"prompt": prompt, "turn": turn})
            handled = await self.process(submitted, ev.PROMPT_SUBMIT)
        except asyncio.CancelledError:  # an immediate cancel while the prompt was checked
            self.finishing = True
            outcome.status = "cancelled"
            await self._cancel_completed()
            raise
        if handled.action == "deny":
            self.finishing = True
            await self._violation(ev.PROMPT_SUBMIT, handled, None)
            reason = handled.reason or "the prompt was denied by a hook"
            await self._show(f"Prompt blocked: {reason}", "warning")
            outcome.status = "denied"
            outcome.reason = reason
            return outcome
        if submitted.data is not None and isinstance(submitted.data.get("prompt"), str):
            prompt = submitted.data["prompt"]

        try:
            await self.hooks.emit(ev.EXECUTION_START, {"prompt": prompt, "turn": turn})
            await self._include_mentions(prompt)
            await self.coordinator.context.add_message({"role": "user", "content": prompt})
            await self._loop(outcome, turn)
        except asyncio.CancelledError:
            outcome.status = "cancelled"
            raise
        finally:
            self.finishing = True
            await self._finish(outcome, prompt, turn, started)
        return outcome

    async def _cancel_completed(self) -> None:
        await self.hooks.emit(
            ev.CANCEL_COMPLETED, {"was_immediate": self.coordinator.cancel_immediate}
        )

    async def _finish(self, outcome: TurnOutcome, prompt: str, turn: int, started: float) -> None:
        duration = time.perf_counter() - started
        if self.coordinator.cancel_requested or outcome.status == "cancelled":
            outcome.status = "cancelled"
            await self._cancel_completed()
        await self.session.check_memory(None)
        await self.hooks.emit(
            ev.PROMPT_COMPLETE,
            {
                "prompt": prompt,
                "response": outcome.response,
                "turn": turn,
                "duration": duration,
                "iterations": outcome.iterations,
                "usage": dict(outcome.usage),
            },
        )
        execution_status = {"completed": "completed", "cancelled": "cancelled"}.get(
            outcome.status, "error" if outcome.status == "error" else "completed"
        )
        await self.hooks.emit(
            ev.EXECUTION_END,
            {"response": outcome.response, "status": execution_status, "turn": turn},
        )
        loop_status = {
            "completed": "success",
            "cancelled": "cancelled",
            "error": "error",
            "incomplete": "incomplete",
        }.get(outcome.status, "success")
        await self.hooks.emit(
            ev.ORCHESTRATOR_COMPLETE,
            {
                "orchestrator": ORCHESTRATOR_NAME,
                "turn_count": outcome.iterations,
                "iterations": outcome.iterations,
                "status": loop_status,
                "duration_ms": int(duration * 1000),
                "tokens": outcome.usage["input_tokens"] + outcome.usage["output_tokens"],
            },
        )

    async def _show(self, message: str, level: Literal["info", "warning", "error"]) -> None:
        display = self.coordinator.display_system
        if display is None:
            logger.warning("%s", message)
            return
        shown = display.show_message(message=message, level=level, source="session")
        if asyncio.iscoroutine(shown):
            await shown

    async def _include_mentions(self, prompt: str) -> None:
        workspace = self.session.workspace
        for mention in dict.fromkeys(_MENTION.findall(prompt)):
            try:
                path = (workspace / mention).resolve()
                if not path.is_file():
                    continue
                with path.open("rb") as stream:
                    data = stream.read(_MAX_MENTION_BYTES)
            except (OSError, RuntimeError) as err:  # unreadable, or a symlink loop
                logger.warning("@%s is not included: %s", mention, err)
                continue
            text = data.decode("utf-8", errors="replace")
            await self.coordinator.context.add_message(
                {
                    "role": "user",
                    "content": f"Contents of @{mention}:\n{text}",
                    "metadata": {"source": "mention", "path": str(path)},
                }
            )
            await self.hooks.emit(
                ev.CONTEXT_INCLUDE, {"path": str(path), "source": "mention", "size": len(data)}
            )

    async def _loop(self, outcome: TurnOutcome, turn: int) -> None:
        max_iterations = self.session.max_iterations
        while True:
            if self.coordinator.cancel_requested:
                outcome.status = "cancelled"
                return
            if outcome.iterations >= max_iterations:
                outcome.status = "incomplete"
                outcome.reason = f"stopped after {max_iterations} provider requests"
                await self._notify(outcome.reason, "warning", "session")
                return
            outcome.iterations += 1
            response = await self._call_provider(outcome, turn)
            if response is None:
                return
            outcome.response = response.text
            await self.coordinator.context.add_message(response.as_message())
            if not response.tool_calls:
                return
            await self._run_tools(response)

    # -- provider ------------------------------------------------------------------------

    async def _request_messages(self) -> list[dict[str, Any]]:
        context = self.coordinator.context
        messages = await context.get_messages_for_request()
        messages = await self._repair_tool_sequence(messages)
        return messages

    def _with_ephemeral(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` with the ephemeral injections waiting for this request."""
        injections = self.coordinator.take_ephemeral_injections()
        if not injections:
            return messages
        messages = list(messages)
        for injection in injections:
            last = messages[-1] if messages else None
            if injection.append_to_last_tool_result and last and last.get("role") == "tool":
                messages[-1] = {
                    **last,
                    "content": f"{last.get('content', '')}\n\n{injection.content}",
                }
                continue
            messages.append(
                {
                    "role": injection.role,
                    "content": injection.content,
                    "metadata": {
                        "source": "hook",
                        "hook_name": injection.hook_name,
                        "event": injection.event,
                        "ephemeral": True,
                    },
                }
            )
        return messages

    async def _repair_tool_sequence(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
        repairs: list[dict[str, str]] = []
        repaired: list[dict[str, Any]] = []
        for message in messages:
            repaired.append(message)
            calls = message.get("tool_calls") if message.get("role") == "assistant" else None
            if not calls or not isinstance(calls, list):
                continue
            for call in calls:
                call_id = call.get("id") if isinstance(call, dict) else None
                if not isinstance(call_id, str) or call_id in answered:
                    continue
                answered.add(call_id)
                function = call.get("function")
                name = call.get("name") or (
                    function.get("name") if isinstance(function, dict) else None
                )
                name = name if isinstance(name, str) and name else "unknown"
                repairs.append({"tool_call_id": call_id, "tool_name": name})
                repaired.append(
                    {
                        "role": "tool",
                        "tool_call_id": call_id,
                        "name": name,
                        "content": "Error: the tool call was interrupted and has no result",
                        "is_error": True,
                    }
                )
        if not repairs:
            return messages
        await self.coordinator.context.set_messages(repaired)
        await self.hooks.emit(
            ev.PROVIDER_TOOL_SEQUENCE_REPAIRED,
            {
                "provider": self.session.provider.name,
                "repaired_count": len(repairs),
                "repairs": repairs,
            },
        )
        return repaired

    async def _outgoing(
        self, requested: HookResult, messages: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The messages a ``provider:request`` modify asks for, when they are usable."""
        modified = requested.data.get("messages") if requested.data is not None else None
        if modified is None or modified is messages:
            return messages
        if _usable_messages(modified):
            assert isinstance(modified, list)
            return modified
        message = (
            f"a {ev.PROVIDER_REQUEST!r} hook modified the messages into "
            f"{type(modified).__name__} {modified!r:.80}, not a list of messages with a "
            "'role'; the request was sent with the messages as they were"
        )
        logger.error("%s", message)
        await self._notify(message, "warning", "session")
        return messages

    async def _call_provider(self, outcome: TurnOutcome, turn: int) -> ChatResponse | None:
        session = self.session
        provider = session.provider
        tools = session.tool_specs()
        context = self.coordinator.context
        messages = self._with_ephemeral(await self._request_messages())
        request_data = {
            "provider": provider.name,
            "model": provider.model,
            "turn": turn,
            "iteration": outcome.iterations,
            "messages": messages,
            "tools": [t.name for t in tools],
        }
        requested = await self.hooks.emit(ev.PROVIDER_REQUEST, request_data)
        persistent = any(not i.ephemeral for i in requested.context_injections)
        known = len(await context.get_messages()) if persistent else 0
        await self.process(requested, ev.PROVIDER_REQUEST, gate=False)
        outgoing = await self._outgoing(requested, messages)
        if persistent:  # what the hooks just added to the context reaches this request too
            outgoing = [*outgoing, *(await context.get_messages())[known:]]
        outgoing = self._with_ephemeral(outgoing)  # injections made by provider:request hooks
        request = ChatRequest(messages=outgoing, tools=tools, model=provider.model)
        request_id = f"req_{uuid.uuid4().hex[:16]}"
        await self.hooks.emit(
            ev.LLM_REQUEST,
            {
                "provider": provider.name,
                "model": provider.model,
                "request_id": request_id,
                "endpoint": str(getattr(provider, "endpoint", f"{provider.name}:")),
                "request": request.model_dump(),
            },
        )
        session.current_request_id = request_id
        started = time.perf_counter()
        try:
            answer: object = await provider.complete(request)
            response = (
                answer if isinstance(answer, ChatResponse) else _readable(answer, provider.name)
            )
        except asyncio.CancelledError:
            raise
        except Exception as err:
            status = err.status if isinstance(err, ProviderError) else None
            error = {"type": type(err).__name__, "message": str(err)}
            await self.hooks.emit(
                ev.PROVIDER_ERROR,
                {
                    "provider": provider.name,
                    "model": provider.model,
                    "error": error,
                    "status_code": status,
                    "request_id": request_id,
                },
            )
            await self._notify(f"{provider.name} provider failed: {err}", "error", "session")
            outcome.status = "error"
            outcome.error = error
            outcome.response = ""  # the text of an earlier round is not the turn's answer
            return None
        duration = time.perf_counter() - started
        await self.hooks.emit(
            ev.LLM_RESPONSE,
            {
                "provider": provider.name,
                "model": provider.model,
                "request_id": request_id,
                "status_code": 200,
                "response": response.model_dump(),
                "duration": duration,
            },
        )
        await self._emit_blocks(response)
        usage = {
            "input_tokens": response.usage.input_tokens,
            "output_tokens": response.usage.output_tokens,
        }
        for key, value in usage.items():
            outcome.usage[key] += value
        await self.hooks.emit(
            ev.PROVIDER_RESPONSE,
            {
                "provider": provider.name,
                "model": provider.model,
                "turn": turn,
                "iteration": outcome.iterations,
                "response": {
                    "content": response.text,
                    "tool_calls": [
                        {"id": c.id, "name": c.name, "arguments": c.input}
                        for c in response.tool_calls
                    ],
                    "stop_reason": response.stop_reason,
                },
                "usage": usage,
                "tool_calls": bool(response.tool_calls),
                "duration": duration,
            },
        )
        return response

    async def _emit_blocks(self, response: ChatResponse) -> None:
        blocks: list[dict[str, Any]] = []
        if response.thinking:
            blocks.append({"type": "thinking", "thinking": response.thinking})
        if response.text:
            blocks.append({"type": "text", "text": response.text})
        blocks.extend(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.input}
            for c in response.tool_calls
        )
        total = len(blocks)
        for index, block in enumerate(blocks):
            kind = block["type"]
            await self.hooks.emit(
                ev.CONTENT_BLOCK_START,
                {"block_type": kind, "block_index": index, "total_blocks": total},
            )
            if kind == "thinking":
                await self.hooks.emit(
                    ev.THINKING_DELTA, {"block_index": index, "delta": block["thinking"]}
                )
                await self.hooks.emit(
                    ev.THINKING_FINAL, {"block_index": index, "text": block["thinking"]}
                )
            else:
                delta = block["text"] if kind == "text" else json.dumps(block["input"])
                await self.hooks.emit(
                    ev.CONTENT_BLOCK_DELTA,
                    {"block_type": kind, "block_index": index, "delta": delta},
                )
            end: dict[str, Any] = {"block_index": index, "block": block, "total_blocks": total}
            if index == total - 1:
                end["usage"] = response.usage.model_dump()
            await self.hooks.emit(ev.CONTENT_BLOCK_END, end)

    # -- tools ---------------------------------------------------------------------------

    async def _run_tools(self, response: ChatResponse) -> None:
        group = f"group_{uuid.uuid4().hex[:12]}"
        pending: list[tuple[HookResult, str]] = []
        for call in response.tool_calls:
            if self.coordinator.cancel_requested:
                break  # the repair step answers the calls that never ran
            message = await self._run_tool(call.id, call.name, call.input, group, pending)
            await self.coordinator.context.add_message(message)
        for result, event in pending:  # after every result, so tool results stay contiguous
            await self.process(result, event, gate=False)

    async def _run_tool(
        self,
        call_id: str,
        name: str,
        call_input: object,
        group: str,
        pending: list[tuple[HookResult, str]],
    ) -> dict[str, Any]:
        """Run one call; its result message. Results to act on later go to ``pending``."""
        if not isinstance(call_input, dict):  # a provider that skipped validation
            return await self._unusable_input(call_id, name, call_input, group, pending)
        tool_input: dict[str, Any] = call_input
        base = _tool_event_data(name, tool_input, call_id, group)
        pre = await self.hooks.emit(ev.TOOL_PRE, base)
        gate, injections = _split_injections(pre)
        if injections is not None:  # they enter the context after the tool results
            pending.append((injections, ev.TOOL_PRE))
        handled = await self.process(gate, ev.TOOL_PRE)
        if handled.action == "deny":
            await self._violation(ev.TOOL_PRE, handled, name)
            who = f" by hook {handled.source!r}" if handled.source else ""
            reason = handled.reason or "denied"
            content = f"Error: tool call denied{who}: {reason}"
            return self._tool_message(call_id, name, content, error=True)
        if pre.data is not None and pre.data.get("tool_input") is not tool_input:
            modified = pre.data.get("tool_input")
            if isinstance(modified, dict):
                tool_input = modified
            else:
                logger.warning(
                    "a tool:pre hook modified the input of %r into %s, not a dict; ignored",
                    name,
                    type(modified).__name__,
                )
        data = _tool_event_data(name, tool_input, call_id, group)

        tool = self.session.tools.get(name)
        self.running_tools.append(name)
        try:
            if tool is None:
                raise LookupError(f"no tool named {name!r} is mounted")
            raw = await tool.execute(tool_input)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            message = await self._tool_error(data, type(err).__name__, str(err), pending)
            await self.session.check_memory(name)
            return message
        finally:
            self.running_tools.remove(name)

        result = _as_result_dict(raw)
        await self._artifact(name, tool_input, result)
        await self.session.check_memory(name)
        post = await self.hooks.emit(
            ev.TOOL_POST, {**data, "tool_result": result, "result": result}
        )
        if post.data is not None and isinstance(post.data.get("tool_result"), dict):
            result = post.data["tool_result"]
        pending.append((post, ev.TOOL_POST))
        return self._tool_message(
            call_id, name, render_tool_result(result), error=not result.get("success", True)
        )

    async def _unusable_input(
        self,
        call_id: str,
        name: str,
        tool_input: object,
        group: str,
        pending: list[tuple[HookResult, str]],
    ) -> dict[str, Any]:
        """The model's call has input that is not an object: it gets an error, nothing runs."""
        data = _tool_event_data(name, {}, call_id, group)
        kind = type(tool_input).__name__
        message = f"tool input is not a JSON object (got {kind})"
        return await self._tool_error(data, "TypeError", message, pending)

    async def _tool_error(
        self,
        data: dict[str, Any],
        kind: str,
        message: str,
        pending: list[tuple[HookResult, str]],
    ) -> dict[str, Any]:
        """Fire ``tool:error`` (its result is acted on later) and return the model's message."""
        error = {"type": kind, "message": message}
        failed = await self.hooks.emit(ev.TOOL_ERROR, {**data, "error": error})
        pending.append((failed, ev.TOOL_ERROR))
        name, call_id = data["tool_name"], data["tool_call_id"]
        return self._tool_message(call_id, name, f"Error: {kind}: {message}", error=True)

    @staticmethod
    def _tool_message(call_id: str, name: str, content: str, *, error: bool) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": call_id,
            "name": name,
            "content": content,
            "is_error": error,
        }

    async def _artifact(
        self, name: str, tool_input: dict[str, Any], result: dict[str, Any]
    ) -> None:
        if not result.get("success", True) or name not in ("read_file", "write_file", "edit_file"):
            return
        output = result.get("output") if isinstance(result.get("output"), dict) else {}
        assert isinstance(output, dict)
        raw_path = output.get("path") or output.get("file_path") or tool_input.get("file_path")
        if not isinstance(raw_path, str):
            return
        path = Path(raw_path)
        if not path.is_absolute():
            path = self.session.workspace / path
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if name == "read_file":
            read = _whole_number(output.get("bytes_read", size), size)
            await self.hooks.emit(
                ev.ARTIFACT_READ, {"path": str(path), "tool_name": name, "bytes": read}
            )
            return
        await self.hooks.emit(
            ev.ARTIFACT_WRITE,
            {
                "path": str(path),
                "tool_name": name,
                "bytes": _whole_number(output.get("bytes_written", size), size),
                "created": bool(output.get("created", False)),
            },
        )
