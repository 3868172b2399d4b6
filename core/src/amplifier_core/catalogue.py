"""The event catalogue: every event the kernel knows, what it carries and what hooks can do.

One :class:`EventSpec` per name in :data:`amplifier_core.events.ALL_EVENTS` says, for that
event: its PascalCase alias, a one-line summary, when it fires, who emits it, which
:class:`~amplifier_core.models.HookResult` actions change the outcome, and its data fields.
``docs/events.md`` is generated from this module by the command line, so the two cannot
drift apart (a test compares them)::

    amplifier-hooks events --markdown > docs/events.md

Look an event up by canonical name or alias, and check a payload against its schema::

    from amplifier_core.catalogue import spec_for, validate_event_data

    spec_for("PreToolUse").name                      # "tool:pre"
    validate_event_data("tool:pre", {"tool_name": "bash"})
    # ["tool:pre: missing required key 'tool_input' (dict[str, Any])", ...]

Every payload also carries the common fields (:data:`COMMON_FIELDS`): ``session_id``, set
through :meth:`HookRegistry.set_default_fields`, and ``timestamp``, set by the registry at emit.
Extra keys are always allowed; handlers ignore keys they do not know.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from types import MappingProxyType
from typing import Final

from . import events as _events
from .models import HookAction

__all__ = [
    "CATALOGUE",
    "CATEGORIES",
    "COMMON_FIELDS",
    "EMITTERS",
    "ActionEffect",
    "EventSpec",
    "FieldSpec",
    "UnknownEventError",
    "spec_for",
    "specs_matching",
    "validate_event_data",
]


# ---------------------------------------------------------------------------------- model


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One key of an event's data: its name, its type (as text), whether it is always sent."""

    name: str
    type: str
    required: bool
    description: str


@dataclass(frozen=True, slots=True)
class ActionEffect:
    """What the session does when the combined result of an event's hooks has ``action``."""

    action: HookAction
    effect: str


@dataclass(frozen=True, slots=True)
class EventSpec:
    """The documented contract of one event.

    ``when`` says when the event fires. ``effects`` lists the :class:`HookResult` actions that
    change the outcome (an empty tuple means observe only: the session ignores the action).
    ``modifiable`` names the keys the session reads back from ``result.data`` when a hook
    returns ``modify``. ``fields`` are the event's own keys; :attr:`all_fields` adds the
    common ones.
    """

    name: str
    category: str
    aliases: tuple[str, ...]
    summary: str
    when: str
    emitter: str
    fields: tuple[FieldSpec, ...]
    effects: tuple[ActionEffect, ...] = ()
    modifiable: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        names = [f.name for f in self.all_fields]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"catalogue: {self.name}: duplicate field(s) {duplicates}")
        if ("modify" in self.honours) != bool(self.modifiable):
            raise ValueError(
                f"catalogue: {self.name}: 'modify' must be honoured exactly when "
                f"modifiable keys are named (modifiable={list(self.modifiable)})"
            )
        unknown = [key for key in self.modifiable if key not in names]
        if unknown:
            raise ValueError(f"catalogue: {self.name}: modifiable keys {unknown} are not fields")
        if "continue" in self.honours:
            raise ValueError(f"catalogue: {self.name}: 'continue' is implied, do not list it")
        if self.emitter not in EMITTERS:
            raise ValueError(f"catalogue: {self.name}: unknown emitter {self.emitter!r}")
        if self.category not in CATEGORIES:
            raise ValueError(f"catalogue: {self.name}: unknown category {self.category!r}")

    @property
    def alias(self) -> str | None:
        """The first PascalCase alias, or ``None`` when the event has none."""
        return self.aliases[0] if self.aliases else None

    @property
    def honours(self) -> tuple[HookAction, ...]:
        """Actions besides ``continue`` that change what the session does."""
        return tuple(e.action for e in self.effects)

    @property
    def observe_only(self) -> bool:
        """True when no hook result can change what the session does."""
        return not self.effects

    @property
    def upstream(self) -> bool:
        """True for the 43 events of amplifier-core 2.0.2; False for the three added here."""
        return self.name in _events._UPSTREAM_EVENTS

    @property
    def all_fields(self) -> tuple[FieldSpec, ...]:
        """The common fields followed by the event's own fields."""
        return COMMON_FIELDS + self.fields

    @property
    def required_keys(self) -> frozenset[str]:
        """Every key the emitter always sends, common fields included."""
        return frozenset(f.name for f in self.all_fields if f.required)


