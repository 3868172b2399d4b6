"""Session checkpoints: everything needed to resume a conversation, as one JSON file.

A checkpoint holds the session id, the number of completed turns, the messages (with their
provenance metadata), the todo list, and the provider and model in use. It is written
atomically (temporary file flushed to disk, then rename), so a crash never leaves half a
checkpoint. Reading one checks that every message has a ``role``, so a resumed conversation is
one the session can continue.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import to_jsonable_python

__all__ = [
    "CHECKPOINT_VERSION",
    "Checkpoint",
    "CheckpointError",
    "read_checkpoint",
    "redacted_strings",
]

CHECKPOINT_VERSION: Final = 1


class CheckpointError(ValueError):
    """A checkpoint file is missing, unreadable or not a checkpoint."""


class Checkpoint(BaseModel):
    """What a session saves and restores."""

    model_config = ConfigDict(extra="forbid")

    version: int = CHECKPOINT_VERSION
    checkpoint_id: str
    session_id: str
    parent_id: str | None = None
    turn: int
    provider: str
    model: str
    messages: list[dict[str, Any]]
    todo_state: list[dict[str, Any]] = Field(default_factory=list)
    created: str

    @field_validator("messages")
    @classmethod
    def _messages_have_roles(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for index, message in enumerate(messages):
            if not isinstance(message.get("role"), str):
                raise ValueError(f"message {index} has no 'role' (got keys {sorted(message)})")
        return messages

    def to_json(self) -> str:
        """The checkpoint as JSON text that UTF-8 can always hold: a lone surrogate in a
        message (half an emoji in a tool's output, bytes decoded with ``surrogateescape``)
        is written as its ``\\udXXX`` escape, which reads back as the same character."""
        data = self.model_dump(mode="python")  # "json" mode cannot encode a surrogate key
        text = json.dumps(data, indent=1, ensure_ascii=False, default=to_jsonable_python)
        return _SURROGATE.sub(_escaped, text)

    def write(self, path: Path) -> Path:
        """Write atomically to ``path`` and return it."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".checkpoint-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(self.to_json())
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path


def redacted_strings(items: list[Any], redact: Callable[[str], str]) -> list[Any]:
    """``items`` with every string in them, at any depth, passed through ``redact`` (keys
    of mappings too); other values are kept. Containers are copied, never changed in place:
    the conversation itself keeps its text."""
    return [_redacted(item, redact) for item in items]


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            redact(key) if isinstance(key, str) else key: _redacted(item, redact)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redacted(item, redact) for item in value]
    return value


# A lone surrogate can only stand inside a JSON string, where its escape means the same.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def read_checkpoint(path: Path) -> Checkpoint:
    """Read a checkpoint; errors name the file and what is wrong with it."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise CheckpointError(f"checkpoint {path}: cannot read: {err}") from err
    except UnicodeDecodeError as err:
        raise CheckpointError(
            f"checkpoint {path}: not UTF-8 text (byte {err.start}): not a checkpoint"
        ) from err
    except json.JSONDecodeError as err:
        raise CheckpointError(
            f"checkpoint {path}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}"
        ) from err
    try:
        checkpoint = Checkpoint.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in err.errors()
        )
        raise CheckpointError(f"checkpoint {path}: {problems}") from err
    if checkpoint.version != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"checkpoint {path}: version {checkpoint.version} is not supported "
            f"(expected {CHECKPOINT_VERSION})"
        )
    return checkpoint
