"""The request/response envelope: round trips, the content-block discriminator, extra keys, and
Usage's money rules."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from amplifier_core.message_models import (
    ChatRequest,
    ChatResponse,
    ContentBlockUnion,
    Degradation,
    ImageBlock,
    Message,
    ReasoningBlock,
    RedactedThinkingBlock,
    ResponseFormatJson,
    ResponseFormatJsonSchema,
    ResponseFormatText,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    Usage,
)

BLOCKS: list[tuple[dict[str, Any], type]] = [
    ({"type": "text", "text": "hi"}, TextBlock),
    ({"type": "thinking", "thinking": "hmm", "signature": "sig"}, ThinkingBlock),
    ({"type": "redacted_thinking", "data": "opaque"}, RedactedThinkingBlock),
    ({"type": "tool_call", "id": "c1", "name": "bash", "input": {"command": "ls"}}, ToolCallBlock),
    ({"type": "tool_result", "tool_call_id": "c1", "output": {"ok": 1}}, ToolResultBlock),
    ({"type": "image", "source": {"type": "url", "url": "http://x/y.png"}}, ImageBlock),
    ({"type": "reasoning", "content": ["a"], "summary": ["b"]}, ReasoningBlock),
]


@pytest.mark.parametrize(("raw", "cls"), BLOCKS, ids=[b[1].__name__ for b in BLOCKS])
def test_a_content_block_dict_becomes_the_class_its_type_names(
    raw: dict[str, Any], cls: type
) -> None:
    block = TypeAdapter(ContentBlockUnion).validate_python(raw)
    assert type(block) is cls
    assert block.model_dump(exclude_none=True) == raw


def test_an_unknown_block_type_is_refused_naming_the_discriminator() -> None:
    with pytest.raises(ValidationError, match="type"):
        TypeAdapter(ContentBlockUnion).validate_python({"type": "video", "url": "x"})
    with pytest.raises(ValidationError):
        Message(role="assistant", content=[{"type": "sound"}])


def test_blocks_default_their_type_and_leave_visibility_unset() -> None:
    assert TextBlock(text="x").type == "text"
    assert ToolCallBlock(id="1", name="t", input={}).type == "tool_call"
    assert TextBlock(text="x").visibility is None
    assert TextBlock(text="x", visibility="developer").visibility == "developer"
    with pytest.raises(ValidationError):
        TextBlock(text="x", visibility="everyone")
    with pytest.raises(ValidationError):
        TextBlock(type="thinking", text="x")
    assert ThinkingBlock(thinking="t").signature is None
    assert ThinkingBlock(thinking="t").content is None


def test_a_message_holds_a_string_or_a_list_of_typed_blocks() -> None:
    plain = Message(role="user", content="hello")
    assert plain.content == "hello"
    assert plain.name is plain.tool_call_id is plain.metadata is None

    mixed = Message(
        role="assistant",
        content=[
            {"type": "thinking", "thinking": "plan"},
            {"type": "text", "text": "done"},
            {"type": "tool_call", "id": "c1", "name": "bash", "input": {}},
        ],
    )
    assert [type(b) for b in mixed.content] == [ThinkingBlock, TextBlock, ToolCallBlock]

    with pytest.raises(ValidationError, match="role"):
        Message(role="robot", content="x")
    for role in ("system", "developer", "user", "assistant", "function", "tool"):
        assert Message(role=role, content="").role == role


def test_extra_keys_are_kept_through_a_json_round_trip() -> None:
    message = Message(
        role="assistant",
        content=[{"type": "text", "text": "hi", "citations": [1, 2]}],
        tool_calls=[{"id": "c1", "tool": "bash", "arguments": {"command": "ls"}}],
        metadata={"source": "test"},
    )
    assert message.model_extra == {
        "tool_calls": [{"id": "c1", "tool": "bash", "arguments": {"command": "ls"}}]
    }
    again = Message.model_validate_json(message.model_dump_json())
    assert again == message
    assert again.content[0].model_extra == {"citations": [1, 2]}  # type: ignore[union-attr]
    assert ToolSpec(name="t", parameters={}, strict=True).model_dump()["strict"] is True
    assert ToolCall(id="1", name="t", arguments={}, index=3).model_dump()["index"] == 3


def test_the_tool_message_shape_conversations_use_validates() -> None:
    raw = {"role": "tool", "tool_call_id": "c1", "content": "ok", "name": "bash", "is_error": False}
    message = Message(**raw)
    assert message.tool_call_id == "c1"
    assert message.name == "bash"
    assert message.model_dump(exclude_none=True) == raw


def test_a_chat_request_round_trips_and_keeps_its_defaults() -> None:
    request = ChatRequest(
        messages=[Message(role="system", content="be brief"), Message(role="user", content="hi")],
        tools=[ToolSpec(name="bash", description="run", parameters={"type": "object"})],
    )
    assert request.stream is False
    for name in (
        "response_format",
        "temperature",
        "top_p",
        "max_output_tokens",
        "conversation_id",
        "metadata",
        "model",
        "tool_choice",
        "stop",
        "reasoning_effort",
        "timeout",
    ):
        assert getattr(request, name) is None, name
    assert ToolSpec(name="t", parameters={}).description is None
    assert ChatRequest.model_validate(json.loads(request.model_dump_json())) == request
    assert ChatRequest(messages=[], routing="fast").model_extra == {"routing": "fast"}
    with pytest.raises(ValidationError, match="messages"):
        ChatRequest()  # type: ignore[call-arg]


def test_response_formats_are_told_apart_and_the_schema_is_dumped_under_schema() -> None:
    text = ChatRequest(messages=[], response_format={"type": "text"})
    assert isinstance(text.response_format, ResponseFormatText)
    as_json = ChatRequest(messages=[], response_format={"type": "json"})
    assert isinstance(as_json.response_format, ResponseFormatJson)
    with_schema = ChatRequest(
        messages=[],
        response_format={"type": "json_schema", "json_schema": {"type": "object"}, "strict": True},
    )
    fmt = with_schema.response_format
    assert isinstance(fmt, ResponseFormatJsonSchema)
    assert fmt.model_dump(by_alias=True) == {
        "type": "json_schema",
        "schema": {"type": "object"},
        "strict": True,
    }
    assert fmt.model_dump() == {
        "type": "json_schema",
        "json_schema": {"type": "object"},
        "strict": True,
    }


def test_usage_cost_is_a_decimal_in_memory_and_a_string_when_dumped() -> None:
    usage = Usage(input_tokens=10, output_tokens=5, total_tokens=15, cost_usd=Decimal("0.047"))
    assert usage.cost_usd == Decimal("0.047")
    assert usage.model_dump()["cost_usd"] == "0.047"
    assert usage.model_dump(mode="json")["cost_usd"] == "0.047"
    assert json.loads(usage.model_dump_json())["cost_usd"] == "0.047"
    assert Usage.model_validate(usage.model_dump()) == usage
    assert Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd="0.1").cost_usd == (
        Decimal("0.1")
    )
    assert Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd=2).cost_usd == 2


def test_usage_refuses_a_float_cost() -> None:
    with pytest.raises(ValidationError, match="cost_usd"):
        Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd=0.047)


def test_usage_leaves_optional_counters_unset_and_keeps_provider_counters() -> None:
    usage = Usage(input_tokens=1, output_tokens=2, total_tokens=3, cache_creation_input_tokens=7)
    assert usage.reasoning_tokens is usage.cache_read_tokens is usage.cache_write_tokens is None
    assert usage.cost_usd is None
    assert usage.model_dump()["cost_usd"] is None
    assert usage.model_dump()["cache_creation_input_tokens"] == 7
    with pytest.raises(ValidationError, match="total_tokens"):
        Usage(input_tokens=1, output_tokens=2)  # type: ignore[call-arg]


def test_a_chat_response_round_trips_with_blocks_calls_usage_and_degradation() -> None:
    response = ChatResponse(
        content=[TextBlock(text="running it"), ThinkingBlock(thinking="t", signature="s")],
        tool_calls=[ToolCall(id="c1", name="bash", arguments={"command": "ls"})],
        usage=Usage(input_tokens=3, output_tokens=4, total_tokens=7, cost_usd=Decimal("1.50")),
        degradation=Degradation(requested="json_schema", actual="json", reason="unsupported"),
        finish_reason="tool_use",
    )
    again = ChatResponse.model_validate_json(response.model_dump_json())
    assert again == response
    assert again.usage is not None
    assert again.usage.cost_usd == Decimal("1.50")
    assert ChatResponse.model_validate(response.model_dump()) == response
    bare = ChatResponse(content=[{"type": "text", "text": "hi"}])
    assert bare.tool_calls is bare.usage is bare.degradation is bare.finish_reason is None
    assert bare.metadata is None
    assert isinstance(bare.content[0], TextBlock)
