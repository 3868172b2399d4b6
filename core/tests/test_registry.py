"""HookRegistry: ordering, handler kinds, actions, merging, defaults, timeouts, failures."""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from amplifier_core.hooks import FailureKind, HookRegistry
from amplifier_core.models import ContextInjection, HookResult, UserMessage

Data = dict[str, Any]
AsyncHandler = Callable[[str, Data], Awaitable[HookResult | None]]


class FailureLog:
    """A failure listener that keeps every report, in order."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def __call__(
        self, *, event: str, handler: str, kind: FailureKind, error: str, fail_closed: bool
    ) -> None:
        self.records.append(
            {
                "event": event,
                "handler": handler,
                "kind": kind,
                "error": error,
                "fail_closed": fail_closed,
            }
        )


def returning(result: HookResult | None, calls: list[str] | None = None, tag: str = "") -> Any:
    """An async handler that records ``tag`` and returns ``result``."""

    async def handler(event: str, data: Data) -> HookResult | None:
        if calls is not None:
            calls.append(tag)
        return result

    return handler


async def hang(event: str, data: Data) -> HookResult:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------------- ordering


async def test_lower_priority_runs_first_and_ties_keep_registration_order() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    for tag, priority in [("c", 5), ("a", -1), ("d", 5), ("b", 0), ("e", 5), ("z", 100)]:
        registry.register("tool:pre", returning(None, calls, tag), priority=priority, name=tag)
    await registry.emit("tool:pre", {})
    assert calls == ["a", "b", "c", "d", "e", "z"]
    assert registry.list_handlers("tool:pre") == {"tool:pre": ["a", "b", "c", "d", "e", "z"]}


async def test_registration_after_an_emit_is_seen_by_the_next_emit() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("tool:pre", returning(None, calls, "late"), priority=10)
    await registry.emit("tool:pre", {})
    registry.register("tool:pre", returning(None, calls, "early"), priority=1)
    await registry.emit("tool:pre", {})
    assert calls == ["late", "early", "late"]


async def test_handlers_of_other_events_do_not_run() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("tool:post", returning(None, calls, "post"))
    result = await registry.emit("tool:pre", {"x": 1})
    assert calls == []
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["x"] == 1


async def test_emit_without_handlers_returns_continue_with_the_data_as_given() -> None:
    """As amplifier-core 2.0.2: no defaults, no timestamp, a copy of the caller's dict."""
    registry = HookRegistry()
    registry.set_default_fields(session_id="s1")
    given = {"x": 1}
    result = await registry.emit("tool:pre", given)
    assert result.action == "continue"
    assert result.data == {"x": 1}
    assert result.data is not given
    assert (await registry.emit("tool:pre", None)).data == {}
    assert result.context_injections == []
    assert result.user_messages == []


# ---------------------------------------------------------------------------- handler kinds


async def test_sync_async_callable_object_and_awaitable_returning_handlers_all_run() -> None:
    registry = HookRegistry()
    calls: list[str] = []

    def sync_handler(event: str, data: Data) -> HookResult:
        calls.append("sync")
        return HookResult(action="modify", data={**data, "sync": True})

    async def async_handler(event: str, data: Data) -> HookResult:
        calls.append("async")
        return HookResult(action="modify", data={**data, "async": True})

    class AsyncCallable:
        async def __call__(self, event: str, data: Data) -> HookResult:
            calls.append("object")
            return HookResult(action="modify", data={**data, "object": True})

    def returns_awaitable(event: str, data: Data) -> Awaitable[HookResult]:
        async def later() -> HookResult:
            calls.append("awaitable")
            return HookResult(action="modify", data={**data, "awaitable": True})

        return later()

    class SyncCallable:
        def __call__(self, event: str, data: Data) -> None:
            calls.append("sync-object")

    registry.register("tool:pre", sync_handler, priority=1)
    registry.register("tool:pre", async_handler, priority=2)
    registry.register("tool:pre", AsyncCallable(), priority=3)
    registry.register("tool:pre", returns_awaitable, priority=4)
    registry.register("tool:pre", SyncCallable(), priority=5)
    result = await registry.emit("tool:pre", {})
    assert calls == ["sync", "async", "object", "awaitable", "sync-object"]
    assert result.action == "continue"
    assert result.data is not None
    assert {k: result.data[k] for k in ("sync", "async", "object", "awaitable")} == dict.fromkeys(
        ("sync", "async", "object", "awaitable"), True
    )


async def test_sync_handler_returning_a_future_is_awaited() -> None:
    registry = HookRegistry()

    def handler(event: str, data: Data) -> asyncio.Future[HookResult]:
        future: asyncio.Future[HookResult] = asyncio.get_running_loop().create_future()
        future.set_result(HookResult(action="deny", reason="from a future"))
        return future

    registry.register("tool:pre", handler, name="futures")
    result = await registry.emit("tool:pre", {})
    assert (result.action, result.reason, result.source) == ("deny", "from a future", "futures")


async def test_default_names_are_qualified_names_or_the_class_name() -> None:
    registry = HookRegistry()

    async def local_handler(event: str, data: Data) -> None:
        return None

    class Gate:
        async def __call__(self, event: str, data: Data) -> None:
            return None

        async def method(self, event: str, data: Data) -> None:
            return None

    gate = Gate()
    registry.register("tool:pre", local_handler)
    registry.register("tool:pre", gate)
    registry.register("tool:pre", gate.method)
    names = registry.list_handlers("tool:pre")["tool:pre"]
    assert names[0].endswith("local_handler")
    assert names[1] == "Gate"
    assert names[2].endswith("Gate.method")


def test_register_rejects_a_non_callable_and_a_bad_timeout_naming_the_event() -> None:
    registry = HookRegistry()
    with pytest.raises(TypeError, match=r"tool:pre.*callable.*str"):
        registry.register("tool:pre", "not a function")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"tool:pre.*timeout must be > 0"):
        registry.register("tool:pre", returning(None), timeout=0)
    assert registry.list_handlers() == {}


@pytest.mark.parametrize("bad", [0, -1.0])
def test_default_timeout_must_be_positive(bad: float) -> None:
    with pytest.raises(ValueError, match="default_timeout"):
        HookRegistry(default_timeout=bad)


