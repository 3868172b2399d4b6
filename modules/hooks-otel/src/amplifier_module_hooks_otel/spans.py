"""The span tree of a session, built from its events and its handler runs.

session (``amplifier.session``) > turn (``amplifier.turn``, ``prompt:submit`` to
``prompt:complete``) > provider call (``chat {model}``) and tool call
(``execute_tool {tool}``) > hook runs (``hook {name}``), with approvals
(``approval_pending``) under the call they gate, and the instant events of
colombod/amplifier-module-hooks-otel (``policy_violation``, ``artifact_read`` ...) as short
spans. A child session (``session:fork``) continues the trace of the span its parent was in.
Names and attributes follow the OpenTelemetry GenAI semantic conventions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from .config import MODULE_ID, OtelConfig

if TYPE_CHECKING:
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    from .instruments import Instruments

__all__ = ["ENDS", "STARTS", "SessionTracer", "current_traceparent", "parent_of"]

_propagators: list[TraceContextTextMapPropagator] = []


def _propagator() -> TraceContextTextMapPropagator:
    """The W3C trace-context propagator, made (and its module imported) at first use."""
    if not _propagators:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        _propagators.append(TraceContextTextMapPropagator())
    return _propagators[0]


_ns = time.time_ns

# session id -> how to read the context a child session of it starts in (process-wide:
# a child session is another coordinator, with a mount of its own)
_LIVE: dict[str, Callable[[], Context | None]] = {}


def parent_of(session_id: str | None) -> Context | None:
    """The context a child of ``session_id`` continues, when that session runs here."""
    if not session_id:
        return None
    getter = _LIVE.get(session_id)
    return getter() if getter is not None else None


def current_traceparent(context: Context | None) -> str | None:
    """``context`` as a W3C ``traceparent`` header value."""
    if context is None:
        return None
    carrier: dict[str, str] = {}
    _propagator().inject(carrier, context=context)
    return carrier.get("traceparent")


_DECISIONS: Final = frozenset({"continue", "deny", "ask_user", "modify", "inject_context"})
_INSTANT: Final = {
    "policy:violation": "policy_violation",
    "artifact:read": "artifact_read",
    "artifact:write": "artifact_write",
    "context:compaction": "context_compaction",
    "context:include": "context_include",
    "cancel:requested": "cancellation",
    "hook:observed": "hook_observed",
}

_INSTANT_KEYS: Final = ("tool_name", "hook", "path", "reason", "source")
# observe mode: the would-have decision, and the event it was about
_OBSERVED_KEYS: Final = ("tool_name", "hook", "module_id", "decision", "reason", "event")


@dataclass
class _Open:
    span: Span
    started: float  # perf_counter, for the duration metrics
    attributes: dict[str, Any] = field(default_factory=dict)
    _context: Context | None = None

    @property
    def context(self) -> Context:
        """The context whose current span is this one (made once: children share it)."""
        if self._context is None:
            self._context = trace.set_span_in_context(self.span)
        return self._context


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except Exception:
        return str(value)


class SessionTracer:
    """Spans and metrics for the session(s) whose events reach one mount."""

    def __init__(
        self,
        config: OtelConfig,
        tracer: Tracer | None,
        instruments: Instruments | None,
        redact: Callable[[str], str],
    ) -> None:
        self.config = config
        self.tracer = tracer
        self.metrics = instruments
        self.redact = redact
        self.session: _Open | None = None
        self.session_id: str | None = None
        self.turn: _Open | None = None
        self.provider: _Open | None = None
        self.approval: _Open | None = None
        self.tools: dict[str, _Open] = {}
        self.plan: _Open | None = None

    # ------------------------------------------------------------------ helpers

    def _start(
        self,
        name: str,
        parent: _Open | None,
        attributes: dict[str, Any],
        kind: SpanKind = SpanKind.INTERNAL,
        context: Context | None = None,
    ) -> _Open:
        assert self.tracer is not None
        if context is None and parent is not None:
            context = parent.context
        span = self.tracer.start_span(name, context=context, kind=kind, attributes=attributes)
        return _Open(span, time.perf_counter(), attributes)

    def _content(self, value: Any) -> str:
        text = self.redact(_text(value))
        limit = self.config.max_content_chars
        return text if len(text) <= limit else text[:limit] + "...[truncated]"

    def innermost(self) -> _Open | None:
        """The span the session is in now (a running tool, an approval, a provider call ...)."""
        if self.tools:
            return next(reversed(self.tools.values()))
        return self.approval or self.provider or self.turn or self.session

    def context(self) -> Context | None:
        inner = self.innermost()
        return inner.context if inner is not None else None

    def traceparent(self) -> str | None:
        return current_traceparent(self.context())

    def _session_span(self, data: dict[str, Any], kind: str = "new") -> _Open | None:
        if self.tracer is None:
            return None
        if self.session is not None:
            return self.session
        session_id = str(data.get("session_id") or "")
        parent_id = data.get("parent_id") or data.get("parent")
        context = parent_of(str(parent_id)) if parent_id else None
        if context is None and self.config.inherit_traceparent:
            import os

            header = os.environ.get("TRACEPARENT")
            if header:
                context = _propagator().extract({"traceparent": header})
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": "amplifier",
            "gen_ai.conversation.id": session_id,
            "amplifier.session.id": session_id,
            "amplifier.session.type": kind,
        }
        if parent_id:
            attributes["amplifier.session.parent_id"] = str(parent_id)
        self.session = self._start(
            "amplifier.session", None, attributes, context=context or Context()
        )
        self.session_id = session_id
        if session_id:
            _LIVE[session_id] = self.context
        if self.metrics is not None:
            self.metrics.sessions.add(1, {"amplifier.session.type": kind})
        return self.session

    def _end(self, opened: _Open | None, error: str | None = None) -> None:
        if opened is None:
            return
        if error is not None:
            opened.span.set_status(Status(StatusCode.ERROR, error))
        opened.span.end()

    # ------------------------------------------------------------------ event handlers

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        """Start, annotate or end the spans ``event`` concerns (called first on each event)."""
        if self.tracer is None:
            return
        handler = _STARTS.get(event)
        if handler is not None:
            handler(self, event, data)
        elif event in _INSTANT:
            self._instant(event, data)

    def on_event_end(self, event: str, data: dict[str, Any]) -> None:
        """End the spans ``event`` closes (called last on each event)."""
        if self.tracer is None:
            return
        handler = _ENDS.get(event)
        if handler is not None:
            handler(self, event, data)

    def _on_session_start(self, event: str, data: dict[str, Any]) -> None:
        kind = {"session:fork": "fork", "session:resume": "resume"}.get(event, "new")
        self._session_span(data, kind)

    def _on_session_end(self, event: str, data: dict[str, Any]) -> None:
        self.close(str(data.get("status") or "completed"))

    def close(self, status: str = "completed") -> None:
        """End every open span (session end, or the module's cleanup)."""
        for opened in list(self.tools.values()):
            self._end(opened, "the session ended before the tool call finished")
        self.tools.clear()
        self._end(self.approval)
        self._end(self.provider)
        self._end(self.plan)
        self._end(self.turn)
        self.approval = self.provider = self.plan = self.turn = None
        if self.session is not None:
            self.session.span.set_attribute("amplifier.session.status", status)
            if self.metrics is not None:
                elapsed = time.perf_counter() - self.session.started
                self.metrics.session_duration.record(elapsed, {"amplifier.session.status": status})
            self._end(self.session)
            self.session = None
        if self.session_id:
            _LIVE.pop(self.session_id, None)

    def _on_prompt_submit(self, event: str, data: dict[str, Any]) -> None:
        session = self._session_span(data)
        self._end(self.turn)
        prompt = data.get("prompt")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": self.session_id or "",
            "amplifier.session.id": self.session_id or "",
        }
        if isinstance(data.get("turn"), int):
            attributes["amplifier.turn.number"] = data["turn"]
        if isinstance(prompt, str):
            attributes["amplifier.prompt.length"] = len(prompt)
            if self.config.capture_content:
                attributes["gen_ai.input.messages"] = self._content(
                    [{"role": "user", "parts": [{"type": "text", "content": prompt}]}]
                )
        self.turn = self._start("amplifier.turn", session, attributes)

    def _on_prompt_complete(self, event: str, data: dict[str, Any]) -> None:
        if self.turn is None:
            return
        for opened in list(self.tools.values()):
            self._end(opened)
        self.tools.clear()
        self._end(self.provider)
        self.provider = None
        status = data.get("status")
        if isinstance(status, str):
            self.turn.span.set_attribute("amplifier.turn.status", status)
        if self.config.capture_content and isinstance(data.get("response"), str):
            self.turn.span.set_attribute(
                "gen_ai.output.messages",
                self._content(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "text", "content": data["response"]}],
                        }
                    ]
                ),
            )
        self._end(self.turn, "turn failed" if status == "error" else None)
        if self.metrics is not None:
            self.metrics.turns.add(1, {"amplifier.turn.status": str(status or "completed")})
        self.turn = None

    def _on_provider_request(self, event: str, data: dict[str, Any]) -> None:
        self._end(self.provider)
        provider = str(data.get("provider") or "unknown")
        model = str(data.get("model") or "")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.conversation.id": self.session_id or "",
        }
        if model:
            attributes["gen_ai.request.model"] = model
        if self.config.capture_content and data.get("messages") is not None:
            attributes["gen_ai.input.messages"] = self._content(data["messages"])
        parent = self.turn or self._session_span(data)
        name = f"chat {model}" if model else "chat"
        self.provider = self._start(name, parent, attributes, SpanKind.CLIENT)

    def _on_provider_response(self, event: str, data: dict[str, Any]) -> None:
        opened = self.provider
        if opened is None:
            return
        span = opened.span
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        assert isinstance(usage, dict)
        metric_attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": opened.attributes.get("gen_ai.provider.name", "unknown"),
            "gen_ai.request.model": opened.attributes.get("gen_ai.request.model", ""),
        }
        for key, kind in (("input_tokens", "input"), ("output_tokens", "output")):
            value = usage.get(key)
            if isinstance(value, int):
                span.set_attribute(f"gen_ai.usage.{key}", value)
                if self.metrics is not None:
                    self.metrics.token_usage.record(
                        value, {**metric_attributes, "gen_ai.token.type": kind}
                    )
        response = data.get("response") if isinstance(data.get("response"), dict) else {}
        assert isinstance(response, dict)
        stop = response.get("stop_reason")
        if isinstance(stop, str):
            span.set_attribute("gen_ai.response.finish_reasons", [stop])
        if self.config.capture_content and response.get("content") is not None:
            span.set_attribute("gen_ai.output.messages", self._content(response.get("content")))
        error = None
        if event == "provider:error":
            failure = data.get("error")
            error_type = (
                failure.get("type") if isinstance(failure, dict) else type(failure).__name__
            )
            span.set_attribute("error.type", str(error_type or "_OTHER"))
            message = failure.get("message") if isinstance(failure, dict) else failure
            error = self.redact(str(message or error_type))[:500]
            metric_attributes["error.type"] = str(error_type or "_OTHER")
        if self.metrics is not None:
            elapsed = time.perf_counter() - opened.started
            self.metrics.operation_duration.record(elapsed, metric_attributes)
        self._end(opened, error)
        self.provider = None

    def _on_tool_pre(self, event: str, data: dict[str, Any]) -> None:
        name = str(data.get("tool_name") or data.get("tool") or "unknown")
        call_id = str(data.get("tool_call_id") or f"call-{len(self.tools)}")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.conversation.id": self.session_id or "",
            "amplifier.tool.name": name,
            "tool.name": name,
        }
        if self.config.capture_content and data.get("tool_input") is not None:
            attributes["gen_ai.tool.call.arguments"] = self._content(data["tool_input"])
        parent = self.provider or self.turn or self._session_span(data)
        self._end(self.tools.pop(call_id, None))
        self.tools[call_id] = self._start(f"execute_tool {name}", parent, attributes)

    def _on_tool_end(self, event: str, data: dict[str, Any]) -> None:
        call_id = str(data.get("tool_call_id") or "")
        opened = self.tools.pop(call_id, None)
        if opened is None:
            return
        error = None
        result = data.get("tool_result")
        success = event == "tool:post" and not (
            isinstance(result, dict) and result.get("success") is False
        )
        opened.span.set_attribute("tool.success", success)
        if event == "tool:error":
            failure = data.get("error")
            kind = failure.get("type") if isinstance(failure, dict) else None
            message = failure.get("message") if isinstance(failure, dict) else failure
            opened.span.set_attribute("error.type", str(kind or "_OTHER"))
            error = self.redact(str(message or kind or "tool failed"))[:500]
        if self.config.capture_content and result is not None:
            opened.span.set_attribute("gen_ai.tool.call.result", self._content(result))
        if self.metrics is not None:
            elapsed = time.perf_counter() - opened.started
            attributes = {"gen_ai.tool.name": opened.attributes["gen_ai.tool.name"]}
            self.metrics.tool_duration.record(elapsed, {**attributes, "tool.success": success})
        self._end(opened, error)

    def _on_violation(self, event: str, data: dict[str, Any]) -> None:
        """A denied call: its tool span ends, marked denied; the instant span records it."""
        self._instant(event, data)
        if data.get("event") != "tool:pre" or not self.tools:
            return
        name = data.get("tool_name")
        for call_id, opened in reversed(self.tools.items()):
            if opened.attributes.get("gen_ai.tool.name") == name:
                opened.span.set_attribute("amplifier.tool.denied", True)
                reason = data.get("reason")
                if isinstance(reason, str):
                    opened.span.set_attribute("amplifier.tool.denial_reason", self.redact(reason))
                self._end(self.tools.pop(call_id))
                return

    def _on_approval_required(self, event: str, data: dict[str, Any]) -> None:
        self._end(self.approval)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "approval",
            "amplifier.session.id": self.session_id or "",
        }
        for key, attribute in (
            ("tool_name", "amplifier.approval.tool"),
            ("hook", "amplifier.approval.hook"),
            ("source", "amplifier.approval.hook"),
            ("event", "amplifier.approval.event"),
        ):
            value = data.get(key)
            if isinstance(value, str):
                attributes[attribute] = value
        prompt = data.get("prompt")
        if isinstance(prompt, str):
            attributes["amplifier.approval.prompt"] = self._content(prompt)
        options = data.get("options")
        if isinstance(options, list):
            attributes["amplifier.approval.options"] = [str(o) for o in options]
        parent = self.innermost() or self._session_span(data)
        self.approval = self._start("approval_pending", parent, attributes)

    def _on_approval_end(self, event: str, data: dict[str, Any]) -> None:
        opened = self.approval
        if opened is None:
            return
        span = opened.span
        granted = event == "approval:granted"
        span.set_attribute("amplifier.approval.result", "granted" if granted else "denied")
        for key, attribute in (
            ("answer", "amplifier.approval.answer"),
            ("why", "amplifier.approval.why"),
            ("decision", "amplifier.approval.decision"),
        ):
            value = data.get(key)
            if isinstance(value, str):
                span.set_attribute(attribute, self.redact(value))
        if isinstance(data.get("cached"), bool):
            span.set_attribute("amplifier.approval.cached", data["cached"])
        reason = data.get("reason")
        if not granted and isinstance(reason, str):
            span.set_attribute("amplifier.approval.denial_reason", self.redact(reason))
        waited = time.perf_counter() - opened.started
        span.set_attribute("amplifier.approval.wait_ms", round(waited * 1000, 3))
        self._end(opened)
        self.approval = None

    def _on_plan_start(self, event: str, data: dict[str, Any]) -> None:
        self._end(self.plan)
        attributes = {"gen_ai.operation.name": "plan"}
        self.plan = self._start("plan", self.turn or self._session_span(data), attributes)

    def _on_plan_end(self, event: str, data: dict[str, Any]) -> None:
        self._end(self.plan)
        self.plan = None

    def _instant(self, event: str, data: dict[str, Any]) -> None:
        name = _INSTANT[event]
        attributes: dict[str, Any] = {"gen_ai.operation.name": name, "amplifier.event": event}
        keys = _OBSERVED_KEYS if event == "hook:observed" else _INSTANT_KEYS
        for key in keys:
            value = data.get(key)
            if isinstance(value, str | int | float | bool):
                attributes[f"amplifier.{name}.{key}"] = (
                    self.redact(value) if isinstance(value, str) else value
                )
        parent = self.innermost() or self._session_span(data)
        self._end(self._start(name, parent, attributes))

    # ------------------------------------------------------------------ handler runs

    def on_run(self, run: Any) -> None:
        """A span and the metrics of one hook handler run (a :class:`HandlerRun`)."""
        name: str = run.handler
        if name == MODULE_ID:
            return
        event: str = run.event
        decision = run.action if run.action in _DECISIONS else "continue"
        if self.metrics is not None:
            self.metrics.hook_duration.record(
                run.duration, {"hook.name": name, "hook.event": event}
            )
            self.metrics.decisions[(name, decision)] += 1
        if self.tracer is None or not self.config.hook_spans:
            return
        parent = self._parent_for(event, run.data)
        if parent is None:
            return
        attributes: dict[str, Any] = {
            "hook.name": name,
            "hook.event": event,
            "hook.decision": decision,
        }
        reason = run.reason
        if decision == "deny" and isinstance(reason, str):
            attributes["hook.reason"] = self.redact(reason)[:1000]
        if run.failure is not None:
            attributes["hook.failure"] = run.failure
            attributes["error.type"] = "timeout" if run.failure == "timeout" else run.failure
        ended = int(run.ended * 1e9)
        started = ended - int(run.duration * 1e9)
        assert self.tracer is not None
        span = self.tracer.start_span(
            f"hook {name}",
            context=parent.context,
            attributes=attributes,
            start_time=started,
        )
        if run.failure is not None:
            span.set_status(Status(StatusCode.ERROR, self.redact(str(run.error))[:500]))
        span.end(end_time=ended)

    def on_receipt(self, receipt: Mapping[str, Any]) -> None:
        """A receipt (``amplifier_core.receipts``) as an ``amplifier.receipt`` event on the
        span of its event (the tool call's span for a tool event), its fields as
        ``amplifier.receipt.*`` attributes, free text redacted."""
        if self.tracer is None or receipt.get("hook") == MODULE_ID:
            return
        event = str(receipt.get("event") or "")
        call = receipt.get("tool_call_id")
        parent = self._parent_for(event, {"tool_call_id": call} if call is not None else {})
        if parent is None:
            return
        attributes: dict[str, Any] = {}
        for key, value in receipt.items():
            if key in _RECEIPT_SKIPPED or value is None:
                continue
            if isinstance(value, Mapping):
                for name, digest in value.items():
                    attributes[f"amplifier.receipt.{key}.{name}"] = str(digest)
            elif isinstance(value, str):
                redacted = self.redact(value) if key in _RECEIPT_TEXT else value
                attributes[f"amplifier.receipt.{key}"] = redacted[:1000]
            elif isinstance(value, bool | int | float):
                attributes[f"amplifier.receipt.{key}"] = value
        parent.span.add_event("amplifier.receipt", attributes)

    def _parent_for(self, event: str, data: dict[str, Any]) -> _Open | None:
        if event.startswith("tool:"):
            call_id = data.get("tool_call_id")
            opened = self.tools.get(str(call_id)) if call_id else None
            if opened is not None:
                return opened
        elif event.startswith("approval:") and self.approval is not None:
            return self.approval
        elif (
            event.startswith(("provider:", "llm:", "content_block:", "thinking:"))
            and self.provider is not None
        ):
            return self.provider
        return self.innermost()


