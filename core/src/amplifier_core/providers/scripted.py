"""A provider that replays a script of assistant turns: the offline default, and for tests.

The script is a YAML or JSON file (or the same list given inline in the provider config):
a list of entries, or a mapping whose ``turns`` key holds that list. Each entry is one
assistant turn::

    # session.yaml
    - text: "Let me look at the file."
      tool_calls:
        - name: read_file
          input: {path: README.md}          # no id: this is call_1
      expect: "summarise README"            # the prompt must contain this
    - expect: "# Project"                   # the tool result must contain this
      text: "It is a README for the project."
      usage: {input_tokens: 120, output_tokens: 9}
    - "A bare string is a turn with just that text."

Entry keys (all optional, unknown keys are an error):

``text``
    The assistant's text.
``thinking``
    Reasoning text shown before the answer (fires ``thinking:delta`` / ``thinking:final``).
``tool_calls``
    ``[{name, input, id}]``; ``input`` defaults to ``{}``; a missing ``id`` becomes
    ``call_<n>``, where ``n`` counts the tool calls of the whole script in file order from 1,
    so ids are known from reading the script and the same on every run.
``usage``
    ``{input_tokens, output_tokens}``; a missing count is estimated as characters / 4 (the
    request's message text for input; the reply's text and tool inputs for output).
``stop_reason``
    ``end_turn``, ``tool_use``, ``max_tokens``, ``stop_sequence`` or ``other``; by default
    ``tool_use`` when the entry has tool calls, else ``end_turn``.
``expect``
    A substring the *latest input* must contain, else the call raises :class:`ProviderError`
    naming the script, the entry and what came instead, so a scripted test fails loudly.
``match``
    Makes the entry a *reply on match*: it is not played in order but used (once) by the first
    call whose latest input contains this substring.
``error``
    Raise :class:`ProviderError` instead of answering, to rehearse failures: a message, or
    ``{message, status, retryable}``.

The *latest input* is the text of the user and tool messages after the last assistant
message (the prompt, or the tool results), joined by newlines; when there is none, the last
user or tool message.

Each call first looks for an unused ``match`` entry, in script order, whose substring occurs
in the latest input; if none matches it plays the next unused entry without ``match``. When
no entry is left the call raises a :class:`ProviderError` (not retryable) naming the script.
Every request is kept in :attr:`ScriptedProvider.requests` for inspection.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..chat import ChatRequest, ChatResponse, ProviderError, ToolCall, Usage

__all__ = ["ScriptEntry", "ScriptedError", "ScriptedProvider", "ScriptedToolCall"]

_SHOWN = 200


class ScriptedToolCall(BaseModel):
    """One tool call in a scripted turn."""

    model_config = ConfigDict(extra="forbid")

    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptedError(BaseModel):
    """A failure a scripted turn raises instead of answering."""

    model_config = ConfigDict(extra="forbid")

    message: str
    status: int | None = None
    retryable: bool = False


class ScriptEntry(BaseModel):
    """One assistant turn of a script (see the module docstring for each key)."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    thinking: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    usage: dict[Literal["input_tokens", "output_tokens"], int] | None = None
    stop_reason: Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "other"] | None = (
        None
    )
    expect: str | None = None
    match: str | None = None
    error: ScriptedError | None = None

    @field_validator("error", mode="before")
    @classmethod
    def _error_from_text(cls, value: Any) -> Any:
        return {"message": value} if isinstance(value, str) else value


class _Turn:
    """An entry with where it came from and whether it was used."""

    __slots__ = ("entry", "index", "line", "used")

    def __init__(self, entry: ScriptEntry, index: int, line: int | None) -> None:
        self.entry = entry
        self.index = index
        self.line = line
        self.used = False


def _fail(message: str, *, status: int | None = None, retryable: bool = False) -> ProviderError:
    return ProviderError(message, provider="scripted", status=status, retryable=retryable)