def test_on_is_register() -> None:
    assert HookRegistry.on is HookRegistry.register
    registry = HookRegistry()
    unregister = registry.on("tool:pre", returning(None), 3, "via-on")
    assert registry.list_handlers("tool:pre") == {"tool:pre": ["via-on"]}
    unregister()
    assert registry.list_handlers("tool:pre") == {"tool:pre": []}


# ---------------------------------------------------------------------------- deny


async def test_deny_short_circuits_and_is_returned_as_it_is_plus_source() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    deny = HookResult(
        action="deny", reason="no wiping", user_message="blocked", data={"why": "policy"}
    )
    registry.register("tool:pre", returning(None, calls, "before"), priority=0)
    registry.register("tool:pre", returning(deny, calls, "gate"), priority=1, name="no-wipe")
    registry.register("tool:pre", returning(None, calls, "after"), priority=2)
    result = await registry.emit("tool:pre", {"tool_name": "bash"})
    assert calls == ["before", "gate"]
    assert result.action == "deny"
    assert result.reason == "no wiping"
    assert result.source == "no-wipe"
    assert result.data == {"why": "policy"}
    assert result.user_message == "blocked"
    assert result.model_dump(exclude={"source"}) == deny.model_dump(exclude={"source"})
    assert deny.source is None, "the handler's own result object must not be changed"


async def test_deny_with_its_own_source_keeps_it() -> None:
    registry = HookRegistry()
    deny = HookResult(action="deny", reason="r", source="security-policy")
    registry.register("tool:pre", returning(deny), name="handler-name")
    result = await registry.emit("tool:pre", {})
    assert result is deny
    assert result.source == "security-policy"


# ---------------------------------------------------------------------------- modify


async def test_modify_chains_and_the_final_data_is_the_modified_data() -> None:
    registry = HookRegistry()
    seen: list[Data] = []

    def add(key: str, value: int) -> AsyncHandler:
        async def handler(event: str, data: Data) -> HookResult:
            seen.append(dict(data))
            return HookResult(action="modify", data={**data, key: value})

        return handler

    async def observer(event: str, data: Data) -> HookResult:
        seen.append(dict(data))
        return HookResult()

    registry.register("tool:pre", add("a", 1), priority=1)
    registry.register("tool:pre", observer, priority=2)
    registry.register("tool:pre", add("b", 2), priority=3)
    result = await registry.emit("tool:pre", {"x": 0})
    stamp = seen[0]["timestamp"]
    assert seen == [
        {"timestamp": stamp, "x": 0},
        {"timestamp": stamp, "x": 0, "a": 1},
        {"timestamp": stamp, "x": 0, "a": 1},
    ]
    assert result.action == "continue"  # amplifier-core 2.0.2: modified data, action continue
    assert result.data == {"timestamp": stamp, "x": 0, "a": 1, "b": 2}


async def test_modify_without_data_is_ignored() -> None:
    registry = HookRegistry()
    seen: list[Data] = []

    async def observer(event: str, data: Data) -> None:
        seen.append(dict(data))

    registry.register("tool:pre", returning(HookResult(action="modify")), priority=1)
    registry.register("tool:pre", observer, priority=2)
    result = await registry.emit("tool:pre", {"x": 1})
    assert seen == [{"timestamp": seen[0]["timestamp"], "x": 1}]
    assert result.action == "continue"
    assert result.data == seen[0]


async def test_modify_to_an_empty_dict_counts() -> None:
    registry = HookRegistry()
    registry.register("tool:pre", returning(HookResult(action="modify", data={})))
    result = await registry.emit("tool:pre", {"x": 1})
    assert (result.action, result.data) == ("continue", {})


async def test_inject_data_is_ignored_but_the_winning_ask_carries_its_input() -> None:
    registry = HookRegistry()
    registry.register(
        "tool:pre",
        returning(HookResult(action="inject_context", context_injection="c", data={"no": 1})),
    )
    result = await registry.emit("tool:pre", {"x": 1})
    assert result.data is not None
    assert set(result.data) == {"x", "timestamp"}

    registry.register("tool:pre", returning(HookResult(action="ask_user", data={"asked": 2})))
    registry.register("tool:pre", returning(HookResult(action="ask_user", data={"later": 3})))
    result = await registry.emit("tool:pre", {"x": 1})
    assert result.action == "ask_user"
    assert result.data == {"asked": 2}  # the input the first ask asks about; later asks lose


async def test_a_modify_result_may_also_inject_context() -> None:
    registry = HookRegistry()
    modify = HookResult(action="modify", data={"x": 2}, context_injections=[{"content": "note"}])
    registry.register("tool:pre", returning(modify), name="rewriter")
    result = await registry.emit("tool:pre", {"x": 1})
    assert result.action == "inject_context"
    assert result.data == {"x": 2}
    assert [(i.content, i.hook_name) for i in result.context_injections] == [("note", "rewriter")]


# ---------------------------------------------------------------------------- ask_user


async def test_first_ask_user_wins_and_keeps_its_fields_with_the_data_it_asked_about() -> None:
    registry = HookRegistry()
    first = HookResult(
        action="ask_user",
        approval_prompt="first?",
        approval_options=["Allow once", "Deny"],
        approval_timeout=5.0,
        approval_default="allow",
        reason="r1",
    )
    second = HookResult(action="ask_user", approval_prompt="second?")
    registry.register("tool:pre", returning(first), priority=1, name="asker-1")
    registry.register("tool:pre", returning(second), priority=2, name="asker-2")
    registry.register("tool:pre", returning(HookResult(action="modify", data={"m": 1})), priority=3)
    result = await registry.emit("tool:pre", {})
    assert result.action == "ask_user"
    assert result.approval_prompt == "first?"
    assert result.approval_options == ["Allow once", "Deny"]
    assert result.approval_timeout == 5.0
    assert result.approval_default == "allow"
    assert result.reason == "r1"
    assert result.source == "asker-1"
    assert set(result.data or {}) == {"timestamp"}  # the later modify is dropped
    assert first.source is None
    assert first.data is None


