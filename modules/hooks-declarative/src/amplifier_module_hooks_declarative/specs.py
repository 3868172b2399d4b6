"""The hook entries a declarative hooks file holds, validated.

These are the shapes of the app-cli hooks proposal (``type: command | matcher | llm``), plus the
handful of keys a Claude Code ``hooks`` block adds. Unknown keys are errors, so a typo such as
``timout_ms`` is reported instead of silently ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .protocols import protocol_names
from .types import OnFailure


def _known_protocol(name: str) -> str:
    """``name`` when it is a protocol of the registry (read the first time a command hook is)."""
    known = protocol_names()
    if name not in known:
        raise ValueError(f"unknown protocol {name!r}; expected one of: {', '.join(known)}")
    return name


ProtocolName = Annotated[str, AfterValidator(_known_protocol)]
"""The module's own protocol or a format's (:func:`~.protocols.protocol_names`)."""

__all__ = [
    "AgentHookSpec",
    "CommandHookSpec",
    "HookSpec",
    "HttpHookSpec",
    "LlmHookSpec",
    "MatchSpec",
    "MatcherHookSpec",
    "McpToolHookSpec",
    "PluginHookSpec",
    "PromptHookSpec",
    "UnreadableHookSpec",
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
    protocol: ProtocolName = "amplifier"
    sandbox: bool = False
    """Run contained by bubblewrap (see :mod:`.containment`); the module's ``sandbox`` and
    ``sandbox_sources`` keys can require it too, never waive it."""
    shell: Literal["sh", "bash", "powershell"] = "sh"
    """What runs ``command``: ``/bin/sh -c`` (``sh``), ``bash -c`` or PowerShell's
    ``pwsh -NoProfile -Command`` (Claude Code's ``shell``)."""
    args: tuple[str, ...] | None = None
    """Exec form (Claude Code's ``args``): ``command`` is the program and these its
    arguments, run without a shell; ``$NAME`` / ``${NAME}`` of the hook's environment are
    replaced in both."""
    rewake: bool = False
    """Claude Code's ``asyncRewake``: runs in the background (implies ``async``); an exit code
    2 reaches the agent afterwards as context (its stderr, else its stdout)."""
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


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
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


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
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


class PromptHookSpec(_Spec):
    """A Claude Code ``type: prompt`` hook: ask a mounted model about the event once.

    ``prompt`` is Claude Code's: ``$ARGUMENTS`` stands for the hook's input JSON (appended when
    the prompt has none). ``provider`` left ``None`` and ``on_failure`` left unset take the
    module's ``prompt_provider`` and ``prompt_on_failure``; the module's ``prompt_model``
    replaces ``model``. The model answers
    ``{"ok": bool, "reason": str}`` (see :mod:`.runners.prompt_hook`).
    """

    type: Literal["prompt"]
    prompt: str = Field(min_length=1)
    model: str | None = Field(default=None, min_length=1)
    timeout_ms: int = Field(default=30_000, gt=0)
    provider: str | None = Field(default=None, min_length=1)
    on_failure: OnFailure = "warn"
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


class AgentHookSpec(_Spec):
    """A Claude Code ``type: agent`` hook: a prompt hook whose model may first read with the
    session's read-only tools (``read_file``, ``glob``, ``grep``) for at most ``max_turns``
    requests, then answers as a prompt hook does (see :mod:`.runners.agent_hook`).

    ``max_turns`` ``None`` takes the module's ``agent_max_turns``.
    """

    type: Literal["agent"]
    prompt: str = Field(min_length=1)
    model: str | None = Field(default=None, min_length=1)
    timeout_ms: int = Field(default=60_000, gt=0)
    provider: str | None = Field(default=None, min_length=1)
    on_failure: OnFailure = "warn"
    max_turns: int | None = Field(default=None, gt=0)
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


class HttpHookSpec(_Spec):
    """A Claude Code ``type: http`` hook: the event's Claude Code object POSTed as JSON to
    ``url``; a 2xx response's body is read as a command hook's stdout (see
    :mod:`.runners.http_hook`).

    ``headers`` values may name environment variables as ``$NAME`` or ``${NAME}``; only the
    names in ``allowed_env_vars`` are expanded, any other reference becomes empty.
    """

    type: Literal["http"]
    url: str = Field(min_length=1, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)
    allowed_env_vars: tuple[str, ...] = ()
    timeout_ms: int = Field(default=60_000, gt=0)
    on_failure: OnFailure = "warn"
    sandbox: bool = False
    """Contained (see :mod:`.containment`): a contained hook has no network, so the request
    is never sent and the hook fails by its ``on_failure``; the module's ``sandbox`` and
    ``sandbox_sources`` keys can require it, never waive it."""
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


class McpToolHookSpec(_Spec):
    """A Claude Code ``type: mcp_tool`` hook: call the tool ``tool`` of the MCP server
    ``server`` (mounted on the session as ``mcp__<server>__<tool>``) with ``input``, whose
    ``${path}`` references name fields of the event's Claude Code object
    (``${tool_input.file_path}``, ``${session_id}``, ``${cwd}``); the tool's text output is
    read as a command hook's stdout (see :mod:`.runners.mcp_tool`)."""

    type: Literal["mcp_tool"]
    server: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict)
    timeout_ms: int = Field(default=60_000, gt=0)
    on_failure: OnFailure = "warn"
    sandbox: bool = False
    """Contained (see :mod:`.containment`): the session's tool acts outside any sandbox, so a
    contained hook never calls it and fails by its ``on_failure``; the module's ``sandbox``
    and ``sandbox_sources`` keys can require it, never waive it."""
    required: bool = False
    """A required guard (:mod:`.receipts`): due on a tool call and not run to its end, the
    call is refused."""


class UnreadableHookSpec(_Spec):
    """A hook whose entry holds a key or a value this version does not know: it stands for
    the hook alone, so that its siblings still run. Under the module's ``strict`` (the
    default) it fails closed on the events and calls it matches, with ``problem`` (file, line,
    key path) as the reason; with ``strict: false`` it warns and lets them through."""

    type: Literal["unreadable"]
    problem: str = Field(min_length=1)
    timeout_ms: int = 1
    on_failure: OnFailure = "block"


class PluginHookSpec(_Spec):
    """The base of a hook type of another distribution (:mod:`.runner_plugins`): its model
    narrows ``type`` to its name (``type: Literal["notify"]``) and adds its own keys."""

    type: str
    timeout_ms: int = Field(default=60_000, gt=0)
    on_failure: OnFailure = "warn"


HookSpec = (
    CommandHookSpec
    | MatcherHookSpec
    | LlmHookSpec
    | PromptHookSpec
    | AgentHookSpec
    | HttpHookSpec
    | McpToolHookSpec
    | UnreadableHookSpec
    | PluginHookSpec
)
