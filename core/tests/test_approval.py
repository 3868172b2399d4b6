"""Approval: every path through the coordinator, both interfaces, and the ready systems."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from amplifier_core.approval import (
    ApprovalProvider,
    ApprovalRequest,
    ApprovalResponse,
    ApprovalSystem,
    ApprovalTimeoutError,
    CallbackApprovalSystem,
    StaticApprovalSystem,
    interpret_answer,
    is_allow_option,
)
from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.models import HookResult

ALWAYS_OPTIONS = ["Allow once", "Allow always", "Deny"]


def ask(prompt: str | None = "Allow write to prod/config.py?", **fields: Any) -> HookResult:
    return HookResult(action="ask_user", approval_prompt=prompt, **fields)


class Recorder:
    """A kernel-style approval system answering from a script and remembering each call."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, list[str], float, str]] = []

    async def request_approval(
        self,
        prompt: str,
        options: list[str],
        timeout: float,  # noqa: ASYNC109 - the interface under test
        default: str,
    ) -> str:
        self.calls.append((prompt, options, timeout, default))
        return self.answers.pop(0)


async def gate(
    coordinator: ModuleCoordinator, result: HookResult, *, name: str = "prod-guard"
) -> HookResult:
    """Emit ``result`` from a real handler on tool:pre and process the merged result."""

    async def handler(_event: str, _data: dict[str, Any]) -> HookResult:
        return result

    unregister = coordinator.hooks.register("tool:pre", handler, name=name)
    try:
        merged = await coordinator.hooks.emit("tool:pre", {"tool_name": "write_file"})
        return await coordinator.process_hook_result(merged, "tool:pre")
    finally:
        unregister()


# ---------------------------------------------------------------- allow / deny


async def test_allow_once_continues_with_the_event_data() -> None:
    system = Recorder("Allow once")
    coordinator = ModuleCoordinator(approval_system=system)
    result = await gate(coordinator, ask(approval_options=ALWAYS_OPTIONS))
    assert result.action == "continue"
    assert result.data is not None
    assert result.data["tool_name"] == "write_file"
    assert system.calls == [("Allow write to prod/config.py?", ALWAYS_OPTIONS, 300.0, "deny")]
    # Once means once: the next request asks again.
    system.answers.append("Allow once")
    await gate(coordinator, ask(approval_options=ALWAYS_OPTIONS))
    assert len(system.calls) == 2


async def test_defaults_prompt_and_options() -> None:
    system = Recorder("Allow")
    coordinator = ModuleCoordinator(approval_system=system)
    result = await coordinator.process_hook_result(ask(None), "tool:pre", "h")
    assert result.action == "continue"
    assert system.calls == [("Allow this operation?", ["Allow", "Deny"], 300.0, "deny")]


async def test_allow_always_is_cached_by_the_kernel_per_hook_and_prompt() -> None:
    system = Recorder("Allow always")
    coordinator = ModuleCoordinator(approval_system=system)
    first = await gate(coordinator, ask(approval_options=ALWAYS_OPTIONS))
    second = await gate(coordinator, ask(approval_options=ALWAYS_OPTIONS))
    assert (first.action, second.action) == ("continue", "continue")
    assert len(system.calls) == 1  # the second request never reached the system

    decisions = coordinator.audit.of_type("approval_decision")
    assert [(d["why"], d["cache_hit"], d["remembered"]) for d in decisions] == [
        ("user", False, True),
        ("cached", True, False),
    ]
    assert [r["cache_hit"] for r in coordinator.audit.of_type("approval_requested")] == [
        False,
        True,
    ]

    # Another prompt, or the same prompt from another hook, is asked again.
    system.answers += ["Deny", "Deny"]
    assert (await gate(coordinator, ask("Allow rm?"))).action == "deny"
    assert (await gate(coordinator, ask(), name="other-guard")).action == "deny"
    assert len(system.calls) == 3

    coordinator.approval_gate.forget()
    system.answers.append("Deny")
    assert (await gate(coordinator, ask())).action == "deny"


async def test_user_deny_names_who_denied_and_why() -> None:
    coordinator = ModuleCoordinator(approval_system=Recorder("Deny"))
    result = await gate(coordinator, ask(reason="Production file needs approval"))
    assert result.action == "deny"
    assert result.source == "prod-guard"
    assert result.reason is not None
    for part in (
        "User denied",
        "'Deny'",
        "Allow write to prod/config.py?",
        "'prod-guard'",
        "'tool:pre'",
        "Production file needs approval",
    ):
        assert part in result.reason


