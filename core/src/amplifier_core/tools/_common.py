"""What every built-in tool shares: input parsing, failed results, JSON schemas, config errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import AmplifierError
from ..models import ToolResult

__all__ = [
    "ToolConfigError",
    "describe_validation_error",
    "failure",
    "parse_input",
    "schema_for",
]

ModelT = TypeVar("ModelT", bound=BaseModel)


class ToolConfigError(AmplifierError, ValueError):
    """The built-in tools' config (or workspace) is invalid; ``key_path`` names the key."""

    def __init__(self, message: str, *, key_path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.key_path = key_path


def failure(error_type: str, message: str, output: Any | None = None) -> ToolResult:
    """A failed result the model sees: ``error`` is ``{"type", "message"}``."""
    return ToolResult(success=False, output=output, error={"type": error_type, "message": message})


def _location(loc: tuple[int | str, ...]) -> str:
    """``("todos", 1, "status")`` -> ``todos[1].status``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def describe_validation_error(err: ValidationError) -> str:
    """Every problem of ``err`` as ``field: message``, joined by ``; ``."""
    problems = []
    for item in err.errors(include_url=False):
        message = str(item["msg"])
        if item["type"] == "value_error" and message.startswith("Value error, "):
            message = message.removeprefix("Value error, ")
        where = _location(tuple(item["loc"]))
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)


def parse_input(tool: str, model: type[ModelT], data: object) -> ModelT | ToolResult:
    """Validate a tool's input; a bad input is a failed result naming the tool and field."""
    if not isinstance(data, Mapping):
        return failure(
            "InvalidInput",
            f"{tool}: input must be an object, got {type(data).__name__}",
        )
    try:
        return model.model_validate(dict(data))
    except ValidationError as err:
        return failure("InvalidInput", f"{tool}: invalid input: {describe_validation_error(err)}")


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


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema the model is shown: self-contained (no ``$ref``), without titles."""
    raw = model.model_json_schema()
    schema: dict[str, Any] = _clean(raw, raw.get("$defs", {}))
    schema.pop("description", None)  # the model's docstring; the tool's description says it
    return schema
