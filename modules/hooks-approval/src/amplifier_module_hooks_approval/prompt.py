"""The approval prompt: exactly what will run or be written, and why the human is asked.

The prompt depends only on the call (tool, input, workspace) and the rule decision, never on
time or session, so two identical calls get the identical prompt and the kernel's
"Allow always" cache (kept per hook and prompt) answers the second one.

What the prompt shows:

* ``bash``: the whole command after ``$ ``, its length, and the shell operators it contains;
* a file write: the path (workspace-relative, or absolute and marked outside the workspace,
  with the path as given when it differs), the content's size in bytes and lines and its
  first ``preview_lines`` lines, numbered;
* an edit: the path, then the old and the new text, each with its size and first lines;
* any other tool: its input as JSON.

Control characters (and invisible or bidirectional Unicode formatting characters, which can
make text read differently from what runs) never reach the prompt raw: when a text contains
any, it is shown escaped (``\\n``, ``\\t``, ``\\x1b``, ``\\u202e``) with backslashes doubled,
and the prompt says so. Text longer than ``max_command_chars`` is elided in the middle with a
marker stating how many characters were left out; the total length is always stated. Wherever
a text is not shown whole (elided, more lines than the preview, a line cut), the prompt adds
the first 16 hex digits of its SHA-256: two different texts never share a prompt, so the
kernel's "Allow always" (remembered per prompt) never approves something nobody was shown.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from amplifier_hooks_util.deep import dumps

from .rules import Decision
from .subject import Subject

__all__ = ["PromptStyle", "build_prompt", "elide", "escape", "fingerprint", "summary_of"]

_SPECIAL: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_NAMED: Final = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
ESCAPED_NOTE: Final = "control characters escaped (\\n, \\t, \\xNN, \\uNNNN), backslashes doubled"


@dataclass(frozen=True, slots=True)
class PromptStyle:
    """How much of a long text a prompt shows."""

    max_chars: int = 2000
    preview_lines: int = 10
    preview_line_chars: int = 200


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> tuple[str, bool]:
    """``text`` safe to display, and whether anything had to be escaped.

    Text without control or formatting characters is returned as it is. Otherwise every such
    character is written as an escape and every backslash is doubled, so the escaped form
    reads unambiguously (a real ``\\n`` in the text shows as ``\\\\n``).
    """
    if _SPECIAL.search(text) is None:
        return text, False
    return _SPECIAL.sub(_escape_char, text.replace("\\", "\\\\")), True


def elide(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to about ``limit`` characters in the middle; returns it and how many
    characters were left out (0 when it fits)."""
    if len(text) <= limit:
        return text, 0
    tail = limit // 3
    head = limit - tail
    left_out = len(text) - head - tail
    return (
        f"{text[:head]} … [{left_out:,} characters elided] … {text[len(text) - tail :]}",
        left_out,
    )


def _chars(count: int) -> str:
    return f"{count:,} character{'' if count == 1 else 's'}"