async def test_an_answer_nobody_understands_denies() -> None:
    coordinator = ModuleCoordinator(approval_system=Recorder("banana"))
    assert (await gate(coordinator, ask())).action == "deny"


# ---------------------------------------------------------------- timeouts and errors


async def test_no_answer_within_the_timeout_applies_default_deny() -> None:
    async def never(*_args: Any) -> str:
        await asyncio.sleep(30)
        return "Allow"

    coordinator = ModuleCoordinator(approval_system=CallbackApprovalSystem(never))
    result = await gate(coordinator, ask(approval_timeout=0.05))
    assert result.action == "deny"
    assert result.reason is not None
    assert "no answer from CallbackApprovalSystem within 0.05s" in result.reason
    (decision,) = coordinator.audit.of_type("approval_decision")
    assert (decision["why"], decision["approved"]) == ("timeout", False)


async def test_no_answer_within_the_timeout_applies_default_allow() -> None:
    async def never(*_args: Any) -> str:
        await asyncio.sleep(30)
        return "Deny"

    coordinator = ModuleCoordinator(approval_system=CallbackApprovalSystem(never))
    result = await gate(coordinator, ask(approval_timeout=0.05, approval_default="allow"))
    assert result.action == "continue"


@pytest.mark.parametrize(("default", "expected"), [("deny", "deny"), ("allow", "continue")])
async def test_approval_timeout_error_from_the_system_applies_the_default(
    default: str, expected: str
) -> None:
    def times_out(*_args: Any) -> str:
        raise ApprovalTimeoutError("nobody there")

    coordinator = ModuleCoordinator(approval_system=CallbackApprovalSystem(times_out))
    result = await gate(coordinator, ask(approval_default=default))
    assert result.action == expected
    assert coordinator.audit.of_type("approval_decision")[0]["why"] == "timeout"


@pytest.mark.parametrize(("default", "expected"), [("deny", "deny"), ("allow", "continue")])
async def test_a_raising_system_applies_the_default(default: str, expected: str) -> None:
    def broken(*_args: Any) -> str:
        raise ConnectionError("websocket closed")

    coordinator = ModuleCoordinator(approval_system=CallbackApprovalSystem(broken))
    result = await gate(coordinator, ask(approval_default=default))
    assert result.action == expected
    (decision,) = coordinator.audit.of_type("approval_decision")
    assert decision["why"] == "error"
    assert decision["error"] == "ConnectionError: websocket closed"
    if expected == "deny":
        assert result.reason is not None
        assert "websocket closed" in result.reason


async def test_an_unreadable_answer_is_an_error_and_applies_the_default() -> None:
    class Odd:
        async def request_approval(self, **_kwargs: Any) -> object:
            return 42

    coordinator = ModuleCoordinator(approval_system=Odd())
    assert (await gate(coordinator, ask())).action == "deny"
    assert "int" in coordinator.audit.of_type("approval_decision")[0]["error"]


async def test_without_an_approval_system_the_kernel_denies_even_with_default_allow() -> None:
    coordinator = ModuleCoordinator()
    result = await gate(coordinator, ask(approval_default="allow"))
    assert result.action == "deny"
    assert result.reason is not None
    assert result.reason.startswith("No approval system available")
    assert coordinator.audit.of_type("approval_decision")[0]["why"] == "no_approval_system"


# ---------------------------------------------------------------- interfaces


async def test_ecosystem_approval_provider_style() -> None:
    class Provider:
        def __init__(self, response: ApprovalResponse) -> None:
            self.response = response
            self.requests: list[ApprovalRequest] = []

        async def request_approval(self, request: ApprovalRequest) -> ApprovalResponse:
            self.requests.append(request)
            return self.response

    provider = Provider(ApprovalResponse(approved=True, remember=True))
    assert isinstance(provider, ApprovalProvider)
    coordinator = ModuleCoordinator(approval_system=provider)
    result = await gate(coordinator, ask(approval_timeout=12.0, reason="prod write"))
    assert result.action == "continue"
    (request,) = provider.requests
    assert request.tool_name == "write_file"
    assert request.action == "Allow write to prod/config.py?"
    assert request.timeout == 12.0
    assert request.risk_level == "high"
    assert request.details["hook"] == "prod-guard"
    assert request.details["reason"] == "prod write"
    assert request.details["options"] == ["Allow", "Deny"]

    # remember=True on an approval is cached by the kernel.
    await gate(coordinator, ask(approval_timeout=12.0))
    assert len(provider.requests) == 1

    provider.response = ApprovalResponse(approved=False, reason="not on a Friday")
    denied = await gate(coordinator, ask("Deploy?"))
    assert denied.action == "deny"
    assert denied.reason is not None
    assert "not on a Friday" in denied.reason