class UnknownEventError(KeyError):
    """An event name (or alias) the catalogue does not document."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown event"


# ------------------------------------------------------------------------ field helpers


def _req(name: str, type_: str, description: str) -> FieldSpec:
    return FieldSpec(name, type_, True, description)


def _opt(name: str, type_: str, description: str) -> FieldSpec:
    return FieldSpec(name, type_, False, description)


COMMON_FIELDS: Final[tuple[FieldSpec, ...]] = (
    _req(
        "session_id",
        "str",
        "Id of the session. The session sets it once through "
        "`HookRegistry.set_default_fields`; the registry merges it under every payload.",
    ),
    _req(
        "timestamp",
        "str",
        "UTC ISO 8601 time of the emit, set by the registry unless the emitter set one.",
    ),
)

_ERROR_DICT = "dict[str, str]"
_PROVIDER = _req(
    "provider", "str", "Name of the provider module (`scripted`, `anthropic`, `openai`)."
)
_MODEL = _req("model", "str", "Model the call is made with.")
_REQUEST_ID = _opt(
    "request_id",
    "str",
    "Correlation id shared by `llm:request` and the events that close or retry the same call.",
)
_TURN = _req("turn", "int", "Number of the prompt in the session, counting from 1.")
_ITERATION = _req(
    "iteration", "int", "Provider request within the turn, counting from 1 (one per loop round)."
)
_TOOL_FIELDS: Final[tuple[FieldSpec, ...]] = (
    _req("tool_name", "str", "Name of the tool the model called (`bash`, `read_file`, ...)."),
    _req("tool_input", "dict[str, Any]", "Arguments the model passed to the tool."),
    _req("tool_call_id", "str", "Provider id of the call; pairs `tool:pre` with its outcome."),
    _req("tool", "str", "Legacy copy of `tool_name`, for modules that read `tool`."),
    _req("input", "dict[str, Any]", "Legacy copy of `tool_input` (hook contract examples)."),
    _opt(
        "parallel_group_id",
        "str",
        "Shared by the tool calls of one provider response that run together.",
    ),
)
_APPROVAL_FIELDS: Final[tuple[FieldSpec, ...]] = (
    _req("tool_name", "str | None", "Tool the approval gates; `None` when it gates no tool."),
    _req("prompt", "str", "Question shown to the user (`approval_prompt`, or a default)."),
    _req(
        "options", "list[str]", 'Choices offered (`approval_options`, default `["Allow", "Deny"]`).'
    ),
    _req("hook", "str", "Name of the handler that returned `ask_user`."),
    _req("event", "str", "Event whose hooks asked (`tool:pre`)."),
    _opt("tool_input", "dict", "Arguments of the gated tool call, when it gates one."),
)
_BLOCK_TYPE = '"text" | "thinking" | "tool_use"'

# Who emits what: the short names the specs use, each explained once in the docs.
_KERNEL = "kernel session"
_SESSION = "orchestrator"
_TOOLS = "tool wrapper"
_PROVIDER_MOD = "provider module"
_CONTEXT = "context manager"
_APPROVAL = "approval flow"
_LOADER = "module loader"
_TODO = "todo tool"
_MEMORY = "memory watcher"
_OBSERVE = "observe mode"

#: Every emitter an event names, with what it is.
EMITTERS: Final[Mapping[str, str]] = MappingProxyType(
    {
        _KERNEL: "The kernel's `AmplifierSession`: mounting, the first execute, cancel and "
        "cleanup, as amplifier-core 2.0.2's session fires them.",
        _SESSION: "The mounted orchestrator (`loop-session`): turns, provider calls and their "
        "content blocks, checkpoints, model switches, cancels, `@file` mentions.",
        _TOOLS: "The orchestrator around each tool call (`bash`, `read_file`, `write_file`, "
        "`edit_file`, `todo`, any mounted tool).",
        _PROVIDER_MOD: "The mounted provider module (`provider-anthropic`, `provider-openai`), "
        "through the session's hook registry, while it retries a call.",
        _CONTEXT: "The mounted context manager (`context-simple`): compaction.",
        _APPROVAL: "The coordinator's processing of an `ask_user` result and the pluggable "
        "approval system behind it.",
        _LOADER: "The module loader, while it mounts the bundle's modules.",
        _TODO: "The `todo` tool (`tool-todo`), when its list of items changes.",
        _MEMORY: "The orchestrator's check of memory files after tool calls and turns.",
        _OBSERVE: "A hook module mounted with `observe: true` (`amplifier_core.observe_mode`): "
        "its deny, ask_user, modify and inject_context results are recorded, not applied.",
    }
)

_INJECT_NEXT = (
    "the injection is added to the context (with provenance) and reaches the next provider "
    "request; an `ephemeral` one reaches only that request"
)


# ---------------------------------------------------------------------------- categories

#: Section titles of ``docs/events.md``, in order.
CATEGORIES: Final[tuple[str, ...]] = (
    "Session lifecycle",
    "Prompts and planning",
    "Provider calls",
    "Streaming content",
    "Tools",
    "Context",
    "Orchestrator",
    "Notifications, artifacts, policy and approvals",
    "Cancellation",
    "Modules",
    "Memory",
    "Observe mode",
)


def _aliases_of(name: str) -> tuple[str, ...]:
    return tuple(
        alias
        for alias, target in _events._ALIASES.items()
        if target == name or (_events.is_pattern(target) and fnmatchcase(name, target))
    )


def _event(
    name: str,
    category: str,
    *,
    summary: str,
    when: str,
    emitter: str,
    fields: Iterable[FieldSpec] = (),
    effects: Iterable[tuple[HookAction, str]] = (),
    modifiable: tuple[str, ...] = (),
) -> EventSpec:
    return EventSpec(
        name=name,
        category=category,
        aliases=_aliases_of(name),
        summary=summary,
        when=when,
        emitter=emitter,
        fields=tuple(fields),
        effects=tuple(ActionEffect(action, text) for action, text in effects),
        modifiable=modifiable,
    )


# ------------------------------------------------------------------------------- events

_SPECS: Final[tuple[EventSpec, ...]] = (
    # Session lifecycle ------------------------------------------------------------------
    _event(
        _events.SESSION_START,
        "Session lifecycle",
        summary="A new session is ready to take its first prompt.",
        when="Once per session, after the bundle's modules are mounted and before the first "
        "prompt. A restored session fires `session:resume` instead.",
        emitter=_KERNEL,
        fields=(
            _req("parent_id", "str | None", "Id of the parent session for a fork, else `None`."),
            _req(
                "mount_plan",
                "dict[str, Any]",
                "The mounted bundle: `{hooks: [{module, config}], provider, model, tools}`, "
                "secrets redacted.",
            ),
            _PROVIDER,
            _req("model", "str", "Model the session starts with."),
            _req("tools", "list[str]", "Names of the mounted tools."),
            _req("cwd", "str", "Working directory the tools run in."),
            _opt("metadata", "dict[str, Any]", "The bundle's `session.metadata`, when set."),
        ),
        effects=(
            (
                "inject_context",
                "the injection enters the context before the first prompt (git status, "
                "environment facts)",
            ),
        ),
    ),
    _event(
        _events.SESSION_END,
        "Session lifecycle",
        summary="The session is closing.",
        when="Once per session when it ends (normally, after an error or after a cancel), "
        "before module cleanups run.",
        emitter=_KERNEL,
        fields=(
            _req("status", '"completed" | "failed" | "cancelled"', "How the session ended."),
            _req("duration", "float", "Seconds since the session started."),
            _req("turns", "int", "Number of prompts the session processed."),
            _opt("error", _ERROR_DICT, "`{type, message}` of the failure when `status` is failed."),
        ),
    ),
    _event(
        _events.SESSION_CONFIG,
        "Session lifecycle",
        summary="The whole mount plan of a session that asked for it (`session.raw`).",
        when="Before every prompt when the plan sets `session.raw: true` (the first time right "
        "after `session:start` or `session:resume`), as amplifier-core 2.0.2 emits it (its "
        "`ALL_EVENTS` does not list it). amplifier-foundation subscribes hooks-logging to it.",
        emitter=_KERNEL,
        fields=(
            _req(
                "raw",
                "dict[str, Any]",
                "A copy of the mount plan with the value of every secret key (`api_key`, "
                "`token`, `password` ..., and keys ending in one) replaced by `[REDACTED]`.",
            ),
        ),
    ),
    _event(
        _events.SESSION_FORK,
        "Session lifecycle",
        summary="A child session was created from this one.",
        when="When a child session (a sub-agent, or a fork of the conversation) is "
        "initialised, before its `session:start`. `session_id` is the child's id.",
        emitter=_KERNEL,
        fields=(
            _req("parent", "str", "Id of the parent session."),
            _opt("metadata", "dict[str, Any]", "The child's `session.metadata`, when set."),
        ),
    ),
    _event(
        _events.SESSION_RESUME,
        "Session lifecycle",
        summary="A session was restored from a checkpoint.",
        when="Once, instead of `session:start`, when a session is restored from a checkpoint "
        "and is ready to take its next prompt.",
        emitter=_KERNEL,
        fields=(
            _req("parent_id", "str | None", "Id of the parent session for a fork, else `None`."),
            _req("checkpoint_id", "str", "Id of the checkpoint restored."),
            _req("path", "str", "Checkpoint file the session was restored from."),
            _req("turn", "int", "Number of turns completed before the checkpoint."),
            _req("messages", "int", "Number of messages restored into the context."),
            _PROVIDER,
            _req("model", "str", "Model the restored session continues with."),
        ),
        effects=(
            (
                "inject_context",
                "the injection enters the restored context before the next prompt",
            ),
        ),
    ),
    _event(
        _events.SESSION_CHECKPOINT,
        "Session lifecycle",
        summary="The conversation was saved to a checkpoint file.",
        when="After the session writes a checkpoint: at the end of every completed turn, "
        "and when one is requested.",
        emitter=_SESSION,
        fields=(
            _req("checkpoint_id", "str", "Id of the checkpoint; `session:resume` names it."),
            _req("path", "str", "File the checkpoint was written to."),
            _req("turn", "int", "Number of turns completed at the checkpoint."),
            _req("messages", "int", "Number of messages saved."),
        ),
    ),
    # Prompts and planning ---------------------------------------------------------------
    _event(
        _events.PROMPT_SUBMIT,
        "Prompts and planning",
        summary="A user prompt arrived and is about to be processed.",
        when="Once per turn, before the prompt enters the context and before the turn's "
        "first provider request.",
        emitter=_SESSION,
        fields=(
            _req("prompt", "str", "The prompt text as the user submitted it."),
            _TURN,
        ),
        effects=(
            (
                "deny",
                "the turn ends before any provider call; the prompt is not added to the "
                "context and the user sees the reason",
            ),
            ("modify", "the session uses `prompt` from the modified data"),
            ("inject_context", "the injection enters the context beside the prompt"),
        ),
        modifiable=("prompt",),
    ),
    _event(
        _events.PROMPT_COMPLETE,
        "Prompts and planning",
        summary="The final response of a turn is ready.",
        when="Once per turn that passed `prompt:submit`, when the model answered without "
        "asking for more tools (or the turn stopped), before `orchestrator:complete`; again "
        "after each time a stop hook sent the agent back to work (loop-session).",
        emitter=_SESSION,
        fields=(
            _req("prompt", "str", "The prompt the turn answered (after any `modify`)."),
            _req("response", "str", "Final assistant text of the turn."),
            _TURN,
            _req("duration", "float", "Seconds since `prompt:submit`."),
            _req("iterations", "int", "Provider requests made during the turn."),
            _opt(
                "usage",
                "dict[str, int]",
                "Tokens used by the turn: `{input_tokens, output_tokens}`.",
            ),
            _opt(
                "status",
                '"completed" | "incomplete" | "error" | "cancelled"',
                "How the turn ended (loop-session).",
            ),
            _opt(
                "stop_hook_active",
                "bool",
                "True when a stop hook already sent the agent back to work in this turn.",
            ),
        ),
        effects=(
            (
                "deny",
                "with `keep_working: true` in its data (a stop hook's block) and a turn that "
                "completed: the reason is added as a user message and the agent goes on "
                "working, at most `max_stop_continuations` times a turn (loop-session); any "
                "other deny is not acted on",
            ),
        ),
    ),
    _event(
        _events.PLAN_START,
        "Prompts and planning",
        summary="The model laid out a plan (a todo list).",
        when="When the `todo` tool turns an empty (or fully completed) todo list into one "
        "with open items.",
        emitter=_TODO,
        fields=(
            _req(
                "items",
                "list[dict[str, str]]",
                "The todo items: `{content, status, activeForm}`, status one of pending, "
                "in_progress, completed.",
            ),
            _req("total", "int", "Number of items."),
        ),
    ),
    _event(
        _events.PLAN_END,
        "Prompts and planning",
        summary="Every item of the plan is done (or the plan was cleared).",
        when="When the `todo` tool leaves a list whose items are all completed, or clears it.",
        emitter=_TODO,
        fields=(
            _req("items", "list[dict[str, str]]", "The final todo items."),
            _req("completed", "int", "Number of completed items."),
            _req("total", "int", "Number of items."),
        ),
    ),
    # Provider calls ---------------------------------------------------------------------
    _event(
        _events.PROVIDER_REQUEST,
        "Provider calls",
        summary="The session is about to call the provider.",
        when="Before every provider call: once per loop iteration of a turn.",
        emitter=_SESSION,
        fields=(
            _PROVIDER,
            _MODEL,
            _TURN,
            _ITERATION,
            _req(
                "messages",
                "list[dict[str, Any]]",
                "Messages about to be sent (`{role, content, ...}`), injections included.",
            ),
            _req("tools", "list[str]", "Names of the tools offered to the model."),
        ),
        effects=(
            ("deny", "loop-session does not call the provider: the turn ends `denied`"),
            (
                "modify",
                "the session sends `messages`, asks for `model` and offers the `tools` named in "
                "the modified data; loop-session also reads `tool_choice`, `temperature`, "
                "`top_p`, `max_output_tokens` and `response` (`{content}`: the answer, the "
                "provider not called)",
            ),
            (
                "inject_context",
                "the injection reaches this request; an `ephemeral` one only this request, "
                "a persistent one also enters the context",
            ),
        ),
        modifiable=("messages",),
    ),
    _event(
        _events.PROVIDER_RESPONSE,
        "Provider calls",
        summary="The provider returned a complete response.",
        when="After every successful provider call, before its tool calls run.",
        emitter=_SESSION,
        fields=(
            _PROVIDER,
            _MODEL,
            _TURN,
            _ITERATION,
            _req(
                "response",
                "dict[str, Any]",
                "`{content: str, tool_calls: [{id, name, arguments}], stop_reason: str}`.",
            ),
            _req("usage", "dict[str, int]", "`{input_tokens, output_tokens}` of the call."),
            _req("tool_calls", "bool", "True when the response asks for tool calls."),
            _req("duration", "float", "Seconds the call took."),
        ),
        effects=(
            ("deny", "loop-session discards the answer and ends the turn `denied`"),
            (
                "modify",
                "a new `response.content` replaces the text of the answer (its tool calls stay)",
            ),
            ("inject_context", _INJECT_NEXT),
        ),
        modifiable=("response",),
    ),
    _event(
        _events.PROVIDER_RETRY,
        "Provider calls",
        summary="A failed provider call will be retried.",
        when="After a retryable failure (connection error, HTTP 5xx), before waiting `delay` "
        "seconds and trying again.",
        emitter=_PROVIDER_MOD,
        fields=(
            _PROVIDER,
            _MODEL,
            _req("attempt", "int", "The attempt about to start (2 is the first retry)."),
            _req("max_attempts", "int", "Attempts allowed in total."),
            _req("delay", "float", "Seconds the provider waits before the attempt."),
            _req("error", _ERROR_DICT, "`{type, message}` of the failure being retried."),
            _REQUEST_ID,
        ),
    ),
    _event(
        _events.PROVIDER_ERROR,
        "Provider calls",
        summary="A provider call failed for good.",
        when="When a provider call fails after its retries, or its response cannot be read. "
        "The turn ends with the error.",
        emitter=_SESSION,
        fields=(
            _PROVIDER,
            _MODEL,
            _req("error", _ERROR_DICT, "`{type, message}` of the failure."),
            _opt("status_code", "int", "HTTP status of the failed call, when there was one."),
            _REQUEST_ID,
        ),
    ),
    _event(
        _events.PROVIDER_THROTTLE,
        "Provider calls",
        summary="The provider is rate limiting; the call waits.",
        when="When the provider answers with a rate limit (HTTP 429, or 529 overloaded), "
        "before waiting and retrying.",
        emitter=_PROVIDER_MOD,
        fields=(
            _PROVIDER,
            _MODEL,
            _req("status_code", "int", "HTTP status that signalled the limit."),
            _req("retry_after", "float", "Seconds the provider waits (`retry-after` or backoff)."),
            _REQUEST_ID,
        ),
    ),
    _event(
        _events.PROVIDER_TOOL_SEQUENCE_REPAIRED,
        "Provider calls",
        summary="The message history was repaired so the provider accepts it.",
        when="Before a provider request, when a tool call in the history has no result (after "
        "a cancel or crash) and the session adds a synthetic error result for it.",
        emitter=_SESSION,
        fields=(
            _PROVIDER,
            _req("repaired_count", "int", "Number of tool calls repaired."),
            _req(
                "repairs",
                "list[dict[str, str]]",
                "One `{tool_call_id, tool_name}` per call given a synthetic result.",
            ),
        ),
    ),
    _event(
        _events.PROVIDER_RESOLVE,
        "Provider calls",
        summary="The provider and model serving the session were chosen.",
        when="When the session picks its provider and model: at start, and again before a "
        "`provider:switch`.",
        emitter=_SESSION,
        fields=(
            _req(
                "requested", "str | None", "What was asked for (`anthropic/claude-...`), or `None`."
            ),
            _PROVIDER,
            _req("model", "str", "Model chosen."),
            _req("candidates", "list[str]", "Names of the mounted providers."),
        ),
    ),
    _event(
        _events.PROVIDER_SWITCH,
        "Provider calls",
        summary="The session changed model or provider mid-session.",
        when="After the session switches model or provider (a user command, a configured "
        "fallback after provider errors), before the next provider request.",
        emitter=_SESSION,
        fields=(
            _req("old_model", "str", "Model used until now."),
            _req("new_model", "str", "Model used from now on."),
            _req("old_provider", "str", "Provider used until now."),
            _req("new_provider", "str", "Provider used from now on."),
            _req("reason", '"user" | "fallback" | "config"', "Why the switch happened."),
        ),
    ),
    _event(
        _events.LLM_REQUEST,
        "Provider calls",
        summary="The raw request a provider puts on the wire.",
        when="Right before a provider sends a request (HTTP providers: the JSON body; the "
        "scripted provider: the request it replays against).",
        emitter=_SESSION,
        fields=(
            _PROVIDER,
            _MODEL,
            _req("request_id", "str", "Correlation id; `llm:response` echoes it."),
            _req("endpoint", "str", "URL the request goes to (`scripted:` for the scripted one)."),
            _req("request", "dict[str, Any]", "Request body as sent; credentials never appear."),
        ),
    ),
    _event(
        _events.LLM_RESPONSE,
        "Provider calls",
        summary="The raw response a provider received.",
        when="Right after a provider receives a response, before it is parsed.",
        emitter=_SESSION,
        fields=(
            _PROVIDER,
            _MODEL,
            _req("request_id", "str", "Correlation id of the matching `llm:request`."),
            _req("status_code", "int", "HTTP status (200 for the scripted provider)."),
            _req("response", "dict[str, Any]", "Response body as received."),
            _req("duration", "float", "Seconds between request and response."),
        ),
    ),
    # Streaming content ------------------------------------------------------------------
    _event(
        _events.CONTENT_BLOCK_START,
        "Streaming content",
        summary="A content block of a provider response begins.",
        when="For each block of every provider response (text, thinking or tool call), "
        "before the block's deltas.",
        emitter=_SESSION,
        fields=(
            _req("block_type", _BLOCK_TYPE, "Kind of block."),
            _req("block_index", "int", "Position of the block in the response, from 0."),
            _opt("total_blocks", "int", "Number of blocks, when known (non-streamed responses)."),
        ),
    ),
    _event(
        _events.CONTENT_BLOCK_DELTA,
        "Streaming content",
        summary="A piece of a text or tool-call block.",
        when="For each chunk of a `text` or `tool_use` block; a provider that does not "
        "stream sends one delta with the whole block. Thinking blocks use `thinking:delta`.",
        emitter=_SESSION,
        fields=(
            _req("block_type", '"text" | "tool_use"', "Kind of block."),
            _req("block_index", "int", "Position of the block in the response, from 0."),
            _req("delta", "str", "The new text (partial JSON for a `tool_use` block)."),
        ),
    ),
    _event(
        _events.CONTENT_BLOCK_END,
        "Streaming content",
        summary="A content block of a provider response is complete.",
        when="For each block, after its last delta, with the whole block.",
        emitter=_SESSION,
        fields=(
            _req("block_index", "int", "Position of the block in the response, from 0."),
            _req(
                "block",
                "dict[str, Any]",
                "The complete block: `{type: text, text}`, `{type: thinking, thinking}` or "
                "`{type: tool_use, id, name, input}`.",
            ),
            _opt("total_blocks", "int", "Number of blocks, when known (non-streamed responses)."),
            _opt("usage", "dict[str, int]", "`{input_tokens, output_tokens}`, on the last block."),
        ),
    ),
    _event(
        _events.THINKING_DELTA,
        "Streaming content",
        summary="A piece of the model's reasoning.",
        when="For each chunk of a thinking block; a provider that does not stream sends one "
        "delta with the whole block.",
        emitter=_SESSION,
        fields=(
            _req("block_index", "int", "Position of the thinking block in the response."),
            _req("delta", "str", "The new reasoning text."),
        ),
    ),
    _event(
        _events.THINKING_FINAL,
        "Streaming content",
        summary="The model's reasoning for a block is complete.",
        when="For each thinking block, after its last `thinking:delta` and before its "
        "`content_block:end`.",
        emitter=_SESSION,
        fields=(
            _req("block_index", "int", "Position of the thinking block in the response."),
            _req("text", "str", "The whole reasoning text of the block."),
        ),
    ),
    # Tools ------------------------------------------------------------------------------
    _event(
        _events.TOOL_PRE,
        "Tools",
        summary="A tool is about to run: validate, block, rewrite or ask.",
        when="Once per tool call the model asked for, before the tool executes.",
        emitter=_TOOLS,
        fields=_TOOL_FIELDS,
        effects=(
            (
                "deny",
                "the tool does not run; the model receives a failed tool result carrying the "
                "reason",
            ),
            (
                "modify",
                "the tool runs with `tool_input` from the modified data (legacy copies are "
                "not read back)",
            ),
            (
                "ask_user",
                "the approval system asks the user (`approval:required`, then "
                "`approval:granted` or `approval:denied`); a denial acts as `deny`",
            ),
            (
                "inject_context",
                "enters the context after the results of that response's tool calls, so it "
                "never separates a tool call from its result, and reaches the next provider "
                "request",
            ),
        ),
        modifiable=("tool_input",),
    ),
    _event(
        _events.TOOL_POST,
        "Tools",
        summary="A tool returned: inspect or rewrite its result, give feedback.",
        when="After a tool returns normally (its result may still report `success: false`).",
        emitter=_TOOLS,
        fields=(
            *_TOOL_FIELDS,
            _req(
                "tool_result",
                "dict[str, Any]",
                "`{success: bool, output: Any, error: {type, message} | None}`.",
            ),
            _req("result", "dict[str, Any]", "Legacy copy of `tool_result`."),
        ),
        effects=(
            ("modify", "the model sees `tool_result` from the modified data"),
            ("inject_context", _INJECT_NEXT),
        ),
        modifiable=("tool_result",),
    ),
    _event(
        _events.TOOL_ERROR,
        "Tools",
        summary="A tool raised, timed out or does not exist.",
        when="Instead of `tool:post` when the tool raises, runs past its timeout or is not "
        "mounted. The model receives the error as a failed tool result.",
        emitter=_TOOLS,
        fields=(
            *_TOOL_FIELDS,
            _req("error", _ERROR_DICT, "`{type, message}`: exception class name and message."),
        ),
        effects=(("inject_context", _INJECT_NEXT),),
    ),
    # Context ----------------------------------------------------------------------------
    _event(
        _events.CONTEXT_PRE_COMPACT,
        "Context",
        summary="The context is about to be compacted.",
        when="Before the context manager shrinks the conversation because it exceeds its "
        "token budget.",
        emitter=_CONTEXT,
        fields=(
            _req("message_count", "int", "Messages in the context before compaction."),
            _req("tokens", "int", "Estimated tokens before compaction."),
            _req("budget", "int", "Token budget the context must fit in."),
        ),
        effects=(
            (
                "deny",
                "context-simple does not compact this time: the request is sent with the whole "
                "conversation, and the next request asks again (Claude Code's `PreCompact` block)",
            ),
        ),
    ),
    _event(
        _events.CONTEXT_POST_COMPACT,
        "Context",
        summary="The context was compacted.",
        when="Right after compaction, with the state of the new context.",
        emitter=_CONTEXT,
        fields=(
            _req("message_count", "int", "Messages in the context after compaction."),
            _req("tokens", "int", "Estimated tokens after compaction."),
            _req("messages_removed", "int", "Messages dropped or folded into a summary."),
        ),
    ),
    _event(
        _events.CONTEXT_COMPACTION,
        "Context",
        summary="One record of a compaction, before and after.",
        when="Once per compaction, after `context:post_compact`.",
        emitter=_CONTEXT,
        fields=(
            _req("strategy", "str", "How the context was shrunk (`truncate_oldest`, ...)."),
            _req("messages_before", "int", "Messages before compaction."),
            _req("messages_after", "int", "Messages after compaction."),
            _req("tokens_before", "int", "Estimated tokens before compaction."),
            _req("tokens_after", "int", "Estimated tokens after compaction."),
        ),
    ),
    _event(
        _events.CONTEXT_INCLUDE,
        "Context",
        summary="A file's contents were pulled into the context.",
        when="When a file enters the context: the session's instruction files (`AGENTS.md`) "
        "at start, or an `@path` mention in a prompt.",
        emitter=_SESSION,
        fields=(
            _req("path", "str", "File included."),
            _req("source", '"instructions" | "mention"', "Why it was included."),
            _req("size", "int", "Bytes included."),
        ),
    ),
    # Orchestrator -----------------------------------------------------------------------
    _event(
        _events.ORCHESTRATOR_COMPLETE,
        "Orchestrator",
        summary="The agent loop of a turn finished.",
        when="Once per turn, after `prompt:complete` (also when the turn failed or was cancelled).",
        emitter=_SESSION,
        fields=(
            _req("orchestrator", "str", "Name of the agent loop."),
            _req("turn_count", "int", "Loop iterations (provider requests) of the turn."),
            _req("iterations", "int", "Same as `turn_count` (hook contract name)."),
            _req(
                "status",
                '"success" | "incomplete" | "cancelled" | "error"',
                "How the loop ended; `incomplete` when it hit its iteration limit.",
            ),
            _req("duration_ms", "int", "Milliseconds the loop ran."),
            _opt("tokens", "int", "Tokens used by the turn, when the provider reports usage."),
        ),
    ),
    _event(
        _events.EXECUTION_START,
        "Orchestrator",
        summary="The agent loop starts working on a prompt.",
        when="Once per turn, after `prompt:submit` was accepted and before the first "
        "`provider:request`.",
        emitter=_SESSION,
        fields=(
            _req("prompt", "str", "The prompt, after any `modify`."),
            _TURN,
        ),
    ),
    _event(
        _events.EXECUTION_END,
        "Orchestrator",
        summary="The agent loop stopped working on a prompt.",
        when="Once per turn that fired `execution:start`, whatever the outcome.",
        emitter=_SESSION,
        fields=(
            _req("response", "str", "Final assistant text (empty when the turn failed)."),
            _req("status", '"completed" | "cancelled" | "error"', "How the turn ended."),
            _TURN,
        ),
    ),
    # Notifications, artifacts, policy and approvals -------------------------------------
    _event(
        _events.USER_NOTIFICATION,
        "Notifications, artifacts, policy and approvals",
        summary="The session needs the user's attention.",
        when="When the session waits for the user: before an approval prompt is shown (not "
        "when a cached decision answers). Also when the session has a message for the user "
        "outside the transcript.",
        emitter=_SESSION,
        fields=(
            _req("message", "str", "Text for the user."),
            _req("level", '"info" | "warning" | "error"', "Severity."),
            _req("source", "str", "What raised it (`approval`, `session`, a hook name)."),
        ),
    ),
    _event(
        _events.ARTIFACT_WRITE,
        "Notifications, artifacts, policy and approvals",
        summary="A tool wrote a file.",
        when="After `write_file` or `edit_file` changed a file, before `tool:post`.",
        emitter=_TOOLS,
        fields=(
            _req("path", "str", "Absolute path of the file."),
            _req("tool_name", "str", "Tool that wrote it."),
            _req("bytes", "int", "Size of the file after the write."),
            _req("created", "bool", "True when the file did not exist before."),
        ),
    ),
    _event(
        _events.ARTIFACT_READ,
        "Notifications, artifacts, policy and approvals",
        summary="A tool read a file.",
        when="After `read_file` read a file, before `tool:post`.",
        emitter=_TOOLS,
        fields=(
            _req("path", "str", "Absolute path of the file."),
            _req("tool_name", "str", "Tool that read it."),
            _req("bytes", "int", "Bytes read."),
        ),
    ),
    _event(
        _events.POLICY_VIOLATION,
        "Notifications, artifacts, policy and approvals",
        summary="A hook blocked an operation.",
        when="When the combined result of an event's hooks is `deny` (directly, or an "
        "`ask_user` the user denied), after the operation was blocked.",
        emitter=_SESSION,
        fields=(
            _req("event", "str", "Event whose hooks blocked (`tool:pre`, `prompt:submit`)."),
            _req("hook", "str | None", "Handler that denied (`HookResult.source`)."),
            _req("reason", "str", "The deny reason."),
            _req("tool_name", "str | None", "Tool that was blocked, else `None`."),
        ),
    ),
    _event(
        _events.APPROVAL_REQUIRED,
        "Notifications, artifacts, policy and approvals",
        summary="A hook asked for the user's approval.",
        when="When a hook result's `ask_user` reaches the approval system, before the user "
        "is asked (also when a cached decision will answer). A handler may decide instead of "
        "the user: a `deny` result denies, and a result whose `data` holds "
        '`decision: "allow"` grants (with its `tool_input`, when changed).',
        emitter=_APPROVAL,
        fields=(
            *_APPROVAL_FIELDS,
            _req("timeout", "float", "Seconds the user has to answer."),
            _req("default", '"allow" | "deny"', "Decision taken on timeout or error."),
        ),
    ),
    _event(
        _events.APPROVAL_GRANTED,
        "Notifications, artifacts, policy and approvals",
        summary="The operation was approved.",
        when="After the user (or the session's `Allow always` cache, or an `allow` default "
        "on timeout) approved; the operation then proceeds.",
        emitter=_APPROVAL,
        fields=(
            *_APPROVAL_FIELDS,
            _req("decision", "str", "Option chosen (`Allow once`, `Allow always`, `allow`)."),
            _req("cached", "bool", "True when the session cache answered without asking."),
            _req(
                "why",
                '"user" | "cached" | "hook" | "timeout" | "error"',
                "Why: the user chose, the cache answered, an `approval:required` handler "
                "decided (a Claude Code `PermissionRequest` hook), or the `allow` default "
                "applied.",
            ),
        ),
    ),
    _event(
        _events.APPROVAL_DENIED,
        "Notifications, artifacts, policy and approvals",
        summary="The operation was not approved.",
        when="After the user denied, or the request timed out or failed with a `deny` "
        "default, or no approval system is mounted; the operation is then blocked.",
        emitter=_APPROVAL,
        fields=(
            *_APPROVAL_FIELDS,
            _req("decision", "str", "Option chosen (`Deny`), or `deny` for a default."),
            _req("cached", "bool", "Always False: only approvals are remembered."),
            _req("reason", "str", "Who denied and why, as the agent is told."),
            _req(
                "why",
                '"user" | "hook" | "timeout" | "error" | "no_approval_system"',
                "Why: the user chose, an `approval:required` handler decided, the time ran "
                "out, the approval system failed, or none is mounted.",
            ),
        ),
    ),
    # Cancellation -----------------------------------------------------------------------
    _event(
        _events.CANCEL_REQUESTED,
        "Cancellation",
        summary="The user asked to stop the running turn.",
        when="When a cancel arrives (Ctrl-C, an API call) while a turn runs.",
        emitter=_SESSION,
        fields=(
            _req(
                "immediate",
                "bool",
                "True: stop now; False: let running tools finish, then stop.",
            ),
            _req("running_tools", "list[str]", "Names of the tools running at that moment."),
        ),
    ),
    _event(
        _events.CANCEL_COMPLETED,
        "Cancellation",
        summary="A cancel took effect.",
        when="After the turn stopped because of a cancel, before `orchestrator:complete`.",
        emitter=_KERNEL,
        fields=(
            _req("was_immediate", "bool", "True when the turn was stopped at once."),
            _opt("error", "str", "The exception that interrupted the turn, when there was one."),
        ),
    ),
    # Modules ----------------------------------------------------------------------------
    _event(
        _events.MODULE_LOAD_FAILED,
        "Modules",
        summary="A module named in the bundle could not be loaded.",
        when="When a module cannot be found, imported or mounted. A session composed from a "
        "bundle (and `mount_modules`) then stops before its first turn unless the entry says "
        "`optional: true`; the kernel's `AmplifierSession` goes on without a provider, tool or "
        "hook, as amplifier-core 2.0.2 does (in strict mode the loader raises after emitting).",
        emitter=_LOADER,
        fields=(
            _req("module_id", "str", "Module id from the bundle (`hooks-logging`)."),
            _req(
                "entry_point",
                "str | None",
                "Entry point value (`package.module:mount`), or `None` when none was found.",
            ),
            _req("error", "str", "What went wrong, naming the module and the cause."),
            _req("error_type", "str", "Exception class name (`ModuleNotFoundError`, ...)."),
            _req(
                "stage",
                '"discover" | "import" | "mount"',
                "Where it failed: finding the entry point, importing it, or calling `mount`.",
            ),
            _opt("module_type", "str", "Kind of module (`hook`, `tool`, `provider`)."),
        ),
    ),
    _event(
        _events.MODULE_ON_SESSION_READY_FAILED,
        "Modules",
        summary="A module's `on_session_ready` raised.",
        when="When a mounted module's optional `on_session_ready(coordinator)` raises; the "
        "session goes on.",
        emitter=_LOADER,
        fields=(
            _req("module_id", "str", "Module id from the bundle."),
            _req("error", "str", "What went wrong."),
            _req("error_type", "str", "Exception class name."),
        ),
    ),
    # Memory -----------------------------------------------------------------------------
    _event(
        _events.MEMORY_UPDATE,
        "Memory",
        summary="A memory file (`AGENTS.md`, `CLAUDE.md`, `.amplifier/memory/*`) changed.",
        when="When the session sees a memory file created, modified or deleted: after each "
        "tool call that touched the workspace, at the end of each turn, and before each turn "
        "for changes made outside the session (`tool_name` None).",
        emitter=_MEMORY,
        fields=(
            _req("path", "str", "Absolute path of the memory file."),
            _req("change", '"created" | "modified" | "deleted"', "What happened to the file."),
            _req("diff", "str", "Unified diff of the change (truncated for large changes)."),
            _req("added_lines", "int", "Lines added."),
            _req("removed_lines", "int", "Lines removed."),
            _req(
                "tool_name", "str | None", "Tool whose call changed it; `None` if changed outside."
            ),
        ),
    ),
    # Observe mode -----------------------------------------------------------------------
    _event(
        _events.HOOK_OBSERVED,
        "Observe mode",
        summary="A hook in observe mode would have decided something; it was not applied.",
        when="Right after a handler of a module mounted with `observe: true` returned `deny`, "
        "`ask_user`, `modify` or `inject_context` (or failed): the session goes on as if the "
        "module were absent, and this event records what it would have done.",
        emitter=_OBSERVE,
        fields=(
            _req("hook", "str", "Name the handler was registered under."),
            _req("module_id", "str", "Module id from the bundle (`hooks-approval`)."),
            _req(
                "decision",
                '"deny" | "ask_user" | "modify" | "inject_context" | "failed"',
                "What the handler would have done.",
            ),
            _req("reason", "str | None", "The result's reason (a deny's), or the failure."),
            _req("event", "str", "The event the handler was given (`tool:pre`)."),
            _req("event_data", "dict", "The data the handler was given."),
            _opt("tool_name", "str", "Tool of the event, for a tool event."),
            _opt("approval_prompt", "str", "The question an `ask_user` would have asked."),
            _opt("data", "dict", "The data a `modify` would have passed on."),
            _opt("context_injection", "str", "The text an `inject_context` would have added."),
        ),
    ),
)

#: Canonical event name -> its :class:`EventSpec`, in documentation order.
CATALOGUE: Final[Mapping[str, EventSpec]] = MappingProxyType({s.name: s for s in _SPECS})


# ------------------------------------------------------------------------------- lookup


def spec_for(name: str) -> EventSpec:
    """The spec of ``name``: a canonical event name or a PascalCase alias (``PreToolUse``).

    Raises :class:`UnknownEventError` for a name the catalogue does not document, and for a
    pattern (``Error``, ``tool:*``): use :func:`specs_matching` for those.
    """
    resolved = _events.canonical(name)
    spec = CATALOGUE.get(resolved)
    if spec is not None:
        return spec
    if _events.is_pattern(resolved):
        covered = ", ".join(s.name for s in specs_matching(resolved)) or "no event"
        raise UnknownEventError(
            f"{name!r} is a subscription pattern ({resolved}) covering {covered}; "
            "use specs_matching() for patterns"
        )
    close = difflib.get_close_matches(name, [*CATALOGUE, *_events._ALIASES], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UnknownEventError(f"unknown event {name!r}: not in the event catalogue{hint}")


def specs_matching(pattern: str) -> tuple[EventSpec, ...]:
    """Specs of every event a subscription to ``pattern`` receives, in documentation order.

    ``pattern`` may be a name, an alias (``Error`` covers every ``*:error`` event) or an
    fnmatch pattern (``*``, ``tool:*``). Returns an empty tuple when nothing matches.
    """
    resolved = _events.canonical(pattern)
    if not _events.is_pattern(resolved):
        spec = CATALOGUE.get(resolved)
        return (spec,) if spec is not None else ()
    return tuple(s for s in CATALOGUE.values() if fnmatchcase(s.name, resolved))


def validate_event_data(
    name: str, data: Mapping[str, object], *, include_common: bool = True
) -> list[str]:
    """Problems with ``data`` as the payload of event ``name``; an empty list means valid.

    Reports each missing required key, naming the event, the key and its type. Unknown keys
    are allowed. ``include_common=False`` skips ``session_id`` and ``timestamp`` (for data
    checked before the registry adds them). Raises :class:`UnknownEventError` for an event the
    catalogue does not document.
    """
    spec = spec_for(name)
    fields = spec.all_fields if include_common else spec.fields
    return [
        f"{spec.name}: missing required key {f.name!r} ({f.type})"
        for f in fields
        if f.required and f.name not in data
    ]