_RECEIPT_SKIPPED: Final = frozenset({"ts", "type", "prev"})
_RECEIPT_TEXT: Final = frozenset({"why"})
"""Receipt fields of free text, redacted before they leave."""

_Handler = Callable[[SessionTracer, str, dict[str, Any]], None]
_STARTS: Final[dict[str, _Handler]] = {
    "session:start": SessionTracer._on_session_start,
    "session:fork": SessionTracer._on_session_start,
    "session:resume": SessionTracer._on_session_start,
    "prompt:submit": SessionTracer._on_prompt_submit,
    "provider:request": SessionTracer._on_provider_request,
    "tool:pre": SessionTracer._on_tool_pre,
    "approval:required": SessionTracer._on_approval_required,
    "plan:start": SessionTracer._on_plan_start,
    "policy:violation": SessionTracer._on_violation,
}
_ENDS: Final[dict[str, _Handler]] = {
    "session:end": SessionTracer._on_session_end,
    "prompt:complete": SessionTracer._on_prompt_complete,
    "provider:response": SessionTracer._on_provider_response,
    "provider:error": SessionTracer._on_provider_response,
    "tool:post": SessionTracer._on_tool_end,
    "tool:error": SessionTracer._on_tool_end,
    "approval:granted": SessionTracer._on_approval_end,
    "approval:denied": SessionTracer._on_approval_end,
    "plan:end": SessionTracer._on_plan_end,
}


STARTS: Final = frozenset((*_STARTS, *_INSTANT))
"""Events whose handler must run first (it opens or records a span)."""
ENDS: Final = frozenset(_ENDS)
"""Events whose handler must run last (it closes a span)."""
