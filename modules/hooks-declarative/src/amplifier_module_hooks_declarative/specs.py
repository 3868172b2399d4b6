"""The hook entries a declarative hooks file holds, validated.

These are the shapes of the app-cli hooks proposal (``type: command | matcher | llm``), plus the
handful of keys a Claude Code ``hooks`` block adds. Unknown keys are errors, so a typo such as
``timout_ms`` is reported instead of silently ignored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .types import OnFailure

__all__ = [
    "CommandHookSpec",
    "HookSpec",
    "LlmHookSpec",
    "MatchSpec",
    "MatcherHookSpec",
]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class CommandHookSpec(_Spec):
    """Run an external command with the event as JSON on stdin.

    ``protocol`` is ``amplifier`` (the proposal's stdin/stdout JSON) or ``claude-code``
    (Claude Code's stdin fields, exit code 2 and ``hookSpecificOutput``); hooks read from a
    Claude Code ``hooks`` block get ``claude-code``.
    """

    type: Literal["command"]
    command: str = Field(min_length=1)
    timeout_ms: int = Field(default=60_000, gt=0)
    on_failure: OnFailure = "warn"
    async_: bool = Field(default=False, alias="async")
    env: dict[str, str] = Field(default_factory=dict)
    max_output_bytes: int = Field(default=1_000_000, gt=0)
    protocol: Literal["amplifier", "claude-code"] = "amplifier"


class MatchSpec(_Spec):
    """What a matcher hook matches: tool-name glob (``Bash|Write``) and argument globs.

    With ``regex: true`` both are regular expressions (searched, not anchored) instead.
    """

    tool: str | None = None
    args: dict[str, str] = Field(default_factory=dict)
    regex: bool = False


class MatcherHookSpec(_Spec):
    """An inline rule: when ``match`` matches, take ``action`` with ``message``."""

    type: Literal["matcher"]
    match: MatchSpec
    action: Literal["block", "allow", "ask"]
    message: str | None = None
    on_failure: OnFailure = "warn"


class LlmHookSpec(_Spec):
    """Ask a fast model; ``prompt`` is a template with ``{{tool}}``, ``{{args}}``, ``{{event}}``,
    ``{{data}}``; the answer is JSON (``{"safe": bool, "reason": str}`` or
    ``{"decision": "allow" | "block" | "ask", "reason": str}``).

    ``provider`` names the provider mounted on the session to ask (its mount name); without
    it, the first mounted provider is asked. ``cache: true`` answers an identical request from
    a bounded cache with a time-to-live instead of calling the model again.
    """

    type: Literal["llm"]
    model: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    max_tokens: int = Field(default=100, gt=0)
    timeout_ms: int = Field(default=10_000, gt=0)
    cache: bool = False
    cache_ttl_s: float = Field(default=3600.0, gt=0)
    cache_size: int = Field(default=1024, gt=0)
    on_failure: OnFailure = "warn"
    provider: str | None = Field(default=None, min_length=1)


HookSpec = CommandHookSpec | MatcherHookSpec | LlmHookSpec