# ---------------------------------------------------------------------------- injections


async def test_injections_are_merged_in_order_with_handler_name_and_event() -> None:
    registry = HookRegistry()
    registry.register(
        "tool:post",
        returning(
            HookResult(action="inject_context", context_injection="lint: 3 errors", ephemeral=True)
        ),
        priority=2,
        name="linter",
    )
    registry.register(
        "tool:post",
        returning(
            HookResult(
                action="inject_context",
                context_injections=[
                    ContextInjection(content="todo 1", role="user"),
                    ContextInjection(content="todo 2", hook_name="todo-own-name", event="x:y"),
                ],
            )
        ),
        priority=1,
        name="todo",
    )
    registry.register("tool:post", returning(HookResult()), priority=3, name="noop")
    result = await registry.emit("PostToolUse", {})
    assert result.action == "inject_context"
    assert [(i.content, i.hook_name, i.event, i.role) for i in result.context_injections] == [
        ("todo 1", "todo", "tool:post", "user"),
        ("todo 2", "todo-own-name", "x:y", "system"),
        ("lint: 3 errors", "linter", "tool:post", "system"),
    ]
    assert result.context_injections[2].ephemeral is True
    assert result.context_injection == "todo 1\n\ntodo 2\n\nlint: 3 errors"
    assert result.context_injection_role == "user"
    assert result.ephemeral is False


async def test_injections_survive_beside_an_ask_user_and_are_projected() -> None:
    registry = HookRegistry()
    registry.register(
        "tool:pre",
        returning(HookResult(action="inject_context", context_injection="before", ephemeral=True)),
        priority=1,
        name="inj-1",
    )
    registry.register(
        "tool:pre",
        returning(HookResult(action="ask_user", approval_prompt="ok?", context_injection="ask-1")),
        priority=2,
        name="ask-1",
    )
    registry.register(
        "tool:pre",
        returning(HookResult(action="ask_user", approval_prompt="no", context_injection="ask-2")),
        priority=3,
        name="ask-2",
    )
    registry.register(
        "tool:pre",
        returning(HookResult(action="inject_context", context_injection="after")),
        priority=4,
        name="inj-2",
    )
    result = await registry.emit("tool:pre", {})
    assert result.action == "ask_user"
    assert result.approval_prompt == "ok?"
    assert [(i.content, i.hook_name) for i in result.context_injections] == [
        ("before", "inj-1"),
        ("ask-1", "ask-1"),
        ("ask-2", "ask-2"),
        ("after", "inj-2"),
    ]
    assert result.context_injection == "before\n\nask-1\n\nask-2\n\nafter"
    assert result.ephemeral is False


async def test_continue_and_modify_context_fields_are_not_injections() -> None:
    registry = HookRegistry()
    registry.register("tool:pre", returning(HookResult(context_injection="not injected")))
    result = await registry.emit("tool:pre", {})
    assert result.action == "continue"
    assert result.context_injections == []
    assert result.context_injection is None


# ---------------------------------------------------------------------------- user messages


async def test_user_messages_are_kept_from_every_non_deny_result() -> None:
    registry = HookRegistry()
    registry.register(
        "tool:pre", returning(HookResult(user_message="just so you know")), name="notice"
    )
    registry.register(
        "tool:pre",
        returning(
            HookResult(
                action="modify",
                data={"x": 2},
                user_message="rewrote x",
                user_message_level="warning",
                user_message_source="rewriter-label",
            )
        ),
        name="rewriter",
    )
    registry.register(
        "tool:pre",
        returning(
            HookResult(
                action="inject_context",
                context_injection="c",
                user_messages=[UserMessage(message="m1", level="error"), UserMessage(message="m2")],
            )
        ),
        name="injector",
    )
    result = await registry.emit("tool:pre", {})
    assert result.action == "inject_context"
    assert [(m.message, m.level, m.source) for m in result.user_messages] == [
        ("just so you know", "info", "notice"),
        ("rewrote x", "warning", "rewriter-label"),
        ("m1", "error", "injector"),
        ("m2", "info", "injector"),
    ]
    assert result.user_message == "just so you know\nrewrote x\nm1\nm2"
    assert result.user_message_level == "error"
    assert result.user_message_source == "notice, rewriter-label, injector"


async def test_user_message_from_a_lone_continue_reaches_the_caller() -> None:
    registry = HookRegistry()
    registry.register(
        "tool:pre",
        returning(HookResult(user_message="saved", user_message_level="warning")),
        name="saver",
    )
    result = await registry.emit("tool:pre", {})
    assert result.action == "continue"
    assert result.user_message == "saved"
    assert result.user_message_level == "warning"
    assert result.user_message_source == "saver"


async def test_user_messages_reach_an_ask_user_result() -> None:
    registry = HookRegistry()
    registry.register("tool:pre", returning(HookResult(user_message="note")), name="n")
    registry.register(
        "tool:pre", returning(HookResult(action="ask_user", user_message="asking")), name="a"
    )
    result = await registry.emit("tool:pre", {})
    assert [(m.message, m.source) for m in result.user_messages] == [("note", "n"), ("asking", "a")]
    assert result.user_message == "note\nasking"


# ---------------------------------------------------------------------------- data preparation


async def test_defaults_merge_under_the_data_and_the_data_wins() -> None:
    registry = HookRegistry()
    registry.set_default_fields(session_id="default-session", parent_id="p0")
    registry.set_default_fields(parent_id="p1")
    seen: list[Data] = []

    async def observer(event: str, data: Data) -> None:
        seen.append(dict(data))

    registry.register("tool:pre", observer)
    await registry.emit("tool:pre", {"session_id": "explicit", "tool_name": "bash"})
    assert seen[0]["session_id"] == "explicit"
    assert seen[0]["parent_id"] == "p1"
    assert seen[0]["tool_name"] == "bash"
    assert registry.default_fields == {"session_id": "default-session", "parent_id": "p1"}
    registry.default_fields["session_id"] = "changed outside"
    assert registry.default_fields["session_id"] == "default-session"