async def test_sync_and_positional_kernel_style_systems() -> None:
    class SyncPositional:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def request_approval(
            self, question: str, choices: list[str], wait: float, fallback: str
        ) -> str:
            self.seen.append(question)
            return choices[0]

    system = SyncPositional()
    coordinator = ModuleCoordinator(approval_system=system)
    assert (await gate(coordinator, ask())).action == "continue"
    assert system.seen == ["Allow write to prod/config.py?"]


async def test_approval_events_are_emitted_for_observers() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def observe(event: str, data: dict[str, Any]) -> None:
        seen.append((event, data))

    coordinator = ModuleCoordinator(approval_system=StaticApprovalSystem("deny"))
    coordinator.hooks.register("approval:*", observe, name="observer")
    await gate(coordinator, ask())
    assert [event for event, _ in seen] == ["approval:required", "approval:denied"]
    required, denied = seen[0][1], seen[1][1]
    assert required["hook"] == "prod-guard"
    assert required["trigger_event"] == "tool:pre"
    assert required["options"] == ["Allow", "Deny"]
    assert denied["answer"] == "Deny"
    assert "reason" in denied
    assert denied["session_id"] == coordinator.session_id


async def test_injections_riding_on_an_ask_user_result_are_applied() -> None:
    coordinator = ModuleCoordinator(approval_system=StaticApprovalSystem("allow"))

    async def note(_e: str, _d: dict[str, Any]) -> HookResult:
        return HookResult(action="inject_context", context_injection="writing to prod")

    coordinator.hooks.register("tool:pre", note, name="note")
    result = await gate(coordinator, ask(suppress_output=True))
    assert result.action == "continue"
    assert result.suppress_output is True
    assert [m["content"] for m in coordinator.injections.own_context.messages] == [
        "writing to prod"
    ]


async def test_a_hook_cannot_grant_its_own_request() -> None:
    # Whatever the hook puts in its result, only the approval system's answer counts.
    coordinator = ModuleCoordinator(approval_system=StaticApprovalSystem("deny"))
    sneaky = ask(
        approval_options=["Allow always"], data={"approved": True}, approval_default="allow"
    )
    assert (await coordinator.process_hook_result(sneaky, "tool:pre", "sneaky")).action == "deny"


# ---------------------------------------------------------------- ready systems and types


async def test_static_approval_system_policies() -> None:
    deny = StaticApprovalSystem()
    assert await deny.request_approval("p", ALWAYS_OPTIONS, 1.0, "deny") == "Deny"
    allow = StaticApprovalSystem("allow")
    assert await allow.request_approval("p", ALWAYS_OPTIONS, 1.0, "deny") == "Allow once"
    always = StaticApprovalSystem("always")
    assert await always.request_approval("p", ALWAYS_OPTIONS, 1.0, "deny") == "Allow always"
    assert await always.request_approval("p", ["Yes", "No"], 1.0, "deny") == "Yes"
    ruled = StaticApprovalSystem(rules=[("*staging*", "allow")])
    assert await ruled.request_approval("Deploy to staging?", ["Allow", "Deny"], 1.0, "deny") == (
        "Allow"
    )
    assert await ruled.request_approval("Deploy to prod?", ["Allow", "Deny"], 1.0, "deny") == "Deny"
    assert ruled.requests == ["Deploy to staging?", "Deploy to prod?"]
    assert isinstance(ruled, ApprovalSystem)


def test_static_approval_system_rejects_unknown_decisions() -> None:
    with pytest.raises(ValueError, match="'maybe'"):
        StaticApprovalSystem("maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"rules\['\*'\]"):
        StaticApprovalSystem(rules=[("*", "sure")])  # type: ignore[list-item]


def test_callback_approval_system_rejects_non_callables() -> None:
    with pytest.raises(TypeError, match="callable"):
        CallbackApprovalSystem("yes")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("option", "allows"),
    [
        ("Allow", True),
        ("Allow once", True),
        ("Allow always", True),
        ("Always allow", True),
        ("yes", True),
        ("Deny", False),
        ("Never allow", False),
        ("Don't allow", False),
        ("No", False),
        ("Run it", False),
        ("", False),
    ],
)
def test_is_allow_option(option: str, allows: bool) -> None:
    assert is_allow_option(option) is allows


