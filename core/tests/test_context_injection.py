"""Context injection through the coordinator: limits, sanitising, budget, provenance, ephemeral."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import pytest

from amplifier_core.context import InMemoryContext
from amplifier_core.coordinator import (
    DEFAULT_INJECTION_BUDGET_PER_TURN,
    DEFAULT_INJECTION_SIZE_LIMIT,
    InjectionTooLargeError,
    ModuleCoordinator,
    strip_control_characters,
)
from amplifier_core.models import ContextInjection, HookResult


def make(session: dict[str, Any] | None = None) -> ModuleCoordinator:
    return ModuleCoordinator(config={"session": session} if session is not None else {})


def inject(content: str, **fields: Any) -> HookResult:
    return HookResult(action="inject_context", context_injection=content, **fields)


async def emit_injection(
    coordinator: ModuleCoordinator, content: str, *, name: str = "lint", event: str = "tool:post"
) -> HookResult:
    """Register a real handler, emit through the real registry, process the merged result."""

    async def handler(_event: str, _data: dict[str, Any]) -> HookResult:
        return inject(content)

    coordinator.hooks.register(event, handler, name=name)
    result = await coordinator.hooks.emit(event, {"tool_name": "write_file"})
    return await coordinator.process_hook_result(result, event)


# ---------------------------------------------------------------- size limit


async def test_no_limit_unless_configured_and_a_limit_accepts_exactly_itself() -> None:
    """As amplifier-core 2.0.2: the kernel limits nothing by default; the advised 10 KiB is
    what the command line's sessions configure."""
    assert ModuleCoordinator().injection_size_limit is None
    assert ModuleCoordinator().injection_budget_per_turn is None
    coordinator = make({"injection_size_limit": DEFAULT_INJECTION_SIZE_LIMIT})
    assert coordinator.injection_size_limit == 10 * 1024
    await coordinator.process_hook_result(inject("x" * 10 * 1024), "tool:post", "lint")
    assert len(coordinator.injections.own_context.messages) == 1


async def test_one_character_over_the_limit_raises_a_clear_error() -> None:
    coordinator = make({"injection_size_limit": DEFAULT_INJECTION_SIZE_LIMIT})
    with pytest.raises(InjectionTooLargeError) as caught:
        await emit_injection(coordinator, "x" * (10 * 1024 + 1), name="big-linter")
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.hook_name, error.event, error.size, error.limit) == (
        "big-linter",
        "tool:post",
        10241,
        10240,
    )
    message = str(error)
    for part in (
        "'big-linter'",
        "'tool:post'",
        "10241 characters",
        "exceeds 10240 characters",
        "injection_size_limit",
    ):
        assert part in message
    assert coordinator.injections.own_context.messages == []


async def test_configured_limit_counts_characters() -> None:
    """As amplifier-core 2.0.2 counts them: ten characters fit whatever their bytes."""
    coordinator = make({"injection_size_limit": 10})
    await coordinator.process_hook_result(inject("é" * 10), "tool:post", "h")  # 20 bytes
    with pytest.raises(InjectionTooLargeError, match="exceeds 10 characters"):
        await coordinator.process_hook_result(inject("é" * 11), "tool:post", "h")
    assert [m["content"] for m in coordinator.injections.own_context.messages] == ["é" * 10]


async def test_none_limit_is_unlimited() -> None:
    coordinator = make({"injection_size_limit": None})
    assert coordinator.injection_size_limit is None
    await coordinator.process_hook_result(inject("y" * 200_000), "tool:post", "h")
    assert len(coordinator.injections.own_context.messages[0]["content"]) == 200_000


async def test_an_oversized_injection_rejects_the_whole_result_before_adding_any() -> None:
    coordinator = make({"injection_size_limit": 5})
    result = HookResult(
        action="inject_context",
        context_injections=[ContextInjection(content="ok"), ContextInjection(content="too long")],
    )
    with pytest.raises(InjectionTooLargeError):
        await coordinator.process_hook_result(result, "tool:post", "h")
    assert coordinator.injections.own_context.messages == []
    assert [r["reason"] for r in coordinator.audit.of_type("injection_rejected")] == ["too_large"]