def _entry_lines(text: str) -> list[int | None]:
    """1-based line of each top-level entry, for YAML (and JSON) text; [] if unknown."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "turns":
                node = value
                break
    if not isinstance(node, yaml.SequenceNode):
        return []
    return [item.start_mark.line + 1 for item in node.value]


def _load_script(source: str | Path | Sequence[Any]) -> tuple[str, list[_Turn]]:
    """Read and validate a script; its display name and its entries.

    Raises :class:`ProviderError` naming the file, the entry (and line, for YAML) and the
    field that is wrong.
    """
    lines: list[int | None] = []
    if isinstance(source, str | Path):
        path = Path(source)
        name = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise _fail(f"scripted provider: cannot read script {name}: {err}") from err
        try:
            if path.suffix.lower() == ".json":
                data: Any = json.loads(text)
            else:
                data = yaml.safe_load(text)
        except json.JSONDecodeError as err:
            raise _fail(
                f"scripted provider: {name}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}"
            ) from err
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
            parts = [getattr(err, "context", None), getattr(err, "problem", None)]
            detail = ", ".join(str(part) for part in parts if part) or str(err)
            raise _fail(f"scripted provider: {where}: invalid YAML: {detail}") from err
        lines = _entry_lines(text)
    else:
        name = "<inline script>"
        data = list(source)
    if isinstance(data, dict) and "turns" in data:
        data = data["turns"]
    if not isinstance(data, list):
        raise _fail(
            f"scripted provider: {name}: expected a list of turns (or a mapping with `turns`), "
            f"got {type(data).__name__}"
        )
    turns: list[_Turn] = []
    for index, raw in enumerate(data):
        line = lines[index] if index < len(lines) else None
        where = f"{name}:{line}" if line else name
        try:
            entry = ScriptEntry.model_validate({"text": raw} if isinstance(raw, str) else raw)
        except ValidationError as err:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in problem['loc']) or 'entry'}: {problem['msg']}"
                for problem in err.errors()
            )
            raise _fail(f"scripted provider: {where}: entry {index}: {problems}") from err
        turns.append(_Turn(entry, index, line))
    number = 0
    for turn in turns:
        for call in turn.entry.tool_calls:
            number += 1
            if call.id is None:
                call.id = f"call_{number}"
    return name, turns


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False, default=str)


def _latest_input(messages: Sequence[dict[str, Any]]) -> str:
    """The user and tool text after the last assistant message (see the module docstring)."""
    tail: list[str] = []
    for message in reversed(messages):
        role = message.get("role")
        if role == "assistant":
            break
        if role in ("user", "tool"):
            tail.append(_content_text(message.get("content")))
    if tail:
        return "\n".join(reversed(tail))
    for message in reversed(messages):
        if message.get("role") in ("user", "tool"):
            return _content_text(message.get("content"))
    return ""


def _estimate(chars: int) -> int:
    return (chars + 3) // 4


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


class ScriptedProvider:
    """Replays a script of assistant turns (format in the module docstring).

    :param script: a path to a ``.yaml`` / ``.yml`` / ``.json`` file, or the list of entries.
    :param model: the model name reported in responses.
    """

    name: str = "scripted"

    def __init__(self, script: str | Path | Sequence[Any], *, model: str = "scripted") -> None:
        self.model = model
        self.script_name, self._turns = _load_script(script)
        self.requests: list[ChatRequest] = []

    def __repr__(self) -> str:
        return f"ScriptedProvider(script={self.script_name!r}, remaining={self.remaining})"

    @property
    def remaining(self) -> int:
        """How many entries are not used yet."""
        return sum(1 for turn in self._turns if not turn.used)

    def _where(self, turn: _Turn) -> str:
        line = f":{turn.line}" if turn.line else ""
        return f"{self.script_name}{line} entry {turn.index}"

    def _pick(self, latest: str) -> _Turn:
        for turn in self._turns:
            if not turn.used and turn.entry.match is not None and turn.entry.match in latest:
                return turn
        for turn in self._turns:
            if not turn.used and turn.entry.match is None:
                return turn
        waiting = [t for t in self._turns if not t.used and t.entry.match is not None]
        detail = ""
        if waiting:
            detail = "; unmatched entries: " + ", ".join(
                f"{t.index} (match {t.entry.match!r})" for t in waiting
            )
        count = f"{len(self._turns)} {'entry' if len(self._turns) == 1 else 'entries'}"
        raise _fail(
            f"scripted provider: script {self.script_name} is exhausted: call "
            f"{len(self.requests)} has no reply left ({count}){detail}; "
            f"latest input was {_shown(latest)}"
        )

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """The next scripted turn for ``request`` (see the module docstring for the rules)."""
        self.requests.append(request.model_copy(deep=True))
        latest = _latest_input(request.messages)
        turn = self._pick(latest)
        turn.used = True
        entry = turn.entry
        if entry.expect is not None and entry.expect not in latest:
            raise _fail(
                f"scripted provider: {self._where(turn)} expects the latest user/tool message "
                f"to contain {entry.expect!r}, but it was {_shown(latest)}"
            )
        if entry.error is not None:
            raise _fail(
                f"scripted provider: {self._where(turn)}: {entry.error.message}",
                status=entry.error.status,
                retryable=entry.error.retryable,
            )
        calls = [
            ToolCall(id=call.id or "", name=call.name, input=copy.deepcopy(call.input))
            for call in entry.tool_calls
        ]
        given = entry.usage or {}
        input_chars = sum(len(_content_text(m.get("content"))) for m in request.messages)
        output_chars = len(entry.text) + sum(
            len(json.dumps(call.input, ensure_ascii=False)) for call in calls
        )
        usage = Usage(
            input_tokens=given.get("input_tokens", _estimate(input_chars)),
            output_tokens=given.get("output_tokens", _estimate(output_chars)),
        )
        stop = entry.stop_reason or ("tool_use" if calls else "end_turn")
        return ChatResponse(
            text=entry.text,
            thinking=entry.thinking,
            tool_calls=calls,
            usage=usage,
            stop_reason=stop,
            model=request.model or self.model,
        )
