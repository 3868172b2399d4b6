"""Reading a recorded session for ``amplifier-hooks replay``: the events, in order, and what
the session decided about each.

Two formats are read, told apart by their first record:

- **hooks-logging JSONL** (records with ``"schema": {"name": "amplifier.hooks-logging.event"}``):
  every record is an event. The records that are consequences of a hook's decision are not
  events to replay; they say what was decided about the event before them: ``policy:violation``
  (a deny, naming the hook), ``approval:required`` (an ask; the human's answer that follows is
  not a hook's), ``hook:observed`` (a would-have decision of a hook in observe mode).
  ``approval:granted`` / ``approval:denied`` and ``hooks-logging:dropped`` are skipped.
- **Claude Code transcripts** (``~/.claude/projects/<project>/<session>.jsonl``): a user entry
  whose content is text is a ``prompt:submit``; each ``tool_use`` block of an assistant entry
  is a ``tool:pre``; each ``tool_result`` block is a ``tool:post`` (``tool:error`` when
  ``is_error``) of the call it answers. Entries of other types (``system``, ``progress``,
  ``summary``, snapshots) carry no hook event and are skipped. A transcript says whether a
  call ran, not who stopped one: a call that ran was allowed, one whose result says a hook
  blocked it was denied, any other is not compared.

A line that is not JSON (a truncated last line), or not a record of the file's format, is a
:class:`LogProblem` with its line number; the other lines are still read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

__all__ = [
    "CLAUDE_CODE",
    "HOOKS_LOGGING",
    "LogProblem",
    "RecordedEvent",
    "RecordedLog",
    "UnknownFormatError",
    "read_log",
]

HOOKS_LOGGING: Final = "hooks-logging"
CLAUDE_CODE: Final = "claude-code"
_SCHEMA: Final = "amplifier.hooks-logging.event"

Gate = Literal["allow", "deny", "ask"]

# Records that say what was decided about an earlier event, never replayed themselves.
_DECISION_RECORDS: Final = frozenset({"policy:violation", "approval:required", "hook:observed"})
_SKIPPED_RECORDS: Final = frozenset(
    {"approval:granted", "approval:denied", "hooks-logging:dropped"}
)
_CLAUDE_TYPES: Final = frozenset({"user", "assistant"})
# entry types a transcript may start with (a resumed session opens with its summary)
_CLAUDE_ENTRY_TYPES: Final = frozenset(
    {"user", "assistant", "system", "summary", "progress", "file-history-snapshot"}
)
_BLOCKED_MARKS: Final = ("hook", "block")  # "PreToolUse:Bash hook error: ... blocked"
_REFUSED_MARKS: Final = ("doesn't want to proceed", "permission", "was rejected")


class UnknownFormatError(ValueError):
    """The file is neither a hooks-logging log nor a Claude Code transcript."""


@dataclass(frozen=True, slots=True)
class LogProblem:
    """A line of the log that could not be read or replayed."""

    line: int
    message: str


@dataclass(slots=True)
class RecordedEvent:
    """One event to replay: where it is in the log, its name and data, and what the recorded
    session decided (``recorded`` is ``None`` when the log cannot say)."""

    line: int
    event: str
    data: dict[str, Any]
    recorded: Gate | None = "allow"
    recorded_by: str | None = None
    observed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def tool_name(self) -> str | None:
        name = self.data.get("tool_name")
        return name if isinstance(name, str) else None


@dataclass(slots=True)
class RecordedLog:
    path: Path
    format: str
    events: list[RecordedEvent]
    problems: list[LogProblem]


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, line


def _parse(number: int, line: str, problems: list[LogProblem]) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as err:
        truncated = "" if line.endswith("\n") else " (the line is cut short)"
        problems.append(LogProblem(number, f"not JSON{truncated}: {err.msg} at column {err.colno}"))
        return None
    if not isinstance(value, dict):
        problems.append(LogProblem(number, f"expected a JSON object, got {type(value).__name__}"))
        return None
    return value


def _format_of(record: dict[str, Any]) -> str | None:
    schema = record.get("schema")
    if isinstance(schema, dict) and schema.get("name") == _SCHEMA:
        return HOOKS_LOGGING
    kind = record.get("type")
    if isinstance(kind, str) and (
        kind in _CLAUDE_ENTRY_TYPES
        or "sessionId" in record
        or "uuid" in record
        or "message" in record
    ):
        return CLAUDE_CODE
    return None


def read_log(path: str | Path) -> RecordedLog:
    """Read a recorded session (see the module docstring).

    :raises UnknownFormatError: the first record is of neither format (the message names the
        file and line); an empty file.
    :raises OSError: the file cannot be read.
    """
    where = Path(path)
    problems: list[LogProblem] = []
    records: list[tuple[int, dict[str, Any]]] = []
    kind: str | None = None
    for number, line in _lines(where):
        record = _parse(number, line, problems)
        if record is None:
            continue
        if kind is None:
            kind = _format_of(record)
            if kind is None:
                raise UnknownFormatError(
                    f"{where}:{number}: unknown format: neither a hooks-logging record (with "
                    f'"schema": {{"name": "{_SCHEMA}"}}) nor a Claude Code transcript entry '
                    '(with "type" such as "user" or "summary", and "sessionId")'
                )
        records.append((number, record))
    if kind is None:
        if problems:
            raise UnknownFormatError(f"{where}:{problems[0].line}: {problems[0].message}")
        raise UnknownFormatError(f"{where}: empty: no record to replay")
    if kind == HOOKS_LOGGING:
        events = list(_from_hooks_logging(records, problems))
    else:
        events = list(_from_claude_code(records, problems))
    problems.sort(key=lambda p: p.line)
    return RecordedLog(where, kind, events, problems)


# ------------------------------------------------------------------ hooks-logging


def _last(events: list[RecordedEvent], name: object) -> RecordedEvent | None:
    for candidate in reversed(events):
        if candidate.event == name:
            return candidate
    return None


def _from_hooks_logging(
    records: list[tuple[int, dict[str, Any]]], problems: list[LogProblem]
) -> Iterator[RecordedEvent]:
    events: list[RecordedEvent] = []
    for number, record in records:
        name, data = record.get("event"), record.get("data")
        if not isinstance(name, str) or not name or not isinstance(data, dict):
            problems.append(
                LogProblem(number, "not a hooks-logging record: expected an event name and data")
            )
            continue
        if name in _SKIPPED_RECORDS:
            continue
        if name in _DECISION_RECORDS:
            about = _last(events, data.get("event"))
            if about is None:
                problems.append(
                    LogProblem(number, f"{name} about {data.get('event')!r}: no such event before")
                )
            elif name == "hook:observed":
                about.observed.append(data)
            elif name == "approval:required":
                about.recorded, about.recorded_by = "ask", _text(data.get("hook"))
            elif about.recorded != "ask":  # a deny after an ask is the human's answer
                about.recorded, about.recorded_by = "deny", _text(data.get("hook"))
            continue
        event = RecordedEvent(number, name, data)
        events.append(event)
    yield from events


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


# ------------------------------------------------------------------ Claude Code


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _from_claude_code(
    records: list[tuple[int, dict[str, Any]]], problems: list[LogProblem]
) -> Iterator[RecordedEvent]:
    calls: dict[str, RecordedEvent] = {}  # tool_use id -> its tool:pre
    events: list[RecordedEvent] = []
    for number, record in records:
        kind = record.get("type")
        if kind not in _CLAUDE_TYPES or record.get("isMeta"):
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            problems.append(LogProblem(number, f"a {kind} entry without a message object"))
            continue
        session = {"session_id": record["sessionId"]} if "sessionId" in record else {}
        content = message.get("content")
        if kind == "user" and isinstance(content, str):
            events.append(RecordedEvent(number, "prompt:submit", {**session, "prompt": content}))
            continue
        if not isinstance(content, list):
            problems.append(LogProblem(number, f"a {kind} entry whose content is not a list"))
            continue
        texts = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if kind == "user" and texts and len(texts) == len(content):
            prompt = _content_text(content)
            events.append(RecordedEvent(number, "prompt:submit", {**session, "prompt": prompt}))
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if kind == "assistant" and block.get("type") == "tool_use":
                call_id, name = str(block.get("id", "")), str(block.get("name", ""))
                raw_input = block.get("input")
                tool_input = raw_input if isinstance(raw_input, dict) else {}
                data = {**session, "tool_name": name, "tool_input": tool_input}
                pre = RecordedEvent(number, "tool:pre", {**data, "tool_call_id": call_id})
                calls[call_id] = pre
                events.append(pre)
            elif kind == "user" and block.get("type") == "tool_result":
                events.append(_tool_result(number, block, calls, session))
    yield from events


def _tool_result(
    number: int,
    block: dict[str, Any],
    calls: dict[str, RecordedEvent],
    session: dict[str, Any],
) -> RecordedEvent:
    """The ``tool:post`` / ``tool:error`` of one ``tool_result`` block; when the result says
    the call never ran, its ``tool:pre`` is marked denied (by a hook) or asked (a person said
    no to the permission prompt)."""
    call_id = str(block.get("tool_use_id", ""))
    pre = calls.get(call_id)
    name = pre.data.get("tool_name", "") if pre is not None else ""
    tool_input = pre.data.get("tool_input", {}) if pre is not None else {}
    data = {**session, "tool_name": name, "tool_input": tool_input, "tool_call_id": call_id}
    text = _content_text(block.get("content"))
    if not block.get("is_error"):
        result = {"success": True, "output": text}
        return RecordedEvent(number, "tool:post", {**data, "tool_result": result, "result": result})
    lowered = text.lower()
    if pre is not None and all(mark in lowered for mark in _BLOCKED_MARKS):
        pre.recorded, pre.recorded_by = "deny", "a Claude Code hook"
    elif pre is not None and any(mark in lowered for mark in _REFUSED_MARKS):
        pre.recorded, pre.recorded_by = "ask", "the permission prompt"
    return RecordedEvent(
        number, "tool:error", {**data, "error": {"type": "tool_error", "message": text}}
    )
