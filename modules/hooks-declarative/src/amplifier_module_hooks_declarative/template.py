"""The prompt template of an LLM hook: ``{{tool}}``, ``{{args}}``, ``{{event}}``, ``{{data}}``.

A template is parsed once, when the hook is configured: an unknown placeholder (``{{tol}}``)
is a :class:`TemplateError` naming it and its line, never a prompt sent with the braces left
in. Rendering is one pass over the parsed pieces, so text that comes from the event (a tool
argument holding ``{{data}}``) is inserted as it is and never expanded again.

======================  =====================================================================
``{{tool}}``            the tool name (empty for events without a tool)
``{{args}}``            the tool input as JSON, cut at :data:`ARGS_LIMIT` characters
``{{event}}``           the event's alias (``PreToolUse``), else its canonical name
``{{data}}``            the whole event data as JSON, cut at :data:`DATA_LIMIT` characters
======================  =====================================================================

Whitespace inside the braces is allowed (``{{ tool }}``). A value cut short ends with a
marker that says how long it was, so the model knows it did not see everything.

``{{args}}`` and ``{{data}}`` come from the agent, and so from whatever it read: they are
inserted as delimited data, ``<untrusted-data id="K">...</untrusted-data id="K">``, where
``K`` is a keyed hash of the text under a secret drawn when the process starts
(:data:`DATA_TAG`). The text cannot close the block early, since it cannot know ``K``; the
same text gets the same ``K``, so identical requests still share a cache entry.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from .types import HookContext

__all__ = [
    "ARGS_LIMIT",
    "DATA_LIMIT",
    "DATA_TAG",
    "DEPTH_CUT",
    "PLACEHOLDERS",
    "Template",
    "TemplateError",
    "delimited",
    "to_json",
]

ARGS_LIMIT: Final = 32_000
"""Characters of ``{{args}}`` JSON kept; the rest is replaced by a truncation marker."""

DATA_LIMIT: Final = 8_000
"""Characters of ``{{data}}`` JSON kept; the rest is replaced by a truncation marker."""

DEPTH_CUT: Final = "... (nested deeper than 32 levels: cut)"
"""What :func:`to_json` writes in place of nesting too deep (or circular) to show."""

_PLACEHOLDER: Final = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


def to_json(value: Any, limit: int) -> str:
    """``value`` as JSON text of at most about ``limit`` characters.

    Values JSON cannot encode (objects, sets) are written as their ``str``; keys that are
    not strings become strings. Text longer than ``limit`` is cut and ends with
    ``... (truncated: N chars)``.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):  # odd keys, cycles, nesting too deep
        text = json.dumps(_plain(value, depth=0), ensure_ascii=False, default=str)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (truncated: {len(text)} chars)"


def _plain(value: Any, depth: int) -> Any:
    """A JSON-safe copy of ``value`` (string keys, no cycles: nesting stops at depth 32)."""
    if depth > 32:
        return DEPTH_CUT
    if isinstance(value, Mapping):
        return {str(key): _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item, depth + 1) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


DATA_TAG: Final = "untrusted-data"
"""The tag that delimits event values in a prompt."""

_KEY: Final = os.urandom(32)
"""The secret the delimiters' ids are keyed with; never leaves the process."""


def delimited(text: str, key: bytes) -> str:
    """``text`` inside ``<untrusted-data id="K">`` ... ``</untrusted-data id="K">``."""
    mark = hmac.new(key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:20]
    return f'<{DATA_TAG} id="{mark}">\n{text}\n</{DATA_TAG} id="{mark}">'


def _tool(context: HookContext) -> str:
    return context.tool or ""


def _args(context: HookContext) -> str:
    return to_json(context.args, ARGS_LIMIT)


def _event(context: HookContext) -> str:
    return context.alias or context.event


def _data(context: HookContext) -> str:
    return to_json(context.data, DATA_LIMIT)


_RENDERERS: Final[Mapping[str, Callable[[HookContext], str]]] = {
    "tool": _tool,
    "args": _args,
    "event": _event,
    "data": _data,
}

PLACEHOLDERS: Final = tuple(_RENDERERS)
"""The placeholder names a prompt may use."""

_UNTRUSTED: Final = frozenset({"args", "data"})
"""Placeholders whose values come from the agent: inserted as delimited data."""


class TemplateError(ValueError):
    """A prompt template names a placeholder that does not exist.

    ``placeholder`` is the name as written and ``line`` its 1-based line in the prompt.
    """

    def __init__(self, message: str, *, placeholder: str, line: int) -> None:
        super().__init__(message)
        self.placeholder = placeholder
        self.line = line


class Template:
    """A parsed prompt: ``Template(text).render(context)`` is the prompt for one event.

    :param text: the prompt with ``{{name}}`` placeholders.
    :param where: what the template belongs to, for error messages (``hooks.yaml#2 prompt``).
    :raises TemplateError: a placeholder other than those in :data:`PLACEHOLDERS`.
    """

    __slots__ = ("_pieces", "placeholders", "text")

    def __init__(self, text: str, *, where: str = "prompt") -> None:
        self.text = text
        pieces: list[str | Callable[[HookContext], str]] = []
        used: list[str] = []
        start = 0
        for match in _PLACEHOLDER.finditer(text):
            name = match.group(1)
            render = _RENDERERS.get(name)
            if render is None:
                line = text.count("\n", 0, match.start()) + 1
                raise TemplateError(
                    f"{where}: unknown placeholder {match.group(0)!r} on line {line} "
                    f"(known: {', '.join('{{' + known + '}}' for known in PLACEHOLDERS)})",
                    placeholder=name,
                    line=line,
                )
            if match.start() > start:
                pieces.append(text[start : match.start()])
            pieces.append(self._guarded(render) if name in _UNTRUSTED else render)
            if name not in used:
                used.append(name)
            start = match.end()
        if start < len(text):
            pieces.append(text[start:])
        self._pieces: tuple[str | Callable[[HookContext], str], ...] = tuple(pieces)
        self.placeholders: tuple[str, ...] = tuple(used)
        """The placeholder names this template uses, in order of first use."""

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    def _guarded(self, render: Callable[[HookContext], str]) -> Callable[[HookContext], str]:
        return lambda context: delimited(render(context), _KEY)

    def render(self, context: HookContext) -> str:
        """The prompt for ``context``; event values are inserted as plain text."""
        return "".join(
            piece if isinstance(piece, str) else piece(context) for piece in self._pieces
        )
