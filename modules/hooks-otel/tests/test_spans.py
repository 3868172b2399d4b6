"""Spans and metrics from emitted events, into the SDK's in-memory exporter."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.trace import StatusCode
from otel_memory import Memory, needs_redaction

from amplifier_core.hooks import HookRegistry
from amplifier_core.models import HookResult
from amplifier_core.testing import create_test_coordinator
from amplifier_module_hooks_otel import HOST_HANDLERS_CAPABILITY, mount

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _by_name(memory: Memory) -> dict[str, Any]:
    return {s.name: s for s in memory.finished()}  # type: ignore[attr-defined]


async def _turn(registry: HookRegistry, call_id: str = "c1", command: str = "ls") -> None:
    await registry.emit("session:start", {})
    await registry.emit("prompt:submit", {"prompt": f"run {command} {TOKEN}", "turn": 1})
    await registry.emit("provider:request", {"provider": "anthropic", "model": "m-1", "turn": 1})
    await registry.emit(
        "provider:response",
        {
            "provider": "anthropic",
            "model": "m-1",
            "usage": {"input_tokens": 11, "output_tokens": 7},
            "response": {"content": "ok", "stop_reason": "tool_use"},
        },
    )
    data = {"tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": call_id}
    pre = await registry.emit("tool:pre", data)
    if pre.action == "deny":
        await registry.emit(
            "policy:violation",
            {"event": "tool:pre", "hook": pre.source, "reason": pre.reason, "tool_name": "bash"},
        )
    else:
        await registry.emit(
            "tool:post", {**data, "tool_result": {"success": True, "output": TOKEN}}
        )
    await registry.emit("prompt:complete", {"status": "completed", "response": "done"})


async def test_tree_follows_the_genai_conventions(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    cleanup = await mount(coordinator, {}, pipeline=memory.pipeline)
    assert cleanup is not None
    await _turn(coordinator.hooks)
    await coordinator.hooks.emit("session:end", {"status": "completed"})

    spans = _by_name(memory)
    session, turn = spans["amplifier.session"], spans["amplifier.turn"]
    chat, tool = spans["chat m-1"], spans["execute_tool bash"]
    assert turn.parent.span_id == session.context.span_id
    assert chat.parent.span_id == turn.context.span_id
    assert tool.parent.span_id == turn.context.span_id
    assert {s.context.trace_id for s in spans.values()} == {session.context.trace_id}
    assert session.attributes["gen_ai.conversation.id"] == coordinator.session_id
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.provider.name"] == "anthropic"
    assert chat.attributes["gen_ai.request.model"] == "m-1"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 11
    assert chat.attributes["gen_ai.usage.output_tokens"] == 7
    assert tool.attributes["gen_ai.tool.name"] == "bash"
    assert tool.attributes["gen_ai.tool.call.id"] == "c1"
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    everything = repr([dict(s.attributes) for s in spans.values()])
    assert "gen_ai.input.messages" not in everything  # no content without capture_content
    assert TOKEN not in everything
    cleanup()

    metrics = memory.metrics()
    tokens = {a["gen_ai.token.type"]: v for a, v in metrics["gen_ai.client.token.usage"]}
    assert tokens == {"input": 1, "output": 1}  # one recording each (histogram counts)
    assert "gen_ai.client.operation.duration" in metrics
    assert "amplifier.tool.duration" in metrics


@needs_redaction
async def test_hook_runs_are_spans_with_their_decision(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {}, pipeline=memory.pipeline)
    hooks = coordinator.hooks

    async def denies(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="deny", reason=f"no rm (token {TOKEN})")

    async def breaks(event: str, data: dict[str, Any]) -> HookResult:
        raise RuntimeError(f"broken with {TOKEN}")

    hooks.register("tool:pre", breaks, priority=1, name="breaks")
    hooks.register("tool:pre", denies, priority=2, name="guard")
    await _turn(hooks, command="rm -rf /")

    spans = _by_name(memory)
    tool = spans["execute_tool bash"]
    guard, broken = spans["hook guard"], spans["hook breaks"]
    assert guard.parent.span_id == tool.context.span_id
    assert guard.attributes["hook.name"] == "guard"
    assert guard.attributes["hook.event"] == "tool:pre"
    assert guard.attributes["hook.decision"] == "deny"
    assert "[REDACTED" in guard.attributes["hook.reason"]
    assert TOKEN not in guard.attributes["hook.reason"]
    assert broken.status.status_code is StatusCode.ERROR
    assert broken.attributes["hook.failure"] == "error"
    assert TOKEN not in (broken.status.description or "")
    assert tool.attributes["amplifier.tool.denied"] is True
    assert "hook hooks-otel" not in spans  # its own handlers are not reported

    decisions = {
        (a["hook.name"], a["hook.decision"]): v
        for a, v in memory.metrics()["amplifier.hook.decisions"]
    }
    assert decisions == {("guard", "deny"): 1, ("breaks", "continue"): 1}


async def test_the_applications_own_handlers_are_not_hook_spans(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {}, pipeline=memory.pipeline)
    hooks = coordinator.hooks
    host = {"app.view"}
    coordinator.register_capability(HOST_HANDLERS_CAPABILITY, host)
    hooks.register("tool:pre", lambda e, d: None, name="app.view")
    hooks.register("tool:pre", lambda e, d: None, name="app.notice")
    hooks.register("tool:pre", lambda e, d: None, name="guard")
    host.add("app.notice")  # named after mount: read on each run
    await _turn(hooks)
    spans = _by_name(memory)
    assert "hook guard" in spans
    assert "hook app.view" not in spans
    assert "hook app.notice" not in spans
    names = {a["hook.name"] for a, _ in memory.metrics()["amplifier.hook.decisions"]}
    assert names == {"guard"}


async def test_host_handlers_registered_again_are_resolved_then(memory: Memory) -> None:
    """``session.host_handlers`` is resolved when it is registered, not on each run: a new
    collection registered after mount replaces the one before."""
    coordinator = create_test_coordinator()
    coordinator.register_capability(HOST_HANDLERS_CAPABILITY, ["app.view"])
    await mount(coordinator, {}, pipeline=memory.pipeline)
    hooks = coordinator.hooks
    for name in ("app.view", "app.notice", "guard"):
        hooks.register("tool:pre", lambda e, d: None, name=name)
    coordinator.register_capability(HOST_HANDLERS_CAPABILITY, ("app.notice",))
    await _turn(hooks)
    spans = _by_name(memory)
    assert "hook guard" in spans
    assert "hook app.view" in spans  # no longer the application's
    assert "hook app.notice" not in spans


@needs_redaction
async def test_content_only_with_capture_content_and_redacted(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {"capture_content": True}, pipeline=memory.pipeline)
    await _turn(coordinator.hooks)
    spans = _by_name(memory)
    assert "run ls" in spans["amplifier.turn"].attributes["gen_ai.input.messages"]
    result = spans["execute_tool bash"].attributes["gen_ai.tool.call.result"]
    assert "[REDACTED" in result
    everything = repr([dict(s.attributes) for s in spans.values()])
    assert TOKEN not in everything


async def test_approval_span_has_the_answer_and_the_wait(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {}, pipeline=memory.pipeline)
    hooks = coordinator.hooks
    await hooks.emit("session:start", {})
    await hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c9"})
    await hooks.emit("approval:required", {"prompt": "Run it?", "options": ["Allow", "Deny"]})
    await hooks.emit("approval:granted", {"answer": "Allow", "why": "user"})
    spans = _by_name(memory)
    approval = spans["approval_pending"]
    assert approval.attributes["amplifier.approval.result"] == "granted"
    assert approval.attributes["amplifier.approval.answer"] == "Allow"
    assert approval.attributes["amplifier.approval.wait_ms"] >= 0
    assert approval.parent.span_id != 0


async def test_fork_continues_the_parent_trace_and_traceparent_is_offered(memory: Memory) -> None:
    parent = create_test_coordinator(session_id="parent-1")
    await mount(parent, {}, pipeline=memory.pipeline)
    await parent.hooks.emit("session:start", {"session_id": "parent-1"})
    await parent.hooks.emit("tool:pre", {"tool_name": "task", "tool_call_id": "t1"})
    traceparent = parent.get_capability("observability.traceparent")()
    assert traceparent.startswith("00-")
    environment = parent.get_capability("session.environment")()
    assert environment["TRACEPARENT"] == traceparent

    child = create_test_coordinator(session_id="child-1")
    await mount(child, {}, pipeline=memory.pipeline)
    await child.hooks.emit("session:fork", {"parent": "parent-1"})
    await child.hooks.emit("session:end", {})
    await parent.hooks.emit("tool:post", {"tool_name": "task", "tool_call_id": "t1"})
    await parent.hooks.emit("session:end", {})

    spans = [s for s in memory.finished() if s.name == "amplifier.session"]  # type: ignore[attr-defined]
    child_span = next(s for s in spans if s.attributes["amplifier.session.type"] == "fork")
    task = _by_name(memory)["execute_tool task"]
    assert child_span.context.trace_id == task.context.trace_id
    assert child_span.parent.span_id == task.context.span_id
    assert traceparent.split("-")[2] == f"{task.context.span_id:016x}"


async def test_bad_config_is_rejected_clearly() -> None:
    with pytest.raises(ValueError, match=r"^hooks-otel: config: protocol: "):
        await mount(create_test_coordinator(), {"protocol": "thrift"})


async def test_disabled_registers_nothing() -> None:
    coordinator = create_test_coordinator()
    assert await mount(coordinator, {"enabled": False}) is None
    assert not any(coordinator.hooks.list_handlers().values())


async def test_cleanup_unregisters_everything(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    cleanup = await mount(coordinator, {}, pipeline=memory.pipeline)
    assert cleanup is not None
    cleanup()
    assert not any(coordinator.hooks.list_handlers().values())


async def test_observed_decision_is_a_span_with_the_would_have_decision(memory: Memory) -> None:
    coordinator = create_test_coordinator()
    await mount(coordinator, {}, pipeline=memory.pipeline)
    hooks = coordinator.hooks
    await hooks.emit("session:start", {})
    await hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c3"})
    await hooks.emit(
        "hook:observed",
        {
            "hook": "hooks-approval",
            "module_id": "hooks-approval",
            "decision": "deny",
            "reason": "rule no-rm",
            "event": "tool:pre",
            "event_data": {"tool_name": "bash"},
            "tool_name": "bash",
        },
    )
    observed = _by_name(memory)["hook_observed"]
    attributes = observed.attributes
    assert attributes["amplifier.event"] == "hook:observed"
    assert attributes["amplifier.hook_observed.decision"] == "deny"
    assert attributes["amplifier.hook_observed.module_id"] == "hooks-approval"
    assert attributes["amplifier.hook_observed.event"] == "tool:pre"
    assert attributes["amplifier.hook_observed.reason"] == "rule no-rm"
    assert observed.parent.span_id != 0  # under the tool call it was about
