"""What a call of each file tool carries, and the failed result a tool returns."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from amplifier_core import ToolResult

__all__ = [
    "EditFileInput",
    "FileInput",
    "InputT",
    "ReadFileInput",
    "WriteFileInput",
    "failure",
]


def failure(error_type: str, message: str, output: Any | None = None) -> ToolResult:
    """A failed result the model sees: ``error`` is ``{"type", "message"}``."""
    return ToolResult(success=False, output=output, error={"type": error_type, "message": message})


class FileInput(BaseModel):
    """What every file tool's input starts with: ``file_path``."""

    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(
        min_length=1, description="Path of the file: relative to the workspace, or absolute."
    )

    @field_validator("file_path")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        if "\0" in value:
            raise ValueError("contains a NUL character")
        return value


InputT = TypeVar("InputT", bound=FileInput)


class ReadFileInput(FileInput):
    """Input of ``read_file``."""

    offset: int | None = Field(
        default=None, ge=1, description="Line number to start from (1-based; default 1)."
    )
    limit: int | None = Field(default=None, ge=1, description="Number of lines to read.")


class WriteFileInput(FileInput):
    """Input of ``write_file``."""

    content: str = Field(description="The complete new content of the file.")


class EditFileInput(FileInput):
    """Input of ``edit_file``."""

    old_string: str = Field(min_length=1, description="The exact text to replace.")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )

    @field_validator("new_string")
    @classmethod
    def _changes_something(cls, value: str, info: ValidationInfo) -> str:
        if value == info.data.get("old_string"):
            raise ValueError("is the same as old_string: the edit would change nothing")
        return value