async def test_timestamp_is_set_as_utc_iso_8601() -> None:
    registry = HookRegistry()
    registry.register("tool:pre", returning(HookResult()))
    before = datetime.now(UTC)
    result = await registry.emit("tool:pre", {"x": 1})
    after = datetime.now(UTC)
    assert result.data is not None
    stamp = datetime.fromisoformat(result.data["timestamp"])
    assert stamp.utcoffset() == timedelta(0)
    assert before - timedelta(seconds=1) <= stamp <= after + timedelta(seconds=1)
    assert result.data["timestamp"].endswith("+00:00")


async def test_the_registry_owns_the_timestamp() -> None:
    """As amplifier-core 2.0.2: a caller's own ``timestamp`` is replaced."""
    registry = HookRegistry()
    registry.set_default_fields(session_id="s")
    registry.register("tool:pre", returning(HookResult()))
    result = await registry.emit("tool:pre", {"timestamp": "2001-02-03T04:05:06+00:00"})
    assert result.data is not None
    assert result.data["session_id"] == "s"
    assert result.data["timestamp"] != "2001-02-03T04:05:06+00:00"
    assert datetime.fromisoformat(result.data["timestamp"]).year >= 2026


async def test_the_callers_dict_is_not_mutated() -> None:
    registry = HookRegistry()
    registry.set_default_fields(session_id="s")

    async def mutator(event: str, data: Data) -> HookResult:
        data["added_in_place"] = True
        data["nested"]["k"] = "only the top level is copied"
        return HookResult(action="modify", data={**data, "new": 1})

    registry.register("tool:pre", mutator)
    original: Data = {"tool_name": "bash", "nested": {}}
    snapshot = copy.deepcopy(original)
    await registry.emit("tool:pre", original)
    assert set(original) == set(snapshot)
    assert "timestamp" not in original
    assert "session_id" not in original


# ---------------------------------------------------------------------------- timeouts


async def test_a_hanging_handler_is_cut_off_and_treated_as_continue() -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)
    calls: list[str] = []
    registry.register("tool:pre", hang, priority=1, name="hanger", timeout=0.02)
    registry.register("tool:pre", returning(None, calls, "after"), priority=2)
    started = asyncio.get_running_loop().time()
    result = await registry.emit("tool:pre", {})
    elapsed = asyncio.get_running_loop().time() - started
    assert result.action == "continue"
    assert calls == ["after"]
    assert elapsed < 30  # the handler hangs for ever: it was cut off
    assert [(r["handler"], r["kind"], r["fail_closed"]) for r in failures.records] == [
        ("hanger", "timeout", False)
    ]
    assert "0.02" in failures.records[0]["error"]


async def test_a_fail_closed_handler_that_times_out_denies() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("tool:pre", hang, priority=1, name="gate", timeout=0.01, fail_closed=True)
    registry.register("tool:pre", returning(None, calls, "after"), priority=2)
    result = await registry.emit("tool:pre", {})
    assert result.action == "deny"
    assert result.source == "gate"
    assert result.reason is not None
    for part in ("gate", "tool:pre", "timed out"):
        assert part in result.reason
    assert calls == []


async def test_default_timeout_bounds_handlers_without_their_own() -> None:
    registry = HookRegistry(default_timeout=0.01)
    failures = FailureLog()
    registry.add_failure_listener(failures)

    async def slow_but_allowed(event: str, data: Data) -> HookResult:
        await asyncio.sleep(0.03)
        return HookResult(action="modify", data={"slow": True})

    registry.register("tool:pre", hang, name="hanger")
    registry.register("tool:pre", slow_but_allowed, name="slow", timeout=1.0)
    result = await registry.emit("tool:pre", {})
    assert result.data == {"slow": True}
    assert [(r["handler"], r["kind"]) for r in failures.records] == [("hanger", "timeout")]


async def test_a_handler_that_raises_timeout_error_itself_is_an_error_not_a_timeout() -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)

    async def raises_timeout(event: str, data: Data) -> HookResult:
        raise TimeoutError("upstream service timed out")

    registry.register("tool:pre", raises_timeout, name="bounded", timeout=5.0)
    registry.register("tool:pre", raises_timeout, name="unbounded")
    await registry.emit("tool:pre", {})
    assert [(r["handler"], r["kind"]) for r in failures.records] == [
        ("bounded", "error"),
        ("unbounded", "error"),
    ]
    assert all("upstream service timed out" in r["error"] for r in failures.records)


async def test_fast_handlers_under_a_timeout_behave_like_unbounded_ones() -> None:
    registry = HookRegistry(default_timeout=5.0)
    registry.register("tool:pre", returning(HookResult(action="modify", data={"a": 1})))

    def sync_deny(event: str, data: Data) -> HookResult:
        assert data == {"a": 1}
        return HookResult(action="deny", reason="sync under a timeout")

    registry.register("tool:pre", sync_deny, priority=1, name="sync-deny")
    result = await registry.emit("tool:pre", {})
    assert (result.action, result.reason, result.source) == (
        "deny",
        "sync under a timeout",
        "sync-deny",
    )


# ---------------------------------------------------------------------------- failures


async def test_failures_are_reported_and_treated_as_continue() -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)
    calls: list[str] = []

    def raises(event: str, data: Data) -> HookResult:
        raise ValueError("boom")

    async def raises_async(event: str, data: Data) -> HookResult:
        raise RuntimeError("async boom")

    registry.register("tool:pre", raises, priority=1, name="raises")
    registry.register("tool:pre", raises_async, priority=2, name="raises-async")
    registry.register("tool:pre", returning(None, calls, "last"), priority=5)
    result = await registry.emit("tool:pre", {"x": 1})
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["x"] == 1
    assert calls == ["last"]
    assert [(r["event"], r["handler"], r["kind"], r["fail_closed"]) for r in failures.records] == [
        ("tool:pre", "raises", "error", False),
        ("tool:pre", "raises-async", "error", False),
    ]
    assert failures.records[0]["error"] == "ValueError: boom"
    assert failures.records[1]["error"] == "RuntimeError: async boom"


