"""ToolResult as a loop uses it (the text the model reads, rich content, hook-safe data) and
the module/provider/model descriptions and session status."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

import pytest
from pydantic import ValidationError

from amplifier_core.message_models import ImageBlock, TextBlock
from amplifier_core.models import (
    ConfigField,
    ModelInfo,
    ModuleInfo,
    Pricing,
    ProviderInfo,
    SessionStatus,
    ToolResult,
)

PNG = "iVBORw0KGgo="
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}


# ---------------------------------------------------------------- get_serialized_output


def test_structured_output_is_json_and_other_output_is_its_string() -> None:
    result = ToolResult(output={"stdout": "hi", "returncode": 0, "price": Decimal("9.99")})
    assert json.loads(result.get_serialized_output()) == {
        "stdout": "hi",
        "returncode": 0,
        "price": "9.99",
    }
    assert ToolResult(output=[1, "two"]).get_serialized_output() == '[1, "two"]'
    assert ToolResult(output="plain").get_serialized_output() == "plain"
    assert ToolResult(output=0).get_serialized_output() == "0"
    assert ToolResult(output="").get_serialized_output() == ""


def test_output_is_shown_even_for_a_failure() -> None:
    failed = ToolResult(success=False, output={"stderr": "no such file"}, error={"message": "x"})
    assert json.loads(failed.get_serialized_output()) == {"stderr": "no such file"}


def test_without_output_the_text_says_success_or_names_the_error() -> None:
    assert ToolResult().get_serialized_output() == "Success"
    # As amplifier-core 2.0.2: a failed result without output takes its message as output.
    failed = ToolResult(success=False, error={"message": "denied"})
    assert failed.output == "denied"
    assert failed.get_serialized_output() == "denied"
    assert ToolResult(success=False, output="kept", error={"message": "x"}).output == "kept"
    assert ToolResult(success=True, error={"message": "x"}).output is None
    assert ToolResult(success=False, error={"code": 2}).get_serialized_output() == (
        "Error: Unknown error"
    )
    assert ToolResult(success=False).get_serialized_output() == "Error: Failed"


def test_control_characters_and_lone_surrogates_are_removed_but_whitespace_stays() -> None:
    text = ToolResult(output="a\x07b\tc\nd\re\x7f\x85f\ud800g").get_serialized_output()
    assert text == "ab\tc\nd\refg"


def test_output_json_cannot_encode_raises_as_on_2_0_2() -> None:
    """A Decimal keeps its digits; any other type JSON cannot encode raises ``TypeError``."""
    assert ToolResult(output={"price": Decimal("9.99")}).get_serialized_output() == (
        '{"price": "9.99"}'
    )
    stamp = datetime(2024, 1, 2, 3, 4, 5)
    with pytest.raises(TypeError, match="datetime is not JSON serializable"):
        ToolResult(output={"at": stamp}).get_serialized_output()


def test_hook_presentation_still_carries_what_json_cannot_encode() -> None:
    stamp = datetime(2024, 1, 2, 3, 4, 5)
    shown = ToolResult(output={"at": stamp}).safe_hook_presentation()
    assert shown["output"] == {"at": str(stamp)}


# ---------------------------------------------------------------- rich content


def test_rich_content_becomes_text_and_image_blocks_and_dumps_as_canonical_dicts() -> None:
    result = ToolResult(
        content=[{"type": "text", "text": "a chart", "visibility": "user", "note": 1}, IMAGE]
    )
    assert result.content is not None
    assert [type(b) for b in result.content] == [TextBlock, ImageBlock]
    assert result.model_dump()["content"] == [{"type": "text", "text": "a chart"}, IMAGE]
    assert json.loads(result.model_dump_json())["content"][1] == IMAGE
    assert ToolResult(content=[TextBlock(text="x")]).model_dump()["content"] == [
        {"type": "text", "text": "x"}
    ]


def test_no_content_leaves_the_key_out_of_dumps() -> None:
    assert ToolResult(output="x").model_dump() == {"success": True, "output": "x", "error": None}
    assert ToolResult(content=[]).content is None
    assert "content" not in json.loads(ToolResult(content=[]).model_dump_json())


@pytest.mark.parametrize(
    ("content", "complaint"),
    [
        ("text", "must be a list"),
        ({"type": "text", "text": "x"}, "must be a list"),
        ([{"type": "thinking", "thinking": "x"}], "'text' or 'image'"),
        ([{"type": "text"}], "'text' as a string"),
        ([None], "text or image block"),
        ([{"type": "image", "source": {"type": "url", "url": "http://x"}}], "'base64'"),
        (
            [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "text/plain", "data": PNG},
                }
            ],
            "media_type",
        ),
        (
            [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "!"},
                }
            ],
            "base64",
        ),
    ],
)
def test_content_that_is_not_text_or_a_base64_image_is_refused(
    content: object, complaint: str
) -> None:
    with pytest.raises(ValidationError, match=complaint):
        ToolResult(content=content)


def test_assignment_and_copies_are_checked_like_construction() -> None:
    result = ToolResult(output="x")
    with pytest.raises(ValidationError):
        result.content = [{"type": "thinking", "thinking": "x"}]  # type: ignore[list-item]
    with pytest.raises(ValidationError):
        result.model_copy(update={"content": "not a list"})
    copy = result.model_copy(update={"output": "y", "content": [IMAGE]})
    assert copy.output == "y"
    assert copy.content is not None
    assert isinstance(copy.content[0], ImageBlock)
    assert result.output == "x"


def test_the_hook_presentation_is_json_data_with_images_replaced_by_a_note() -> None:
    result = ToolResult(
        output={"n": Decimal("1.5")}, content=[{"type": "text", "text": "t"}, IMAGE]
    )
    shown = result.safe_hook_presentation()
    assert shown["success"] is True
    assert shown["output"] == {"n": "1.5"}
    assert shown["content"][0] == {"type": "text", "text": "t"}
    assert shown["content"][1]["type"] == "text"
    assert "Image omitted" in shown["content"][1]["text"]
    assert PNG not in json.dumps(shown)
    assert ToolResult().safe_hook_presentation() == {"success": True, "output": None, "error": None}


def test_extra_keys_are_still_kept() -> None:
    result = ToolResult(output="x", exit_code=3)  # type: ignore[call-arg]
    assert result.model_dump()["exit_code"] == 3


# ---------------------------------------------------------------- descriptions


def test_model_info_with_pricing_round_trips_and_defaults_to_empty() -> None:
    info = ModelInfo(
        id="m1",
        display_name="Model One",
        context_window=200_000,
        max_output_tokens=8192,
        pricing=Pricing(input_per_million=3.0, output_per_million=15.0),
    )
    assert info.capabilities == []
    assert info.defaults == {}
    assert info.pricing is not None
    assert info.pricing.currency == "USD"
    assert info.pricing.cache_read_per_million is None
    assert ModelInfo.model_validate_json(info.model_dump_json()) == info
    assert (
        ModelInfo(id="a", display_name="A", context_window=1, max_output_tokens=1).pricing is None
    )
    with pytest.raises(ValidationError, match="context_window"):
        ModelInfo(id="a", display_name="A", max_output_tokens=1)  # type: ignore[call-arg]


def test_pricing_currency_is_a_three_letter_code() -> None:
    assert Pricing(input_per_million=1, output_per_million=2, currency="EUR").currency == "EUR"
    with pytest.raises(ValidationError, match="ISO 4217"):
        Pricing(input_per_million=1, output_per_million=2, currency="usd")


def test_provider_info_carries_its_config_fields() -> None:
    field = ConfigField(
        id="api_key", display_name="API key", prompt="Your key?", field_type="secret"
    )
    assert (field.required, field.requires_model, field.default, field.env_var) == (
        True,
        False,
        None,
        None,
    )
    assert ConfigField(id="x", display_name="X", prompt="?").field_type == "text"
    with pytest.raises(ValidationError, match="field_type"):
        ConfigField(id="x", display_name="X", prompt="?", field_type="number")
    info = ProviderInfo(id="p", display_name="P", config_fields=[field])
    assert info.credential_env_vars == info.capabilities == []
    assert info.defaults == {}
    assert ProviderInfo.model_validate(info.model_dump()) == info


def test_module_info_needs_a_known_type() -> None:
    info = ModuleInfo(
        id="tool-bash",
        name="Bash",
        version="1.0",
        type="tool",
        mount_point="tools",
        description="runs commands",
    )
    assert info.config_schema is None
    with pytest.raises(ValidationError, match="type"):
        ModuleInfo(id="x", name="x", version="1", type="widget", mount_point="x", description="x")


def test_session_status_counts_from_zero_and_keeps_cost_as_a_decimal() -> None:
    status = SessionStatus(session_id="s1")
    assert status.status == "running"
    assert status.total_messages == status.tool_invocations == status.total_input_tokens == 0
    assert isinstance(status.started_at, datetime)
    assert status.cost_usd is None
    assert "cost_usd" not in status.to_dict()
    assert "ended_at" not in status.to_dict()

    costed = SessionStatus(session_id="s1", cost_usd=Decimal("1.23"))
    assert costed.to_dict()["cost_usd"] == "1.23"
    assert costed.model_dump()["cost_usd"] == "1.23"
    assert json.loads(json.dumps(costed.to_dict()))["session_id"] == "s1"
    with pytest.raises(ValidationError, match="cost_usd"):
        SessionStatus(session_id="s1", cost_usd=1.23)
    with pytest.raises(ValidationError, match="status"):
        SessionStatus(session_id="s1", status="paused")
