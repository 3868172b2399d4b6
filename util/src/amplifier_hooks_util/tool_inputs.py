"""What tool modules share: the input check and its wording, the JSON schema, the directory.

:func:`check_input` validates a call's input against a pydantic model and raises
:class:`ToolInputError` with one message naming the tool and every wrong field (the tool turns
it into the failed result the model sees); :func:`schema_for` gives the self-contained JSON
schema a model is shown (no ``$ref``, no generated titles); :func:`working_dir` is where a
tool works: its configured directory, taken inside the session's working directory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .config_errors import validation_problems

__all__ = ["ToolInputError", "check_input", "schema_for", "working_dir"]

ModelT = TypeVar("ModelT", bound=BaseModel)


class ToolInputError(ValueError):
    """A tool call's input is not what the tool takes; the message names the tool and fields."""


def check_input(tool: str, model: type[ModelT], data: object) -> ModelT:
    """``data`` validated as ``model``.

    :raises ToolInputError: ``<tool>: input must be an object, got ...`` or
        ``<tool>: invalid input: <field>: <problem>; ...``.
    """
    if not isinstance(data, Mapping):
        raise ToolInputError(f"{tool}: input must be an object, got {type(data).__name__}")
    try:
        return model.model_validate(dict(data))
    except ValidationError as err:
        problems = "; ".join(p.render() for p in validation_problems(err, schema=model))
        raise ToolInputError(f"{tool}: invalid input: {problems}") from err


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
    """The JSON schema of ``model`` as a model is shown it: self-contained, without titles,
    and without the class docstring (the tool's description says what it does)."""
    raw = model.model_json_schema()
    schema: dict[str, Any] = _clean(raw, raw.get("$defs", {}))
    schema.pop("description", None)
    return schema


def working_dir(coordinator: Any, configured: str | None = None) -> Path:
    """Where a tool works: ``configured`` (relative to the session's working directory), else
    the session's working directory (the ``session.working_dir`` capability), else the
    current directory."""
    get_capability = getattr(coordinator, "get_capability", None)
    session_dir = get_capability("session.working_dir") if callable(get_capability) else None
    base = Path(str(session_dir)) if session_dir else Path(os.getcwd())
    if configured is None:
        return base
    return base / Path(configured).expanduser()