@pytest.mark.parametrize(
    ("returned", "action", "reason"),
    [
        ({"action": "deny", "reason": "no rm"}, "deny", "no rm"),
        ({"action": "inject_context", "context_injection": "note"}, "inject_context", None),
        ({}, "continue", None),
    ],
)
async def test_a_mapping_of_hook_result_fields_is_read_as_that_result(
    returned: Data, action: str, reason: str | None
) -> None:
    """As amplifier-core 2.0.2 reads it: a dict is the HookResult it spells."""
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)

    async def handler(event: str, data: Data) -> Data:
        return returned

    registry.register("tool:pre", handler, name="guard")  # type: ignore[arg-type]
    result = await registry.emit("tool:pre", {"tool_name": "bash"})
    assert (result.action, result.reason) == (action, reason)
    assert failures.records == []


@pytest.mark.parametrize(
    ("returned", "says"),
    [
        (42, "returned int 42, which is not a HookResult"),
        ("deny", "returned str 'deny', which is not a HookResult"),
        ({"action": "block"}, "(action: Input should be"),
        ({"acton": "deny"}, "(acton: Extra inputs are not permitted)"),
        (["deny"], "returned list ['deny']"),
    ],
)
@pytest.mark.parametrize("fail_closed", [False, True])
async def test_a_result_emit_cannot_read_is_a_deny_for_every_handler(
    returned: object, says: str, fail_closed: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """As amplifier-core 2.0.2 does: what cannot be read as a HookResult denies, so a guard's
    answer that is spelled wrong never becomes an allow; the log says what was returned and
    what a HookResult is."""
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)
    calls: list[str] = []

    def guard(event: str, data: Data) -> object:
        return returned

    registry.register("tool:pre", guard, priority=1, name="guard", fail_closed=fail_closed)  # type: ignore[arg-type]
    registry.register("tool:pre", returning(None, calls, "after"), priority=2)
    result = await registry.emit("tool:pre", {})
    assert result.action == "deny"
    assert result.source == "guard"
    assert result.reason is not None
    assert says in result.reason
    assert calls == []
    assert [(r["kind"], r["fail_closed"]) for r in failures.records] == [("invalid_result", True)]
    [logged] = [r.getMessage() for r in caplog.records if r.name == "amplifier_core.hooks"]
    assert says in logged
    assert "HookResult(action='deny', reason='...')" in logged


async def test_failures_are_logged_with_handler_and_event(caplog: pytest.LogCaptureFixture) -> None:
    registry = HookRegistry()

    def raises(event: str, data: Data) -> HookResult:
        raise KeyError("tool_input")

    registry.register("tool:pre", raises, name="reads-input")
    with caplog.at_level(logging.WARNING, logger="amplifier_core.hooks"):
        await registry.emit("tool:pre", {})
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    for part in ("reads-input", "tool:pre", "tool_input"):
        assert part in message


@pytest.mark.parametrize("behaviour", ["raise", "garbage"])
async def test_fail_closed_turns_a_failure_into_deny(behaviour: str) -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)
    calls: list[str] = []

    def gate(event: str, data: Data) -> Any:
        if behaviour == "raise":
            raise RuntimeError("policy file unreadable")
        return "yes"

    registry.register("tool:pre", gate, priority=1, name="security-gate", fail_closed=True)
    registry.register("tool:pre", returning(None, calls, "after"), priority=2)
    result = await registry.emit("tool:pre", {})
    assert result.action == "deny"
    assert result.source == "security-gate"
    assert result.reason is not None
    assert "security-gate" in result.reason
    assert calls == []
    assert failures.records[0]["fail_closed"] is True
    assert failures.records[0]["kind"] == ("error" if behaviour == "raise" else "invalid_result")


async def test_a_fail_closed_handler_that_returns_none_continues() -> None:
    registry = HookRegistry()
    registry.register("tool:pre", returning(None), fail_closed=True)
    assert (await registry.emit("tool:pre", {})).action == "continue"


async def test_a_broken_failure_listener_does_not_break_emit() -> None:
    registry = HookRegistry()
    good = FailureLog()

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("listener is broken")

    registry.add_failure_listener(broken)
    registry.add_failure_listener(good)

    def raises(event: str, data: Data) -> HookResult:
        raise ValueError("boom")

    registry.register("tool:pre", raises, name="raises")
    registry.register("tool:pre", returning(HookResult(action="deny", reason="still runs")))
    result = await registry.emit("tool:pre", {})
    assert result.reason == "still runs"
    assert [r["handler"] for r in good.records] == ["raises"]


async def test_a_removed_failure_listener_hears_nothing() -> None:
    registry = HookRegistry()
    failures = FailureLog()
    remove = registry.add_failure_listener(failures)
    remove()
    remove()

    def raises(event: str, data: Data) -> HookResult:
        raise ValueError("boom")

    registry.register("tool:pre", raises)
    await registry.emit("tool:pre", {})
    assert failures.records == []


# ---------------------------------------------------------------------------- cancellation


@pytest.mark.parametrize("handler_timeout", [None, 5.0])
async def test_cancelling_the_emitting_task_propagates(handler_timeout: float | None) -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)
    entered = asyncio.Event()
    calls: list[str] = []

    async def waits(event: str, data: Data) -> HookResult:
        entered.set()
        await asyncio.Event().wait()
        return HookResult()

    registry.register("tool:pre", waits, priority=1, timeout=handler_timeout)
    registry.register("tool:pre", returning(None, calls, "after"), priority=2)
    task = asyncio.create_task(registry.emit("tool:pre", {}))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert calls == []
    assert failures.records == []


@pytest.mark.parametrize("handler_timeout", [None, 5.0])
async def test_a_handler_raising_cancelled_error_of_its_own_is_a_failure(
    handler_timeout: float | None,
) -> None:
    """As amplifier-core 2.0.2: the others still run (and a fail-closed one denies)."""
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)
    ran: list[str] = []

    async def cancelled(event: str, data: Data) -> HookResult:
        raise asyncio.CancelledError

    registry.register("tool:pre", cancelled, timeout=handler_timeout, name="c")
    registry.register("tool:pre", returning(HookResult(), ran, "after"), priority=10)
    result = await registry.emit("tool:pre", {})
    assert (result.action, ran) == ("continue", ["after"])
    assert [(r["handler"], r["kind"]) for r in failures.records] == [("c", "error")]
    assert await registry.emit_and_collect("tool:pre", {}) == []
    assert ran == ["after", "after"]

    registry.register("tool:pre", cancelled, name="gate", fail_closed=True, priority=-1)
    denied = await registry.emit("tool:pre", {})
    assert (denied.action, denied.source) == ("deny", "gate")


