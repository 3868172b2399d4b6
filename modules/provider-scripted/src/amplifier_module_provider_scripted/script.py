"""A script: assistant turns read from YAML, JSON or an inline list, checked entry by entry.

A script is a list of entries, or a mapping whose ``turns`` key holds that list (and whose
``prompts`` key, if any, holds the user's turns for whoever drives the session; the provider
ignores it). Each entry is one assistant turn; a bare string is a turn with just that text.
The keys are documented on :class:`ScriptEntry` and in docs/scripted-provider.md.

:func:`load_script` raises :class:`ScriptError` naming the file, the line (for YAML and JSON)
and the entry and key that are wrong, so a typo in a script never turns into a silent answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from amplifier_hooks_util.config_errors import key_path, validation_problems
from amplifier_hooks_util.yaml_locations import YamlDocument, describe_yaml_error
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "INLINE",
    "Script",
    "ScriptEntry",
    "ScriptError",
    "ScriptedError",
    "ScriptedToolCall",
    "load_script",
]

INLINE = "<inline script>"
"""The name an inline script (a list given in the config) goes by in messages."""

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "other"]


class ScriptError(ValueError):
    """A script cannot be read or an entry is malformed; the message says where."""


class ScriptedToolCall(BaseModel):
    """One tool call of a scripted turn; without an ``id`` it is ``call_<n>``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptedError(BaseModel):
    """A failure a scripted turn raises instead of answering."""

    model_config = ConfigDict(extra="forbid")

    message: str
    status: int | None = None
    retryable: bool = False


class ScriptEntry(BaseModel):
    """One assistant turn of a script."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    """The assistant's text."""
    thinking: str = ""
    """Reasoning shown before the answer (a thinking block of the response)."""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    """``[{name, input, id}]``."""
    usage: dict[Literal["input_tokens", "output_tokens"], int] | None = None
    """Token counts to report; a missing one is estimated as characters / 4."""
    stop_reason: StopReason | None = None
    """By default ``tool_use`` when the entry has tool calls, else ``end_turn``."""
    expect: str | None = None
    """A substring the latest input must contain, else the call fails naming the entry."""
    match: str | None = None
    """Makes the entry a reply used once, by the first call whose latest input contains it."""
    error: ScriptedError | None = None
    """Fail the call instead of answering: a message or ``{message, status, retryable}``."""

    @field_validator("error", mode="before")
    @classmethod
    def _error_from_text(cls, value: Any) -> Any:
        return {"message": value} if isinstance(value, str) else value


@dataclass(slots=True)
class Turn:
    """An entry with its place in the script and whether a call used it."""

    entry: ScriptEntry
    index: int
    line: int | None
    used: bool = False


@dataclass(slots=True)
class Script:
    """The entries of a script, split into those played in order and the replies on match.

    :meth:`next_in_order` and :meth:`take_match` cost O(1) per call in the length of the
    script (the in-order cursor only moves forward; only unused ``match`` entries are looked
    at). :attr:`examined` counts the entries looked at, for whoever wants to check that.
    """

    name: str
    turns: list[Turn]
    ordered: list[Turn] = field(default_factory=list)
    matches: list[Turn] = field(default_factory=list)
    cursor: int = 0
    examined: int = 0

    def __post_init__(self) -> None:
        self.ordered = [t for t in self.turns if t.entry.match is None]
        self.matches = [t for t in self.turns if t.entry.match is not None]

    @property
    def remaining(self) -> int:
        """How many entries no call has used yet."""
        return len(self.ordered) - self.cursor + len(self.matches)

    def where(self, turn: Turn) -> str:
        """``script:line entry N`` for messages."""
        line = f":{turn.line}" if turn.line else ""
        return f"{self.name}{line} entry {turn.index}"

    def take_match(self, latest: str) -> Turn | None:
        """The first unused ``match`` entry whose substring occurs in ``latest`` (now used)."""
        for position, turn in enumerate(self.matches):
            self.examined += 1
            match = turn.entry.match
            if match is not None and match in latest:
                del self.matches[position]
                turn.used = True
                return turn
        return None

    def next_in_order(self) -> Turn | None:
        """The next unused entry without ``match`` (now used), or ``None`` when none is left."""
        if self.cursor >= len(self.ordered):
            return None
        turn = self.ordered[self.cursor]
        self.cursor += 1
        self.examined += 1
        turn.used = True
        return turn


def _within_entry(path: str, entry: str, message: str) -> str:
    """``key: message`` with the key path taken from inside the entry (``tool_calls[0].name``)."""
    inner = path.removeprefix(entry).lstrip(".")
    return f"{inner}: {message}" if inner else message


def _read(path: Path) -> tuple[Any, YamlDocument | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ScriptError(f"{path}: cannot read the script: {reason}") from err
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ScriptError(f"{path}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}") from err
        try:
            return data, YamlDocument.positions(text)
        except yaml.YAMLError:  # JSON that YAML does not read: no line numbers, nothing lost
            return data, None
    try:
        document = YamlDocument.parse(text)
    except yaml.YAMLError as err:
        message, line, column = describe_yaml_error(err)
        where = f"{path}:{line}:{column}" if line is not None and column is not None else path
        raise ScriptError(f"{where}: invalid YAML: {message}") from err
    return document.data, document


def load_script(source: str | Path | Sequence[Any] | Mapping[str, Any]) -> Script:
    """Read and check a script: a file path, or the list (or ``{turns: [...]}``) itself.

    Tool calls without an ``id`` get ``call_<n>``, ``n`` counting the tool calls of the whole
    script in order from 1, so ids are known from reading the script.

    :raises ScriptError: naming the file, line, entry and key of the first malformed entry.
    """
    document: YamlDocument | None = None
    if isinstance(source, str | Path):
        name = str(source)
        data, document = _read(Path(source))
    else:
        name = INLINE
        data = dict(source) if isinstance(source, Mapping) else list(source)
    base: tuple[str | int, ...] = ()
    if isinstance(data, dict) and "turns" in data:
        data, base = data["turns"], ("turns",)
    if not isinstance(data, list):
        kind = "nothing" if data is None else type(data).__name__
        raise ScriptError(
            f"{name}: expected a list of turns (or a mapping with `turns`), got {kind}"
        )
    turns: list[Turn] = []
    for index, raw in enumerate(data):
        line = document.line_of((*base, index)) if document is not None else None
        try:
            entry = ScriptEntry.model_validate({"text": raw} if isinstance(raw, str) else raw)
        except ValidationError as err:
            problems = validation_problems(
                err, schema=ScriptEntry, base=(*base, index), document=document
            )
            at = problems[0].line or line
            where = f"{name}:{at}" if at else name
            prefix = key_path((*base, index))
            detail = "; ".join(_within_entry(p.key_path, prefix, p.message) for p in problems)
            raise ScriptError(f"{where}: entry {index}: {detail}") from err
        turns.append(Turn(entry, index, line))
    number = 0
    for turn in turns:
        for call in turn.entry.tool_calls:
            number += 1
            if call.id is None:
                call.id = f"call_{number}"
    return Script(name, turns)
