"""Data models of the hook contract: :class:`HookResult` and what it carries.

A hook handler is ``async def handler(event: str, data: dict) -> HookResult`` (sync handlers
are accepted too). The result tells the kernel what to do next: ``continue``, ``deny``,
``modify``, ``inject_context`` or ``ask_user``. Names and defaults match amplifier-core 2.x so
that modules written for it run unchanged.

Unknown keyword arguments are rejected: ``HookResult(acton="deny")`` is a typo that would
otherwise silently let an operation through.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

__all__ = [
    "ContextInjection",
    "HookAction",
    "HookResult",
    "MessageLevel",
    "Role",
    "ToolResult",
    "UserMessage",
]

HookAction = Literal["continue", "deny", "modify", "inject_context", "ask_user"]
Role = Literal["system", "user", "assistant"]
MessageLevel = Literal["info", "warning", "error"]


class ContextInjection(BaseModel):
    """One piece of text a hook adds to the agent's context, kept with its source."""

    model_config = ConfigDict(extra="forbid")

    content: str
    role: Role = "system"
    ephemeral: bool = False
    append_to_last_tool_result: bool = False
    hook_name: str = "unknown"
    event: str = ""


class UserMessage(BaseModel):
    """One message for the human (never for the model), kept with its source."""

    model_config = ConfigDict(extra="forbid")

    message: str
    level: MessageLevel = "info"
    source: str = "hook"


class HookResult(BaseModel):
    """What a hook handler asks the kernel to do.

    Actions:
        ``continue``: proceed. ``deny``: block the operation; ``reason`` is shown to the agent
        and the handler chain stops. ``modify``: ``data`` replaces the event data the next
        handler (and the caller) sees. ``inject_context``: ``context_injection`` is added to the
        agent's context. ``ask_user``: the kernel's approval system asks the human.

    ``context_injections`` is the ordered, lossless list of injections; when a handler sets the
    scalar ``context_injection`` the list is derived from it, and when a merged result carries
    several injections the scalar fields are projected from the list for older callers.
    ``user_messages`` does the same for ``user_message``.
    """

    model_config = ConfigDict(extra="forbid")

    action: HookAction = "continue"
    data: dict[str, Any] | None = None
    reason: str | None = None

    # Context injection
    context_injection: str | None = None
    context_injection_role: Role = "system"
    ephemeral: bool = False
    append_to_last_tool_result: bool = False
    context_injections: list[ContextInjection] = Field(default_factory=list)

    # Approval gate
    approval_prompt: str | None = None
    approval_options: list[str] | None = None
    approval_timeout: float = Field(default=300.0, gt=0)
    approval_default: Literal["allow", "deny"] = "deny"

    # Output control
    suppress_output: bool = False
    user_message: str | None = None
    user_message_level: MessageLevel = "info"
    user_message_source: str | None = None
    user_messages: list[UserMessage] = Field(default_factory=list)

    # Provenance: the handler a deny or ask_user came from (set by the registry).
    source: str | None = None

    @field_validator("approval_options")
    @classmethod
    def _options_not_empty(cls, value: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if value is not None and not value:
            raise ValueError(
                "approval_options must name at least one option (or be None for Allow/Deny)"
            )
        return value

    @model_validator(mode="after")
    def _check_and_project(self) -> HookResult:
        if self.context_injection is not None and not self.context_injections:
            self.context_injections = [
                ContextInjection(
                    content=self.context_injection,
                    role=self.context_injection_role,
                    ephemeral=self.ephemeral,
                    append_to_last_tool_result=self.append_to_last_tool_result,
                )
            ]
        elif self.context_injections and self.context_injection is None:
            first = self.context_injections[0]
            self.context_injection = "\n\n".join(i.content for i in self.context_injections)
            self.context_injection_role = first.role
            self.ephemeral = all(i.ephemeral for i in self.context_injections)
            self.append_to_last_tool_result = first.append_to_last_tool_result
        if self.action == "inject_context" and not (
            self.context_injection and self.context_injection.strip()
        ):
            raise ValueError(
                "context_injection: action 'inject_context' needs non-empty context_injection text"
            )
        if self.user_message is not None and not self.user_messages:
            self.user_messages = [
                UserMessage(
                    message=self.user_message,
                    level=self.user_message_level,
                    source=self.user_message_source or "hook",
                )
            ]
        return self


class ToolResult(BaseModel):
    """Outcome of a tool call, as tools and ``tool:post`` hooks see it."""

    model_config = ConfigDict(extra="allow")

    success: bool = True
    output: Any | None = None
    error: dict[str, Any] | None = None

    def __str__(self) -> str:
        if self.success:
            return "" if self.output is None else str(self.output)
        message = (self.error or {}).get("message", "unknown error")
        return f"Error: {message}"
