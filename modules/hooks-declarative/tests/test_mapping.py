"""From decisions to one HookResult: every row of the mapping table, and the precedence
block > ask > modify > allow > continue with nothing dropped on the way."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.models import HookResult
from amplifier_module_hooks_declarative import Decision, Outcome, to_hook_result
from amplifier_module_hooks_declarative.mapping import (
    APPROVAL_OPTIONS,
    CLAUDE_EVENTS,
    PASCAL_EVENTS,
    alias_of,
    apply_modification,
    is_tool_event,
)

TOOL_DATA: dict[str, Any] = {
    "tool_name": "bash",
    "tool": "bash",
    "tool_input": {"command": "ls", "timeout": 5},
    "input": {"command": "ls", "timeout": 5},
    "session_id": "s-1",
}


def result_of(*decisions: Decision, data: dict[str, Any] | None = None) -> HookResult | None:
    outcome = Outcome()
    for decision in decisions:
        outcome.add(decision)
    return to_hook_result(outcome, "tool:pre", TOOL_DATA if data is None else data)


def test_the_ten_app_cli_names_and_claude_code_names() -> None:
    assert PASCAL_EVENTS == {
        "PreToolUse": "tool:pre",
        "PostToolUse": "tool:post",
        "SessionStart": "session:start",
        "SessionStop": "session:end",
        "PromptSubmit": "prompt:submit",
        "ResponseComplete": "prompt:complete",
        "Error": "*:error",
        "Checkpoint": "session:checkpoint",
        "ModelSwitch": "provider:switch",
        "MemoryUpdate": "memory:update",
    }
    assert CLAUDE_EVENTS["UserPromptSubmit"] == "prompt:submit"
    assert CLAUDE_EVENTS["Stop"] == "prompt:complete"
    assert CLAUDE_EVENTS["SessionEnd"] == "session:end"
    assert CLAUDE_EVENTS["Notification"] == "user:notification"
    assert CLAUDE_EVENTS["SubagentStop"] == "prompt:complete"  # of a child session
    assert CLAUDE_EVENTS["PermissionRequest"] == "approval:required"
    assert CLAUDE_EVENTS["TeammateIdle"] is None


@pytest.mark.parametrize(
    ("event", "alias"),
    [
        ("tool:pre", "PreToolUse"),
        ("session:end", "SessionStop"),
        ("memory:update", "MemoryUpdate"),
        ("tool:error", "Error"),
        ("provider:error", "Error"),
        ("context:include", "context:include"),
        ("my_module:done", "my_module:done"),
    ],
)
def test_alias_of(event: str, alias: str) -> None:
    assert alias_of(event) == alias


def test_modification_goes_into_tool_input_and_input_or_into_the_data() -> None:
    assert is_tool_event(TOOL_DATA)
    changed = apply_modification(TOOL_DATA, {"command": "ls -la"})
    assert changed["tool_input"] == {"command": "ls -la", "timeout": 5}
    assert changed["input"] == changed["tool_input"]
    assert TOOL_DATA["tool_input"] == {"command": "ls", "timeout": 5}  # not mutated
    prompt = {"prompt": "hello", "turn": 1}
    assert not is_tool_event(prompt)
    assert apply_modification(prompt, {"prompt": "hello!"}) == {"prompt": "hello!", "turn": 1}


def test_nothing_said_is_no_result() -> None:
    assert result_of() is None
    assert result_of(Decision(source="a"), Decision(action="allow", source="b")) is None


def test_block_is_deny_with_the_message_and_the_hook_as_source() -> None:
    result = result_of(Decision(action="block", message="no rm", source="f.yaml:hooks.X[1]"))
    assert result is not None
    assert result.action == "deny"
    assert result.reason == "no rm"
    assert result.source == "f.yaml:hooks.X[1]"


def test_block_without_message_names_the_hook() -> None:
    result = result_of(Decision(action="block", source="f.yaml:hooks.X[0]"))
    assert result is not None
    assert result.reason == "blocked by hook f.yaml:hooks.X[0]"


def test_stop_is_deny_with_the_stop_reason() -> None:
    result = result_of(Decision(stop=True, message="Build is red; stopping", source="cc"))
    assert result is not None
    assert (result.action, result.reason) == ("deny", "Build is red; stopping")


def test_ask_is_ask_user_with_three_options() -> None:
    result = result_of(Decision(action="ask", message="Push to origin?", source="h"))
    assert result is not None
    assert result.action == "ask_user"
    assert result.approval_prompt == "Push to origin?"
    assert result.approval_options == ["Allow once", "Allow always", "Deny"]
    assert list(APPROVAL_OPTIONS) == result.approval_options
    assert result.source == "h"


def test_modify_merges_and_the_later_hook_wins_a_conflict() -> None:
    result = result_of(
        Decision(action="modify", modified_args={"command": "ls -1", "timeout": 9}, source="a"),
        Decision(action="modify", modified_args={"command": "ls -la"}, source="b"),
    )
    assert result is not None
    assert result.action == "modify"
    assert result.data is not None
    assert result.data["tool_input"] == {"command": "ls -la", "timeout": 9}
    assert result.data["input"] == {"command": "ls -la", "timeout": 9}
    assert result.data["session_id"] == "s-1"


def test_modify_without_arguments_is_nothing() -> None:
    assert result_of(Decision(action="modify", modified_args=None, source="a")) is None


def test_messages_become_user_messages_with_level_and_source() -> None:
    result = result_of(
        Decision(action="allow", message="looks fine", source="a"),
        Decision(message="hook b failed: timeout", level="warning", source="b"),
    )
    assert result is not None
    assert result.action == "continue"
    assert [(m.message, m.level, m.source) for m in result.user_messages] == [
        ("looks fine", "info", "a"),
        ("hook b failed: timeout", "warning", "b"),
    ]
    assert result.user_message == "looks fine\nhook b failed: timeout"
    assert result.user_message_level == "warning"


def test_context_becomes_an_injection_naming_hook_and_event() -> None:
    result = result_of(Decision(context="Repo uses tabs.", source="cc:hooks.X[0]"))
    assert result is not None
    assert result.action == "inject_context"
    (injection,) = result.context_injections
    assert (injection.content, injection.hook_name, injection.event, injection.role) == (
        "Repo uses tabs.",
        "cc:hooks.X[0]",
        "tool:pre",
        "system",
    )
    assert result.context_injection == "Repo uses tabs."
    assert result_of(Decision(context="   ", source="x")) is not None  # kept as a decision
    assert result_of(Decision(context="   ", source="x")).action == "continue"  # type: ignore[union-attr]


def test_precedence_block_over_ask_over_modify_over_allow() -> None:
    allow = Decision(action="allow", source="allow")
    modify = Decision(action="modify", modified_args={"command": "pwd"}, source="modify")
    ask = Decision(action="ask", message="sure?", source="ask")
    block = Decision(action="block", message="never", source="block")
    everything = result_of(allow, modify, ask, block)
    assert everything is not None
    assert (everything.action, everything.reason, everything.source) == ("deny", "never", "block")
    no_block = result_of(allow, modify, ask)
    assert no_block is not None
    assert (no_block.action, no_block.approval_prompt) == ("ask_user", "sure?")
    assert no_block.data is not None
    assert no_block.data["tool_input"]["command"] == "pwd"  # carried for kernels that chain it
    no_ask = result_of(allow, modify)
    assert no_ask is not None
    assert no_ask.action == "modify"
    assert result_of(allow) is None


def test_every_message_is_kept_beside_the_winner() -> None:
    result = result_of(
        Decision(action="block", message="first", source="a"),
        Decision(action="block", message="second", source="b"),
        Decision(action="ask", message="ignored prompt", source="c"),
        Decision(message="note", level="warning", source="d"),
        Decision(context="ctx", source="e"),
    )
    assert result is not None
    assert result.action == "deny"
    assert result.reason == "first; second"
    assert result.source == "a"
    assert [m.message for m in result.user_messages] == ["note"]
    assert [i.content for i in result.context_injections] == ["ctx"]
    asks = result_of(
        Decision(action="ask", message="one?", source="a"),
        Decision(action="ask", message="two?", source="b"),
    )
    assert asks is not None
    assert asks.approval_prompt == "one?; two?"
    assert asks.source == "a"


def test_stop_without_reason_names_the_hook() -> None:
    result = result_of(Decision(stop=True, source="cc:hooks.Stop[0].hooks[0]"))
    assert result is not None
    assert result.reason == "stopped by hook cc:hooks.Stop[0].hooks[0]"


def test_ask_or_allow_with_new_arguments_carries_them() -> None:
    asked = result_of(
        Decision(action="ask", message="ok?", modified_args={"command": "ls -a"}, source="cc")
    )
    assert asked is not None
    assert asked.action == "ask_user"
    assert asked.data is not None
    assert asked.data["tool_input"]["command"] == "ls -a"
    allowed = result_of(Decision(action="allow", modified_args={"command": "ls -a"}, source="cc"))
    assert allowed is not None
    assert allowed.action == "modify"
    blocked = result_of(Decision(action="block", modified_args={"command": "x"}, source="cc"))
    assert blocked is not None
    assert (blocked.action, blocked.data) == ("deny", None)