async def test_an_oversized_injection_never_cancels_a_deny() -> None:
    coordinator = make({"injection_size_limit": 5})
    result = HookResult(action="deny", reason="blocked", context_injection="much too long")
    processed = await coordinator.process_hook_result(result, "tool:pre", "guard")
    assert processed.action == "deny"
    assert processed.reason == "blocked"
    assert coordinator.injections.own_context.messages == []
    assert coordinator.audit.of_type("injection_rejected")[0]["hook"] == "guard"


@pytest.mark.parametrize("value", [-1, "10KB", 1.5, True])
def test_bad_limit_config_names_the_key(value: object) -> None:
    with pytest.raises(ValueError, match=r"session\.injection_size_limit"):
        make({"injection_size_limit": value})


def test_bad_budget_config_names_the_key() -> None:
    with pytest.raises(ValueError, match=r"session\.injection_budget_per_turn"):
        make({"injection_budget_per_turn": "lots"})


# ---------------------------------------------------------------- sanitising


def test_control_characters_are_stripped_except_newline_and_tab() -> None:
    raw = "a\x00b\x1b[31mc\r\n\td\x7f\x85e\u200bf"
    assert strip_control_characters(raw) == "ab[31mc\n\tde\u200bf"


async def test_injected_content_is_sanitised_before_it_reaches_the_context() -> None:
    coordinator = make()
    await emit_injection(coordinator, "line one\x07\r\nline\ttwo\x1b[0m")
    assert coordinator.injections.own_context.messages[0]["content"] == "line one\nline\ttwo[0m"


async def test_content_that_is_only_control_characters_is_not_added() -> None:
    coordinator = make()
    await coordinator.process_hook_result(inject("\x00\x01\x02"), "tool:post", "noise")
    assert coordinator.injections.own_context.messages == []
    rejected = coordinator.audit.of_type("injection_rejected")
    assert rejected[0]["reason"] == "empty"
    assert rejected[0]["hook"] == "noise"


# ---------------------------------------------------------------- budget


async def test_budget_overrun_warns_without_blocking_and_reset_turn_restarts_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    coordinator = make({"injection_budget_per_turn": 10})
    caplog.set_level(logging.WARNING, logger="amplifier_core.coordinator")
    await coordinator.process_hook_result(inject("a" * 40), "tool:post", "h")  # 10 tokens
    assert coordinator.injections.turn_tokens == 10
    assert coordinator.audit.of_type("injection_budget_exceeded") == []
    assert caplog.records == []

    await coordinator.process_hook_result(inject("b" * 5), "tool:post", "h")  # 2 more
    assert len(coordinator.injections.own_context.messages) == 2  # not blocked
    exceeded = coordinator.audit.of_type("injection_budget_exceeded")
    assert len(exceeded) == 1
    assert exceeded[0]["tokens"] == 2
    assert exceeded[0]["turn_tokens"] == 12
    assert exceeded[0]["budget"] == 10
    assert "injection_budget_per_turn" in caplog.text

    await coordinator.process_hook_result(inject("d" * 4), "tool:post", "h")
    assert len(coordinator.audit.of_type("injection_budget_exceeded")) == 2  # audited each time
    assert len(caplog.records) == 1  # logged once per turn

    coordinator.reset_turn()
    assert coordinator.injections.turn_tokens == 0
    await coordinator.process_hook_result(inject("c" * 40), "tool:post", "h")
    assert len(coordinator.audit.of_type("injection_budget_exceeded")) == 2
    await coordinator.process_hook_result(inject("e"), "tool:post", "h")
    assert len(caplog.records) == 2  # a new turn warns again


async def test_the_advised_budget_is_10000_tokens_and_none_never_warns() -> None:
    assert DEFAULT_INJECTION_BUDGET_PER_TURN == 10_000
    coordinator = make({"injection_budget_per_turn": None, "injection_size_limit": None})
    for _ in range(3):
        await coordinator.process_hook_result(inject("z" * 50_000), "tool:post", "h")
    assert coordinator.injections.turn_tokens == 37_500
    assert coordinator.audit.of_type("injection_budget_exceeded") == []


# ---------------------------------------------------------------- provenance and stores


