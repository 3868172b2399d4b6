"""HookResult and its item models: fields, defaults, validation errors and projection."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from amplifier_core.models import ContextInjection, HookResult, ToolResult, UserMessage

#: Every field of amplifier-core 2.0.2's HookResult with its default (plus the provenance
#: field ``source``).
EXPECTED_DEFAULTS: dict[str, Any] = {
    "action": "continue",
    "data": None,
    "reason": None,
    "context_injection": None,
    "context_injection_role": "system",
    "ephemeral": False,
    "append_to_last_tool_result": False,
    "context_injections": [],
    "approval_prompt": None,
    "approval_options": None,
    "approval_timeout": 300.0,
    "approval_default": "deny",
    "suppress_output": False,
    "user_message": None,
    "user_message_level": "info",
    "user_message_source": None,
    "user_messages": [],
    "source": None,
}


def _field_errors(err: ValidationError) -> list[tuple[tuple[int | str, ...], str]]:
    return [(tuple(e["loc"]), e["msg"]) for e in err.errors()]


# ---------------------------------------------------------------------------- defaults


def test_every_design_field_exists_with_its_default() -> None:
    result = HookResult()
    assert set(HookResult.model_fields) == set(EXPECTED_DEFAULTS)
    for field, default in EXPECTED_DEFAULTS.items():
        assert getattr(result, field) == default, field
    assert type(result.approval_timeout) is float


def test_context_injection_and_user_message_defaults() -> None:
    injection = ContextInjection(content="x")
    assert injection.model_dump() == {
        "content": "x",
        "role": "system",
        "ephemeral": False,
        "append_to_last_tool_result": False,
        "hook_name": "unknown",
        "event": "",
    }
    message = UserMessage(message="hi")
    assert message.model_dump() == {"message": "hi", "level": "info", "source": "hook"}


def test_default_lists_are_not_shared_between_instances() -> None:
    first, second = HookResult(), HookResult()
    first.context_injections.append(ContextInjection(content="a"))
    first.user_messages.append(UserMessage(message="b"))
    assert second.context_injections == []
    assert second.user_messages == []


@pytest.mark.parametrize("action", ["continue", "deny", "modify", "ask_user"])
def test_each_action_that_needs_nothing_else_validates(action: str) -> None:
    assert HookResult(action=action).action == action  # type: ignore[arg-type]


def test_full_ask_user_result_keeps_every_approval_field() -> None:
    result = HookResult(
        action="ask_user",
        approval_prompt="Allow write to /etc/hosts?",
        approval_options=["Allow once", "Allow always", "Deny"],
        approval_timeout=12.5,
        approval_default="allow",
        reason="production file",
    )
    assert result.approval_prompt == "Allow write to /etc/hosts?"
    assert result.approval_options == ["Allow once", "Allow always", "Deny"]
    assert result.approval_timeout == 12.5
    assert result.approval_default == "allow"
    assert result.reason == "production file"


# ---------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"action": "explode"}, "action"),
        ({"action": "Deny"}, "action"),
        ({"context_injection_role": "robot"}, "context_injection_role"),
        ({"user_message_level": "loud"}, "user_message_level"),
        ({"approval_default": "maybe"}, "approval_default"),
        ({"approval_timeout": 0}, "approval_timeout"),
        ({"approval_timeout": -1.5}, "approval_timeout"),
        ({"action": "ask_user", "approval_options": []}, "approval_options"),
        ({"acton": "deny"}, "acton"),
        ({"context_injection_text": "x"}, "context_injection_text"),
    ],
)
def test_bad_field_is_rejected_and_named(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        HookResult(**kwargs)
    errors = _field_errors(caught.value)
    assert [loc for loc, _ in errors] == [(field,)], errors
    assert field in str(caught.value)


def test_unknown_keyword_error_says_extra_is_forbidden() -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        HookResult(acton="deny")  # type: ignore[call-arg]


@pytest.mark.parametrize("text", [None, "", "   ", "\n\t  \n"])
def test_inject_context_without_text_is_rejected_naming_the_field(text: str | None) -> None:
    with pytest.raises(ValidationError) as caught:
        HookResult(action="inject_context", context_injection=text)
    message = str(caught.value)
    assert "context_injection" in message
    assert "inject_context" in message


def test_inject_context_with_only_whitespace_injections_is_rejected() -> None:
    with pytest.raises(ValidationError, match="context_injection"):
        HookResult(action="inject_context", context_injections=[ContextInjection(content="  ")])


def test_ask_user_with_no_options_is_fine() -> None:
    result = HookResult(action="ask_user", approval_options=None)
    assert result.approval_options is None


def test_approval_timeout_accepts_small_positive_values() -> None:
    assert HookResult(approval_timeout=0.001).approval_timeout == 0.001


@pytest.mark.parametrize(
    ("model", "kwargs", "field"),
    [
        (ContextInjection, {"content": "x", "role": "robot"}, "role"),
        (ContextInjection, {"content": "x", "hook": "h"}, "hook"),
        (ContextInjection, {}, "content"),
        (UserMessage, {"message": "x", "level": "debug"}, "level"),
        (UserMessage, {"message": "x", "sauce": "h"}, "sauce"),
        (UserMessage, {}, "message"),
    ],
)
def test_item_models_reject_bad_fields_by_name(
    model: type[ContextInjection] | type[UserMessage], kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        model(**kwargs)
    assert [loc for loc, _ in _field_errors(caught.value)] == [(field,)]


# ---------------------------------------------------------------------------- projection


def test_scalar_context_fields_project_into_the_list() -> None:
    result = HookResult(
        action="inject_context",
        context_injection="line 42 is too long",
        context_injection_role="user",
        ephemeral=True,
        append_to_last_tool_result=True,
    )
    assert result.context_injections == [
        ContextInjection(
            content="line 42 is too long",
            role="user",
            ephemeral=True,
            append_to_last_tool_result=True,
        )
    ]


def test_list_projects_into_the_scalar_context_fields() -> None:
    result = HookResult(
        action="inject_context",
        context_injections=[
            ContextInjection(content="first", role="assistant", ephemeral=True),
            ContextInjection(content="second", role="user", ephemeral=True),
        ],
    )
    assert result.context_injection == "first\n\nsecond"
    assert result.context_injection_role == "assistant"
    assert result.ephemeral is True
    assert result.append_to_last_tool_result is False


def test_list_projection_is_ephemeral_only_when_every_item_is() -> None:
    result = HookResult(
        action="inject_context",
        context_injections=[
            ContextInjection(content="a", ephemeral=True, append_to_last_tool_result=True),
            ContextInjection(content="b", ephemeral=False),
        ],
    )
    assert result.ephemeral is False
    assert result.append_to_last_tool_result is True


def test_both_scalar_and_list_given_are_kept_as_given() -> None:
    items = [ContextInjection(content="from list")]
    result = HookResult(
        action="inject_context", context_injection="scalar", context_injections=items
    )
    assert result.context_injection == "scalar"
    assert result.context_injections == items


def test_no_context_fields_means_empty_list_and_no_scalar() -> None:
    result = HookResult(action="continue")
    assert result.context_injection is None
    assert result.context_injections == []


def test_user_message_projects_into_user_messages() -> None:
    result = HookResult(
        user_message="3 lint issues",
        user_message_level="warning",
        user_message_source="python-check",
    )
    assert result.user_messages == [
        UserMessage(message="3 lint issues", level="warning", source="python-check")
    ]


def test_user_message_without_source_projects_with_the_placeholder_source() -> None:
    result = HookResult(action="modify", data={"x": 1}, user_message="rewrote x")
    assert result.user_messages == [UserMessage(message="rewrote x", level="info", source="hook")]


def test_explicit_user_messages_are_kept_over_the_scalar() -> None:
    items = [UserMessage(message="a"), UserMessage(message="b", level="error")]
    result = HookResult(user_message="scalar", user_messages=items)
    assert result.user_messages == items
    assert result.user_message == "scalar"


def test_model_dump_round_trips() -> None:
    original = HookResult(
        action="inject_context",
        context_injection="ctx",
        user_message="msg",
        data={"k": [1, 2]},
    )
    assert HookResult.model_validate(original.model_dump()) == original
    assert HookResult.model_validate_json(original.model_dump_json()) == original


# ---------------------------------------------------------------------------- ToolResult


def test_tool_result_str_for_success_and_failure() -> None:
    assert str(ToolResult(output="done")) == "done"
    assert str(ToolResult()) == ""
    assert str(ToolResult(success=False, error={"message": "no such file"})) == (
        "Error: no such file"
    )
    assert str(ToolResult(success=False)) == "Error: unknown error"


def test_tool_result_keeps_extra_fields() -> None:
    result = ToolResult(output={"stdout": "x"}, exit_code=0)  # type: ignore[call-arg]
    assert result.model_dump()["exit_code"] == 0


def test_user_messages_alone_project_into_the_scalar_fields() -> None:
    result = HookResult(
        user_messages=[
            UserMessage(message="3 files", source="progress"),
            UserMessage(message="2 issues", level="error", source="checker"),
            UserMessage(message="done", source="progress"),
        ]
    )
    assert result.user_message == "3 files\n2 issues\ndone"
    assert result.user_message_level == "error"
    assert result.user_message_source == "progress, checker"


def test_a_constructed_result_keeps_its_forms_in_step_too() -> None:
    """``model_construct`` skips validation, not the step between the two forms."""
    result = HookResult.model_construct(context_injection="ctx", user_message="hi")
    assert result.context_injections == [ContextInjection(content="ctx")]
    assert result.user_messages == [UserMessage(message="hi")]


def test_carrying_equals_the_validated_continue_result_without_copying_data() -> None:
    data: dict[str, Any] = {"tool_input": {"command": "ls"}}
    made = HookResult.carrying(data)
    assert made.data is data
    assert made == HookResult.model_validate({"data": {}}).model_copy(update={"data": data})
    assert made.model_fields_set == {"data"}
    assert made.model_dump() == {**EXPECTED_DEFAULTS, "data": data}
    made.context_injections.append(ContextInjection(content="x"))
    assert HookResult.carrying({}).context_injections == []  # lists of its own
    assert made.model_copy(update={"reason": "r"}).reason == "r"


def test_merged_carries_the_lists_and_projects_their_scalar_forms() -> None:
    ask = HookResult(
        action="ask_user",
        approval_prompt="Allow?",
        context_injection="own",
        user_message="own message",
        source="gate",
    )
    injections = [
        ContextInjection(content="a", role="user", hook_name="h1"),
        ContextInjection(content="b", ephemeral=True, hook_name="gate"),
    ]
    messages = [UserMessage(message="m", level="warning", source="h1")]
    merged = ask.merged(data={"x": 1}, injections=injections, messages=messages)
    assert (merged.action, merged.approval_prompt, merged.source) == ("ask_user", "Allow?", "gate")
    assert merged.data == {"x": 1}
    assert merged.context_injections == injections
    assert (merged.context_injection, merged.context_injection_role) == ("a\n\nb", "user")
    assert merged.ephemeral is False
    assert merged.user_messages == messages
    assert (merged.user_message, merged.user_message_level) == ("m", "warning")
    assert merged.user_message_source == "h1"
    plain = HookResult().merged(action="continue", data={}, injections=[], messages=[])
    assert plain == HookResult(data={})