def test_interpret_answer_forms() -> None:
    assert interpret_answer("Allow always").always is True
    assert interpret_answer(ApprovalResponse(approved=True, remember=True)).always is True
    assert interpret_answer(ApprovalResponse(approved=False, remember=True)).always is False
    assert interpret_answer({"approved": True}).approved is True
    assert interpret_answer(False).approved is False
    with pytest.raises(TypeError, match="ApprovalResponse"):
        interpret_answer(None)


def test_approval_request_and_response_models() -> None:
    request = ApprovalRequest(tool_name="bash", action="rm -rf build", risk_level="high")
    assert request.details == {}
    assert request.timeout is None
    with pytest.raises(ValidationError, match="timeout must be > 0"):
        ApprovalRequest(tool_name="bash", action="x", risk_level="low", timeout=0)
    response = ApprovalResponse(approved=False)
    assert (response.reason, response.remember) == (None, False)
    assert issubclass(ApprovalTimeoutError, TimeoutError)


# ---------------------------------------------------------------- what is shown and remembered


async def ask_about(
    coordinator: ModuleCoordinator, tool_input: Any, prompt: str = "rm needs a human's confirmation"
) -> HookResult:
    async def handler(_event: str, _data: dict[str, Any]) -> HookResult:
        return ask(prompt, approval_options=ALWAYS_OPTIONS)

    unregister = coordinator.hooks.register("tool:pre", handler, name="fixed-message")
    try:
        data = {"tool_name": "bash", "tool_input": tool_input}
        merged = await coordinator.hooks.emit("tool:pre", data)
        return await coordinator.process_hook_result(merged, "tool:pre")
    finally:
        unregister()


async def test_allow_always_covers_the_exact_input_not_a_shared_prompt() -> None:
    system = Recorder("Allow always", "Deny")
    coordinator = ModuleCoordinator(approval_system=system)
    assert (await ask_about(coordinator, {"command": "rm -rf build"})).action == "continue"
    assert (await ask_about(coordinator, {"command": "rm -rf build"})).action == "continue"
    assert (await ask_about(coordinator, {"command": "rm -rf precious"})).action == "deny"
    prompts = [call[0] for call in system.calls]
    assert len(prompts) == 2  # the repeated input was remembered, the other one asked
    assert "rm -rf build" in prompts[0]
    assert "rm -rf precious" in prompts[1]
    assert prompts[1].startswith("rm needs a human's confirmation\n\nTool: bash\nInput: {")


async def test_a_prompt_that_shows_the_input_is_left_as_the_hook_wrote_it() -> None:
    system = Recorder("Deny")
    coordinator = ModuleCoordinator(approval_system=system)
    await ask_about(
        coordinator, {"command": "git push"}, prompt="Run this bash command?\n$ git push"
    )
    assert system.calls[0][0] == "Run this bash command?\n$ git push"


async def test_control_and_bidi_characters_of_the_input_are_shown_escaped() -> None:
    system = Recorder("Deny")
    coordinator = ModuleCoordinator(approval_system=system)
    command = "echo ok\x1b[2K\rrm -rf / \u202e"
    await ask_about(coordinator, {"command": command}, prompt=f"Run {command}?")
    shown = system.calls[0][0]
    assert "\\u001b[2K\\rrm -rf / \\u202e" in shown
    assert shown.count("\x1b") == 1  # only the hook's own text, never the appended input


async def test_input_nested_10000_deep_is_asked_about_cut_with_a_digest() -> None:
    deep: Any = "bottom"
    for _ in range(10_000):
        deep = {"d": deep}
    system = Recorder("Allow always", "Deny")
    coordinator = ModuleCoordinator(approval_system=system)
    assert (await ask_about(coordinator, {"payload": deep})).action == "continue"
    shown = system.calls[0][0]
    assert "nested deeper than 64 levels" in shown
    assert "Input sha256:" in shown
    other: Any = "other"
    for _ in range(10_000):
        other = {"d": other}
    assert (await ask_about(coordinator, {"payload": other})).action == "deny"


async def test_a_prompt_showing_a_longer_command_does_not_count_as_showing_the_input() -> None:
    system = Recorder("Deny")
    coordinator = ModuleCoordinator(approval_system=system)
    await ask_about(coordinator, {"command": "rm -rf /"}, prompt="Run rm -rf /tmp/x?")
    assert system.calls[0][0].endswith('Tool: bash\nInput: {\n  "command": "rm -rf /"\n}')