async def test_cancelling_emit_and_collect_propagates() -> None:
    registry = HookRegistry()
    entered = asyncio.Event()

    async def waits(event: str, data: Data) -> HookResult:
        entered.set()
        await asyncio.Event().wait()
        return HookResult()

    registry.register("tool:pre", waits)
    task = asyncio.create_task(registry.emit_and_collect("tool:pre", {}, timeout=5.0))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


# ---------------------------------------------------------------------------- patterns, aliases


async def test_wildcards_merge_into_priority_order_with_exact_subscribers() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("*", returning(None, calls, "star"), priority=3, name="star")
    registry.register("tool:*", returning(None, calls, "tool-any"), priority=1, name="tool-any")
    registry.register("tool:pre", returning(None, calls, "exact"), priority=2, name="exact")
    registry.register("*:error", returning(None, calls, "errors"), priority=0, name="errors")
    registry.register("tool:pre", returning(None, calls, "exact-0"), priority=0, name="exact-0")
    await registry.emit("tool:pre", {})
    assert calls == ["exact-0", "tool-any", "exact", "star"]
    calls.clear()
    await registry.emit("tool:error", {})
    assert calls == ["errors", "tool-any", "star"]
    calls.clear()
    await registry.emit("provider:error", {})
    assert calls == ["errors", "star"]
    calls.clear()
    await registry.emit("session:start", {})
    assert calls == ["star"]
    assert registry.list_handlers("tool:error") == {"tool:error": ["errors", "tool-any", "star"]}


async def test_a_pattern_registered_after_an_emit_joins_the_chain() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("tool:pre", returning(None, calls, "exact"))
    await registry.emit("tool:pre", {})
    registry.register("tool:?re", returning(None, calls, "pattern"), priority=-1)
    await registry.emit("tool:pre", {})
    assert calls == ["exact", "pattern", "exact"]


async def test_pascal_case_aliases_work_on_register_and_emit() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("PreToolUse", returning(None, calls, "alias"), priority=1)
    registry.register("tool:pre", returning(None, calls, "canonical"), priority=2)
    seen_events: list[str] = []

    async def event_recorder(event: str, data: Data) -> None:
        seen_events.append(event)

    registry.register("PreToolUse", event_recorder, priority=3)
    await registry.emit("PreToolUse", {})
    await registry.emit("tool:pre", {})
    assert calls == ["alias", "canonical", "alias", "canonical"]
    assert seen_events == ["tool:pre", "tool:pre"]
    assert registry.list_handlers("PreToolUse") == registry.list_handlers("tool:pre")


@pytest.mark.parametrize(
    ("alias", "event"),
    [
        ("PostToolUse", "tool:post"),
        ("SessionStart", "session:start"),
        ("SessionStop", "session:end"),
        ("PromptSubmit", "prompt:submit"),
        ("ResponseComplete", "prompt:complete"),
        ("Checkpoint", "session:checkpoint"),
        ("ModelSwitch", "provider:switch"),
        ("MemoryUpdate", "memory:update"),
    ],
)
async def test_each_alias_subscription_fires_on_its_canonical_event(alias: str, event: str) -> None:
    registry = HookRegistry()
    registry.register(alias, returning(HookResult(action="deny", reason=alias)))
    assert (await registry.emit(event, {})).reason == alias
    assert (await registry.emit(alias, {})).reason == alias


async def test_error_alias_subscribes_to_every_error_event() -> None:
    registry = HookRegistry()
    seen: list[str] = []

    async def on_error(event: str, data: Data) -> None:
        seen.append(event)

    registry.register("Error", on_error, name="on-error")
    for event in ["tool:error", "provider:error", "my-plugin:error", "tool:pre", "error"]:
        await registry.emit(event, {})
    assert seen == ["tool:error", "provider:error", "my-plugin:error"]
    assert registry.list_handlers() == {"*:error": ["on-error"]}


# ---------------------------------------------------------------------------- emit_and_collect


async def test_emit_and_collect_gathers_data_and_skips_failures() -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)

    async def contributes(event: str, data: Data) -> HookResult:
        return HookResult(data={"from": "a", "session": data.get("session_id")})

    def sync_contributes(event: str, data: Data) -> HookResult:
        return HookResult(action="deny", data={"from": "b"})

    def raises(event: str, data: Data) -> HookResult:
        raise ValueError("boom")

    def garbage(event: str, data: Data) -> str:
        return "garbage"

    registry.set_default_fields(session_id="s9")
    registry.register("context:include", contributes, priority=1)
    registry.register("context:include", hang, priority=2, name="hanger")
    registry.register("context:include", raises, priority=3, name="raises")
    registry.register("context:include", returning(HookResult()), priority=4)
    registry.register("context:include", returning(None), priority=5)
    registry.register("context:include", garbage, priority=6, name="garbage")  # type: ignore[arg-type]
    registry.register("context:*", sync_contributes, priority=7)
    collected = await registry.emit_and_collect("context:include", {}, timeout=0.02)
    # As amplifier-core 2.0.2: handlers see the data as given, without defaults.
    assert collected == [{"from": "a", "session": None}, {"from": "b"}]
    assert [(r["handler"], r["kind"]) for r in failures.records] == [
        ("hanger", "timeout"),
        ("raises", "error"),
        ("garbage", "invalid_result"),
    ]


async def test_emit_and_collect_accepts_aliases_and_does_not_mutate_the_input() -> None:
    registry = HookRegistry()
    registry.set_default_fields(session_id="s")

    async def echo(event: str, data: Data) -> HookResult:
        return HookResult(data={"event": event, **data})

    registry.register("session:start", echo)
    original: Data = {"x": 1}
    collected = await registry.emit_and_collect("SessionStart", original)
    assert collected == [{"event": "session:start", "x": 1}]  # no timestamp, no defaults
    assert original == {"x": 1}


