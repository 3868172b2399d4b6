"""Content blocks for events: defaults, ``to_dict`` shapes, and what stays out of them."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from amplifier_core.content_models import (
    ContentBlock,
    ContentBlockType,
    TextContent,
    ThinkingContent,
    ToolCallContent,
    ToolResultContent,
)


def test_block_types_are_strings_with_the_wire_values() -> None:
    assert [t.value for t in ContentBlockType] == ["text", "thinking", "tool_call", "tool_result"]
    assert ContentBlockType.TOOL_CALL == "tool_call"
    assert ContentBlockType("thinking") is ContentBlockType.THINKING
    assert json.dumps({"type": ContentBlockType.TEXT}) == '{"type": "text"}'


def test_each_block_defaults_its_type_and_empty_content() -> None:
    assert TextContent().to_dict() == {"type": "text", "text": ""}
    assert ThinkingContent().to_dict() == {"type": "thinking", "text": ""}
    assert ToolCallContent().to_dict() == {
        "type": "tool_call",
        "id": "",
        "name": "",
        "arguments": None,
    }
    assert ToolResultContent().to_dict() == {
        "type": "tool_result",
        "tool_call_id": "",
        "output": None,
    }
    for block in (TextContent(), ThinkingContent(), ToolCallContent(), ToolResultContent()):
        assert block.raw is None
        assert isinstance(block, ContentBlock)


def test_to_dict_carries_the_content_and_leaves_raw_out() -> None:
    raw = {"type": "text", "text": "hi", "citations": []}
    assert TextContent(text="hi", raw=raw).to_dict() == {"type": "text", "text": "hi"}
    call = ToolCallContent(id="c1", name="bash", arguments={"command": "ls"})
    assert call.to_dict() == {
        "type": "tool_call",
        "id": "c1",
        "name": "bash",
        "arguments": {"command": "ls"},
    }
    assert json.loads(json.dumps(call.to_dict())) == call.to_dict()


def test_a_tool_result_shows_its_error_only_when_there_is_one() -> None:
    ok = ToolResultContent(tool_call_id="c1", output={"lines": 3})
    assert "error" not in ok.to_dict()
    assert ToolResultContent(tool_call_id="c1", error="").to_dict().get("error") is None
    failed = ToolResultContent(tool_call_id="c1", output=None, error="exit 2")
    assert failed.to_dict() == {
        "type": "tool_result",
        "tool_call_id": "c1",
        "output": None,
        "error": "exit 2",
    }


def test_the_base_block_needs_a_type_and_reports_only_it() -> None:
    assert ContentBlock(type=ContentBlockType.THINKING).to_dict() == {"type": "thinking"}
    with pytest.raises(TypeError):
        ContentBlock()  # type: ignore[call-arg]


def test_blocks_are_plain_mutable_dataclasses_that_compare_by_value() -> None:
    block = TextContent(text="a")
    block.text = "b"
    assert block == TextContent(text="b")
    assert block != ThinkingContent(text="b")
    assert [f.name for f in fields(ToolCallContent)] == ["type", "raw", "id", "name", "arguments"]
