"""What a call of the tool carries: the input model, the JSON schema the model is shown, and
the check that turns a bad input into a failed result naming the field."""

from __future__ import annotations

from typing import Any

from amplifier_hooks_util.tool_inputs import ToolInputError, check_input, schema_for
from pydantic import BaseModel, ConfigDict, Field, field_validator

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
    try:
        return check_input(tool, BashInput, data)
    except ToolInputError as err:
        return failure("InvalidInput", str(err))


def input_schema() -> dict[str, Any]:
    """The JSON schema the model is shown: self-contained (no ``$ref``), without titles."""
    return schema_for(BashInput)