async def test_emit_and_collect_reports_a_handlers_own_timeout_error_as_an_error() -> None:
    registry = HookRegistry()
    failures = FailureLog()
    registry.add_failure_listener(failures)

    async def raises_timeout(event: str, data: Data) -> HookResult:
        raise TimeoutError("index server timed out")

    registry.register("context:include", raises_timeout, name="indexer")
    assert await registry.emit_and_collect("context:include", {}, timeout=5.0) == []
    assert [(r["handler"], r["kind"], r["error"]) for r in failures.records] == [
        ("indexer", "error", "TimeoutError: index server timed out")
    ]


async def test_emit_and_collect_with_no_timeout_waits_for_slow_handlers() -> None:
    registry = HookRegistry()

    async def slow(event: str, data: Data) -> HookResult:
        await asyncio.sleep(0.01)
        return HookResult(data={"slow": True})

    registry.register("x:y", slow)
    assert await registry.emit_and_collect("x:y", None, timeout=None) == [{"slow": True}]


# ---------------------------------------------------------------------------- listing, removal


def test_list_handlers_for_all_events_and_one_event() -> None:
    registry = HookRegistry()
    registry.register("tool:pre", returning(None), priority=5, name="b")
    registry.register("tool:pre", returning(None), priority=1, name="a")
    registry.register("tool:post", returning(None), name="c")
    registry.register("tool:*", returning(None), priority=3, name="pattern")
    assert registry.list_handlers() == {
        "tool:pre": ["a", "b"],
        "tool:post": ["c"],
        "tool:*": ["pattern"],
    }
    assert registry.list_handlers("tool:pre") == {"tool:pre": ["a", "pattern", "b"]}
    assert registry.list_handlers("session:start") == {"session:start": []}
    assert [info.name for info in registry.handlers_for("tool:post")] == ["c", "pattern"]


async def test_unregister_by_name_removes_every_handler_of_that_name() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    registry.register("tool:pre", returning(None, calls, "x1"), name="x")
    registry.register("tool:*", returning(None, calls, "x2"), name="x")
    registry.register("tool:pre", returning(None, calls, "y"), name="y")
    await registry.emit("tool:pre", {})
    assert registry.unregister("x") == 2
    assert registry.unregister("x") == 0
    assert registry.unregister("never-registered") == 0
    await registry.emit("tool:pre", {})
    assert calls == ["x1", "x2", "y", "y"]
    assert registry.list_handlers() == {"tool:pre": ["y"]}


async def test_same_name_registrations_keep_independent_unregister_closures() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    first = registry.register("tool:pre", returning(None, calls, "first"), name="shared")
    second = registry.register("tool:pre", returning(None, calls, "second"), name="shared")
    first()
    await registry.emit("tool:pre", {})
    assert calls == ["second"]
    first()
    await registry.emit("tool:pre", {})
    assert calls == ["second", "second"]
    second()
    second()
    await registry.emit("tool:pre", {})
    assert calls == ["second", "second"]
    assert registry.list_handlers("tool:pre") == {"tool:pre": []}


async def test_the_same_function_registered_twice_runs_twice_and_unregisters_once_each() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    handler = returning(None, calls, "h")
    undo_one = registry.register("tool:pre", handler, name="h")
    registry.register("tool:pre", handler, name="h")
    await registry.emit("tool:pre", {})
    undo_one()
    await registry.emit("tool:pre", {})
    assert calls == ["h", "h", "h"]


async def test_unregister_closure_after_unregister_by_name_is_harmless() -> None:
    registry = HookRegistry()
    undo = registry.register("tool:pre", returning(None), name="gone")
    keep = registry.register("tool:pre", returning(HookResult(action="deny")), name="kept")
    assert registry.unregister("gone") == 1
    undo()
    undo()
    assert registry.list_handlers("tool:pre") == {"tool:pre": ["kept"]}
    assert (await registry.emit("tool:pre", {})).action == "deny"
    keep()
    assert (await registry.emit("tool:pre", {})).action == "continue"


async def test_a_handler_may_unregister_itself_during_emit() -> None:
    registry = HookRegistry()
    calls: list[str] = []
    undo: list[Callable[[], None]] = []

    async def once(event: str, data: Data) -> None:
        calls.append("once")
        undo[0]()

    undo.append(registry.register("tool:pre", once, priority=1))
    registry.register("tool:pre", returning(None, calls, "always"), priority=2)
    await registry.emit("tool:pre", {})
    await registry.emit("tool:pre", {})
    assert calls == ["once", "always", "always"]


async def test_emitting_a_pattern_is_refused_with_a_clear_message() -> None:
    registry = HookRegistry()
    with pytest.raises(ValueError, match="a pattern is for subscribing"):
        await registry.emit("Error", {})
    with pytest.raises(ValueError, match=r"emit\('tool:\*'\)"):
        await registry.emit("tool:*", {})


async def test_bounded_handler_that_suspends_returns_its_result_and_one_that_hangs_is_cut() -> None:
    registry = HookRegistry(default_timeout=0.2)

    async def slow_but_fine(event: str, data: dict[str, Any]) -> HookResult:
        await asyncio.sleep(0.01)
        return HookResult(action="modify", data={**data, "seen": True})

    async def suspends_then_hangs(event: str, data: dict[str, Any]) -> HookResult:
        await asyncio.sleep(0)
        await asyncio.sleep(30)
        return HookResult(action="deny", reason="never")

    registry.register("e", slow_but_fine, name="slow")
    registry.register("e", suspends_then_hangs, name="hangs", timeout=0.05)
    started = asyncio.get_running_loop().time()
    result = await registry.emit("e", {})
    assert asyncio.get_running_loop().time() - started < 1.0
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["seen"] is True


async def test_cancelling_emit_reaches_a_bounded_handler_that_is_waiting() -> None:
    registry = HookRegistry(default_timeout=30)
    cancelled = asyncio.Event()

    async def waits(event: str, data: dict[str, Any]) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    registry.register("e", waits, name="waits")
    task = asyncio.create_task(registry.emit("e", {}))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set()


