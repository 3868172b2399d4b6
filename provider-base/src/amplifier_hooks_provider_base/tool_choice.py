"""A request's ``tool_choice``, read once for every provider from ``ChatRequest.tool_choice``.

Amplifier's ``ChatRequest.tool_choice`` is ``str | dict | None`` and names no wire format, so
the forms in use are all read (Amplifier's own tests use ``"required"``, ``{"name": ...}`` and
OpenAI's function form; hooks and orchestrators written for one API use that API's words):

=========================================================  ====================================
``tool_choice``                                            meaning
=========================================================  ====================================
``None``, ``"auto"``, ``{"type": "auto"}``                 the model decides (nothing is sent)
``"required"``, ``"any"``, ``{"type": "any"}``,            the model must call a tool
``{"type": "required"}``
``"none"``, ``{"type": "none"}``                           the model must not call a tool
``{"name": N}``, ``{"type": "tool", "name": N}``,          the model must call the tool ``N``
``{"type": "function", "function": {"name": N}}``,
``{"type": "function", "name": N}``
=========================================================  ====================================

A choice that cannot be met is an error before anything is sent, naming the value: a named
tool that is not among the tools offered, ``required`` with no tools offered, or a form not in
the table. ``auto`` and ``none`` with no tools offered send nothing (the APIs refuse a
``tool_choice`` without tools, and without tools there is no call to make).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from .http import HttpError

__all__ = ["Mode", "ToolChoice", "read_tool_choice"]

Mode: TypeAlias = Literal["auto", "required", "none", "tool"]

_WORDS: Final[Mapping[str, Mode]] = {
    "auto": "auto",
    "required": "required",
    "any": "required",
    "none": "none",
}


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """What the request asks of the model: ``mode``, and the tool's ``name`` for ``tool``."""

    mode: Mode
    name: str | None = None


def _named(value: Mapping[str, Any]) -> str | None:
    """The tool name of a dict form that names one, else ``None``."""
    function = value.get("function")
    if isinstance(function, Mapping) and isinstance(function.get("name"), str):
        return str(function["name"])
    name = value.get("name")
    return name if isinstance(name, str) else None


def _parse(value: object) -> ToolChoice | None:
    if isinstance(value, str):
        mode = _WORDS.get(value)
        return ToolChoice(mode) if mode is not None else None
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    name = _named(value)
    if name is not None and kind in (None, "tool", "function"):
        return ToolChoice("tool", name) if name else None
    if isinstance(kind, str) and name is None:
        mode = _WORDS.get(kind)
        return ToolChoice(mode) if mode is not None else None
    return None


def read_tool_choice(
    value: object, *, provider: str, model: str, offered: Sequence[str]
) -> ToolChoice | None:
    """The choice ``value`` asks for, checked against the names of the tools ``offered``;
    ``None`` when nothing is to be sent (no choice, ``auto``, or ``none`` without tools).

    :raises HttpError: (kind ``request``) the value is not a known form, names a tool that is
        not offered, or asks for a tool call with no tools offered.
    """
    if value is None:
        return None
    choice = _parse(value)
    if choice is None:
        raise HttpError(
            f"{provider} {model}: tool_choice {value!r:.200} is not one of 'auto', 'required' "
            "('any'), 'none', {'type': 'auto' | 'any' | 'none'} or a named tool ({'name': N}, "
            "{'type': 'tool', 'name': N}, {'type': 'function', 'function': {'name': N}})",
            provider=provider,
            model=model,
            kind="request",
        )
    if choice.mode == "auto" or (choice.mode == "none" and not offered):
        return None
    if choice.mode == "required" and not offered:
        raise HttpError(
            f"{provider} {model}: tool_choice {value!r:.200} asks for a tool call, but the "
            "request offers no tools",
            provider=provider,
            model=model,
            kind="request",
        )
    if choice.mode == "tool" and choice.name not in offered:
        tools = ", ".join(offered) if offered else "none"
        raise HttpError(
            f"{provider} {model}: tool_choice names the tool {choice.name!r}, which the request "
            f"does not offer (tools offered: {tools})",
            provider=provider,
            model=model,
            kind="request",
        )
    return choice