def _line_count(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def fingerprint(text: str) -> str:
    """A short digest of ``text``, shown wherever the prompt does not show all of it.

    Different texts that look alike once elided (same length, same ends) then still get
    different prompts, so an "Allow always" answer never covers a text nobody saw.
    """
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"sha256 {digest[:16]}"


def _preview(text: str, style: PromptStyle, indent: str = "  ") -> tuple[list[str], bool]:
    """The first lines of ``text``, numbered, each escaped and cut to the line width, and
    whether they show all of it."""
    if not text:
        return [], True
    if style.preview_lines == 0:
        return [], False
    total = _line_count(text)
    lines = text.split("\n", style.preview_lines)[: style.preview_lines]
    if len(lines) > total:  # the piece after the final newline is not a line
        lines.pop()
    shown: list[str] = []
    complete = total == len(lines)
    width = len(str(len(lines)))
    for number, line in enumerate(lines, start=1):
        escaped, _ = escape(line)
        if len(escaped) > style.preview_line_chars:
            extra = len(escaped) - style.preview_line_chars
            escaped = f"{escaped[: style.preview_line_chars]} … (+{_chars(extra)})"
            complete = False
        shown.append(f"{indent}{number:>{width}} | {escaped}")
    if total > len(lines):
        more = total - len(lines)
        shown.append(f"{indent}… {more:,} more line{'' if more == 1 else 's'}")
    return shown, complete


def _text_facts(text: str) -> str:
    size = len(text.encode("utf-8", "surrogatepass"))
    lines = _line_count(text)
    return f"{size:,} byte{'' if size == 1 else 's'} in {lines:,} line{'' if lines == 1 else 's'}"


def _edit_facts(text: str) -> str:
    lines = _line_count(text)
    return f"{lines:,} line{'' if lines == 1 else 's'}, {_chars(len(text))}"


def _file_line(subject: Subject) -> str:
    target = subject.target
    if target is None:
        return "File: (no path given)"
    shown, escaped = escape(target.shown)
    where = "in the workspace" if target.relative is not None else "OUTSIDE the workspace"
    extra = []
    given = target.given
    if given not in (target.relative, target.absolute):
        extra.append(f"given as {escape(given)[0]!r}")
    if escaped:
        extra.append(ESCAPED_NOTE)
    return f"File: {shown} ({'; '.join([where, *extra])})"


def _string(subject: Subject, key: str) -> str:
    value = subject.tool_input.get(key)
    return value if isinstance(value, str) else ""


def _shown_whole(text: str, style: PromptStyle) -> tuple[str, list[str]]:
    """``text`` on one line, escaped and elided to the style's limit, and the facts the
    prompt tells about it (its length; elided, with a fingerprint; escaped)."""
    shown, escaped = escape(text)
    shown, left_out = elide(shown, style.max_chars)
    facts = [_chars(len(text))]
    if left_out:
        facts.append(f"elided in the middle; {fingerprint(text)}")
    if escaped:
        facts.append(ESCAPED_NOTE)
    return shown, facts


def _bash_lines(subject: Subject, style: PromptStyle) -> list[str]:
    shown, facts = _shown_whole(subject.command or "", style)
    scan = subject.scan
    if scan is not None and scan.operators:
        facts.append("shell operators: " + " ".join(scan.operators))
    if scan is not None and scan.unterminated:
        facts.append("an unterminated quote")
    return [f"Run this {subject.tool} command?", f"$ {shown}", f"({'; '.join(facts)})"]


def _write_lines(subject: Subject, style: PromptStyle) -> list[str]:
    content = _string(subject, "content")
    lines = [f"Write this file ({subject.tool})?", _file_line(subject)]
    if not content:
        lines.append("Content: empty (0 bytes)")
        return lines
    count = _line_count(content)
    shown = min(count, style.preview_lines)
    preview, complete = _preview(content, style)
    facts = _text_facts(content) if complete else f"{_text_facts(content)}, {fingerprint(content)}"
    if shown == 0:
        lines.append(f"Content: {facts}")
    elif shown == count:
        lines.append(f"Content: {facts}:")
    else:
        lines.append(f"Content: {facts}; the first {shown}:")
    return lines + preview


def _edit_lines(subject: Subject, style: PromptStyle) -> list[str]:
    old = _string(subject, "old_string")
    new = _string(subject, "new_string")
    every = subject.tool_input.get("replace_all") is True
    lines = [f"Edit this file ({subject.tool})?", _file_line(subject)]
    what = "Replace every occurrence of" if every else "Replace"
    removed = "(nothing: the text is removed)"
    for heading, text, empty in ((what, old, "(empty)"), ("with", new, removed)):
        preview, complete = _preview(text, style)
        facts = _edit_facts(text) if complete else f"{_edit_facts(text)}, {fingerprint(text)}"
        lines.append(f"{heading} ({facts}):")
        lines += preview if text else [f"  {empty}"]
    return lines


def _generic_lines(subject: Subject, style: PromptStyle) -> list[str]:
    text = dumps(dict(subject.tool_input), sort_keys=True, ensure_ascii=False)
    shown, facts = _shown_whole(text, style)
    return [f"Call {subject.tool or 'a tool'} with this input?", shown, f"({'; '.join(facts)})"]


def _why(decision: Decision, subject: Subject) -> str:
    rule = decision.rule
    reason = f": {rule.reason}" if rule is not None and rule.reason else ""
    if decision.action == "allow":
        if rule is not None:
            return f"Allowed without asking: rule {rule.name!r} allows it{reason}."
        return f"Allowed without asking: {decision.source} is 'allow'."
    if decision.action == "deny":
        if rule is not None:
            return f"Denied without asking: rule {rule.name!r} denies it{reason}."
        if decision.source == "decision_timeout":
            return "Denied without asking: the command could not be read within decision_timeout."
        return f"Denied without asking: {decision.source} is 'deny'."
    if rule is not None:
        text = f"Why asked: rule {rule.name!r} asks for approval{reason}."
    elif decision.source == "decision_timeout":
        text = (
            "Why asked: the command could not be read within decision_timeout, so no rule "
            "could decide it."
        )
    elif decision.source == "default_action":
        text = f"Why asked: {subject.tool} needs approval and no rule decided this call."
    else:
        text = "Why asked: other_tools_action is 'ask' and no rule decided this call."
    miss = decision.near_miss
    if miss is not None:
        text += (
            f" Rule {miss.rule.name!r} would allow it, but the command contains "
            f"{', '.join(miss.operators)}, which that rule does not allow."
        )
    return text


def build_prompt(subject: Subject, decision: Decision, style: PromptStyle) -> str:
    """The approval prompt for ``subject`` (see the module docstring)."""
    if subject.command is not None:
        lines = _bash_lines(subject, style)
    elif subject.target is not None and "old_string" in subject.tool_input:
        lines = _edit_lines(subject, style)
    elif subject.target is not None and "content" in subject.tool_input:
        lines = _write_lines(subject, style)
    else:
        lines = _generic_lines(subject, style)
    lines.append(_why(decision, subject))
    return "\n".join(lines)


def summary_of(subject: Subject) -> dict[str, Any]:
    """The call's subject for an audit record: the full command, or the path and sizes."""
    summary: dict[str, Any] = {}
    if subject.command is not None:
        summary["command"] = subject.command
    if subject.target is not None:
        summary["path"] = subject.target.given
        summary["absolute_path"] = subject.target.absolute
    tool_input: Mapping[str, Any] = subject.tool_input
    content = tool_input.get("content")
    if isinstance(content, str):
        data = content.encode("utf-8", "surrogatepass")
        summary["content_bytes"] = len(data)
        summary["content_sha256"] = hashlib.sha256(data).hexdigest()
    for key in ("old_string", "new_string"):
        value = tool_input.get(key)
        if isinstance(value, str):
            summary[f"{key}_chars"] = len(value)
    if not summary:
        summary["tool_input"] = dict(tool_input)
    return summary