async def test_provenance_metadata_names_handler_event_and_time() -> None:
    coordinator = make()
    await emit_injection(coordinator, "Line 42: E501", name="linter-feedback", event="tool:post")
    (message,) = coordinator.injections.own_context.messages
    assert message["role"] == "system"
    assert message["content"] == "Line 42: E501"
    metadata = message["metadata"]
    assert metadata["source"] == "hook"
    assert metadata["hook_name"] == "linter-feedback"
    assert metadata["event"] == "tool:post"
    assert datetime.fromisoformat(metadata["timestamp"]).tzinfo is not None


async def test_each_handler_keeps_its_own_provenance_in_priority_order() -> None:
    coordinator = make()

    async def first(_e: str, _d: dict[str, Any]) -> HookResult:
        return inject("from first", context_injection_role="user")

    async def second(_e: str, _d: dict[str, Any]) -> HookResult:
        return inject("from second")

    coordinator.hooks.register("tool:post", second, priority=10, name="second")
    coordinator.hooks.register("tool:post", first, priority=1, name="first")
    result = await coordinator.hooks.emit("tool:post", {})
    await coordinator.process_hook_result(result, "tool:post")
    messages = coordinator.injections.own_context.messages
    assert [(m["content"], m["role"], m["metadata"]["hook_name"]) for m in messages] == [
        ("from first", "user", "first"),
        ("from second", "system", "second"),
    ]


async def test_a_result_without_provenance_uses_the_hook_name_argument() -> None:
    coordinator = make()
    await coordinator.process_hook_result(inject("hello"), "prompt:submit", "date-injector")
    metadata = coordinator.injections.own_context.messages[0]["metadata"]
    assert (metadata["hook_name"], metadata["event"]) == ("date-injector", "prompt:submit")


async def test_a_mounted_context_manager_receives_the_injection() -> None:
    coordinator = make()
    mounted = InMemoryContext()
    await coordinator.mount("context", mounted)
    assert coordinator.get("context") is mounted
    await emit_injection(coordinator, "to the mounted one")
    assert [m["content"] for m in await mounted.get_messages()] == ["to the mounted one"]
    assert coordinator.audit.of_type("injection")[0]["stored_in"] == "context"


async def test_a_failing_context_manager_is_audited_and_does_not_break_the_session() -> None:
    class Broken:
        async def add_message(self, message: dict[str, Any]) -> None:
            raise RuntimeError("disk full")

    coordinator = make()
    await coordinator.mount("context", Broken())
    result = await coordinator.process_hook_result(inject("lost"), "tool:post", "h")
    assert result.action == "inject_context"
    (failed,) = coordinator.audit.of_type("injection_failed")
    assert failed["error"] == "RuntimeError: disk full"
    assert coordinator.audit.of_type("injection") == []


async def test_append_to_last_tool_result_is_kept_in_metadata() -> None:
    coordinator = make()
    await coordinator.process_hook_result(
        inject("note", append_to_last_tool_result=True), "tool:post", "h"
    )
    assert (
        coordinator.injections.own_context.messages[0]["metadata"]["append_to_last_tool_result"]
        is True
    )


# ---------------------------------------------------------------- ephemeral


async def test_ephemeral_injections_wait_for_the_next_request_and_drain() -> None:
    coordinator = make()

    async def todo(_e: str, _d: dict[str, Any]) -> HookResult:
        return inject("\x1b3 todos open", ephemeral=True)

    async def lint(_e: str, _d: dict[str, Any]) -> HookResult:
        return inject("lint says hi")

    coordinator.hooks.register("provider:request", todo, name="todo-reminder")
    coordinator.hooks.register("provider:request", lint, name="lint")
    result = await coordinator.hooks.emit("provider:request", {})
    await coordinator.process_hook_result(result, "provider:request")

    assert [m["content"] for m in coordinator.injections.own_context.messages] == ["lint says hi"]
    (pending,) = coordinator.injections.take_ephemeral()
    assert pending.content == "3 todos open"
    assert (pending.hook_name, pending.event, pending.ephemeral) == (
        "todo-reminder",
        "provider:request",
        True,
    )
    assert coordinator.injections.take_ephemeral() == []
    kinds = [r["stored_in"] for r in coordinator.audit.of_type("injection")]
    assert kinds == ["ephemeral", "coordinator"]
