"""What a call of the tool carries: the input model, the JSON schema the model is shown, and
the check that turns a bad input into a failed result naming the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from amplifier_hooks_util.config_errors import validation_problems
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from amplifier_core import ToolResult

__all__ = ["BashInput", "failure", "input_schema", "parse_input"]


class BashInput(BaseModel):
    """Input of the ``bash`` tool."""

    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="The shell command to run.")
    timeout: float | None = Field(
        default=None, gt=0, description="Timeout in seconds (default and maximum: see above)."
    )
    description: str | None = Field(
        default=None, description="A few words saying what the command does (shown to the user)."
    )

    @field_validator("command")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is blank")
        return value


def failure(error_type: str, message: str, output: Any | None = None) -> ToolResult:
    """A failed result the model sees: ``error`` is ``{"type", "message"}``."""
    return ToolResult(success=False, output=output, error={"type": error_type, "message": message})


def parse_input(tool: str, data: object) -> BashInput | ToolResult:
    """``data`` as a :class:`BashInput`, or a failed result naming the tool and each field."""
    if not isinstance(data, Mapping):
        return failure(
            "InvalidInput", f"{tool}: input must be an object, got {type(data).__name__}"
        )
    try:
        return BashInput.model_validate(dict(data))
    except ValidationError as err:
        problems = "; ".join(p.render() for p in validation_problems(err, schema=BashInput))
        return failure("InvalidInput", f"{tool}: invalid input: {problems}")


def _clean(node: Any, defs: Mapping[str, Any]) -> Any:
    """Inline ``$ref`` and drop pydantic's generated ``title`` annotations."""
    if isinstance(node, list):
        return [_clean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        merged = {
            **defs[ref.removeprefix("#/$defs/")],
            **{k: v for k, v in node.items() if k != "$ref"},
        }
        return _clean(merged, defs)
    cleaned: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs" or (key == "title" and isinstance(value, str)):
            continue
        if key == "properties" and isinstance(value, dict):
            cleaned[key] = {name: _clean(prop, defs) for name, prop in value.items()}
        else:
            cleaned[key] = _clean(value, defs)
    return cleaned


def input_schema() -> dict[str, Any]:
    """The JSON schema the model is shown: self-contained (no ``$ref``), without titles."""
    raw = BashInput.model_json_schema()
    schema: dict[str, Any] = _clean(raw, raw.get("$defs", {}))
    schema.pop("description", None)  # the class docstring; the tool's description says it
    return schema