async def test_what_the_user_is_asked_about_is_a_private_copy_no_later_handler_changes() -> None:
    registry = HookRegistry()
    live = {"command": "ls"}

    def asks(event: str, data: dict[str, Any]) -> HookResult:
        command = data["tool_input"]["command"]
        return HookResult(action="ask_user", approval_prompt=f"run {command}?")

    def tampers(event: str, data: dict[str, Any]) -> None:
        data["tool_input"]["command"] = "touch PWNED"

    registry.register("tool:pre", asks, priority=1, name="asks")
    registry.register("tool:pre", tampers, priority=2, name="tampers")
    result = await registry.emit("tool:pre", {"tool_input": live})
    assert result.action == "ask_user"
    assert result.approval_prompt == "run ls?"
    assert result.data is not None
    assert result.data["tool_input"] == {"command": "ls"}
    assert result.data["tool_input"] is not live


async def test_json_data_hands_handlers_what_json_would_carry() -> None:
    """On by default, as amplifier-core 2.0.2's engine does it; off, handlers get the objects."""
    import datetime
    import decimal

    seen: list[Data] = []

    async def record(event: str, data: Data) -> HookResult:
        seen.append(data)
        return HookResult()

    given = {"when": datetime.date(2024, 1, 2), "cost": decimal.Decimal("1.50"), "pair": (1, 2)}
    objects = HookRegistry(json_data=False)
    objects.register("x:y", record)
    await objects.emit("x:y", given)
    assert seen[-1]["when"] is given["when"]
    as_json = HookRegistry()
    as_json.register("x:y", record)
    await as_json.emit("x:y", given)
    assert {k: seen[-1][k] for k in given} == {"when": "2024-01-02", "cost": "1.50", "pair": [1, 2]}
    assert await as_json.emit_and_collect("x:y", given) == []
    assert seen[-1] == {"when": "2024-01-02", "cost": "1.50", "pair": [1, 2]}


async def test_handlers_read_a_tool_result_as_2_0_2_hands_it_over() -> None:
    """A ToolResult is the text 2.0.2's str() of it gives; paths, bytes, datetimes, sets and
    other objects are str(), tuples lists, str/int subclasses their value, keys JSON keys."""
    import datetime
    import enum
    from pathlib import PurePosixPath

    from amplifier_core.models import ToolResult

    class Level(enum.IntEnum):
        HIGH = 3

    seen: list[Data] = []

    def record(event: str, data: Data) -> None:
        seen.append(data)

    registry = HookRegistry()
    registry.register("tool:post", record)
    given = {
        "result": ToolResult(output="hello from the test file\n"),
        "empty": ToolResult(output=""),
        "failed": ToolResult(success=False, error={"message": "boom"}),
        "bare_failure": ToolResult(success=False),
        "nested": [{"path": PurePosixPath("/tmp/x"), "raw": b"ab"}, ("a", ("b",))],
        "when": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        "level": Level.HIGH,
        "keys": {1: "one", None: "none", 2.5: "half", ("a", 1): "pair"},
    }
    result = await registry.emit("tool:post", given)
    handed = seen[-1]
    assert handed["result"] == "hello from the test file\n"
    assert handed["empty"] == "Success"
    assert handed["failed"] == "Error: boom"
    assert handed["bare_failure"] == "Failed"
    assert handed["nested"] == [{"path": "/tmp/x", "raw": "b'ab'"}, ["a", ["b"]]]
    assert handed["when"] == "2024-01-02 03:04:05+00:00"
    assert handed["level"] == 3
    assert type(handed["level"]) is int
    assert handed["keys"] == {"1": "one", "null": "none", "2.5": "half", "('a', 1)": "pair"}
    assert result.data == handed


async def test_plain_data_is_handed_over_without_a_copy_and_modified_data_is_normalised() -> None:
    from pathlib import PurePosixPath

    seen: list[Data] = []
    plain = {"tool_input": {"command": "ls", "args": ["-l", 1, 2.5, True, None]}}

    def modify(event: str, data: Data) -> HookResult:
        return HookResult(action="modify", data={**data, "where": PurePosixPath("/w"), "t": (1,)})

    def record(event: str, data: Data) -> None:
        seen.append(data)

    registry = HookRegistry()
    registry.register("tool:pre", record, priority=-1)
    registry.register("tool:pre", modify, priority=0)
    registry.register("tool:pre", record, priority=1)
    result = await registry.emit("tool:pre", plain)
    assert seen[0]["tool_input"] is plain["tool_input"]  # JSON already: not copied
    assert seen[1]["where"] == "/w"
    assert seen[1]["t"] == [1]
    assert result.data is not None
    assert result.data["where"] == "/w"


async def test_normalising_never_breaks_emit_on_cycles_depth_or_a_failing_str() -> None:
    class Hostile:
        def __str__(self) -> str:
            raise RuntimeError("nope")

    seen: list[Data] = []

    def record(event: str, data: Data) -> None:
        seen.append(data)

    registry = HookRegistry()
    registry.register("x:y", record)
    looped: dict[str, Any] = {"obj": Hostile(), "pair": (1, 2)}
    looped["self"] = looped
    deep: list[Any] = []
    tip = deep
    for _ in range(5000):
        tip.append([])
        tip = tip[0]
    tip.append(("end",))
    result = await registry.emit("x:y", {"looped": looped, "deep": deep})
    assert result.action == "continue"
    handed = seen[-1]
    assert handed["looped"]["obj"] == "<unprintable Hostile>"
    assert handed["looped"]["pair"] == [1, 2]
    assert handed["looped"]["self"] is looped  # the cycle is kept as it is
    assert isinstance(handed["deep"], list)


async def test_a_mapping_whose_iteration_fails_reaches_handlers_as_its_text() -> None:
    class Exploding(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[no-untyped-def,override]
            raise RuntimeError("boom")

    seen: list[Data] = []
    registry = HookRegistry()
    registry.register("x:y", lambda event, data: seen.append(data))
    result = await registry.emit("x:y", {"output": Exploding(a="b")})
    assert result.action == "continue"
    assert seen[-1]["output"] == "{'a': 'b'}"
